/** Public listings: upcoming and past events, and the searchable event list. */
import {
  and,
  asc,
  count,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  or,
  type SQL,
  sql,
  type SQLWrapper,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  events,
  eventTags,
  places,
  type Recurrence,
  tags,
} from "../../db/schema.ts";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import {
  selectSummaries,
  summaryColumns,
  summaryOf,
  type SummaryRow,
} from "./load.ts";
import { type BatchItem, type BatchRead, runRead } from "../../db/batch.ts";
import {
  type Placeholder,
  prebuiltStatements,
  unionOf,
} from "../../db/prebuilt.ts";
import type { EventSummary } from "./serialize.ts";
import { normalizeTag } from "./tags.ts";
import { matchesTerms, searchTerms } from "../search.ts";

/** The value that decides upcoming vs past: the end, or the start when there is none. */
export const lastMoment = sql<
  number
>`coalesce(${events.end_datetime}, ${events.start_datetime})`;

/** Conditions every public listing shares: visible, local, never a recurrence parent. */
export function listableConditions(showRecurrent: boolean): SQL[] {
  const conditions: SQL[] = [
    eq(events.is_visible, true),
    isNull(events.recurrent),
    isNull(events.apUserApId),
  ];
  if (!showRecurrent) conditions.push(isNull(events.parentId));
  return conditions;
}

/**
 * Events carrying any of the tag ids (through the event_tags index); with
 * `since`, only those not over by then (event_tags_tag_last_idx), so that a
 * tag's past does not weigh on a listing of what is to come. `id`: the event
 * id tested (events.id, or a walk's, see matchingIdsQuery).
 */
export function withAnyTag(
  tagIds: SQL | number[],
  since?: number,
  id: SQLWrapper = events.id,
): SQL {
  const tagged = Array.isArray(tagIds)
    ? inArray(eventTags.tagId, tagIds)
    : tagIds;
  return inArray(
    id,
    sql`(select ${eventTags.eventId} from ${eventTags} where ${
      since === undefined
        ? tagged
        : and(tagged, sql`${eventTags.last_moment} >= ${since}`)
    })`,
  );
}

/** Events carrying any of the tags, matched through normalizedTag (`since`, `id`: as withAnyTag). */
export function withAnyTagName(
  names: string[],
  since?: number,
  id: SQLWrapper = events.id,
): SQL {
  const keys = [...new Set(names.map(normalizeTag))];
  return withAnyTag(
    sql`${eventTags.tagId} in (select ${tags.id} from ${tags} where ${
      inArray(tags.normalizedTag, keys)
    })`,
    since,
    id,
  );
}

export interface SplitLimits {
  limit: number;
  pastLimit: number;
  /** How many of the latest past events to skip first (a later page). */
  pastOffset?: number;
}

/** One day in seconds: what the ongoing half treats as a short event. */
const DAY = 86_400;

/**
 * Events lasting more than a day: the partial events_long_last_idx's
 * condition, with a literal (a bound parameter would keep SQLite from using
 * the index).
 */
const longerThanADay =
  sql`${events.end_datetime} - ${events.start_datetime} > ${sql.raw(`${DAY}`)}`;

/**
 * Events still running at `moment`: started before it and not ended. Two
 * index ranges instead of every event not over yet: those that started in
 * the last day (events_start_idx), and the events longer than a day that have
 * not ended (the partial events_long_last_idx). Any other event that started
 * before `moment` and has not ended lasts more than a day, so the union is
 * the whole set; SQLite reads it as a MULTI-INDEX OR.
 */
function ongoingAt(moment: Moment): SQL {
  const start = events.start_datetime;
  const began = sql`${start} < ${moment.at}`;
  const notEnded = sql`${lastMoment} >= ${moment.at}`;
  return or(
    and(sql`${start} >= ${moment.dayBefore}`, began, notEnded),
    and(longerThanADay, notEnded, began),
  )!;
}

