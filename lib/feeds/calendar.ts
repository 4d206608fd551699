/**
 * What a calendar (ICS) feed exports: the scope's single events and its
 * series, each series with its occurrences (packed in one statement) and its
 * plan (series.ts); and one event or series as a calendar of its own.
 */
import {
  and,
  desc,
  eq,
  isNotNull,
  isNull,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client.ts";
import { events, places } from "../../db/schema.ts";
import { lastMoment, splitRowsQuery } from "../events/list.ts";
import { tagListOf } from "../events/load.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import type { EventRow } from "../events/serialize.ts";
import { getSettings } from "../settings.ts";
import {
  asFeedEvents,
  feedColumns,
  type FeedEvent,
  type FeedOccurrence,
  type FeedRow,
  feedRows,
} from "./rows.ts";
import { FEED_LIMIT, type FeedScope } from "./select.ts";
import { type FeedSeries, planSeries } from "./series.ts";

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
