/** Reading events into their wire shapes with a fixed number of queries. */
import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
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
import { type Placeholder, prebuiltStatements } from "../prebuilt.ts";
import type { UserRow } from "../users.ts";
import { canSeeEvent, isModerator } from "./access.ts";
import {
  type ApUserRow,
  type EventFull,
  type EventRow,
  type EventSummary,
  type MessageRow,
  type PlaceRow,
  type ResourceRow,
  serializeEventFull,
  serializeEventSummary,
  type TagRow,
} from "./serialize.ts";

/** How many occurrences the full form of a series lists. */
export const CHILDREN_LIMIT = 100;
/** How many resources (replies) the full form lists. */
export const RESOURCES_LIMIT = 100;

/** The event columns a summary is built from (see serializeEventSummary). */
export const eventSummaryColumns = {
  id: events.id,
  slug: events.slug,
  status: events.status,
  title: events.title,
  media: events.media,
  start_datetime: events.start_datetime,
  end_datetime: events.end_datetime,
  placeId: events.placeId,
};

/** What loadSummaries needs of an event row: any wider row will do. */
export type EventSummaryRow = Pick<EventRow, keyof typeof eventSummaryColumns>;

/** The place columns a summary shows (see serializePlaceSummary). */
const placeSummaryColumns = {
  id: places.id,
  name: places.name,
  address: places.address,
  latitude: places.latitude,
  longitude: places.longitude,
};

/**
 * The tag spellings of an event (given by its id column) as a JSON array in
 * normalizedTag order, computed in the statement that reads the event (a
 * correlated subquery on the event_tags primary key). The ordered aggregate
 * needs SQLite 3.44 (libSQL, embedded or sqld/Turso, is 3.45); it costs less
 * than a separate query of the rows' tags.
 */
export function tagListOf(eventId: SQL | SQLiteColumn): SQL<string> {
  return sql<string>`(select json_group_array(t.${
    sql.identifier("tag")
  } order by t.${
    sql.identifier("normalizedTag")
  }) from ${eventTags} et join ${tags} t on t.${sql.identifier("id")} = et.${
    sql.identifier("tagId")
  } where et.${sql.identifier("eventId")} = ${eventId})`;
}

const tagListSql = tagListOf(events.id);

/**
 * Everything a summary shows, read in one statement: the event's columns,
 * its place's (a left join on places, see selectSummaries) and its tags.
 * Lists built from these rows need no second query for places and tags.
 */
export const summaryColumns = {
  ...eventSummaryColumns,
  placeName: places.name,
  placeAddress: places.address,
  placeLatitude: places.latitude,
  placeLongitude: places.longitude,
  tagList: tagListSql,
};

/** A row read with summaryColumns. */
export interface SummaryRow extends EventSummaryRow {
  placeName: string | null;
  placeAddress: string | null;
  placeLatitude: number | null;
  placeLongitude: number | null;
  tagList: string;
}

/** Events with summaryColumns: a dynamic select, their place joined. */
export function selectSummaries(db: Db) {
  return db.select(summaryColumns).from(events)
    .leftJoin(places, eq(places.id, events.placeId)).$dynamic();
}

/** The summary of a row read with summaryColumns (no query). */
export function summaryOf(row: SummaryRow): EventSummary {
  return serializeEventSummary(
    row,
    row.placeId !== null && row.placeName !== null
      ? {
        id: row.placeId,
        name: row.placeName,
        address: row.placeAddress ?? "",
        latitude: row.placeLatitude,
        longitude: row.placeLongitude,
      }
      : null,
    JSON.parse(row.tagList) as string[],
  );
}

