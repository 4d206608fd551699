/**
 * What a feed contains: a scope (the instance, a tag, a place, a collection),
 * bounded to upcoming events plus a window of recent ones, with a fixed
 * number of queries whatever the size of the table. Each part is a BatchRead,
 * so that a feed is read in one round trip (a collection's takes one more,
 * for its filters): places and tags come with the rows (summaryColumns), and
 * a series' occurrences carry what their entries need (calendar.ts; the
 * rows' shapes are in rows.ts).
 */
import { and, eq, inArray, isNull, max, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, places, settings, tags } from "../../db/schema.ts";
import {
  findCollectionWithFilters,
  selectionCondition,
} from "../curation/collections.ts";
import { publicPlace } from "../events/access.ts";
import { invalidRequest, notFound } from "../errors.ts";
import { lastMoment, splitRowsQuery, withAnyTagName } from "../events/list.ts";
import { narrowingConditions } from "../events/search.ts";
import {
  type EventFilter,
  filterQuery,
  filterWindow,
  withQuery,
} from "../events/filter.ts";
import type { BatchRead } from "../../db/batch.ts";
import { normalizeTag } from "../events/tags.ts";
import {
  asFeedEvents,
  type FeedEvent,
  type FeedRow,
  feedRows,
} from "./rows.ts";

/** At most this many upcoming entries (and as many recent ones, and series). */
export const FEED_LIMIT = 200;
/** The window of recent events, in days: default and maximum. */
export const DEFAULT_PAST_DAYS = 30;
export const MAX_PAST_DAYS = 365;

export type ScopeKind = "instance" | "tag" | "place" | "collection" | "filter";

/** A resolved scope: what it selects, and how to name it. */
export interface FeedScope {
  kind: ScopeKind;
  /** Conditions on an event row beyond "visible". */
  conditions: SQL[];
  /** The tag's stored spelling, the place's or the collection's name. */
  label: string | null;
  /** Path below `/feed/{format}` ("" for the instance). */
  path: string;
  /** The feed's filter as a canonical query string (without `?`), if any. */
  query?: string;
  /** Path of the matching public page. */
  pagePath: string;
  /** Rows whose updatedAt count for Last-Modified besides the events. */
  modifiedAt: Date[];
}

/**
 * A scope whose conditions are known and whose name (and existence) come
 * from statements run in the feed's batch.
 */
export interface ScopeQuery extends BatchRead<FeedScope> {
  conditions: SQL[];
}

/** Scope of the instance feed: local events only. */
export function instanceScope(): FeedScope {
  return {
    kind: "instance",
    conditions: [isNull(events.apUserApId)],
    label: null,
    path: "",
    pagePath: "/",
    modifiedAt: [],
  };
}

/** A scope known already, as a ScopeQuery with nothing to read. */
export function knownScope(scope: FeedScope): ScopeQuery {
  return { conditions: scope.conditions, statements: [], read: () => scope };
}

/** Scope of a tag (case-insensitive); an unknown tag is an empty feed. */
export function tagScopeQuery(db: Db, tag: string): ScopeQuery {
  const conditions = [isNull(events.apUserApId), withAnyTagName([tag])];
  return {
    conditions,
    statements: [
      db.select({ tag: tags.tag }).from(tags).where(
        eq(tags.normalizedTag, normalizeTag(tag)),
      ),
    ],
    read(results) {
      const [row] = results[0] as { tag: string }[];
      const label = row?.tag ?? tag.trim();
      return {
        kind: "tag",
        conditions,
        label,
        path: `/tag/${encodeURIComponent(label)}`,
        pagePath: `/tag/${encodeURIComponent(label)}`,
        modifiedAt: [],
      };
    },
  };
}

/** Scope of a place; 404 (when read) when it does not exist or is not public. */
export function placeScopeQuery(db: Db, id: number): ScopeQuery {
  const conditions = [isNull(events.apUserApId), eq(events.placeId, id)];
  return {
    conditions,
    statements: [
      db.select().from(places).where(
        and(eq(places.id, id), publicPlace(places.id)),
      ),
    ],
    read(results) {
      const [place] = results[0] as (typeof places.$inferSelect)[];
      if (!place) throw notFound("Place");
      return {
        kind: "place",
        conditions,
        label: place.name,
        path: `/place/${id}`,
        pagePath: `/place/${id}`,
        modifiedAt: [place.updatedAt],
      };
    },
  };
}

