/** Reading events into their wire shapes with a fixed number of queries. */
import { and, asc, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  apUsers,
  events,
  eventTags,
  messages,
  places,
  resources,
  tags,
  users,
} from "../../db/schema.ts";
import type { UserRow } from "../users.ts";
import { canEditEvent, canSeeEvent, isModerator } from "./access.ts";
import {
  type EventBundle,
  type EventRow,
  type EventSummary,
  serializeEventFull,
  serializeEventSummary,
} from "./serialize.ts";

/** How many occurrences the full form of a series lists. */
export const CHILDREN_LIMIT = 100;
/** How many resources (replies) the full form lists. */
export const RESOURCES_LIMIT = 100;

/** The event columns a summary is built from (see serializeEventSummary). */
export const summaryColumns = {
  id: events.id,
  slug: events.slug,
  status: events.status,
  title: events.title,
  media: events.media,
  start_datetime: events.start_datetime,
  end_datetime: events.end_datetime,
  placeId: events.placeId,
};

/** What a summary needs of an event row: any wider row will do. */
export type SummaryRow = Pick<EventRow, keyof typeof summaryColumns>;

/** The place columns a summary shows (see serializePlaceSummary). */
const placeSummaryColumns = {
  id: places.id,
  name: places.name,
  address: places.address,
  latitude: places.latitude,
  longitude: places.longitude,
};

/** Summaries of event rows, in their order: two queries whatever the number of rows. */
export async function loadSummaries(
  db: Db,
  rows: SummaryRow[],
): Promise<EventSummary[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const placeIds = [
    ...new Set(rows.map((r) => r.placeId).filter((p) => p !== null)),
  ];
  const [tagRows, placeRows] = await db.batch([
    db.select({ eventId: eventTags.eventId, tag: tags.tag })
      .from(eventTags).innerJoin(tags, eq(tags.id, eventTags.tagId))
      .where(inArray(eventTags.eventId, ids))
      .orderBy(asc(tags.normalizedTag)),
    db.select(placeSummaryColumns).from(places).where(
      inArray(places.id, placeIds.length ? placeIds : [-1]),
    ),
  ]);
  const tagsByEvent = new Map<number, string[]>();
  for (const t of tagRows) {
    const list = tagsByEvent.get(t.eventId) ?? [];
    list.push(t.tag);
    tagsByEvent.set(t.eventId, list);
  }
  const placeById = new Map(placeRows.map((p) => [p.id, p]));
  return rows.map((r) =>
    serializeEventSummary(
      r,
      r.placeId !== null ? placeById.get(r.placeId) : null,
      tagsByEvent.get(r.id) ?? [],
    )
  );
}

/** One event row by id. */
export async function findEvent(
  db: Db,
  id: number,
): Promise<EventRow | undefined> {
  const [row] = await db.select().from(events).where(eq(events.id, id));
  return row;
}

/**
 * The full form of an event as `viewer` may see it, or null when it does not
 * exist or is hidden from the viewer. A fixed number of queries.
 */
