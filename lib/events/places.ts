/**
 * Editing and merging places (editors and admins). A place's name, address
 * and coordinates are part of each event held there (its page, feeds,
 * ActivityPub object), so both writes are event writes too: the events'
 * sequence moves on and each local series or event whose place changed
 * queues its federation (an Update) in the same batch as the change.
 */
import { and, asc, count, eq, inArray, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import { events, filters, places, sources } from "../../db/schema.ts";
import type { FilterPlace } from "../../db/schema/collections.ts";
import {
  conflict,
  invalidRequest,
  isUniqueViolation,
  notFound,
} from "../errors.ts";
import {
  commitWithFamilies,
  familiesWhere,
  type FamilyChange,
} from "./bulk.ts";
import type { WriteDeps } from "./commit.ts";
import { type PlaceRow, serializePlace } from "./serialize.ts";

/** What a place's name, address and coordinates are replaced with. */
export interface PlaceInput {
  name: string;
  address?: string;
  latitude?: number | null;
  longitude?: number | null;
}

/** The place after a write, and the changes of the events held there. */
export interface PlaceWriteResult {
  place: ReturnType<typeof serializePlace>;
  changes: FamilyChange[];
}

/** Most places a merge takes at once. */
export const MAX_MERGED_PLACES = 50;

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A place as the places page lists it: the place and how many events (any state) it holds. */
export interface PlaceListItem {
  place: PlaceRow;
  events: number;
}

/**
 * One page of every place (hidden events' too), by name, with the count of
 * events held there; with `search`, those whose name or address contains it.
 */
export async function listPlaces(
  db: Db,
  search: string,
  page: number,
  pageSize: number,
): Promise<{ data: PlaceListItem[]; count: number; totalPages: number }> {
  const pattern = `%${likeEscape(search.trim())}%`;
  const where = search.trim()
    ? or(
      sql`${places.name} like ${pattern} escape '\\'`,
      sql`${places.address} like ${pattern} escape '\\'`,
    )
    : undefined;
  const held = sql<
    number
  >`(select count(*) from ${events} where ${events.placeId} = ${places.id})`;
  const [rows, [{ total }]] = await db.batch([
    db.select({ place: places, events: held }).from(places).where(where)
      .orderBy(asc(places.name), asc(places.id)).limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(places).where(where),
  ]);
  return {
    data: rows as PlaceListItem[],
    count: total,
    totalPages: Math.ceil(total / pageSize),
  };
}

/** A place by id, any place (the editors' pages); undefined when unknown. */
export async function findPlace(
  db: Db,
  id: number,
): Promise<PlaceRow | undefined> {
  const [row] = await db.select().from(places).where(eq(places.id, id));
  return row;
}

/** How many events (any state) the place `id` holds. */
export async function countPlaceEvents(db: Db, id: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(events).where(
    eq(events.placeId, id),
  );
  return n;
}

/** The events of the places `ids` change: their sequence and updatedAt move on. */
function touchEvents(deps: WriteDeps, ids: number[]) {
  return deps.db.update(events).set({
    sequence: sql`${events.sequence} + 1`,
    updatedAt: deps.clock.now(),
  }).where(inArray(events.placeId, ids));
}

/**
 * Replaces a place's name, address and coordinates (editors and admins):
 * 404 for an unknown place, 409 when another place has that name and
 * address. The events held there change with it (see the module's comment).
 */
export async function editPlace(
  deps: WriteDeps,
  id: number,
  input: PlaceInput,
): Promise<PlaceWriteResult> {
  const { db } = deps;
  const name = input.name.trim();
  const address = (input.address ?? "").trim();
  // An unknown place is a 404 even when its new name and address are taken.
  const current = await findPlace(db, id);
  if (!current) throw notFound("Place");
  const [other] = await db.select({ id: places.id }).from(places).where(
    and(eq(places.name, name), eq(places.address, address), ne(places.id, id)),
  );
  if (other) throw conflict("Another place has this name and address");
  const families = await familiesWhere(db, eq(events.placeId, id));
  try {
    // One batch: a place taken meanwhile (a unique violation) writes nothing.
    const { results, changes } = await commitWithFamilies(deps, [
      db.update(places).set({
        name,
        address,
        latitude: input.latitude ?? null,
        longitude: input.longitude ?? null,
        updatedAt: deps.clock.now(),
      }).where(eq(places.id, id)).returning(),
      touchEvents(deps, [id]),
    ], families);
    const [row] = results[0] as PlaceRow[];
    if (!row) throw notFound("Place");
    return { place: serializePlace(row), changes };
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw conflict("Another place has this name and address");
    }
    throw err;
  }
}

/**
 * Merges the places `mergedIds` into `keepId` (editors and admins): their
 * events, collection filters and calendar subscriptions move to the kept
 * place and they are deleted, all in one batch. 400 when the kept place is
 * among them or no place is named, 404 when any of them is unknown.
 */
export async function mergePlaces(
  deps: WriteDeps,
  keepId: number,
  mergedIds: number[],
): Promise<PlaceWriteResult> {
  const { db } = deps;
  const merged = [...new Set(mergedIds)];
  if (merged.length === 0 || merged.length > MAX_MERGED_PLACES) {
    throw invalidRequest("The request is not valid", [{
      field: "places",
      message: `must name 1 to ${MAX_MERGED_PLACES} places`,
    }]);
  }
  if (merged.includes(keepId)) {
    throw invalidRequest("The request is not valid", [{
      field: "places",
      message: "must not include the place kept",
    }]);
  }
  const found = await db.select({ id: places.id }).from(places).where(
    inArray(places.id, [keepId, ...merged]),
  );
  if (found.length !== merged.length + 1) throw notFound("Place");
  const families = await familiesWhere(db, inArray(events.placeId, merged));
  // Collection filters name places in JSON: those naming a merged place
  // name the kept one instead (once).
  const kept = (await findPlace(db, keepId))!;
  const filterRows = await db.select({ id: filters.id, places: filters.places })
    .from(filters);
  const filterUpdates: BatchItem[] = [];
  for (const f of filterRows) {
    if (!f.places.some((p) => merged.includes(p.id))) continue;
    const next: FilterPlace[] = [];
    for (const p of f.places) {
      const place = merged.includes(p.id) || p.id === keepId
        ? { id: keepId, name: kept.name }
        : p;
      if (!next.some((n) => n.id === place.id)) next.push(place);
    }
    filterUpdates.push(
      db.update(filters).set({ places: next }).where(eq(filters.id, f.id)),
    );
  }
  const { changes } = await commitWithFamilies(deps, [
    touchEvents(deps, merged),
    db.update(events).set({ placeId: keepId }).where(
      inArray(events.placeId, merged),
    ),
    db.update(sources).set({ default_place_id: keepId }).where(
      inArray(sources.default_place_id, merged),
    ),
    ...filterUpdates,
    db.delete(places).where(inArray(places.id, merged)),
  ], families);
  return { place: serializePlace((await findPlace(db, keepId))!), changes };
}
