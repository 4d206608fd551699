/**
 * What the browse pages show (home, month, day, past, tags and places),
 * each read in one round trip whatever the table's size, through indexes
 * (0014_browse_indexes.sql). Only listed events: visible, local, never a
 * series template (lib/events/list.ts, listableConditions).
 */
import { and, desc, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, type Recurrence } from "../../db/schema.ts";
import {
  lastMoment,
  listableConditions,
  momentOf,
  runningFrom,
} from "../events/list.ts";
import { selectSummaries, summaryOf, type SummaryRow } from "../events/load.ts";
import type { BatchItem } from "../../db/batch.ts";
import { unionOf } from "../../db/prebuilt.ts";
import type { EventSummary } from "../events/serialize.ts";
import {
  type CalendarDay,
  dayKeyOf,
  dayOf,
  daysInMonth,
  startOfDay,
} from "./calendar.ts";
import { dayKey, dayLabel, type Locality } from "./format.ts";

/** Entries (events or series) per home page. */
export const HOME_PAGE_SIZE = 20;
/** The deepest home page. */
export const HOME_MAX_PAGE = 500;
/** How many dates of a series the home page shows (the next one included). */
export const SERIES_DATES = 4;
/** Events per page of the past events and of a day. */
export const PAST_PAGE_SIZE = 20;
export const PAST_MAX_PAGE = 500;
export const DAY_PAGE_SIZE = 50;
export const DAY_MAX_PAGE = 20;
/** Tags and places per page of their indexes. */
export const INDEX_PAGE_SIZE = 60;
export const INDEX_MAX_PAGE = 100;

const DAY = 86_400;