/** A moment (Unix seconds) and the moment a day before it, or their placeholders. */
export interface Moment {
  at: number | Placeholder;
  dayBefore: number | Placeholder;
}

export function momentOf(at: number): Moment {
  return { at, dayBefore: at - DAY };
}

/**
 * Events still running at `moment`, ascending by start then id, at most
 * `take`: those that began before and have not ended (ongoingAt), then those
 * starting at or after `moment` (range on start). The first set all start
 * earlier, so the concatenation is in order. `+ 0` keeps the planner from
 * walking events_start_idx for the order of the first set.
 */
export function runningFrom<T extends SQLiteSelect>(
  from: () => T,
  moment: Moment,
  conditions: SQL[],
  take: number | Placeholder,
) {
  return [
    from().where(and(...conditions, ongoingAt(moment)))
      .orderBy(sql`${events.start_datetime} + 0`, asc(events.id)).limit(take),
    from().where(
      and(...conditions, sql`${events.start_datetime} >= ${moment.at}`),
    ).orderBy(asc(events.start_datetime), asc(events.id)).limit(take),
  ] as const;
}

/**
 * listUpcomingAndPast's selection as rows of `from` (a dynamic select from
 * events with the columns the caller needs): three statements of one batch.
 */
export function splitRowsQuery<T extends SQLiteSelect>(
  from: () => T,
  now: number,
  conditions: SQL[],
  limits: SplitLimits,
): BatchRead<{ upcoming: Awaited<T>; past: Awaited<T> }> {
  const [ongoing, starting] = runningFrom(
    from,
    momentOf(now),
    conditions,
    limits.limit,
  );
  return {
    // One statement: the three selects as one (db/prebuilt.ts).
    statements: [
      unionOf([
        ongoing,
        starting,
        from().where(and(...conditions, sql`${lastMoment} < ${now}`))
          .orderBy(desc(events.start_datetime), desc(events.id))
          .limit(limits.pastLimit).offset(limits.pastOffset ?? 0),
      ] as unknown as BatchItem[]),
    ],
    read(results) {
      const [ongoingRows, startingRows, past] = results[0] as Awaited<T>[];
      return {
        upcoming: [...ongoingRows, ...startingRows].slice(
          0,
          limits.limit,
        ) as Awaited<T>,
        past,
      };
    },
  };
}

/** Summaries of an upcoming and a past list. */
function summarize(
  upcoming: SummaryRow[],
  past: SummaryRow[],
): { events: EventSummary[]; pastEvents: EventSummary[] } {
  return {
    events: upcoming.map(summaryOf),
    pastEvents: past.map(summaryOf),
  };
}

export interface SplitListing {
  events: EventSummary[];
  pastEvents: EventSummary[];
}

/**
 * `{events, pastEvents}`: upcoming ascending by start then id, past descending
 * by start; both bounded. Three statements of one batch, whatever the table
 * size (places and tags come with the rows).
 */
export function listUpcomingAndPastQuery(
  db: Db,
  now: number,
  conditions: SQL[],
  limits: SplitLimits,
): BatchRead<SplitListing> {
  const split = splitRowsQuery(
    () => selectSummaries(db),
    now,
    conditions,
    limits,
  );
  return {
    statements: split.statements,
    read(results) {
      const { upcoming, past } = split.read(results);
      return summarize(upcoming, past);
    },
  };
}

/** listUpcomingAndPastQuery on its own: one round trip. */
export function listUpcomingAndPast(
  db: Db,
  now: number,
  conditions: SQL[],
  limits: SplitLimits,
): Promise<SplitListing> {
  return runRead(db, listUpcomingAndPastQuery(db, now, conditions, limits));
}

/**
 * The tag listing: tags match case-insensitively, whatever their spelling.
 * Same rule and order as listUpcomingAndPast, read through the copies of the
 * events' times in event_tags: each query reads at most its limit plus the
 * tag's events that have not ended, whatever the tag's history. One round
 * trip: the tag is looked up inside each statement.
 */
