/**
 * What the public HTML pages show, read with a fixed number of queries per
 * page (no N+1): one event, and the tag, place and collection listings
 * (the browse pages' are in browse.ts). Only visible events are ever returned.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client.ts";
import { apUsers, events, eventTags, places, tags } from "../../db/schema.ts";
import { listCollectionEvents } from "../curation/collections.ts";
import { ApiError } from "../errors.ts";
import { publicPlace } from "../events/access.ts";
import {
  lastMoment,
  listableConditions,
  listByTagIdQuery,
  listUpcomingAndPastQuery,
  type SplitLimits,
} from "../events/list.ts";
import type { BatchItem } from "../../db/batch.ts";
import { selectAsOne } from "../../db/prebuilt.ts";
import type { EventRow, EventSummary, PlaceRow } from "../events/serialize.ts";
import { normalizeTag } from "../events/tags.ts";
import { type EventOrigin, eventOrigin } from "./links.ts";

/** How many upcoming and past events the tag, place and collection pages list (per page). */
export const LISTING_LIMITS: SplitLimits = { limit: 50, pastLimit: 20 };
/** The deepest page of their upcoming events (500 events; the search goes further). */
export const LISTING_MAX_PAGE = 10;
/** The deepest page of their past events (1,000 events). */
export const LISTING_MAX_PAST_PAGE = 50;

/**
 * Which page of a tag's, place's or collection's listing is asked for: the
 * first (both lists' first pages, `both`), or a later page of one of them.
 */
export interface ListingPage {
  part: "both" | "upcoming" | "past";
  /** 1 for `both`. */
  page: number;
}

/** The first page: the first upcoming and the latest past events. */
export const FIRST_LISTING_PAGE: ListingPage = { part: "both", page: 1 };

/** A page of a listing: its events, and whether more follow in each list. */
export interface PagedListing extends SplitListing, ListingPage {
  moreUpcoming: boolean;
  morePast: boolean;
}

/**
 * What the listing's queries read for `at`: one more than the page in the
 * list it shows (whether more follow), nothing of the other. The upcoming
 * list (running, then starting) is read from its start and cut here: its two
 * halves cannot skip rows together; the past one skips in SQL.
 */
function limitsOf(at: ListingPage): SplitLimits {
  const { limit, pastLimit } = LISTING_LIMITS;
  if (at.part === "both") return { limit: limit + 1, pastLimit: pastLimit + 1 };
  if (at.part === "upcoming") {
    return { limit: at.page * limit + 1, pastLimit: 0 };
  }
  return {
    limit: 0,
    pastLimit: pastLimit + 1,
    pastOffset: (at.page - 1) * pastLimit,
  };
}

/** The page `at` of a listing read with limitsOf(at). */
function listingPageAt(found: SplitListing, at: ListingPage): PagedListing {
  const { limit, pastLimit } = LISTING_LIMITS;
  const skip = at.part === "upcoming" ? (at.page - 1) * limit : 0;
  const upcoming = found.events.slice(skip);
  // Never past the deepest pages (their links would be a 400).
  const upcomingPage = at.part === "upcoming" ? at.page : 1;
  const pastPage = at.part === "past" ? at.page : 1;
  return {
    ...at,
    events: upcoming.slice(0, limit),
    pastEvents: found.pastEvents.slice(0, pastLimit),
    moreUpcoming: upcoming.length > limit && upcomingPage < LISTING_MAX_PAGE,
    morePast: found.pastEvents.length > pastLimit &&
      pastPage < LISTING_MAX_PAST_PAGE,
  };
}

/** How many next dates a series' page lists. */
export const OCCURRENCES_LIMIT = 20;

/** A next date of a series. */
export interface Occurrence {
  slug: string;
  title: string;
  status: EventRow["status"];
  start_datetime: number;
  end_datetime: number | null;
  /** Its place's id and name: a date changed on its own may be elsewhere. */
  placeId: number | null;
  placeName: string | null;
}

/** The series an occurrence belongs to. */
export interface SeriesOf {
  slug: string;
  title: string;
  recurrent: EventRow["recurrent"];
  start_datetime: number;
  end_datetime: number | null;
  /** Whether its page (and its .ics) can be shown. */
  is_visible: boolean;
}

export interface EventPage {
  event: EventRow;
  place: PlaceRow | null;
  /** Tag spellings, by normalised tag. */
  tags: string[];
  /** For a series: its next visible dates. */
  occurrences: Occurrence[];
  /** For an occurrence: its series. */
  series: SeriesOf | null;
  /** For a remote event: where it comes from. */
  origin: EventOrigin | null;
}

/**
 * A visible event by slug with its place, tags and (for a series) next dates,
 * or null: unknown, hidden (unless `hidden`: a moderator's preview), or
 * received from an actor since blocked. One
 * round trip: the statements find the event by its slug themselves.
 */