/** A filter in words, for a feed's title: `"jazz" · #rock · Cantina · 2026-06-01 – 2026-06-30 · online`. */
export function filterLabel(
  filter: EventFilter,
  placeNames: Map<number, string>,
): string {
  const parts: string[] = [];
  if (filter.q !== undefined) parts.push(`"${filter.q}"`);
  parts.push(...filter.tags.map((t) => `#${t}`));
  parts.push(...filter.places.map((id) => placeNames.get(id) ?? `${id}`));
  if (filter.from || filter.to) {
    parts.push(`${filter.from ?? "…"} – ${filter.to ?? "…"}`);
  }
  if (filter.online !== undefined) {
    parts.push(filter.online ? "online" : "in person");
  }
  return parts.join(" · ");
}

/**
 * Scope of the instance feed narrowed by a visitor's filter (the search
 * page's, lib/events/filter.ts; its days in `timeZone`). With a range of
 * days a series is given as its occurrences (its rule would go on past the
 * range). Unknown places are a 400 when read (the feed of a mistyped place
 * would stay empty for ever). The filter must be free of problems.
 */
export function filteredScopeQuery(
  db: Db,
  filter: EventFilter,
  timeZone: string,
): ScopeQuery {
  const window = filterWindow(filter, timeZone);
  const conditions = [
    isNull(events.apUserApId),
    ...narrowingConditions({
      end: window.end,
      tags: filter.tags,
      places: filter.places,
      query: filter.q,
      online: filter.online,
    }),
  ];
  if (filter.from || filter.to) conditions.push(isNull(events.recurrent));
  const placeIds = filter.places;
  const query = filterQuery(filter);
  return {
    conditions,
    statements: placeIds.length === 0 ? [] : [
      db.select({
        id: places.id,
        name: places.name,
        updatedAt: places.updatedAt,
      }).from(places).where(
        and(inArray(places.id, placeIds), publicPlace(places.id)),
      ),
    ],
    read(results) {
      const found = placeIds.length === 0
        ? []
        : results[0] as { id: number; name: string; updatedAt: Date }[];
      if (found.length !== placeIds.length) {
        const known = new Set(found.map((p) => p.id));
        throw invalidRequest("The request is not valid", [{
          field: "places",
          message: `unknown place ${
            placeIds.filter((id) => !known.has(id)).join(", ")
          }`,
        }]);
      }
      return {
        kind: "filter",
        conditions,
        label: filterLabel(filter, new Map(found.map((p) => [p.id, p.name]))),
        path: "",
        query,
        pagePath: withQuery("/search", query),
        modifiedAt: found.map((p) => p.updatedAt),
      };
    },
  };
}

/**
 * Scope of a collection by name (its filters' selection); 404 when unknown.
 * One round trip: the filters decide the conditions of the feed's queries.
 */
export async function collectionScope(
  db: Db,
  name: string,
): Promise<FeedScope> {
  const found = await findCollectionWithFilters(db, name);
  if (!found) throw notFound("Collection");
  const { collection, filters: rows } = found;
  return {
    kind: "collection",
    conditions: [selectionCondition(rows)],
    label: collection.name,
    path: `/collection/${encodeURIComponent(collection.name)}`,
    pagePath: `/collection/${encodeURIComponent(collection.name)}`,
    modifiedAt: [collection.updatedAt, ...rows.map((f) => f.updatedAt)],
  };
}

/** The latest change among settings rows (title, time zone, locale). */
export function settingsModifiedAtQuery(db: Db): BatchRead<Date | null> {
  return {
    statements: [
      db.select({ at: max(settings.updatedAt) }).from(settings),
    ],
    read(results) {
      const [row] = results[0] as { at: Date | null }[];
      return row?.at ?? null;
    },
  };
}

/**
 * Entries of a text feed (RSS, Atom, JSON Feed): visible events of the scope,
 * never series templates, upcoming ones soonest first then the recent ones
 * (ended at or after `windowStart`) latest first.
 */
export function feedEntriesQuery(
  db: Db,
  scope: { conditions: SQL[] },
  now: number,
  windowStart: number,
  showRecurrent: boolean,
): BatchRead<FeedEvent[]> {
  const conditions = [
    eq(events.is_visible, true),
    isNull(events.recurrent),
    ...scope.conditions,
    sql`${lastMoment} >= ${windowStart}`,
  ];
  if (!showRecurrent) conditions.push(isNull(events.parentId));
  const split = splitRowsQuery(
    () => feedRows(db),
    now,
    conditions,
    { limit: FEED_LIMIT, pastLimit: FEED_LIMIT },
  );
  return {
    statements: split.statements,
    read(results) {
      const { upcoming, past } = split.read(results);
      return asFeedEvents([...upcoming, ...past] as FeedRow[]);
    },
  };
}
