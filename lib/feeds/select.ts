/**
 * What a feed contains: a scope (the instance, a tag, a place, a collection),
 * bounded to upcoming events plus a window of recent ones, with a fixed
 * number of queries whatever the size of the table.
 */
import {
  and,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  isNull,
  max,
  not,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  collections,
  events,
  filters,
  places,
  settings,
  tags,
} from "../../db/schema.ts";
import { selectionCondition } from "../curation/collections.ts";
import { notFound } from "../errors.ts";
import {
  lastMoment,
  listUpcomingAndPast,
  withAnyTagName,
} from "../events/list.ts";
import { loadSummaries } from "../events/load.ts";
import type { EventRow, EventSummary } from "../events/serialize.ts";
import { normalizeTag } from "../events/tags.ts";

/** At most this many upcoming entries (and as many recent ones, and series). */
export const FEED_LIMIT = 200;
/** The window of recent events, in days: default and maximum. */
export const DEFAULT_PAST_DAYS = 30;
export const MAX_PAST_DAYS = 365;

/** An event with what a feed entry shows of its place and tags. */
export interface FeedEvent {
  row: EventRow;
  place: EventSummary["place"];
  tags: string[];
}

/** An occurrence of an exported series, and whether the feed's scope selects it. */
export interface FeedOccurrence extends FeedEvent {
  selected: boolean;
}

export interface FeedSeries {
  parent: FeedEvent;
  /** Its occurrences in the window and ahead (those materialised). */
  occurrences: FeedOccurrence[];
}

export type ScopeKind = "instance" | "tag" | "place" | "collection";

