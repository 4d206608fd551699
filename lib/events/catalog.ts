/** Tags and places as browsable catalogues. */
import { and, asc, desc, eq, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, eventTags, places, tags } from "../../db/schema.ts";
import { notFound } from "../errors.ts";
import { publicPlace } from "./access.ts";
import { lastMoment, listableConditions } from "./list.ts";
import { selectSummaries, summaryOf, type SummaryRow } from "./load.ts";
import { selectAsOne } from "../../db/prebuilt.ts";
import type { PlaceRow } from "./serialize.ts";
import { serializePlace } from "./serialize.ts";
import { normalizeTag } from "./tags.ts";

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Tags matching a search (prefix matches first), most used first. Only
 * listable events count, and a series counts once, so hidden events never
 * reveal their tags.
 */
export async function searchTags(db: Db, search: string, limit: number) {
  const key = likeEscape(normalizeTag(search));
  const uses = sql<
    number
  >`count(distinct coalesce(${events.parentId}, ${events.id}))`;
  const rows = await db.select({
    tag: tags.tag,
    normalizedTag: tags.normalizedTag,
    count: uses,
  }).from(tags)
    .innerJoin(eventTags, eq(eventTags.tagId, tags.id))
    .innerJoin(events, eq(events.id, eventTags.eventId))
    .where(
      and(
        sql`${tags.normalizedTag} like ${`%${key}%`} escape '\\'`,
        ...listableConditions(true),
      ),
    )
    .groupBy(tags.id)
    .orderBy(
      sql`${tags.normalizedTag} like ${`${key}%`} escape '\\' desc`,
      desc(uses),
      asc(tags.normalizedTag),
    )
    .limit(limit);
  return rows;
}

/**
 * Public places (publicPlace) whose name or address matches, by name; with
 * `every`, all places (the forms of editors and admins).
 */
export async function searchPlaces(
  db: Db,
  search: string,
  limit: number,
  { every = false }: { every?: boolean } = {},
) {
  const pattern = `%${likeEscape(search.trim())}%`;
  const rows = await db.select().from(places).where(
    and(
      search.trim()
        ? or(
          sql`${places.name} like ${pattern} escape '\\'`,
          sql`${places.address} like ${pattern} escape '\\'`,
        )
        : undefined,
      every ? undefined : publicPlace(places.id),
    ),
  ).orderBy(asc(places.name), asc(places.id)).limit(limit);
  return rows.map(serializePlace);
}

/** A public place with its upcoming listable events (bounded): one round trip. */
export async function getPlaceWithEvents(
  db: Db,
  id: number,
  now: number,
  limit: number,
) {
  const [[place], rows] = await selectAsOne<[PlaceRow[], SummaryRow[]]>(db, [
    db.select().from(places).where(
      and(eq(places.id, id), publicPlace(places.id)),
    ),
    selectSummaries(db).where(
      and(
        ...listableConditions(true),
        eq(events.placeId, id),
        sql`${lastMoment} >= ${now}`,
      ),
    ).orderBy(asc(events.start_datetime), asc(events.id)).limit(limit),
  ]);
  if (!place) throw notFound("Place");
  return { ...serializePlace(place), events: rows.map(summaryOf) };
}

/**
 * The public place a form names by its name alone (any case), when exactly
 * one has that name; otherwise undefined (a new place is made, or the one
 * with that name and no address).
 */
export async function placeIdByName(
  db: Db,
  name: string,
): Promise<number | undefined> {
  const rows = await db.select({ id: places.id }).from(places)
    .where(
      and(
        sql`${places.name} = ${name.trim()} collate nocase`,
        publicPlace(places.id),
      ),
    ).limit(2);
  return rows.length === 1 ? rows[0].id : undefined;
}