export function listByTag(
  db: Db,
  now: number,
  tag: string,
  showRecurrent: boolean,
  limits: SplitLimits,
): Promise<SplitListing> {
  const tagId =
    sql`(select ${tags.id} from ${tags} where ${tags.normalizedTag} = ${
      normalizeTag(tag)
    })`;
  return runRead(db, listByTagIdQuery(db, now, tagId, showRecurrent, limits));
}

/**
 * listByTag's statements for a tag given by id, or by an SQL expression
 * giving its id (a lookup by name in the same statement).
 */
export function listByTagIdQuery(
  db: Db,
  now: number,
  tagId: number | SQL,
  showRecurrent: boolean,
  limits: SplitLimits,
): BatchRead<SplitListing> {
  const listable = listableConditions(showRecurrent);
  const tagged = (...conditions: SQL[]) =>
    db.select(summaryColumns).from(eventTags)
      .innerJoin(events, eq(events.id, eventTags.eventId))
      .leftJoin(places, eq(places.id, events.placeId))
      .where(
        and(sql`${eventTags.tagId} = ${tagId}`, ...conditions, ...listable),
      );
  return {
    // One statement: the three selects as one (db/prebuilt.ts).
    statements: [unionOf([
      // Not ended (event_tags_tag_last_idx), started before now.
      tagged(
        sql`${eventTags.last_moment} >= ${now}`,
        sql`+${eventTags.start_datetime} < ${now}`,
      ).orderBy(sql`+${eventTags.start_datetime}`, sql`+${eventTags.eventId}`)
        .limit(limits.limit),
      // Starting from now, in the order of event_tags_tag_start_idx.
      tagged(sql`${eventTags.start_datetime} >= ${now}`)
        .orderBy(asc(eventTags.start_datetime), asc(eventTags.eventId))
        .limit(limits.limit),
      // Ended, latest start first: event_tags_tag_start_idx backwards.
      tagged(sql`+${eventTags.last_moment} < ${now}`)
        .orderBy(desc(eventTags.start_datetime), desc(eventTags.eventId))
        .limit(limits.pastLimit).offset(limits.pastOffset ?? 0),
    ] as unknown as BatchItem[])],
    read(results) {
      const [ongoing, starting, past] = results[0] as SummaryRow[][];
      return summarize(
        [...ongoing, ...starting].slice(0, limits.limit),
        past,
      );
    },
  };
}

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

/** A user's own events, hidden ones and series included, newest start first. */
export async function listOwnEvents(
  db: Db,
  userId: number,
  page: number,
  max: number,
): Promise<EventSummary[]> {
  const rows = await selectSummaries(db).where(eq(events.userId, userId))
    .orderBy(desc(events.start_datetime), desc(events.id))
    .limit(max).offset((page - 1) * max);
  return rows.map(summaryOf);
}

/** A hidden local event in the moderation queue: its summary, when and by whom it was submitted. */
export type UnconfirmedEvent = EventSummary & {
  createdAt: string;
  /** The submitter; null for an anonymous submission. */
  userId: number | null;
};

/**
 * What puts an event in the moderation queue: hidden and local; a hidden
 * series by its template only, an occurrence only when hidden on its own.
 */
function unconfirmedCondition(): SQL | undefined {
  const parent = sql.identifier("parent_event");
  return and(
    eq(events.is_visible, false),
    isNull(events.apUserApId),
    or(
      isNull(events.parentId),
      sql`exists (select 1 from ${events} ${parent} where ${parent}.${
        sql.identifier("id")
      } = ${events.parentId} and ${parent}.${
        sql.identifier("is_visible")
      } = 1)`,
    ),
  );
}

/** One page of the queue, oldest submission first. */
function unconfirmedQuery(db: Db, page: number, max: number) {
  return db.select({
    ...summaryColumns,
    createdAt: events.createdAt,
    userId: events.userId,
  }).from(events)
    .leftJoin(places, eq(places.id, events.placeId))
    .where(unconfirmedCondition())
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(max).offset((page - 1) * max);
}

