/**
 * Collections and their filters (docs/API.md): named selections of
 * events, computed in SQL with the same listing rule as the tag endpoint.
 */
import {
  and,
  asc,
  desc,
  eq,
  inArray,
  isNull,
  not,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import {
  apUsers,
  collections,
  events,
  type FilterActor,
  type FilterPlace,
  filters,
} from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import {
  conflict,
  invalidRequest,
  isUniqueViolation,
  notFound,
} from "../errors.ts";
import {
  listUpcomingAndPast,
  type SplitLimits,
  withAnyTagName,
} from "../events/list.ts";
import { cleanTag } from "../events/tags.ts";

/**
 * A filter as written (POST and PUT replace every field: omitted arrays
 * become empty and negate false); the API and the web interface validate
 * with it.
 */
export const filterInputSchema = z.object({
  negate: z.boolean().optional().default(false),
  tags: z.array(z.string().trim().min(1).max(100)).max(50).optional().default(
    [],
  ),
  places: z.array(
    z.object({
      id: z.number().int().positive(),
      name: z.string().max(250).optional().default(""),
    }).strict(),
  ).max(50).optional().default([]),
  actors: z.array(
    z.object({
      ap_id: z.string().url().max(2000).nullable(),
    }).strict(),
  ).max(50).optional().default([]),
  collectionId: z.number().int().positive(),
}).strict();

/** A collection's name: trimmed, 1 to 100 characters. */
const collectionName = z.string().trim().min(1).max(100);
const sortIndex = z.number().int().min(-1_000_000).max(1_000_000);

/** A new collection (the API and the web interface validate with it). */
export const collectionInputSchema = z.object({
  name: collectionName,
  isActive: z.boolean().optional(),
  isTop: z.boolean().optional(),
  sortIndex: sortIndex.optional(),
}).strict();

/** A change to a collection: any of its fields. */
export const collectionPatchSchema = z.object({
  name: collectionName.optional(),
  isActive: z.boolean().optional(),
  isTop: z.boolean().optional(),
  sortIndex: sortIndex.optional(),
}).strict();

export type CollectionRow = typeof collections.$inferSelect;
export type FilterRow = typeof filters.$inferSelect;

/** The Filter shape of the API. */
export function serializeFilter(f: FilterRow) {
  return {
    id: f.id,
    negate: f.negate,
    tags: f.tags,
    places: f.places,
    actors: f.actors,
    collectionId: f.collectionId,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

/** A collection, with its filters when asked for. */
export function serializeCollection(
  c: CollectionRow,
  withFilters?: FilterRow[],
) {
  return {
    id: c.id,
    name: c.name,
    isActive: c.isActive,
    isTop: c.isTop,
    sortIndex: c.sortIndex,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    ...(withFilters ? { filters: withFilters.map(serializeFilter) } : {}),
  };
}

/** Pinned first, then by sort index, then by name. */
const collectionOrder = [
  desc(collections.isTop),
  asc(collections.sortIndex),
  asc(collections.name),
  asc(collections.id),
];

/** Every collection in display order, with filters when `withFilters`. */
export async function listCollections(db: Db, withFilters: boolean) {
  const rows = await db.select().from(collections).orderBy(
    ...collectionOrder,
  );
  if (!withFilters) return rows.map((c) => serializeCollection(c));
  const all = rows.length
    ? await db.select().from(filters).where(
      inArray(filters.collectionId, rows.map((r) => r.id)),
    ).orderBy(asc(filters.id))
    : [];
  return rows.map((c) =>
    serializeCollection(c, all.filter((f) => f.collectionId === c.id))
  );
}

export interface CollectionInput {
  name?: string;
  isActive?: boolean;
  isTop?: boolean;
  sortIndex?: number;
}

/** Creates a collection; 409 when the name is taken. */
export async function createCollection(
  db: Db,
  clock: Clock,
  input: CollectionInput & { name: string },
) {
  const now = clock.now();
  try {
    const [row] = await db.insert(collections).values({
      name: input.name,
      isActive: input.isActive ?? true,
      isTop: input.isTop ?? false,
      sortIndex: input.sortIndex ?? 0,
      createdAt: now,
      updatedAt: now,
    }).returning();
    return serializeCollection(row, []);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("A collection has this name");
    throw err;
  }
}

/** Renames, pins or reorders a collection; 404 unknown, 409 duplicate name. */
export async function updateCollection(
  db: Db,
  clock: Clock,
  id: number,
  input: CollectionInput,
) {
  try {
    const [row] = await db.update(collections).set({
      ...input,
      updatedAt: clock.now(),
    }).where(eq(collections.id, id)).returning();
    if (!row) throw notFound("Collection");
    return serializeCollection(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("A collection has this name");
    throw err;
  }
}

/** Deletes a collection and its filters; 404 unknown. */
export async function deleteCollection(db: Db, id: number): Promise<void> {
  const [, deleted] = await db.batch([
    db.delete(filters).where(eq(filters.collectionId, id)),
    db.delete(collections).where(eq(collections.id, id)).returning({
      id: collections.id,
    }),
  ]);
  if (deleted.length === 0) throw notFound("Collection");
}

/** A collection by id with its filters (oldest first), in one round trip; null when unknown. */
export async function findCollectionById(
  db: Db,
  id: number,
): Promise<{ collection: CollectionRow; filters: FilterRow[] } | null> {
  const [[collection], rows] = await db.batch([
    db.select().from(collections).where(eq(collections.id, id)),
    db.select().from(filters).where(eq(filters.collectionId, id))
      .orderBy(asc(filters.id)),
  ]);
  return collection ? { collection, filters: rows } : null;
}

/** The filters of a collection, oldest first; 404 for an unknown collection. */
export async function listFilters(db: Db, collectionId: number) {
  const [[collection], rows] = await db.batch([
    db.select({ id: collections.id }).from(collections).where(
      eq(collections.id, collectionId),
    ),
    db.select().from(filters).where(eq(filters.collectionId, collectionId))
      .orderBy(asc(filters.id)),
  ]);
  if (!collection) throw notFound("Collection");
  return rows.map(serializeFilter);
}

export interface FilterInput {
  negate: boolean;
  tags: string[];
  places: FilterPlace[];
  actors: FilterActor[];
  collectionId: number;
}

function cleanFilter(input: FilterInput) {
  const seen = new Set<string>();
  const tags = input.tags.map(cleanTag).filter((t) => {
    const key = t.toLowerCase();
    if (!t || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    negate: input.negate,
    tags,
    places: input.places.map((p) => ({ id: p.id, name: p.name })),
    actors: input.actors.map((a) => ({ ap_id: a.ap_id })),
    collectionId: input.collectionId,
  };
}

async function requireCollection(db: Db, id: number): Promise<void> {
  const [row] = await db.select({ id: collections.id }).from(collections)
    .where(eq(collections.id, id));
  if (!row) {
    throw invalidRequest("Unknown collection", [{
      field: "collectionId",
      message: "no collection with this id",
    }]);
  }
}

/** Adds a filter to an existing collection (400 when the collection does not exist). */
export async function createFilter(db: Db, clock: Clock, input: FilterInput) {
  await requireCollection(db, input.collectionId);
  const now = clock.now();
  const [row] = await db.insert(filters).values({
    ...cleanFilter(input),
    createdAt: now,
    updatedAt: now,
  }).returning();
  return serializeFilter(row);
}

/** Replaces every field of a filter, possibly moving it to another collection. */
export async function replaceFilter(
  db: Db,
  clock: Clock,
  id: number,
  input: FilterInput,
) {
  const [existing] = await db.select({ id: filters.id }).from(filters).where(
    eq(filters.id, id),
  );
  if (!existing) throw notFound("Filter");
  await requireCollection(db, input.collectionId);
  const [row] = await db.update(filters).set({
    ...cleanFilter(input),
    updatedAt: clock.now(),
  }).where(eq(filters.id, id)).returning();
  if (!row) throw notFound("Filter");
  return serializeFilter(row);
}

/** Deletes a filter; 404 unknown. */
export async function deleteFilter(db: Db, id: number): Promise<void> {
  const [row] = await db.delete(filters).where(eq(filters.id, id)).returning({
    id: filters.id,
  });
  if (!row) throw notFound("Filter");
}

/** Remote events count only from actors still trusted and not blocked. */
const fromTrustedActor = (ids: string[]) =>
  and(
    inArray(events.apUserApId, ids),
    inArray(
      events.apUserApId,
      sql`(select ${apUsers.ap_id} from ${apUsers} where ${apUsers.trusted} = 1 and ${apUsers.blocked} = 0)`,
    ),
  )!;

/**
 * What one filter matches: its non-empty dimensions AND-ed, values inside a
 * dimension OR-ed; null for a filter with no dimension (it matches nothing).
 */
export function filterCondition(f: FilterRow | FilterInput): SQL | null {
  const parts: SQL[] = [];
  if (f.tags.length) parts.push(withAnyTagName(f.tags));
  if (f.places.length) {
    parts.push(inArray(events.placeId, f.places.map((p) => p.id)));
  }
  if (f.actors.length) {
    const remote = f.actors.flatMap((a) => a.ap_id === null ? [] : [a.ap_id]);
    const local = f.actors.some((a) => a.ap_id === null);
    parts.push(
      or(
        local ? isNull(events.apUserApId) : undefined,
        remote.length ? fromTrustedActor(remote) : undefined,
      )!,
    );
  }
  return parts.length ? and(...parts)! : null;
}

/**
 * The selection of a set of filters: any positive filter, and no negated one.
 * Remote events are in only when a positive filter names their actor; with
 * no positive filter the selection is every local event.
 */
export function selectionCondition(list: (FilterRow | FilterInput)[]): SQL {
  const positive: SQL[] = [];
  const negated: SQL[] = [];
  for (const f of list) {
    const condition = filterCondition(f);
    if (!condition) continue;
    if (f.negate) {
      negated.push(condition);
    } else {
      // Without an actor dimension a filter selects local events only.
      positive.push(
        f.actors.length
          ? condition
          : and(condition, isNull(events.apUserApId))!,
      );
    }
  }
  const include = positive.length
    ? or(...positive)!
    : isNull(events.apUserApId);
  return and(include, ...negated.map((n) => not(sql`coalesce(${n}, 0)`)))!;
}

/** A collection by name with its filters, in one round trip; null when unknown. */
export async function findCollectionWithFilters(
  db: Db,
  name: string,
): Promise<{ collection: CollectionRow; filters: FilterRow[] } | null> {
  const [[collection], rows] = await db.batch([
    db.select().from(collections).where(eq(collections.name, name)),
    db.select().from(filters).where(
      sql`${filters.collectionId} = (select ${collections.id} from ${collections} where ${collections.name} = ${name})`,
    ),
  ]);
  return collection ? { collection, filters: rows } : null;
}

/**
 * `{events, pastEvents}` of a collection by name, with the tag endpoint's
 * listing rule: two round trips (the collection with its filters, then the
 * listing). 404 for an unknown collection.
 */
export async function listCollectionEvents(
  db: Db,
  name: string,
  now: number,
  showRecurrent: boolean,
  limits: SplitLimits,
) {
  const found = await findCollectionWithFilters(db, name);
  if (!found) throw notFound("Collection");
  const conditions: SQL[] = [
    eq(events.is_visible, true),
    isNull(events.recurrent),
    selectionCondition(found.filters),
  ];
  if (!showRecurrent) conditions.push(isNull(events.parentId));
  return await listUpcomingAndPast(db, now, conditions, limits);
}