/** A resolved scope: what it selects, and how to name it. */
export interface FeedScope {
  kind: ScopeKind;
  /** Conditions on an event row beyond "visible". */
  conditions: SQL[];
  /** The tag's stored spelling, the place's or the collection's name. */
  label: string | null;
  /** Path below `/feed/{format}` ("" for the instance). */
  path: string;
  /** Path of the matching public page. */
  pagePath: string;
  /** Rows whose updatedAt count for Last-Modified besides the events. */
  modifiedAt: Date[];
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

/** Scope of a tag (case-insensitive); an unknown tag is an empty feed. */
export async function tagScope(db: Db, tag: string): Promise<FeedScope> {
  const [row] = await db.select({ tag: tags.tag }).from(tags).where(
    eq(tags.normalizedTag, normalizeTag(tag)),
  );
  const label = row?.tag ?? tag.trim();
  return {
    kind: "tag",
    conditions: [isNull(events.apUserApId), withAnyTagName([tag])],
    label,
    path: `/tag/${encodeURIComponent(label)}`,
    pagePath: `/tag/${encodeURIComponent(label)}`,
    modifiedAt: [],
  };
}

/** Scope of a place; 404 when it does not exist. */
export async function placeScope(db: Db, id: number): Promise<FeedScope> {
  const [place] = await db.select().from(places).where(eq(places.id, id));
  if (!place) throw notFound("Place");
  return {
    kind: "place",
    conditions: [isNull(events.apUserApId), eq(events.placeId, id)],
    label: place.name,
    path: `/place/${id}`,
    pagePath: `/place/${id}`,
    modifiedAt: [place.updatedAt],
  };
}

/** Scope of a collection by name (its filters' selection); 404 when unknown. */
export async function collectionScope(
  db: Db,
  name: string,
): Promise<FeedScope> {
  const [collection] = await db.select().from(collections).where(
    eq(collections.name, name),
  );
  if (!collection) throw notFound("Collection");
  const rows = await db.select().from(filters).where(
    eq(filters.collectionId, collection.id),
  );
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
export async function settingsModifiedAt(db: Db): Promise<Date | null> {
  const [row] = await db.select({ at: max(settings.updatedAt) }).from(settings);
  return row?.at ?? null;
}

/** Full rows of summaries, in their order. */
async function withRows(
  db: Db,
  summaries: EventSummary[],
): Promise<FeedEvent[]> {
  if (summaries.length === 0) return [];
  const rows = await db.select().from(events).where(
    inArray(events.id, summaries.map((s) => s.id)),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return summaries.flatMap((s) => {
    const row = byId.get(s.id);
    return row ? [{ row, place: s.place, tags: s.tags }] : [];
  });
}

/**
 * Entries of a text feed (RSS, Atom, JSON Feed): visible events of the scope,
 * never series templates, upcoming ones soonest first then the recent ones
 * (ended at or after `windowStart`) latest first.
 */
export async function feedEntries(
  db: Db,
  scope: FeedScope,
  now: number,
  windowStart: number,
  showRecurrent: boolean,
): Promise<FeedEvent[]> {
  const conditions = [
    eq(events.is_visible, true),
    isNull(events.recurrent),
    ...scope.conditions,
    sql`${lastMoment} >= ${windowStart}`,
  ];
  if (!showRecurrent) conditions.push(isNull(events.parentId));
  const lists = await listUpcomingAndPast(db, now, conditions, {
    limit: FEED_LIMIT,
    pastLimit: FEED_LIMIT,
  });
  return withRows(db, [...lists.events, ...lists.pastEvents]);
}

export interface CalendarContent {
  /** Single events, and occurrences not exported through their series. */
  singles: FeedEvent[];
  series: FeedSeries[];
}

/** The occurrences of these series from `windowStart` on, each marked selected or not. */
async function seriesOccurrences(
  db: Db,
  parents: EventRow[],
  selected: SQL[],
  windowStart: number,
): Promise<FeedSeries[]> {
  if (parents.length === 0) return [];
  const parentSummaries = await loadSummaries(db, parents);
  const rows = await db.select({
    ...getTableColumns(events),
    selected: sql<number>`case when ${and(...selected)} then 1 else 0 end`,
  }).from(events).where(
    and(
      inArray(events.parentId, parents.map((p) => p.id)),
      or(
        sql`${lastMoment} >= ${windowStart}`,
        sql`${events.recurrence_slot} >= ${windowStart}`,
      ),
    ),
  );
  const occurrenceRows = rows.map(({ selected: _s, ...row }) => row);
  const summaries = await loadSummaries(db, occurrenceRows);
  const byParent = new Map<number, FeedOccurrence[]>();
  rows.forEach((r, i) => {
    const list = byParent.get(r.parentId!) ?? [];
    list.push({
      row: occurrenceRows[i],
      place: summaries[i].place,
      tags: summaries[i].tags,
      selected: Number(r.selected) === 1,
    });
    byParent.set(r.parentId!, list);
  });
  return parents.map((p, i) => ({
    parent: {
      row: p,
      place: parentSummaries[i].place,
      tags: parentSummaries[i].tags,
    },
    occurrences: (byParent.get(p.id) ?? []).sort((a, b) =>
      a.row.start_datetime - b.row.start_datetime || a.row.id - b.row.id
    ),
  }));
}

/**
 * What a calendar (ICS) feed exports. A series whose template the scope
 * selects is exported once, whole; occurrences the scope selects whose
 * series is not exported are single entries. Fixed number of queries.
 */
export async function calendarContent(
  db: Db,
  scope: FeedScope,
  now: number,
  windowStart: number,
): Promise<CalendarContent> {
  const visible = [eq(events.is_visible, true), ...scope.conditions];
  // Newest series first when there are more than the limit. Remote events
  // never carry a series.
  const parents = await db.select().from(events).where(
    and(
      ...visible,
      isNotNull(events.recurrent),
      isNull(events.parentId),
      isNull(events.apUserApId),
    ),
  ).orderBy(desc(events.id)).limit(FEED_LIMIT);
  const series = await seriesOccurrences(db, parents, visible, windowStart);
  const exported = parents.map((p) => p.id);
  const lists = await listUpcomingAndPast(
    db,
    now,
    [
      ...visible,
      isNull(events.recurrent),
      sql`${lastMoment} >= ${windowStart}`,
      ...(exported.length
        ? [
          or(
            isNull(events.parentId),
            not(inArray(events.parentId, exported)),
          )!,
        ]
        : []),
    ],
    { limit: FEED_LIMIT, pastLimit: FEED_LIMIT },
  );
  return {
    singles: await withRows(db, [...lists.events, ...lists.pastEvents]),
    series,
  };
}

/** One event (or a whole series) for the single-event ICS endpoints. */
export async function calendarOf(
  db: Db,
  row: EventRow,
  windowStart: number,
): Promise<CalendarContent> {
  if (row.recurrent && row.parentId === null && row.apUserApId === null) {
    return {
      singles: [],
      series: await seriesOccurrences(
        db,
        [row],
        [eq(events.is_visible, true)],
        windowStart,
      ),
    };
  }
  const [summary] = await loadSummaries(db, [row]);
  return {
    singles: [{ row, place: summary.place, tags: summary.tags }],
    series: [],
  };
}

/** A visible event by id or slug, or null. */
export async function findPublicEvent(
  db: Db,
  by: { id: number } | { slug: string },
): Promise<EventRow | null> {
  const [row] = await db.select().from(events).where(
    "id" in by ? eq(events.id, by.id) : eq(events.slug, by.slug),
  );
  return row && row.is_visible ? row : null;
}
