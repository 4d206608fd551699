/**
 * What the writes of events (local ones, series and remote ones) share: the
 * statements that write places and tags, the reads of taken slugs, the
 * revision count and the retry of a write whose slug lost a race.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type BatchItem, type BatchRead, runRead } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import { events, eventTags, places, tags } from "../../db/schema.ts";
import { isUniqueViolation } from "../errors.ts";
import { refreshStaleSearchRows } from "../search.ts";
import { prebuiltStatements, type Preparable } from "../../db/prebuilt.ts";
import { prebuiltForEvent } from "./refs.ts";

/** iCalendar SEQUENCE: every change of an existing event counts one more revision. */
export const nextSequence = sql`${events.sequence} + 1`;

/**
 * The place an event is to have: none, one by id, or one by name and
 * address (`existingId` when it exists already, else created by the write).
 */
export type PlaceRef =
  | { kind: "none" }
  | { kind: "id"; id: number }
  | {
    kind: "named";
    name: string;
    address: string;
    latitude: number | null;
    longitude: number | null;
    existingId?: number;
  };

/** The value of an event's placeId for `ref` (a named place still to be created: read by name). */
export function placeIdSql(ref: PlaceRef): SQL | number | null {
  if (ref.kind === "none") return null;
  if (ref.kind === "id") return ref.id;
  if (ref.existingId !== undefined) return ref.existingId;
  return sql`(select ${places.id} from ${places} where ${places.name} = ${ref.name} and ${places.address} = ${ref.address})`;
}

/** Statements that create a named place when it does not exist yet. */
export function placeStatements(db: Db, ref: PlaceRef, now: Date): BatchItem[] {
  if (ref.kind !== "named" || ref.existingId !== undefined) return [];
  // Built once (db/prebuilt.ts).
  return prebuiltStatements(db, "placeInsert", () => [
    db.insert(places).values({
      name: sql.placeholder("name"),
      address: sql.placeholder("address"),
      latitude: sql.placeholder("latitude"),
      longitude: sql.placeholder("longitude"),
      createdAt: sql.placeholder("now"),
      updatedAt: sql.placeholder("now"),
    }).onConflictDoNothing(),
  ], {
    name: ref.name,
    address: ref.address,
    latitude: ref.latitude,
    longitude: ref.longitude,
    now,
  });
}

/** Statements that give `eventRef` exactly these tags (creating missing tags). */
export function tagStatements(
  db: Db,
  eventRef: SQL | number,
  list: { tag: string; normalizedTag: string }[],
  replace: boolean,
): BatchItem[] {
  if (!replace && list.length === 0) return [];
  // Built once per number of tags (lib/events/refs.ts).
  const values: Record<string, unknown> = {};
  list.forEach((t, i) => {
    values[`tag${i}`] = t.tag;
    values[`normalized${i}`] = t.normalizedTag;
  });
  return prebuiltForEvent(
    db,
    `tags:${replace}:${list.length}`,
    eventRef,
    (ref, value) => {
      const out: Preparable[] = [];
      if (replace) {
        out.push(
          db.delete(eventTags).where(sql`${eventTags.eventId} = ${ref}`),
        );
      }
      if (list.length > 0) {
        const normalized = list.map((_, i) => value(`normalized${i}`));
        out.push(
          db.insert(tags).values(list.map((_, i) => ({
            tag: value(`tag${i}`) as string,
            normalizedTag: normalized[i] as string,
          }))).onConflictDoNothing(),
        );
        out.push(db.run(sql`
        insert into ${eventTags} (${sql.identifier("eventId")}, ${
          sql.identifier("tagId")
        })
        select ${ref}, ${tags.id} from ${tags}
        where ${tags.normalizedTag} in (${
          sql.join(normalized.map((n) => sql`${n}`), sql`, `)
        })
        on conflict do nothing`) as unknown as Preparable);
      }
      // The search index takes the new tags here, once per event rather
      // than once per tag: see refreshStaleSearchRows.
      out.push(refreshStaleSearchRows(db));
      return out;
    },
    values,
  );
}

/** Drops tags among `tagIds` that no event uses any more. */
export function pruneTagsStatement(db: Db, tagIds: number[]): BatchItem[] {
  if (tagIds.length === 0) return [];
  return [
    db.delete(tags).where(
      and(
        inArray(tags.id, tagIds),
        sql`not exists (select 1 from ${eventTags} where ${eventTags.tagId} = ${tags.id})`,
      ),
    ),
  ];
}

/** The ids of the tags the events `eventIds` have. */
export async function tagIdsOf(db: Db, eventIds: number[]): Promise<number[]> {
  if (eventIds.length === 0) return [];
  const rows = await db.selectDistinct({ tagId: eventTags.tagId }).from(
    eventTags,
  )
    .where(inArray(eventTags.eventId, eventIds));
  return rows.map((r) => r.tagId);
}

/**
 * Slugs taken among `candidates`, or (with `prefix`) equal to the prefix or
 * starting with `prefix-` (the prefix may be an SQL expression: the slug of
 * an event, read in the same statement). The range form is what the unique
 * index on slug serves ("-" + 1 is "."); LIKE cannot use it.
 */
export function takenSlugsQuery(
  db: Db,
  candidates: string[],
  prefix?: string | SQL,
): BatchRead<Set<string>> {
  const byPrefix = (prefix: unknown) =>
    db.select({ slug: events.slug }).from(events).where(
      sql`${events.slug} = ${prefix} or (${events.slug} >= ${prefix} || '-' and ${events.slug} < ${prefix} || '.')`,
    );
  return {
    // A title's prefix, the usual case, is built once (db/prebuilt.ts).
    statements: typeof prefix === "string"
      ? prebuiltStatements(
        db,
        "takenSlugs",
        () => [byPrefix(sql.placeholder("prefix"))],
        { prefix },
      )
      : [
        prefix !== undefined
          ? byPrefix(prefix)
          : db.select({ slug: events.slug }).from(events).where(
            inArray(events.slug, candidates.length ? candidates : [""]),
          ),
      ],
    read(results) {
      return new Set((results[0] as { slug: string }[]).map((r) => r.slug));
    },
  };
}

/** takenSlugsQuery on its own: one round trip. */
export function takenSlugs(db: Db, candidates: string[], prefix?: string) {
  return runRead(db, takenSlugsQuery(db, candidates, prefix));
}

/**
 * A slug held by an event whose title gives none, until the event has an id
 * to be named by (nameByIdStatement).
 */
export function temporarySlug(): string {
  return `tmp-${crypto.randomUUID()}`;
}

export { eventBySlug } from "./refs.ts";

/** Names the event holding the temporary slug `slug` `event-<id>`. */
export function nameByIdStatement(db: Db, slug: string): BatchItem {
  return db.update(events).set({ slug: sql`'event-' || ${events.id}` }).where(
    eq(events.slug, slug),
  );
}

/** Retries a write whose slug lost a race with a concurrent one. */
export async function withSlugRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5 || !isUniqueViolation(err)) throw err;
    }
  }
}
