/**
 * What a feed contains: a scope (the instance, a tag, a place, a collection),
 * bounded to upcoming events plus a window of recent ones, with a fixed
 * number of queries whatever the size of the table. Each part is a BatchRead,
 * so that a feed is read in one round trip (a collection's takes one more,
 * for its filters): places and tags come with the rows (summaryColumns), and
 * a series' occurrences carry what their entries need.
 */
import {
  and,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  max,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
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
import {
  summaryColumns,
  summaryOf,
  type SummaryRow,
  tagListOf,
} from "../events/load.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import type { EventRow, EventSummary } from "../events/serialize.ts";
import { normalizeTag } from "../events/tags.ts";
import { getSettings } from "../settings.ts";
import { planSeries, type SeriesPlan } from "./series.ts";

/** At most this many upcoming entries (and as many recent ones, and series). */
export const FEED_LIMIT = 200;
/** The window of recent events, in days: default and maximum. */
export const DEFAULT_PAST_DAYS = 30;
export const MAX_PAST_DAYS = 365;

/**
 * The columns feed entries are written from: a summary's (place and tags
 * included), and the text, the recurrence rule and the dates of the entry
 * (not the ActivityPub columns).
 */
const feedColumns = {
  ...summaryColumns,
  description: events.description,
  online_locations: events.online_locations,
  recurrent: events.recurrent,
  sequence: events.sequence,
  createdAt: events.createdAt,
  updatedAt: events.updatedAt,
};

export type FeedRow =
  & SummaryRow
  & Pick<
    EventRow,
    | "description"
    | "online_locations"
    | "recurrent"
    | "sequence"
    | "createdAt"
    | "updatedAt"
  >;

/** Selects feed rows, their place joined (for splitRowsQuery and the like). */
function feedRows(db: Db) {
  return db.select(feedColumns).from(events)
    .leftJoin(places, eq(places.id, events.placeId)).$dynamic();
}

/** An event with what a feed entry shows of its place and tags. */
export interface FeedEvent {
  row: FeedRow;
  place: EventSummary["place"];
  tags: string[];
}

/** What a calendar reads of every occurrence of an exported series. */
export type OccurrenceRow = Pick<
  EventRow,
  | "id"
  | "parentId"
  | "recurrence_slot"
  | "status"
  | "occurrence_edited"
  | "start_datetime"
  | "end_datetime"
  | "updatedAt"
>;

/**
 * What an occurrence's entry shows when it differs from its series' (the
 * occurrence was edited on its own, or the series since): its own text,
 * links, media, place and tags.
 */
interface PackedContent {
  title: string;
  description: string;
  online_locations: string[];
  media: EventRow["media"];
  placeId: number | null;
  /** Coordinates as text with 17 digits: JSON numbers keep only 15. */
  place: {
    name: string;
    address: string;
    latitude: string | null;
    longitude: string | null;
  } | null;
  tags: string[];
}

/** An occurrence as the series query packs it (integers as stored). */
type PackedOccurrence = [
  id: number,
  slot: number | null,
  status: EventRow["status"],
  edited: number,
  start: number,
  end: number | null,
  updatedAtMs: number,
  selected: number,
  slug: string,
  sequence: number,
  createdAtMs: number,
  content: PackedContent | null,
];

/** An occurrence of an exported series, and whether the feed's scope selects it. */
export interface FeedOccurrence {
  row: OccurrenceRow;
  selected: boolean;
  /**
   * The occurrence as an entry of its own (full row, place, tags): made only
   * for those the calendar writes out, the overrides and strays of the
   * series' plan in the content's time zone; null for the others.
   */
  entry: FeedEvent | null;
}

export interface FeedSeries {
  parent: FeedEvent;
  /** Its occurrences in the window and ahead (those materialised). */
  occurrences: FeedOccurrence[];
  /**
   * How the series is written (CalendarContent.timeZone and windowStart);
   * null when its rule cannot be read.
   */
  plan: SeriesPlan | null;
}

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

/** Rows with the place and tags their entries show, in their order. */
function asFeedEvents(rows: FeedRow[]): FeedEvent[] {
  return rows.map((row) => {
    const summary = summaryOf(row);
    return { row, place: summary.place, tags: summary.tags };
  });
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

export interface CalendarContent {
  /** Single events, and occurrences not exported through their series. */
  singles: FeedEvent[];
  series: FeedSeries[];
  /** The time zone the series were planned in (FeedSeries.plan). */
  timeZone: string;
  /** Unix seconds: the start of the window the series were planned for. */
  windowStart: number;
}

/** The series' parent, in the statement that packs the occurrences. */
const parentEvent = alias(events, "p");

/** 17 significant digits of a REAL, as text (JSON numbers keep only 15). */
const exactReal = (value: SQLiteColumn) =>
  sql`case when ${value} is null then null else printf('%.17g', ${value}) end`;

/**
 * One statement: the occurrences of the series `parents` selects (a subquery
 * on events) from `windowStart` on, one row per series with its occurrences
 * packed as JSON arrays (in the order of PackedOccurrence), each marked
 * selected by `selected`. An occurrence whose text, links, media, place or
 * tags differ from its series' carries its own (PackedContent): the calendar
 * writes some occurrences out as entries of their own, and only the plan (in
 * JavaScript) knows which. The client builds an object per row and cell,
 * which costs far more than the query: hence the packing.
 */
function packedOccurrences(
  db: Db,
  parents: SQL,
  selected: SQL[],
  windowStart: number,
) {
  const p = parentEvent;
  const occurrenceTags = tagListOf(events.id);
  const differs = sql`(${events.title} is not ${p.title}
    or ${events.description} is not ${p.description}
    or ${events.online_locations} is not ${p.online_locations}
    or ${events.media} is not ${p.media}
    or ${events.placeId} is not ${p.placeId}
    or ${occurrenceTags} is not ${tagListOf(p.id)})`;
  const place =
    sql`(select json_object('name', ${places.name}, 'address', ${places.address},
    'latitude', ${exactReal(places.latitude)}, 'longitude', ${
      exactReal(places.longitude)
    }) from ${places} where ${places.id} = ${events.placeId})`;
  const content = sql`case when ${differs} then json_object(
    'title', ${events.title}, 'description', ${events.description},
    'online_locations', json(${events.online_locations}), 'media', json(${events.media}),
    'placeId', ${events.placeId}, 'place', ${place}, 'tags', json(${occurrenceTags})
  ) end`;
  const fields = sql.join([
    events.id,
    events.recurrence_slot,
    events.status,
    events.occurrence_edited,
    events.start_datetime,
    events.end_datetime,
    events.updatedAt,
    sql`case when ${and(...selected)} then 1 else 0 end`,
    events.slug,
    events.sequence,
    events.createdAt,
    content,
  ], sql`, `);
  return db.select({
    parentId: events.parentId,
    occurrences: sql<string>`json_group_array(json_array(${fields}))`,
  }).from(events).innerJoin(p, eq(p.id, events.parentId)).where(
    and(
      sql`${events.parentId} in ${parents}`,
      or(
        sql`${lastMoment} >= ${windowStart}`,
        sql`${events.recurrence_slot} >= ${windowStart}`,
      ),
    ),
  ).groupBy(events.parentId);
}

/** An occurrence's entry: its series' content unless it has its own. */
function occurrenceEntry(
  parent: FeedRow,
  o: PackedOccurrence,
): FeedEvent {
  const [id, , status, , start, end, updatedAt, , slug, sequence, createdAt] =
    o;
  const content = o[11];
  const row: FeedRow = {
    ...parent,
    id,
    slug,
    status,
    start_datetime: start,
    end_datetime: end,
    recurrent: null,
    sequence,
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
  };
  if (content) {
    Object.assign(row, {
      title: content.title,
      description: content.description,
      online_locations: content.online_locations,
      media: content.media,
      placeId: content.placeId,
      placeName: content.place?.name ?? null,
      placeAddress: content.place?.address ?? null,
      placeLatitude: content.place?.latitude == null
        ? null
        : Number(content.place.latitude),
      placeLongitude: content.place?.longitude == null
        ? null
        : Number(content.place.longitude),
      tagList: JSON.stringify(content.tags),
    });
  }
  return asFeedEvents([row])[0];
}

/**
 * The series of `parentRows` with their occurrences (packed, as read by
 * packedOccurrences) and their plans in `timeZone`; entries made for the
 * occurrences the plans write out (overrides and strays).
 */
function seriesOf(
  parentRows: FeedRow[],
  packed: { parentId: number | null; occurrences: string }[],
  windowStart: number,
  timeZone: string,
): FeedSeries[] {
  const byParent = new Map<number, PackedOccurrence[]>();
  for (const { parentId, occurrences } of packed) {
    byParent.set(parentId!, JSON.parse(occurrences) as PackedOccurrence[]);
  }
  return parentRows.map((parentRow) => {
    const raw = new Map<FeedOccurrence, PackedOccurrence>();
    const occurrences = (byParent.get(parentRow.id) ?? []).map((o) => {
      const [id, slot, status, edited, start, end, updatedAt, selected] = o;
      const occurrence: FeedOccurrence = {
        row: {
          id,
          parentId: parentRow.id,
          recurrence_slot: slot,
          status,
          occurrence_edited: edited === 1,
          start_datetime: start,
          end_datetime: end,
          updatedAt: new Date(updatedAt),
        },
        selected: selected === 1,
        entry: null,
      };
      raw.set(occurrence, o);
      return occurrence;
    }).sort((a, b) =>
      a.row.start_datetime - b.row.start_datetime || a.row.id - b.row.id
    );
    const [parent] = asFeedEvents([parentRow]);
    const plan = planSeries({ parent, occurrences }, timeZone, windowStart);
    for (
      const shown of [
        ...(plan?.overrides ?? []).map((o) => o.occurrence),
        ...(plan?.strays ?? []),
      ]
    ) {
      shown.entry ??= occurrenceEntry(parentRow, raw.get(shown)!);
    }
    return { parent, occurrences, plan };
  });
}

/** The instance time zone, unless the caller has it already. */
async function zoneOf(db: Db, timeZone: string | undefined): Promise<string> {
  return timeZone ?? (await getSettings(db)).instance_timezone;
}

/**
 * What a calendar (ICS) feed exports: five statements of one batch. A series
 * whose template the scope selects is exported once, whole; occurrences the
 * scope selects whose series is not exported are single entries. `timeZone`
 * is the instance time zone the calendar is written in.
 */
export function calendarContentQuery(
  db: Db,
  scope: { conditions: SQL[] },
  now: number,
  windowStart: number,
  timeZone: string,
): BatchRead<CalendarContent> {
  const visible = [eq(events.is_visible, true), ...scope.conditions];
  // Newest series first when there are more than the limit (through the
  // partial index events_series_idx). Remote events never carry a series.
  const isExported = and(
    ...visible,
    isNotNull(events.recurrent),
    isNull(events.parentId),
    isNull(events.apUserApId),
  );
  const exported =
    sql`(select ${events.id} from ${events} where ${isExported} order by ${events.id} desc limit ${FEED_LIMIT})`;
  const split = splitRowsQuery(
    () => feedRows(db),
    now,
    [
      ...visible,
      isNull(events.recurrent),
      sql`${lastMoment} >= ${windowStart}`,
      or(
        isNull(events.parentId),
        sql`${events.parentId} not in ${exported}`,
      )!,
    ],
    { limit: FEED_LIMIT, pastLimit: FEED_LIMIT },
  );
  return {
    statements: [
      feedRows(db).where(isExported).orderBy(desc(events.id)).limit(
        FEED_LIMIT,
      ),
      packedOccurrences(db, exported, visible, windowStart),
      ...split.statements,
    ],
    read(results) {
      const [parents, packed] = results as [
        FeedRow[],
        { parentId: number | null; occurrences: string }[],
      ];
      const { upcoming, past } = split.read(results.slice(2));
      return {
        singles: asFeedEvents([...upcoming, ...past] as FeedRow[]),
        series: seriesOf(parents, packed, windowStart, timeZone),
        timeZone,
        windowStart,
      };
    },
  };
}

/**
 * calendarContentQuery on its own: one round trip. `timeZone` as for
 * calendarContentQuery (read from the settings when not given).
 */
export async function calendarContent(
  db: Db,
  scope: FeedScope,
  now: number,
  windowStart: number,
  timeZone?: string,
): Promise<CalendarContent> {
  const zone = await zoneOf(db, timeZone);
  return runRead(
    db,
    calendarContentQuery(db, scope, now, windowStart, zone),
  );
}

/** A visible event as a calendar of its own, and its row. */
export interface EventCalendar {
  row: FeedRow;
  content: CalendarContent;
}

/**
 * One visible event (or a whole series) by id or slug, for the single-event
 * ICS endpoints: null when unknown or hidden. Two statements of one batch.
 */
export function eventCalendarQuery(
  db: Db,
  by: { id: number } | { slug: string },
  windowStart: number,
  timeZone: string,
): BatchRead<EventCalendar | null> {
  const match = "id" in by ? eq(events.id, by.id) : eq(events.slug, by.slug);
  const isSeries = and(
    match,
    eq(events.is_visible, true),
    isNotNull(events.recurrent),
    isNull(events.parentId),
    isNull(events.apUserApId),
  );
  return {
    statements: [
      db.select({
        ...feedColumns,
        is_visible: events.is_visible,
        parentId: events.parentId,
        apUserApId: events.apUserApId,
      }).from(events).leftJoin(places, eq(places.id, events.placeId))
        .where(match),
      packedOccurrences(
        db,
        sql`(select ${events.id} from ${events} where ${isSeries})`,
        [eq(events.is_visible, true)],
        windowStart,
      ),
    ],
    read(results) {
      const [[row], packed] = results as [
        (FeedRow & Pick<EventRow, "is_visible" | "parentId" | "apUserApId">)[],
        { parentId: number | null; occurrences: string }[],
      ];
      if (!row || !row.is_visible) return null;
      const series = row.recurrent !== null && row.parentId === null &&
        row.apUserApId === null;
      return {
        row,
        content: {
          singles: series ? [] : asFeedEvents([row]),
          series: series ? seriesOf([row], packed, windowStart, timeZone) : [],
          timeZone,
          windowStart,
        },
      };
    },
  };
}