export async function loadEventFull(
  db: Db,
  id: number,
  viewer: UserRow | null,
  now: number,
  options: { justCreated?: boolean } = {},
) {
  const event = await findEvent(db, id);
  // An anonymous submitter gets back what they sent, though it is hidden.
  if (!event || (!options.justCreated && !canSeeEvent(viewer, event))) {
    return null;
  }
  const moderator = isModerator(viewer);
  const owner = viewer !== null && event.userId === viewer.id;
  const canSeeHiddenChildren = canEditEvent(viewer, event);
  // Only the statements that can return rows: most events have no parent,
  // no occurrences, no remote actor, and most viewers see no messages.
  const isSeries = event.recurrent !== null && event.parentId === null;
  const optional = <T>(query: T | null) => query;
  const queries = [
    optional(
      event.userId !== null
        ? db.select().from(users).where(eq(users.id, event.userId))
        : null,
    ),
    optional(
      event.placeId !== null
        ? db.select().from(places).where(eq(places.id, event.placeId))
        : null,
    ),
    db.select({ id: tags.id, tag: tags.tag, normalizedTag: tags.normalizedTag })
      .from(eventTags).innerJoin(tags, eq(tags.id, eventTags.tagId))
      .where(eq(eventTags.eventId, event.id)).orderBy(asc(tags.normalizedTag)),
    optional(
      event.parentId !== null
        ? db.select().from(events).where(eq(events.id, event.parentId))
        : null,
    ),
    // The series' next occurrences (ongoing included), soonest first.
    optional(
      isSeries
        ? db.select().from(events).where(
          and(
            eq(events.parentId, event.id),
            sql`coalesce(${events.end_datetime}, ${events.start_datetime}) >= ${now}`,
            canSeeHiddenChildren ? undefined : eq(events.is_visible, true),
          ),
        ).orderBy(asc(events.start_datetime), asc(events.id)).limit(
          CHILDREN_LIMIT,
        )
        : null,
    ),
    optional(
      event.apUserApId !== null
        ? db.select().from(apUsers).where(eq(apUsers.ap_id, event.apUserApId))
        : null,
    ),
    // An event created a moment ago has no messages and no resources yet.
    optional(
      (moderator || owner) && !options.justCreated
        ? db.select().from(messages).where(
          and(
            eq(messages.eventId, event.id),
            moderator ? undefined : eq(messages.is_author_visible, true),
          ),
        ).orderBy(asc(messages.createdAt), asc(messages.id))
        : null,
    ),
    optional(
      options.justCreated ? null : db.select().from(resources).where(
        and(
          eq(resources.eventId, event.id),
          moderator ? undefined : eq(resources.hidden, false),
        ),
      ).orderBy(desc(resources.createdAt), desc(resources.id)).limit(
        RESOURCES_LIMIT,
      ),
    ),
  ] as const;
  const present: unknown[] = queries.filter((q) => q !== null);
  const answers: readonly unknown[] = await db.batch(
    present as unknown as Parameters<Db["batch"]>[0],
  );
  // Each query's rows, or none for a skipped one.
  const rowsOf = <R>(query: unknown): R[] =>
    query === null ? [] : answers[present.indexOf(query)] as R[];
  const userRows = rowsOf<typeof users.$inferSelect>(queries[0]);
  const placeRows = rowsOf<typeof places.$inferSelect>(queries[1]);
  const tagRows = rowsOf<{ id: number; tag: string; normalizedTag: string }>(
    queries[2],
  );
  const parentRows = rowsOf<EventRow>(queries[3]);
  const childRows = rowsOf<EventRow>(queries[4]);
  const apUserRows = rowsOf<typeof apUsers.$inferSelect>(queries[5]);
  const messageRows = rowsOf<typeof messages.$inferSelect>(queries[6]);
  const resourceRows = rowsOf<typeof resources.$inferSelect>(queries[7]);
  const parent = parentRows[0] && canSeeEvent(viewer, parentRows[0])
    ? parentRows[0]
    : null;
  const [parentSummaries, childSummaries] = await Promise.all([
    loadSummaries(db, parent ? [parent] : []),
    loadSummaries(db, childRows),
  ]);
  const bundle: EventBundle = {
    event,
    user: userRows[0] ?? null,
    place: placeRows[0] ?? null,
    tags: tagRows.map((t) => ({
      id: t.id,
      tag: t.tag,
      normalizedTag: t.normalizedTag,
    })),
    parent: parentSummaries[0] ?? null,
    children: childSummaries,
    apUser: apUserRows[0] ?? null,
    messages: messageRows,
    resources: resourceRows,
    fullUser: owner || viewer?.role === "admin",
  };
  return serializeEventFull(bundle);
}

/** An event and, for a series, its occurrences: what one change can touch. */
export async function loadEventFamily(
  db: Db,
  id: number,
  alsoIds: number[] = [],
): Promise<EventRow[]> {
  return await db.select().from(events).where(
    or(
      eq(events.id, id),
      eq(events.parentId, id),
      alsoIds.length ? inArray(events.id, alsoIds) : undefined,
    ),
  );
}