export async function loadEventPage(
  db: Db,
  slug: string,
  now: number,
  options: { hidden?: boolean } = {},
): Promise<EventPage | null> {
  /** A column of the event, as a scalar subquery. */
  const own = (column: SQLiteColumn) =>
    sql`(select ${column} from ${events} where ${events.slug} = ${slug})`;
  const [eventRows, placeRows, tagRows, childRows, actorRows, parentRows] =
    await selectAsOne<
      [EventRow[], PlaceRow[], { tag: string }[], Occurrence[], {
        blocked: boolean;
        object: unknown;
      }[], SeriesOf[]]
    >(db, [
      db.select().from(events).where(
        options.hidden
          ? eq(events.slug, slug)
          : and(eq(events.slug, slug), eq(events.is_visible, true)),
      ),
      db.select().from(places).where(
        sql`${places.id} = ${own(events.placeId)}`,
      ),
      db.select({ tag: tags.tag }).from(eventTags)
        .innerJoin(tags, eq(tags.id, eventTags.tagId))
        .where(sql`${eventTags.eventId} = ${own(events.id)}`)
        .orderBy(asc(tags.normalizedTag)),
      db.select({
        slug: events.slug,
        title: events.title,
        status: events.status,
        start_datetime: events.start_datetime,
        end_datetime: events.end_datetime,
        placeId: events.placeId,
        placeName: sql<
          string | null
        >`(select ${places.name} from ${places} where ${places.id} = ${events.placeId})`,
      }).from(events).where(
        and(
          // Only a series has occurrences.
          sql`${events.parentId} = (select ${events.id} from ${events} where ${events.slug} = ${slug} and ${events.recurrent} is not null)`,
          options.hidden ? undefined : eq(events.is_visible, true),
          sql`${lastMoment} >= ${now}`,
        ),
      ).orderBy(asc(events.start_datetime), asc(events.id)).limit(
        OCCURRENCES_LIMIT,
      ),
      db.select({ blocked: apUsers.blocked, object: apUsers.object }).from(
        apUsers,
      ).where(
        sql`${apUsers.ap_id} = ${own(events.apUserApId)}`,
      ),
      db.select({
        slug: events.slug,
        title: events.title,
        recurrent: events.recurrent,
        start_datetime: events.start_datetime,
        end_datetime: events.end_datetime,
        is_visible: events.is_visible,
      }).from(events).where(
        sql`${events.id} = ${own(events.parentId)}`,
      ),
    ]);
  const event = eventRows[0];
  if (!event) return null;
  if (actorRows[0]?.blocked) return null;
  return {
    event,
    place: placeRows[0] ?? null,
    tags: tagRows.map((t) => t.tag),
    occurrences: childRows,
    series: parentRows[0] ?? null,
    origin: eventOrigin(event, actorRows[0]?.object ?? null),
  };
}

/** Upcoming (ascending) and past (most recent first) events of a listing. */
export interface SplitListing {
  events: EventSummary[];
  pastEvents: EventSummary[];
}

/**
 * A page of a tag's listing (matched case-insensitively through
 * normalizedTag), with the tag's stored spelling; null when no visible event
 * carries it.
 */
export async function loadTagPage(
  db: Db,
  tag: string,
  now: number,
  showRecurrent: boolean,
  at: ListingPage = FIRST_LISTING_PAGE,
): Promise<(PagedListing & { tag: string }) | null> {
  const key = normalizeTag(tag);
  if (!key) return null;
  // The tag listing's bounded queries, whatever the tag's history, with the
  // tag looked up in the same round trip.
  const listing = listByTagIdQuery(
    db,
    now,
    sql`(select ${tags.id} from ${tags} where ${tags.normalizedTag} = ${key})`,
    showRecurrent,
    limitsOf(at),
  );
  const [rows, ...results] = await selectAsOne<unknown[][]>(db, [
    db.select({ tag: tags.tag }).from(tags).where(eq(tags.normalizedTag, key)),
    ...listing.statements,
  ] as BatchItem[]);
  const row = (rows as { tag: string }[])[0];
  if (!row) return null;
  const found = listing.read(results);
  if (
    at.part === "both" && found.events.length === 0 &&
    found.pastEvents.length === 0
  ) {
    return null;
  }
  return { tag: row.tag, ...listingPageAt(found, at) };
}

/** A public place with a page of its upcoming and past listed events; null for any other id. */
export async function loadPlacePage(
  db: Db,
  id: number,
  now: number,
  showRecurrent: boolean,
  at: ListingPage = FIRST_LISTING_PAGE,
): Promise<(PagedListing & { place: PlaceRow }) | null> {
  const listing = listUpcomingAndPastQuery(
    db,
    now,
    [...listableConditions(showRecurrent), eq(events.placeId, id)],
    limitsOf(at),
  );
  const [placeRows, ...results] = await selectAsOne<unknown[][]>(db, [
    db.select().from(places).where(
      and(eq(places.id, id), publicPlace(places.id)),
    ),
    ...listing.statements,
  ] as BatchItem[]);
  const place = (placeRows as PlaceRow[])[0];
  if (!place) return null;
  return { place, ...listingPageAt(listing.read(results), at) };
}

/** A page of a collection's events by its name (its filters decide); null when unknown. */
export async function loadCollectionPage(
  db: Db,
  name: string,
  now: number,
  showRecurrent: boolean,
  at: ListingPage = FIRST_LISTING_PAGE,
): Promise<(PagedListing & { name: string }) | null> {
  try {
    const listing = await listCollectionEvents(
      db,
      name,
      now,
      showRecurrent,
      limitsOf(at),
    );
    return { name, ...listingPageAt(listing, at) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}
