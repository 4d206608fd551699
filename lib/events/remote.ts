/**
 * Remote events: those received over federation, created or replaced by
 * their `ap_id`, and deleted by id (with purges of local ones too).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import {
  eventMedia,
  events,
  type EventStatus,
  type MediaItem,
  places,
} from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { pruneMediaStatement } from "../media/cleanup.ts";
import { firstFreeSlug, slugBase } from "./slug.ts";
import {
  eventBySlug,
  nameByIdStatement,
  nextSequence,
  placeIdSql,
  type PlaceRef,
  placeStatements,
  pruneTagsStatement,
  tagIdsOf,
  tagStatements,
  takenSlugs,
  temporarySlug,
  withSlugRetry,
} from "./statements.ts";
import { uniqueTags } from "./tags.ts";

/** An event received over federation, already parsed and sanitised. */
export interface RemoteEventInput {
  ap_id: string;
  apUserApId: string;
  title: string;
  description: string;
  start_datetime: number;
  end_datetime: number | null;
  status: EventStatus;
  place: {
    name: string;
    address: string;
    latitude: number | null;
    longitude: number | null;
    postal_address: Record<string, string> | null;
  } | null;
  online_locations: string[];
  tags: string[];
  media: MediaItem[];
  ap_object: unknown;
  ld_signature: unknown;
}

/**
 * Creates or replaces a remote event by its `ap_id` in one batch. The caller
 * has checked that the sender may (its author, trusted and followed).
 */
export async function upsertRemoteEvent(
  deps: { db: Db; clock: Clock },
  input: RemoteEventInput,
): Promise<{ id: number; created: boolean }> {
  const { db, clock } = deps;
  const [current] = await db.select().from(events).where(
    eq(events.ap_id, input.ap_id),
  );
  const place: PlaceRef = input.place
    ? {
      kind: "named",
      name: input.place.name.trim().slice(0, 250),
      address: input.place.address.trim().slice(0, 500),
      latitude: input.place.latitude,
      longitude: input.place.longitude,
    }
    : { kind: "none" };
  if (place.kind === "named") {
    const [row] = await db.select({ id: places.id }).from(places).where(
      and(eq(places.name, place.name), eq(places.address, place.address)),
    );
    place.existingId = row?.id;
  }
  const tagList = uniqueTags(input.tags);
  const fields = {
    title: input.title,
    status: input.status,
    start_datetime: input.start_datetime,
    end_datetime: input.end_datetime,
    description: input.description,
    online_locations: input.online_locations,
    media: input.media,
    ap_object: input.ap_object,
    ld_signature: input.ld_signature ?? null,
    placeId: placeIdSql(place),
  };
  const now = clock.now();
  if (current) {
    const oldTags = await tagIdsOf(db, [current.id]);
    await db.batch([
      ...placeStatements(db, place, now),
      db.update(events).set({
        ...fields,
        sequence: nextSequence,
        updatedAt: now,
      }).where(eq(events.id, current.id)),
      ...tagStatements(db, current.id, tagList, true),
      ...pruneTagsStatement(db, oldTags),
    ] as [BatchItem, ...BatchItem[]]);
    return { id: current.id, created: false };
  }
  return await withSlugRetry(async () => {
    const base = slugBase(input.title);
    const slug = base
      ? firstFreeSlug(base, await takenSlugs(db, [], base))
      : temporarySlug();
    const statements: BatchItem[] = [...placeStatements(db, place, now)];
    const insertAt = statements.length;
    statements.push(
      db.insert(events).values({
        ...fields,
        slug,
        is_visible: true,
        ap_id: input.ap_id,
        apUserApId: input.apUserApId,
        userId: null,
        createdAt: now,
        updatedAt: now,
      }).returning({ id: events.id }),
      ...tagStatements(db, eventBySlug(slug), tagList, false),
    );
    if (!base) statements.push(nameByIdStatement(db, slug));
    const results = await db.batch(statements as [BatchItem, ...BatchItem[]]);
    return {
      id: (results[insertAt] as { id: number }[])[0].id,
      created: true,
    };
  });
}

/** Deletes events by id (remote events, purges) with their tags' clean-up, in one batch. */
export async function deleteEventsById(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const tagIds = await tagIdsOf(db, ids);
  const files = await db.selectDistinct({ name: eventMedia.name })
    .from(eventMedia).where(inArray(eventMedia.eventId, ids));
  await db.batch([
    db.delete(events).where(inArray(events.id, ids)),
    ...pruneTagsStatement(db, tagIds),
    ...pruneMediaStatement(db, files.map((f) => f.name)),
  ] as [BatchItem, ...BatchItem[]]);
}
