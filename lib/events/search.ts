/**
 * The searchable event list (GET /api/events, the search page): a search's
 * conditions, and the walk that pages through what it finds.
 */
import {
  and,
  asc,
  eq,
  inArray,
  isNotNull,
  type SQL,
  sql,
  type SQLWrapper,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, places } from "../../db/schema.ts";
import {
  selectSummaries,
  summaryColumns,
  summaryOf,
  type SummaryRow,
} from "./load.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import { prebuiltStatements, unionOf } from "../../db/prebuilt.ts";
import type { EventSummary } from "./serialize.ts";
import { matchesTerms, searchTerms } from "../search.ts";
import {
  DAY,
  lastMoment,
  listableConditions,
  longerThanADay,
  runningFrom,
  withAnyTagName,
} from "./list.ts";

export interface EventSearch {
  /** Unix seconds: events still running at or after this moment (default: now). */
  start: number;
  /** Unix seconds: events starting at or before this moment. */
  end?: number;
  tags?: string[];
  places?: number[];
  /** Words each found events' text has as word starts (lib/search.ts); a 400 beyond its limits. */
  query?: string;
  /** true: events with an online location; false: events with a place (a hybrid event is both). */
  online?: boolean;
  showRecurrent: boolean;
  page: number;
  max: number;
}

/** Deepest result GET /api/events pages to (page * max). */
export const SEARCH_DEPTH_LIMIT = 10_000;

/** What narrows a search besides its start and the listing rule. */
export type SearchNarrowing = Pick<
  EventSearch,
  "end" | "tags" | "places" | "query" | "online"
>;

/**
 * The conditions of a search's end, tags, places, words and online / in
 * person (none for an empty narrowing). Words without a letter or digit
 * match nothing. Throws a 400 when the words are beyond the search's limits
 * (lib/search.ts). `since`: the caller lists only events not over by then
 * (the tags' and online events' lists are read from then on). The words,
 * tags, places and online are sets of ids tested on `id`: events.id, or a
 * walk's id (matchingIdsQuery), which tests them before the row is read
 * (places are tested on events.id's row); the end and in person are
 * conditions on the row.
 */
export function narrowingConditions(
  q: SearchNarrowing,
  since?: number,
  id: SQLWrapper = events.id,
): SQL[] {
  const conditions: SQL[] = [];
  if (q.end !== undefined) {
    conditions.push(sql`${events.start_datetime} <= ${q.end}`);
  }
  if (q.tags?.length) conditions.push(withAnyTagName(q.tags, since, id));
  if (q.places?.length) {
    const atPlaces = inArray(events.placeId, q.places);
    // On the events' own rows the planner may go by events_place_idx; a
    // walk takes the places' events as a set from it, where a test on the
    // row would read every row walked.
    conditions.push(
      id === events.id
        ? atPlaces
        : sql`+${id} in (select ${events.id} from ${events} where ${atPlaces})`,
    );
  }
  if (q.online === true) {
    // The online events (not over by `since`) from the partial
    // events_online_last_idx, whose condition this is word for word.
    const online = sql`json_array_length(${events.online_locations}) > 0`;
    conditions.push(
      sql`+${id} in (select ${events.id} from ${events} where ${
        since === undefined
          ? online
          : and(online, sql`${lastMoment} >= ${since}`)
      })`,
    );
  } else if (q.online === false) {
    conditions.push(isNotNull(events.placeId));
  }
  if (q.query !== undefined) {
    const terms = searchTerms(q.query);
    // Nothing but punctuation or symbols: no word to find.
    conditions.push(terms.length === 0 ? sql`0` : matchesTerms(terms, id));
  }
  return conditions;
}

/** Whether a search narrows the plain listing at all. */
function narrows(q: SearchNarrowing): boolean {
  return (q.tags?.length ?? 0) > 0 || (q.places?.length ?? 0) > 0 ||
    q.query !== undefined || q.online !== undefined;
}

/** The walk's id column, as matchingIdsQuery names it. */
const walkId = sql`"walk"."id"`;

/**
 * Ids of listable events still running at `q.start` or starting later that
 * match the narrowing, ascending by start then id: `take` of them after
 * `offset`. One walk in that order, so that each set of ids the narrowing
 * tests (the words above all: building it costs as much as the events it
 * holds) is built once, however many results and counts are read from it:
 * the events longer than a day still running that started more than a day
 * before (the partial events_long_last_idx), then every event from a day
 * before on, in the order of events_start_idx and from the index alone.
 * An event that started earlier and is still running lasts more than a
 * day, so the two are the whole set (as ongoingAt's two ranges). Each id is
 * tested against the narrowing's sets, then its row is read for the rest.
 */