/** Summaries of event rows, in their order: two queries whatever the number of rows. */
export async function loadSummaries(
  db: Db,
  rows: EventSummaryRow[],
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

/** A statement of a batch. */
export type BatchItem = Parameters<Db["batch"]>[0][number];

/**
 * Statements that read something in a batch, and what makes the answer of
 * their results (in the same order).
 */
export interface BatchRead<T> {
  statements: BatchItem[];
  read(results: readonly unknown[]): T;
}

/** Runs a BatchRead as one batch: one round trip (none without statements). */
export async function runRead<T>(db: Db, query: BatchRead<T>): Promise<T> {
  if (query.statements.length === 0) return query.read([]);
  return query.read(
    await db.batch(query.statements as [BatchItem, ...BatchItem[]]),
  );
}

type ReadResults<T extends readonly BatchRead<unknown>[]> = {
  [K in keyof T]: T[K] extends BatchRead<infer R> ? R : never;
};

/** Several reads as one: their statements in one batch, their answers in order. */
export function allReads<T extends readonly BatchRead<unknown>[]>(
  ...reads: T
): BatchRead<ReadResults<T>> {
  return {
    statements: reads.flatMap((r) => r.statements),
    read(results) {
      let at = 0;
      return reads.map((r) => {
        const mine = results.slice(at, at + r.statements.length);
        at += r.statements.length;
        return r.read(mine);
      }) as ReadResults<T>;
    },
  };
}

/** An event named in a statement: its id, or an SQL expression giving it. */
export type EventRef = SQL | number;

/** The summary of an event (null when it does not exist): one statement. */
export function summaryQuery(
  db: Db,
  ref: EventRef,
): BatchRead<EventSummary | null> {
  return {
    statements: [selectSummaries(db).where(sql`${events.id} = ${ref}`)],
    read(results) {
      const [row] = results[0] as SummaryRow[];
      return row ? summaryOf(row) : null;
    },
  };
}

/** What the statements of an event's full form depend on, besides values. */
interface FullShape {
  moderator: boolean;
  signedIn: boolean;
  justCreated: boolean;
}

/** A value of a statement: given, an SQL expression, or a placeholder. */
type Value = SQL | number | null | Placeholder;

/**
 * The statements of an event's full form (see eventFullQuery), the event
 * named by `ref`, for a viewer `viewerId` (null: anonymous) at `now`.
 */
function eventFullStatements(
  db: Db,
  ref: Value,
  viewerId: Value,
  now: Value,
  shape: FullShape,
) {
  const idIs = (column: SQLiteColumn) => sql`${column} = ${ref}`;
  /** A column of the event, as a scalar subquery. */
  const own = (column: SQLiteColumn) =>
    sql`(select ${column} from ${events} where ${events.id} = ${ref})`;
  const mayEdit = (): SQL | undefined =>
    shape.moderator
      ? undefined
      : shape.signedIn
      ? sql`(${events.is_visible} = 1 or ${own(events.userId)} = ${viewerId})`
      : eq(events.is_visible, true);
  const statements = [
    // The event with its owner, place and remote actor: one statement.
    db.select({ event: events, user: users, place: places, apUser: apUsers })
      .from(events)
      .leftJoin(users, eq(users.id, events.userId))
      .leftJoin(places, eq(places.id, events.placeId))
      .leftJoin(apUsers, eq(apUsers.ap_id, events.apUserApId))
      .where(idIs(events.id)),
    db.select({ id: tags.id, tag: tags.tag, normalizedTag: tags.normalizedTag })
      .from(eventTags).innerJoin(tags, eq(tags.id, eventTags.tagId))
      .where(idIs(eventTags.eventId)).orderBy(asc(tags.normalizedTag)),
    db.select({
      ...summaryColumns,
      userId: events.userId,
      is_visible: events.is_visible,
    }).from(events).leftJoin(places, eq(places.id, events.placeId))
      .where(sql`${events.id} = ${own(events.parentId)}`),
    // The series' next occurrences (ongoing included), soonest first; hidden
    // ones for those who may edit the series. Only a series has any.
    selectSummaries(db).where(
      and(
        idIs(events.parentId),
        sql`coalesce(${events.end_datetime}, ${events.start_datetime}) >= ${now}`,
        mayEdit(),
      ),
    ).orderBy(asc(events.start_datetime), asc(events.id)).limit(
      CHILDREN_LIMIT,
    ),
  ];
  const withMessages = shape.signedIn && !shape.justCreated;
  const more = [];
  if (withMessages) {
    more.push(
      db.select().from(messages).where(
        and(
          idIs(messages.eventId),
          shape.moderator ? undefined : and(
            eq(messages.is_author_visible, true),
            sql`${own(events.userId)} = ${viewerId}`,
          ),
        ),
      ).orderBy(asc(messages.createdAt), asc(messages.id)),
    );
  }
  if (!shape.justCreated) {
    more.push(
      db.select().from(resources).where(
        and(
          idIs(resources.eventId),
          shape.moderator ? undefined : eq(resources.hidden, false),
        ),
      ).orderBy(desc(resources.createdAt), desc(resources.id)).limit(
        RESOURCES_LIMIT,
      ),
    );
  }
  return [...statements, ...more];
}

/**
 * The full form of an event as `viewer` may see it, or null when it does not
 * exist or is hidden from the viewer: one batch of statements that name the
 * event by `ref` (its id, or an SQL expression giving it, such as a lookup by
 * slug inside the batch that creates it), so that it can end a write's batch
 * and read what the write did. Statements that depend on the event's own
 * columns (owner, place, parent, actor) read them through a subquery.
 */
export function eventFullQuery(
  db: Db,
  ref: SQL | number,
  viewer: UserRow | null,
  now: number,
  options: { justCreated?: boolean } = {},
): BatchRead<EventFull | null> {
  const moderator = isModerator(viewer);
  // Messages: all for moderators, those marked visible for the owner. An
  // event created a moment ago has no messages and no resources yet.
  const withMessages = viewer !== null && !options.justCreated;
  const shape: FullShape = {
    moderator,
    signedIn: viewer !== null,
    justCreated: options.justCreated ?? false,
  };
  // By id, the usual case, the statements are built once (lib/prebuilt.ts).
  const statements = typeof ref === "number"
    ? prebuiltStatements(
      db,
      `eventFull:${shape.moderator}:${shape.signedIn}:${shape.justCreated}`,
      () =>
        eventFullStatements(
          db,
          sql.placeholder("ref"),
          sql.placeholder("viewer"),
          sql.placeholder("now"),
          shape,
        ),
      { ref, viewer: viewer?.id ?? null, now },
    )
    : eventFullStatements(db, ref, viewer?.id ?? null, now, shape);
  return {
    statements,
    read(results) {
      const [mainRows, tagRows, parentRows, childRows] = results as [
        {
          event: EventRow;
          user: UserRow | null;
          place: PlaceRow | null;
          apUser: ApUserRow | null;
        }[],
        TagRow[],
        (SummaryRow & Pick<EventRow, "userId" | "is_visible">)[],
        SummaryRow[],
      ];
      const main = mainRows[0];
      const event = main?.event;
      // An anonymous submitter gets back what they sent, though it is hidden.
      if (!event || (!options.justCreated && !canSeeEvent(viewer, event))) {
        return null;
      }
      const rest = results.slice(4) as unknown[][];
      const messageRows = (withMessages ? rest.shift() : []) as MessageRow[];
      const resourceRows =
        (options.justCreated ? [] : rest.shift()) as ResourceRow[];
      const owner = viewer !== null && event.userId === viewer.id;
      const parent = parentRows[0] && canSeeEvent(viewer, parentRows[0])
        ? summaryOf(parentRows[0])
        : null;
      return serializeEventFull({
        event,
        user: main.user,
        place: main.place,
        tags: tagRows,
        parent,
        children: childRows.map(summaryOf),
        apUser: main.apUser,
        messages: messageRows,
        resources: resourceRows,
        fullUser: owner || viewer?.role === "admin",
      });
    },
  };
}

/**
 * The full form of an event as `viewer` may see it, or null when it does not
 * exist or is hidden from the viewer. One round trip.
 */
export function loadEventFull(
  db: Db,
  id: number,
  viewer: UserRow | null,
  now: number,
  options: { justCreated?: boolean } = {},
): Promise<EventFull | null> {
  return runRead(db, eventFullQuery(db, id, viewer, now, options));
}
