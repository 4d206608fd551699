/** A user's own events: as the API lists them, and as their page groups them. */
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, places, type Recurrence } from "../../db/schema.ts";
import {
  selectSummaries,
  summaryColumns,
  summaryOf,
  type SummaryRow,
} from "./load.ts";
import type { BatchItem } from "../../db/batch.ts";
import type { EventSummary } from "./serialize.ts";
import { lastMoment } from "./list.ts";

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