function matchingIdsQuery(
  db: Db,
  q: SearchNarrowing & { start: number; showRecurrent: boolean },
  take: number,
  offset = 0,
): SQL {
  const start = events.start_datetime;
  const dayBefore = q.start - DAY;
  const upTo = q.end === undefined ? [] : [sql`${start} <= ${q.end}`];
  const longRunning = db.select({ id: events.id }).from(events).where(and(
    longerThanADay,
    sql`${lastMoment} >= ${q.start}`,
    sql`${start} < ${dayBefore}`,
    ...upTo,
  )).orderBy(sql`${start} + 0`, asc(events.id));
  const fromDayBefore = db.select({ id: events.id }).from(events)
    .where(and(sql`${start} >= ${dayBefore}`, ...upTo))
    .orderBy(asc(start), asc(events.id));
  const conditions = [
    // On the id first: SQLite tests these before reading the row.
    ...narrowingConditions(q, q.start, walkId),
    ...listableConditions(q.showRecurrent),
    sql`${lastMoment} >= ${q.start}`,
  ];
  // `limit -1` keeps the two halves a subquery of their own: flattened into
  // the walk, SQLite drops the first half's ORDER BY (its rows then come in
  // the index's order, by end) and may copy the conditions into each half,
  // each building its own sets (libSQL 3.45 does not reuse them). CROSS
  // JOIN keeps the walk outermost, so its order is the rows' order.
  return sql`select ${walkId} from (select * from ${longRunning} union all select * from ${fromDayBefore} limit -1) "walk" cross join ${events} on ${events.id} = ${walkId} where ${
    and(...conditions)
  } limit ${take} offset ${offset}`;
}

/**
 * Listable events still running at `start` or starting later that match the
 * narrowing, ascending by start then id: rows `offset` to `offset + take`.
 * One statement: the ids are picked by matchingIdsQuery, and only the
 * picked rows are read whole (with their place and tags), so a page costs
 * its depth in index entries, never in summaries.
 */
export function searchRowsQuery(
  db: Db,
  q: SearchNarrowing & { start: number; showRecurrent: boolean },
  offset: number,
  take: number,
): BatchRead<EventSummary[]> {
  return {
    statements: [
      selectSummaries(db).where(
        sql`${events.id} in (${matchingIdsQuery(db, q, take, offset)})`,
      ).orderBy(asc(events.start_datetime), asc(events.id)),
    ],
    read(results) {
      return (results[0] as SummaryRow[]).map(summaryOf);
    },
  };
}

/** A page of a search and how many events it finds (see searchPageQuery). */
export interface SearchResults {
  rows: EventSummary[];
  /**
   * How many events the search finds, counted up to `max(cap + 1, offset +
   * take)`: above `cap` means "more than cap".
   */
  count: number;
}

/**
 * searchRowsQuery's page together with how many events the search finds,
 * counted up to `cap + 1`: one statement and one walk (matchingIdsQuery),
 * whose first `max(cap + 1, offset + take)` ids are numbered and counted;
 * only the page's are read whole. The first id comes too, so that the
 * count comes with an empty page (its row is then left out).
 */
export function searchPageQuery(
  db: Db,
  q: SearchNarrowing & { start: number; showRecurrent: boolean },
  offset: number,
  take: number,
  cap: number,
): BatchRead<SearchResults> {
  const depth = Math.max(cap + 1, offset + take);
  const rank = sql`"hits"."rank"`;
  const inPage = sql`${rank} > ${offset} and ${rank} <= ${offset + take}`;
  // Not a WITH: a statement must start with SELECT to be read as a read
  // (db/remote.ts), and the walk must run once.
  const hits =
    sql`(select "id", row_number() over () as "rank", count(*) over () as "found" from (${
      matchingIdsQuery(db, q, depth)
    })) "hits"`;
  return {
    statements: [
      db.select({ found: sql<number>`"hits"."found"`, ...summaryColumns })
        .from(hits)
        .leftJoin(events, and(eq(events.id, sql`"hits"."id"`), inPage))
        .leftJoin(places, eq(places.id, events.placeId))
        .where(sql`${rank} = 1 or (${inPage})`)
        .orderBy(rank),
    ],
    read(results) {
      const rows = results[0] as (SummaryRow & { found: number })[];
      return {
        count: rows[0]?.found ?? 0,
        rows: rows.filter((row) => row.id !== null).map(summaryOf),
      };
    },
  };
}

/** GET /api/events: a bounded page of listable events, ascending by start. */
export async function searchEvents(
  db: Db,
  q: EventSearch,
): Promise<EventSummary[]> {
  const offset = (q.page - 1) * q.max;
  if (!narrows(q)) {
    // The plain listing, the most asked for: its statements are built once.
    const statements = prebuiltStatements(
      db,
      `searchEvents:${q.showRecurrent}:${q.end !== undefined}`,
      () => {
        const conditions = listableConditions(q.showRecurrent);
        if (q.end !== undefined) {
          conditions.push(
            sql`${events.start_datetime} <= ${sql.placeholder("end")}`,
          );
        }
        return [...runningFrom(
          () => selectSummaries(db),
          {
            at: sql.placeholder("at"),
            dayBefore: sql.placeholder("dayBefore"),
          },
          conditions,
          sql.placeholder("take"),
        )];
      },
      {
        at: q.start,
        dayBefore: q.start - DAY,
        end: q.end,
        take: offset + q.max,
      },
    );
    const [[a, b]] = await db.batch([unionOf(statements)]) as unknown as [
      SummaryRow[][],
    ];
    return [...a, ...b].slice(offset, offset + q.max).map(summaryOf);
  }
  if (q.query !== undefined && searchTerms(q.query).length === 0) return [];
  return await runRead(db, searchRowsQuery(db, q, offset, q.max));
}
