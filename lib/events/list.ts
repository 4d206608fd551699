/**
 * Public listings: upcoming and past events, whole or by tag. The search
 * (GET /api/events) is in search.ts, a user's own events in own.ts, the
 * moderation queue in unconfirmed.ts.
 */
import {
  and,
  asc,
  desc,
  eq,
  inArray,
  isNull,
  or,
  type SQL,
  sql,
  type SQLWrapper,
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, eventTags, places, tags } from "../../db/schema.ts";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import {
  selectSummaries,
  summaryColumns,
  summaryOf,
  type SummaryRow,
} from "./load.ts";
import { type BatchItem, type BatchRead, runRead } from "../../db/batch.ts";
import { type Placeholder, unionOf } from "../../db/prebuilt.ts";
import type { EventSummary } from "./serialize.ts";
import { normalizeTag } from "./tags.ts";

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
export const DAY = 86_400;

/**
 * Events lasting more than a day: the partial events_long_last_idx's
 * condition, with a literal (a bound parameter would keep SQLite from using
 * the index).
 */
export const longerThanADay =
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