function unconfirmedOf(
  row: SummaryRow & { createdAt: Date; userId: number | null },
): UnconfirmedEvent {
  return {
    ...summaryOf(row),
    createdAt: row.createdAt.toISOString(),
    userId: row.userId,
  };
}

/**
 * The moderation queue: local events waiting for confirmation (hidden:
 * anonymous submissions, and events their owner or a moderator hid), oldest
 * submission first. A hidden series is listed once, by its template; an
 * occurrence only when it is hidden on its own (its series visible). One
 * statement, through the partial index events_unconfirmed_idx.
 */
export async function listUnconfirmedEvents(
  db: Db,
  page: number,
  max: number,
): Promise<UnconfirmedEvent[]> {
  const rows = await unconfirmedQuery(db, page, max);
  return rows.map(unconfirmedOf);
}

/** One page of the moderation queue and how many events wait in all (one round trip). */
export async function listUnconfirmedPage(
  db: Db,
  page: number,
  max: number,
): Promise<{ events: UnconfirmedEvent[]; count: number }> {
  const [rows, [{ n }]] = await db.batch([
    unconfirmedQuery(db, page, max),
    db.select({ n: count() }).from(events).where(unconfirmedCondition()),
  ]);
  return { events: rows.map(unconfirmedOf), count: n };
}

/** A summary with what the owner's page needs besides: visibility and series links. */
export type OwnEvent = EventSummary & {
  is_visible: boolean;
  parentId: number | null;
  /** The series' rule (a template); null for a single event or an occurrence. */
  recurrent: Recurrence | null;
};

/** A row of the owner's page: a single event, or a series with its next dates. */
export type OwnEventGroup = OwnEvent & {
  /** For a series: its occurrences not over yet, soonest first (bounded). */
  occurrences: OwnEvent[];
};

/**
 * A user's events as their page lists them: single events and series
 * (occurrences grouped under their series, those not over at `now`, at most
 * `perSeries` each), newest start first, a page of `max`, and whether
 * another page follows. Two round trips.
 */
export async function listOwnEventGroups(
  db: Db,
  userId: number,
  now: number,
  page: number,
  max: number,
  perSeries = 12,
): Promise<{ groups: OwnEventGroup[]; more: boolean }> {
  const columns = {
    ...summaryColumns,
    is_visible: events.is_visible,
    parentId: events.parentId,
    recurrent: events.recurrent,
  };
  const own = (row: SummaryRow & Omit<OwnEvent, keyof EventSummary>) => ({
    ...summaryOf(row),
    is_visible: row.is_visible,
    parentId: row.parentId,
    recurrent: row.recurrent,
  });
  // One more than the page: whether another follows.
  const read = await db.select(columns).from(events)
    .leftJoin(places, eq(places.id, events.placeId))
    .where(and(eq(events.userId, userId), isNull(events.parentId)))
    .orderBy(desc(events.start_datetime), desc(events.id))
    .limit(max + 1).offset((page - 1) * max);
  const tops = read.slice(0, max);
  const series = tops.filter((t) => t.recurrent !== null);
  const children = series.length === 0 ? [] : await db.batch(
    series.map((s) =>
      db.select(columns).from(events)
        .leftJoin(places, eq(places.id, events.placeId))
        .where(and(eq(events.parentId, s.id), sql`${lastMoment} >= ${now}`))
        .orderBy(asc(events.start_datetime), asc(events.id))
        .limit(perSeries)
    ) as unknown as [BatchItem, ...BatchItem[]],
  ) as unknown as (typeof tops)[];
  const bySeries = new Map(series.map((s, i) => [s.id, children[i]]));
  return {
    groups: tops.map((t) => ({
      ...own(t),
      occurrences: (bySeries.get(t.id) ?? []).map(own),
    })),
    more: read.length > max,
  };
}
