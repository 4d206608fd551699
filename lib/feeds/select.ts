/**
 * What a feed contains: a scope (the instance, a tag, a place, a collection),
 * bounded to upcoming events plus a window of recent ones, with a fixed
 * number of queries whatever the size of the table.
 */
import {
  and,
  desc,
  eq,
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
import { lastMoment, splitRows, withAnyTagName } from "../events/list.ts";
import { loadSummaries, summaryColumns } from "../events/load.ts";
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
 * The columns feed entries are written from: a summary's, and the text, the
 * recurrence rule and the dates of the entry (not the ActivityPub columns).
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

export type FeedRow = Pick<EventRow, keyof typeof feedColumns>;

/** Selects feed rows (for splitRows and the like). */
function feedRows(db: Db) {
  return db.select(feedColumns).from(events).$dynamic();
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

/** An occurrence as seriesOccurrences packs it (integers as stored). */
type PackedOccurrence = [
  id: number,
  slot: number | null,
  status: EventRow["status"],
  edited: number,
  start: number,
  end: number | null,
  updatedAtMs: number,
  selected: number,
];

/** An occurrence of an exported series, and whether the feed's scope selects it. */
export interface FeedOccurrence {
  row: OccurrenceRow;
  selected: boolean;
  /**
   * The occurrence as an entry of its own (full row, place, tags): loaded
   * only for those the calendar writes out, the overrides and strays of the
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

/** Rows with the place and tags their entries show, in their order. */
async function asFeedEvents(db: Db, rows: FeedRow[]): Promise<FeedEvent[]> {
  const summaries = await loadSummaries(db, rows);
  return rows.map((row, i) => ({
    row,
    place: summaries[i].place,
    tags: summaries[i].tags,
  }));
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
  const { upcoming, past } = await splitRows(
    db,
    () => feedRows(db),
    now,
    conditions,
    { limit: FEED_LIMIT, pastLimit: FEED_LIMIT },
  );
  return await asFeedEvents(db, [...upcoming, ...past]);
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

/**
 * The occurrences of these series from `windowStart` on, each marked selected
 * or not, and the plan of each series in `timeZone`. Every occurrence is read
 * with the few columns planSeries needs; full rows, places and tags only for
 * those the plans write out as entries of their own (overrides and strays).
 */
async function seriesOccurrences(
  db: Db,
  parents: FeedRow[],
  selected: SQL[],
  windowStart: number,
  timeZone: string,
): Promise<FeedSeries[]> {
  if (parents.length === 0) return [];
  const parentEntries = await asFeedEvents(db, parents);
  // One row per series, its occurrences packed as JSON arrays (in the order
  // of PackedOccurrence): the client builds an object per row and cell, which
  // costs far more than the query.
  const fields = sql.join([
    events.id,
    events.recurrence_slot,
    events.status,
    events.occurrence_edited,
    events.start_datetime,
    events.end_datetime,
    events.updatedAt,
    sql`case when ${and(...selected)} then 1 else 0 end`,
  ], sql`, `);
  const packed = await db.select({
    parentId: events.parentId,
    occurrences: sql<string>`json_group_array(json_array(${fields}))`,
  }).from(events).where(
    and(
      inArray(events.parentId, parents.map((p) => p.id)),
      or(
        sql`${lastMoment} >= ${windowStart}`,
        sql`${events.recurrence_slot} >= ${windowStart}`,
      ),
    ),
  ).groupBy(events.parentId);
  const byParent = new Map<number, FeedOccurrence[]>();
  for (const { parentId, occurrences } of packed) {
    byParent.set(
      parentId!,
      (JSON.parse(occurrences) as PackedOccurrence[]).map((
        [id, slot, status, edited, start, end, updatedAt, selected],
      ) => ({
        row: {
          id,
          parentId,
          recurrence_slot: slot,
          status,
          occurrence_edited: edited === 1,
          start_datetime: start,
          end_datetime: end,
          updatedAt: new Date(updatedAt),
        },
        selected: selected === 1,
        entry: null,
      })),
    );
  }
  const shown = new Map<number, FeedOccurrence>();
  const series = parents.map((p, i) => {
    const occurrences = (byParent.get(p.id) ?? []).sort((a, b) =>
      a.row.start_datetime - b.row.start_datetime || a.row.id - b.row.id
    );
    const parent = parentEntries[i];
    const plan = planSeries({ parent, occurrences }, timeZone, windowStart);
    for (const { occurrence } of plan?.overrides ?? []) {
      shown.set(occurrence.row.id, occurrence);
    }
    for (const stray of plan?.strays ?? []) shown.set(stray.row.id, stray);
    return { parent, occurrences, plan };
  });
  if (shown.size > 0) {
    const full = await feedRows(db).where(
      inArray(events.id, [...shown.keys()]),
    );
    for (const entry of await asFeedEvents(db, full)) {
      shown.get(entry.row.id)!.entry = entry;
    }
  }
  return series;
}

/** The instance time zone, unless the caller has it already. */
async function zoneOf(db: Db, timeZone: string | undefined): Promise<string> {
  return timeZone ?? (await getSettings(db)).instance_timezone;
}

/**
 * What a calendar (ICS) feed exports. A series whose template the scope
 * selects is exported once, whole; occurrences the scope selects whose
 * series is not exported are single entries. Fixed number of queries.
 * `timeZone` is the instance time zone the calendar is written in (read
 * from the settings when not given).
 */
export async function calendarContent(
  db: Db,
  scope: FeedScope,
  now: number,
  windowStart: number,
  timeZone?: string,
): Promise<CalendarContent> {
  const zone = await zoneOf(db, timeZone);
  const visible = [eq(events.is_visible, true), ...scope.conditions];
  // Newest series first when there are more than the limit (through the
  // partial index events_series_idx). Remote events never carry a series.
  const parents = await feedRows(db).where(
    and(
      ...visible,
      isNotNull(events.recurrent),
      isNull(events.parentId),
      isNull(events.apUserApId),
    ),
  ).orderBy(desc(events.id)).limit(FEED_LIMIT);
  const series = await seriesOccurrences(
    db,
    parents,
    visible,
    windowStart,
    zone,
  );
  const exported = parents.map((p) => p.id);
  const { upcoming, past } = await splitRows(
    db,
    () => feedRows(db),
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
    singles: await asFeedEvents(db, [...upcoming, ...past]),
    series,
    timeZone: zone,
    windowStart,
  };
}

/**
 * One event (or a whole series) for the single-event ICS endpoints;
 * `timeZone` as for calendarContent.
 */
export async function calendarOf(
  db: Db,
  row: EventRow,
  windowStart: number,
  timeZone?: string,
): Promise<CalendarContent> {
  const zone = await zoneOf(db, timeZone);
  if (row.recurrent && row.parentId === null && row.apUserApId === null) {
    return {
      singles: [],
      series: await seriesOccurrences(
        db,
        [row],
        [eq(events.is_visible, true)],
        windowStart,
        zone,
      ),
      timeZone: zone,
      windowStart,
    };
  }
  return {
    singles: await asFeedEvents(db, [row]),
    series: [],
    timeZone: zone,
    windowStart,
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