/** A page of a paged list: its number, and whether pages come before and after. */
export interface Paged {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/** A date of a series, linked from its entry. */
export interface SeriesDate {
  slug: string;
  status: EventSummary["status"];
  start_datetime: number;
  /** Its title and place: a date changed on its own may differ from its series. */
  title: string;
  placeId: number | null;
  placeName: string | null;
}

/** A series on the home page: its rule and its next dates. */
export interface SeriesInfo {
  id: number;
  rule: Recurrence;
  /** The series' first start: the weekday and day its rule repeats. */
  start: number;
  /** The series' own title and place (its dates changed on their own differ). */
  title: string;
  placeId: number | null;
  /** The dates after the entry's own, soonest first (at most SERIES_DATES - 1). */
  following: SeriesDate[];
}

/** A home page entry: an event, or a series shown once by its next date. */
export interface Entry {
  event: EventSummary;
  series: SeriesInfo | null;
}

/** Entries of one calendar day (or those already running, under `ongoing`). */
export interface EntryDay {
  /** `YYYY-MM-DD` in the instance time zone, or `ongoing`. */
  key: string;
  /** The day in words, or null for the group of running events. */
  label: string | null;
  entries: Entry[];
}

export interface HomeEntries extends Paged {
  days: EntryDay[];
}

/** Conditions of a listed event written with literals, as the partial indexes' own. */
function listedLiterally(alias: string, showRecurrent: boolean): string {
  return `${alias}."is_visible" = 1 and ${alias}."recurrent" is null and ${alias}."apUserApId" is null` +
    (showRecurrent ? "" : ` and ${alias}."parentId" is null`);
}

/** A row of the series statement: the series and one of its dates, as a summary. */
interface SeriesRow {
  sid: number;
  rule: string;
  sstart: number;
  stitle: string;
  splace: number | null;
  id: number;
  slug: string;
  status: EventSummary["status"];
  title: string;
  media: string;
  start_datetime: number;
  end_datetime: number | null;
  placeId: number | null;
  placeName: string | null;
  placeAddress: string | null;
  placeLatitude: number | null;
  placeLongitude: number | null;
  tagList: string;
}

/**
 * The `take` series whose next date comes first (by that date's start, then
 * id), each with its first SERIES_DATES dates not over at `now`: a series'
 * first date is found through events_parent_start_idx from a day (or the
 * series' own duration) before `now`, so its past never counts.
 */
function seriesQuery(db: Db, now: number, take: number) {
  const o = sql.raw;
  // A select from subqueries rather than a WITH: the embedded database's
  // change marker (db/remote.ts) counts only statements starting with
  // `select` as reads, and the public-read cache keeps answers until a write.
  return db.all<SeriesRow>(sql`
select "top"."sid" as "sid", "top"."rule" as "rule", "top"."sstart" as "sstart",
  "top"."stitle" as "stitle", "top"."splace" as "splace",
  "e"."id" as "id", "e"."slug" as "slug", "e"."status" as "status", "e"."title" as "title",
  "e"."media" as "media", "e"."start_datetime" as "start_datetime",
  "e"."end_datetime" as "end_datetime", "e"."placeId" as "placeId",
  "p"."name" as "placeName", "p"."address" as "placeAddress",
  "p"."latitude" as "placeLatitude", "p"."longitude" as "placeLongitude",
  (select json_group_array("t"."tag" order by "t"."normalizedTag") from "event_tags" "et"
    join "tags" "t" on "t"."id" = "et"."tagId" where "et"."eventId" = "e"."id") as "tagList"
from (
  select "f"."sid", "f"."rule", "f"."sstart", "f"."stitle", "f"."splace", "f"."fid",
    "n"."start_datetime" as "fstart"
  from (
    select "s"."id" as "sid", "s"."recurrent" as "rule", "s"."start_datetime" as "sstart",
      "s"."title" as "stitle", "s"."placeId" as "splace",
      (select "o"."id" from "events" "o"
        where "o"."parentId" = "s"."id" and "o"."is_visible" = 1
          and "o"."start_datetime" >= ${now} - max(${
    o(String(DAY))
  }, coalesce("s"."end_datetime" - "s"."start_datetime", 0))
          and coalesce("o"."end_datetime", "o"."start_datetime") >= ${now}
        order by "o"."start_datetime", "o"."id" limit 1) as "fid"
    from "events" "s"
    where "s"."parentId" is null and "s"."recurrent" is not null
      and "s"."is_visible" = 1 and "s"."apUserApId" is null
  ) "f" join "events" "n" on "n"."id" = "f"."fid"
  order by "n"."start_datetime", "n"."id" limit ${take}
) "top" join "events" "e" on "e"."id" in (
  select "o2"."id" from "events" "o2"
  where "o2"."parentId" = "top"."sid" and "o2"."is_visible" = 1
    and "o2"."start_datetime" >= "top"."fstart"
    and coalesce("o2"."end_datetime", "o2"."start_datetime") >= ${now}
  order by "o2"."start_datetime", "o2"."id" limit ${o(String(SERIES_DATES))})
left join "places" "p" on "p"."id" = "e"."placeId"
order by "top"."fstart", "top"."fid", "e"."start_datetime", "e"."id"`);
}

/** The series' entries from the series statement's rows (in the order of their next date). */
function seriesEntries(rows: SeriesRow[]): Entry[] {
  const entries: Entry[] = [];
  for (const row of rows) {
    const current = entries.at(-1)?.series;
    if (current?.id === row.sid) {
      current.following.push({
        slug: row.slug,
        status: row.status,
        start_datetime: Number(row.start_datetime),
        title: row.title,
        placeId: row.placeId,
        placeName: row.placeName,
      });
      continue;
    }
    let rule: Recurrence;
    try {
      rule = JSON.parse(row.rule) as Recurrence;
    } catch {
      rule = { frequency: "", type: "" };
    }
    entries.push({
      event: summaryOf({
        ...row,
        start_datetime: Number(row.start_datetime),
        end_datetime: row.end_datetime === null
          ? null
          : Number(row.end_datetime),
        media: JSON.parse(row.media ?? "[]"),
      } as unknown as SummaryRow),
      series: {
        id: row.sid,
        rule,
        start: Number(row.sstart),
        title: row.stitle,
        placeId: row.splace,
        following: [],
      },
    });
  }
  return entries;
}

/** Whether entry a comes before entry b: by start, then id (the listings' order). */
function before(a: Entry, b: Entry): boolean {
  return a.event.start_datetime < b.event.start_datetime ||
    (a.event.start_datetime === b.event.start_datetime &&
      a.event.id < b.event.id);
}

/**
 * Consecutive groups of entries (sorted by start) by their start day in the
 * time zone; entries that started before `now` and still run come first,
 * under `ongoing`.
 */
export function groupEntriesByDay(
  list: Entry[],
  now: number,
  locality: Locality,
): EntryDay[] {
  const groups: EntryDay[] = [];
  for (const entry of list) {
    const start = entry.event.start_datetime;
    const ongoing = start < now;
    const key = ongoing ? "ongoing" : dayKey(start, locality.timezone);
    const last = groups.at(-1);
    if (last && last.key === key) {
      last.entries.push(entry);
    } else {
      groups.push({
        key,
        label: ongoing ? null : dayLabel(start, locality),
        entries: [entry],
      });
    }
  }
  return groups;
}

/**
 * One statement of two result sets: the summaries of events running at
 * `from`, then of those starting from it, up to `take` each.
 */
function runningThenStarting(
  db: Db,
  from: number,
  conditions: SQL[],
  take: number,
): BatchItem {
  return unionOf(
    runningFrom(
      () => selectSummaries(db),
      momentOf(from),
      conditions,
      take,
    ) as unknown as BatchItem[],
  );
}

/**
 * One page of the home page: upcoming listed events, ascending by start
 * then id, grouped by day. With `showRecurrent` every date of a series is
 * an entry; without, each series once (by its next date, with its rule and
 * its following dates). One round trip: the events (running, then starting
 * from now) and, for the latter, the series whose next date comes first.
 */
export async function loadHomeEntries(
  db: Db,
  now: number,
  page: number,
  options: Locality & { showRecurrent: boolean },
): Promise<HomeEntries> {
  const offset = (page - 1) * HOME_PAGE_SIZE;
  // One more than the page, to know whether a next page exists.
  const take = offset + HOME_PAGE_SIZE + 1;
  // "List each occurrence" (recurrent_event_visible) on: every date of a
  // series is an entry of its own, as in the other listings; off: each
  // series once, by its next date, with its rule and following dates.
  const conditions = options.showRecurrent ? listableConditions(true) : [
    ...listableConditions(true),
    // Single events only (series come on their own). `+` keeps the planner
    // off events_parent_slot_idx, whose null parents are every single event.
    sql`+${events.parentId} is null`,
  ];
  const singles = runningThenStarting(db, now, conditions, take);
  const statements: BatchItem[] = [singles];
  if (!options.showRecurrent) statements.push(seriesQuery(db, now, take));
  const [[running, starting], seriesRows = []] = await db.batch(
    statements as [BatchItem, ...BatchItem[]],
  ) as unknown as [[SummaryRow[], SummaryRow[]], SeriesRow[]?];
  const single: Entry[] = [...running, ...starting].map((row) => ({
    event: summaryOf(row),
    series: null,
  }));
  const series = seriesEntries(seriesRows);
  // Both lists are in order: merge them.
  const merged: Entry[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < take && (i < single.length || j < series.length)) {
    if (
      j >= series.length || (i < single.length && before(single[i], series[j]))
    ) {
      merged.push(single[i++]);
    } else {
      merged.push(series[j++]);
    }
  }
  return {
    page,
    hasPrevious: page > 1,
    hasNext: merged.length > offset + HOME_PAGE_SIZE,
    days: groupEntriesByDay(
      merged.slice(offset, offset + HOME_PAGE_SIZE),
      now,
      options,
    ),
  };
}

/** A page of events (past events, a day's events). */
export interface EventsPage extends Paged {
  events: EventSummary[];
}

/**
 * Past events (ended before `now`), newest start first, a page of
 * PAST_PAGE_SIZE: through events_start_idx backwards from `now` (a past
 * event started before it). One statement.
 */
export async function loadPastPage(
  db: Db,
  now: number,
  page: number,
  showRecurrent: boolean,
): Promise<EventsPage> {
  const rows = await selectSummaries(db).where(
    and(
      ...listableConditions(showRecurrent),
      sql`${events.start_datetime} < ${now}`,
      sql`${lastMoment} < ${now}`,
    ),
  ).orderBy(desc(events.start_datetime), desc(events.id))
    .limit(PAST_PAGE_SIZE + 1).offset((page - 1) * PAST_PAGE_SIZE);
  return {
    page,
    hasPrevious: page > 1,
    hasNext: rows.length > PAST_PAGE_SIZE,
    events: rows.slice(0, PAST_PAGE_SIZE).map(summaryOf),
  };
}

/** One day's events: those running at its start and those starting during it. */
export async function loadDayPage(
  db: Db,
  day: CalendarDay,
  page: number,
  options: { timezone: string; showRecurrent: boolean },
): Promise<EventsPage> {
  const from = startOfDay(day, options.timezone);
  const to = startOfDay({ ...day, day: day.day + 1 }, options.timezone);
  const conditions: SQL[] = [
    ...listableConditions(options.showRecurrent),
    sql`${events.start_datetime} < ${to}`,
  ];
  const take = page * DAY_PAGE_SIZE + 1;
  const [[running, starting]] = await db.batch([
    runningThenStarting(db, from, conditions, take),
  ]) as unknown as [[SummaryRow[], SummaryRow[]]];
  const all = [...running, ...starting];
  const offset = (page - 1) * DAY_PAGE_SIZE;
  return {
    page,
    hasPrevious: page > 1,
    hasNext: all.length > offset + DAY_PAGE_SIZE,
    events: all.slice(offset, offset + DAY_PAGE_SIZE).map(summaryOf),
  };
}

/** A month: how many listed events start on each of its days. */
export interface MonthCounts {
  year: number;
  month: number;
  /** Events starting on each day, by day of the month (1-based; index 0 unused). */
  counts: number[];
  total: number;
}

/**
 * How many listed events start on each day of a month in the time zone: one
 * statement, a count per day from the partial index events_listed_start_idx
 * alone (no table row read).
 */
export async function loadMonthCounts(
  db: Db,
  year: number,
  month: number,
  options: { timezone: string; showRecurrent: boolean },
): Promise<MonthCounts> {
  const days = daysInMonth(year, month);
  const bounds: number[] = [];
  for (let d = 1; d <= days + 1; d++) {
    bounds.push(startOfDay({ year, month, day: d }, options.timezone));
  }
  const values = sql.join(
    Array.from(
      { length: days },
      (_, i) => sql`(${i + 1}, ${bounds[i]}, ${bounds[i + 1]})`,
    ),
    sql`, `,
  );
  // From a VALUES list, not a WITH: reads start with `select` (seriesQuery).
  const rows = await db.all<{ d: number; n: number }>(sql`
select "days"."column1" as "d", (select count(*) from "events" "e"
  where "e"."start_datetime" >= "days"."column2" and "e"."start_datetime" < "days"."column3"
    and ${sql.raw(listedLiterally(`"e"`, options.showRecurrent))}) as "n"
from (values ${values}) "days"`);
  const counts = new Array<number>(days + 1).fill(0);
  let total = 0;
  for (const row of rows) {
    const n = Number(row.n);
    counts[Number(row.d)] = n;
    total += n;
  }
  return { year, month, counts, total };
}

/** A tag and how many listed events not over yet carry it. */
export interface TagCount {
  tag: string;
  count: number;
}

/** A place and how many listed events not over yet happen there. */
export interface PlaceCount {
  id: number;
  name: string;
  address: string;
  count: number;
}

export interface IndexPage<T> extends Paged {
  items: T[];
}

/**
 * Tags of upcoming events (not over at `now`) with their counts, most used
 * first, then by name: one grouped statement, walking the listed events not
 * over yet (events_listed_last_place_idx) to their tags (the event_tags
 * primary key).
 */
export async function loadTagIndex(
  db: Db,
  now: number,
  page: number,
  showRecurrent: boolean,
): Promise<IndexPage<TagCount>> {
  const offset = (page - 1) * INDEX_PAGE_SIZE;
  const rows = await db.all<{ tag: string; n: number }>(sql`
select "t"."tag" as "tag", "c"."n" as "n" from (
  select "et"."tagId" as "id", count(*) as "n" from "events" "e"
  join "event_tags" "et" on "et"."eventId" = "e"."id"
  where coalesce("e"."end_datetime", "e"."start_datetime") >= ${now}
    and ${sql.raw(listedLiterally(`"e"`, showRecurrent))}
  group by +"et"."tagId"
) "c" join "tags" "t" on "t"."id" = "c"."id"
order by "c"."n" desc, "t"."normalizedTag"
limit ${INDEX_PAGE_SIZE + 1} offset ${offset}`);
  return {
    page,
    hasPrevious: page > 1,
    hasNext: rows.length > INDEX_PAGE_SIZE,
    items: rows.slice(0, INDEX_PAGE_SIZE).map((r) => ({
      tag: r.tag,
      count: Number(r.n),
    })),
  };
}

/**
 * Places of upcoming events (not over at `now`) with their counts, busiest
 * first, then by name: one grouped statement over the partial index
 * events_listed_last_place_idx alone.
 */
export async function loadPlaceIndex(
  db: Db,
  now: number,
  page: number,
  showRecurrent: boolean,
): Promise<IndexPage<PlaceCount>> {
  const offset = (page - 1) * INDEX_PAGE_SIZE;
  const rows = await db.all<
    { id: number; name: string; address: string; n: number }
  >(sql`
select "p"."id" as "id", "p"."name" as "name", "p"."address" as "address", "c"."n" as "n" from (
  select "e"."placeId" as "id", count(*) as "n" from "events" "e"
  where coalesce("e"."end_datetime", "e"."start_datetime") >= ${now}
    and ${sql.raw(listedLiterally(`"e"`, showRecurrent))}
    and "e"."placeId" is not null
  group by +"e"."placeId"
) "c" join "places" "p" on "p"."id" = "c"."id"
order by "c"."n" desc, "p"."name", "p"."id"
limit ${INDEX_PAGE_SIZE + 1} offset ${offset}`);
  return {
    page,
    hasPrevious: page > 1,
    hasNext: rows.length > INDEX_PAGE_SIZE,
    items: rows.slice(0, INDEX_PAGE_SIZE).map((r) => ({
      id: Number(r.id),
      name: r.name,
      address: r.address,
      count: Number(r.n),
    })),
  };
}

/** The month and day "now" is in, in the time zone. */
export function today(now: number, timezone: string): CalendarDay {
  return dayOf(now, timezone);
}

export { dayKeyOf };
