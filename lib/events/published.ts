/**
 * The editors' list of published events (`/admin/events`): what the public
 * listings show (visible local events, each date of a series), upcoming
 * soonest first or past most recent first, narrowed by words through the
 * full-text index, a page at a time.
 */
import { and, asc, desc, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events } from "../../db/schema.ts";
import { matchesTerms, searchTerms } from "../search.ts";
import { lastMoment, listableConditions } from "./list.ts";
import { selectSummaries, summaryOf } from "./load.ts";
import type { EventSummary } from "./serialize.ts";

/** Which of the published events: not over yet, or over. */
export type PublishedWhen = "upcoming" | "past";

/** The deepest page of the list. */
export const PUBLISHED_MAX_PAGE = 500;

/**
 * A page of `max` published events and whether another follows. `query`:
 * words each event must have (title, description, place or tags); throws a
 * 400 ApiError when beyond the search's limits (lib/search.ts).
 */
export async function listPublishedEvents(
  db: Db,
  options: {
    now: number;
    when: PublishedWhen;
    query: string;
    page: number;
    max: number;
  },
): Promise<{ events: EventSummary[]; more: boolean }> {
  const terms = searchTerms(options.query);
  const conditions = [
    ...listableConditions(true),
    options.when === "upcoming"
      ? sql`${lastMoment} >= ${options.now}`
      : sql`${lastMoment} < ${options.now}`,
  ];
  // Words without a letter or digit find nothing.
  if (options.query.trim() !== "") {
    conditions.push(terms.length === 0 ? sql`0` : matchesTerms(terms));
  }
  const order = options.when === "upcoming"
    ? [asc(events.start_datetime), asc(events.id)]
    : [desc(events.start_datetime), desc(events.id)];
  const rows = await selectSummaries(db).where(and(...conditions))
    .orderBy(...order).limit(options.max + 1)
    .offset((options.page - 1) * options.max);
  return {
    events: rows.slice(0, options.max).map(summaryOf),
    more: rows.length > options.max,
  };
}
