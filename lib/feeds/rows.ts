/**
 * The rows feed entries are written from, and what a calendar reads of a
 * series' occurrences: the shapes the feeds' selection (select.ts,
 * calendar.ts) hands to their writers.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, places } from "../../db/schema.ts";
import { summaryColumns, summaryOf, type SummaryRow } from "../events/load.ts";
import type { EventRow, EventSummary } from "../events/serialize.ts";

/**
 * The columns feed entries are written from: a summary's (place and tags
 * included), and the text, the recurrence rule and the dates of the entry
 * (not the ActivityPub columns).
 */
export const feedColumns = {
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
export function feedRows(db: Db) {
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

/** Rows with the place and tags their entries show, in their order. */
export function asFeedEvents(rows: FeedRow[]): FeedEvent[] {
  return rows.map((row) => {
    const summary = summaryOf(row);
    return { row, place: summary.place, tags: summary.tags };
  });
}
