/** Public listings: upcoming and past events, and the searchable event list. */
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
} from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, eventTags, places, tags } from "../../db/schema.ts";
import { loadSummaries } from "./load.ts";
import type { EventSummary } from "./serialize.ts";
import { normalizeTag } from "./tags.ts";
import { caseInsensitiveGlob } from "../search.ts";

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

/** Events carrying any of the tag ids (through the event_tags index). */
export function withAnyTag(tagIds: SQL | number[]): SQL {
  return inArray(
    events.id,
    sql`(select ${eventTags.eventId} from ${eventTags} where ${
      Array.isArray(tagIds) ? inArray(eventTags.tagId, tagIds) : tagIds
    })`,
  );
}

/** Events carrying any of the tags, matched through normalizedTag. */
export function withAnyTagName(names: string[]): SQL {
  const keys = [...new Set(names.map(normalizeTag))];
  return withAnyTag(
    sql`${eventTags.tagId} in (select ${tags.id} from ${tags} where ${
      inArray(tags.normalizedTag, keys)
    })`,
  );
}

export interface SplitLimits {
  limit: number;
  pastLimit: number;
}

/**
 * Events still running at `moment`, ascending by start then id, at most `limit`
 * after skipping `offset`. Two index searches instead of one scan: those
 * starting at or after `moment` (range on start), and those that began before
 * and have not ended (range on end ?? start). The second set all start
 * earlier, so the concatenation is in order.
 */
function runningFrom(
  db: Db,
  moment: number,
  conditions: SQL[],
  take: number,
) {
  return [
    // `+ 0` keeps the planner off the start index here: only the range on
    // (end ?? start) bounds this set by the future, not by history.
    db.select().from(events).where(
      and(
        ...conditions,
        sql`${lastMoment} >= ${moment}`,
        sql`${events.start_datetime} + 0 < ${moment}`,
      ),
    ).orderBy(sql`${events.start_datetime} + 0`, asc(events.id)).limit(take),
    db.select().from(events).where(
      and(...conditions, sql`${events.start_datetime} >= ${moment}`),
    ).orderBy(asc(events.start_datetime), asc(events.id)).limit(take),
  ] as const;
}

/**
 * `{events, pastEvents}`: upcoming ascending by start then id, past descending
 * by start; both bounded. A fixed number of queries whatever the table size.
 */
export async function listUpcomingAndPast(
  db: Db,
  now: number,
  conditions: SQL[],
  limits: SplitLimits,
): Promise<{ events: EventSummary[]; pastEvents: EventSummary[] }> {
  const [ongoing, starting] = runningFrom(db, now, conditions, limits.limit);
  const [ongoingRows, startingRows, past] = await db.batch([
    ongoing,
    starting,
    db.select().from(events).where(
      and(...conditions, sql`${lastMoment} < ${now}`),
    )
      .orderBy(desc(events.start_datetime), desc(events.id)).limit(
        limits.pastLimit,
      ),
  ]);
  const upcoming = [...ongoingRows, ...startingRows].slice(0, limits.limit);
  const summaries = await loadSummaries(db, [...upcoming, ...past]);
  return {
    events: summaries.slice(0, upcoming.length),
    pastEvents: summaries.slice(upcoming.length),
  };
}

/** The tag listing: tags match case-insensitively, whatever their spelling. */
export async function listByTag(
  db: Db,
  now: number,
  tag: string,
  showRecurrent: boolean,
  limits: SplitLimits,
) {
  const [tagRow] = await db.select({ id: tags.id }).from(tags).where(
    eq(tags.normalizedTag, normalizeTag(tag)),
  );
  if (!tagRow) return { events: [], pastEvents: [] };
  return listUpcomingAndPast(
    db,
    now,
    [...listableConditions(showRecurrent), withAnyTag([tagRow.id])],
    limits,
  );
}

export interface EventSearch {
  /** Unix seconds: events still running at or after this moment (default: now). */
  start: number;
  /** Unix seconds: events starting at or before this moment. */
  end?: number;
  tags?: string[];
  places?: number[];
  query?: string;
  showRecurrent: boolean;
  page: number;
  max: number;
}

/** Deepest result GET /api/events pages to (page * max). */
export const SEARCH_DEPTH_LIMIT = 10_000;

/** GET /api/events: a bounded page of listable events, ascending by start. */
export async function searchEvents(
  db: Db,
  q: EventSearch,
): Promise<EventSummary[]> {
  const conditions = listableConditions(q.showRecurrent);
  if (q.end !== undefined) {
    conditions.push(sql`${events.start_datetime} <= ${q.end}`);
  }
  if (q.tags?.length) conditions.push(withAnyTagName(q.tags));
  if (q.places?.length) conditions.push(inArray(events.placeId, q.places));
  if (q.query) {
    const pattern = caseInsensitiveGlob(q.query);
    conditions.push(
      or(
        sql`${events.title} glob ${pattern}`,
        inArray(
          events.placeId,
          sql`(select ${places.id} from ${places} where ${places.name} glob ${pattern})`,
        ),
      )!,
    );
  }
  const offset = (q.page - 1) * q.max;
  const [ongoing, starting] = runningFrom(
    db,
    q.start,
    conditions,
    offset + q.max,
  );
  const [a, b] = await db.batch([ongoing, starting]);
  return loadSummaries(db, [...a, ...b].slice(offset, offset + q.max));
}

/** A user's own events, hidden ones and series included, newest start first. */
export async function listOwnEvents(
  db: Db,
  userId: number,
  page: number,
  max: number,
): Promise<EventSummary[]> {
  const rows = await db.select().from(events).where(eq(events.userId, userId))
    .orderBy(desc(events.start_datetime), desc(events.id))
    .limit(max).offset((page - 1) * max);
  return loadSummaries(db, rows);
}
