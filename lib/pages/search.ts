/**
 * What the search page (/search) shows: one page of the events a filter
 * (lib/events/filter.ts) finds, grouped by day, how many there are (counted
 * up to a bound), the tags and places a visitor can choose from (the most
 * used among the next upcoming events, and those already chosen), and the
 * names of the chosen ones. One round trip: every read is one statement.
 */
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, eventTags, places, tags } from "../../db/schema.ts";
import { publicPlace } from "../events/access.ts";
import { type EventFilter, filterWindow } from "../events/filter.ts";
import { listableConditions } from "../events/list.ts";
import { searchPageQuery } from "../events/search.ts";
import { allReads, type BatchRead, runRead } from "../../db/batch.ts";
import { asOneStatement } from "../../db/prebuilt.ts";
import type { EventSummary } from "../events/serialize.ts";
import { groupEntriesByDay } from "./browse.ts";

/** Results of one calendar day (or those already running, under `ongoing`). */
export interface DayGroup {
  /** `YYYY-MM-DD` in the instance time zone, or `ongoing`. */
  key: string;
  /** The day in words, or null for the group of running events. */
  label: string | null;
  events: EventSummary[];
}
import type { Locality } from "./format.ts";
import { PUBLIC_LANGUAGES } from "../i18n.ts";

/** Results per page. */
export const SEARCH_PAGE_SIZE = 20;
/**
 * The deepest page: as deep as the count goes (SEARCH_COUNT_CAP). Further
 * than a thousand results a visitor narrows the search rather than pages.
 */
export const SEARCH_MAX_PAGE = 50;
/** Results are counted up to this many; beyond, the page says "more than". */
export const SEARCH_COUNT_CAP = 1000;
/** How many tags and places the form offers (besides those chosen). */
export const SEARCH_CHOICES = 12;
/** The upcoming events the offered tags and places are taken from. */
const CHOICE_SAMPLE = 300;

/** A tag or place the form offers, and how many of the sampled events have it. */
export interface Choice<T> {
  value: T;
  label: string;
  uses: number;
}

export interface SearchPage {
  page: number;
  pageSize: number;
  hasNext: boolean;
  /** How many events the filter finds, at most SEARCH_COUNT_CAP + 1. */
  count: number;
  /** The moment the results start from (the `from` day, or now). */
  start: number;
  days: DayGroup[];
  tagChoices: Choice<string>[];
  placeChoices: Choice<number>[];
  /** Names of the chosen places (those that exist), by id. */
  placeNames: Map<number, string>;
  /** Stored spellings of the chosen tags (those that exist), by normalised tag. */
  tagNames: Map<string, string>;
}

/** A filter's chosen place ids that do not exist. */
export function unknownPlaces(
  filter: EventFilter,
  page: Pick<SearchPage, "placeNames">,
): number[] {
  return filter.places.filter((id) => !page.placeNames.has(id));
}

/** The next upcoming listable events' ids: where the offered choices come from. */
function sampleOf(db: Db, now: number, showRecurrent: boolean) {
  return db.select({ id: events.id, placeId: events.placeId }).from(events)
    .where(and(
      ...listableConditions(showRecurrent),
      sql`${events.start_datetime} >= ${now}`,
    )).orderBy(asc(events.start_datetime)).limit(CHOICE_SAMPLE)
    .as("sample");
}

/** The tags most used among the next upcoming events. */
function tagChoicesQuery(
  db: Db,
  now: number,
  showRecurrent: boolean,
): BatchRead<Choice<string>[]> {
  const sample = sampleOf(db, now, showRecurrent);
  const uses = count();
  return {
    statements: [
      db.select({ key: tags.normalizedTag, label: tags.tag, uses })
        .from(sample)
        .innerJoin(eventTags, eq(eventTags.eventId, sample.id))
        .innerJoin(tags, eq(tags.id, eventTags.tagId))
        .groupBy(tags.id).orderBy(desc(uses), asc(tags.normalizedTag))
        .limit(SEARCH_CHOICES),
    ],
    read(results) {
      return (results[0] as { key: string; label: string; uses: number }[])
        .map((r) => ({ value: r.key, label: r.label, uses: r.uses }));
    },
  };
}

/** The places most used among the next upcoming events. */
function placeChoicesQuery(
  db: Db,
  now: number,
  showRecurrent: boolean,
): BatchRead<Choice<number>[]> {
  const sample = sampleOf(db, now, showRecurrent);
  const uses = count();
  return {
    statements: [
      db.select({ id: places.id, label: places.name, uses }).from(sample)
        .innerJoin(places, eq(places.id, sample.placeId))
        .groupBy(places.id).orderBy(desc(uses), asc(places.name))
        .limit(SEARCH_CHOICES),
    ],
    read(results) {
      return (results[0] as { id: number; label: string; uses: number }[])
        .map((r) => ({ value: r.id, label: r.label, uses: r.uses }));
    },
  };
}

/** The tags and places the form offers. */
type FormChoices = Pick<SearchPage, "tagChoices" | "placeChoices">;

/** How long the offered choices are reused, in seconds (they are read from now on). */
const CHOICES_REUSE_SECONDS = 60;

/** The choices last read per database, under the change marker read before. */
const choicesRead = new WeakMap<
  Db,
  { marker: string; showRecurrent: boolean; at: number; choices: FormChoices }
>();

/**
 * The form's choices: those last read while the database's change marker is
 * still `changeMarker` (read before, so that a write meanwhile is never
 * hidden) and for at most CHOICES_REUSE_SECONDS, else read in the caller's
 * statement and kept. They are the same for every search, and after the
 * results the dearest part of its statement. Null marker: read every time.
 */
function formChoicesQuery(
  db: Db,
  now: number,
  showRecurrent: boolean,
  changeMarker: string | null,
): BatchRead<FormChoices> {
  const kept = choicesRead.get(db);
  if (
    changeMarker !== null && kept?.marker === changeMarker &&
    kept.showRecurrent === showRecurrent && now >= kept.at &&
    now - kept.at < CHOICES_REUSE_SECONDS
  ) {
    const { choices } = kept;
    return { statements: [], read: () => choices };
  }
  const query = allReads(
    tagChoicesQuery(db, now, showRecurrent),
    placeChoicesQuery(db, now, showRecurrent),
  );
  return {
    statements: query.statements,
    read(results) {
      const [tagChoices, placeChoices] = query.read(results);
      const choices = { tagChoices, placeChoices };
      if (changeMarker !== null) {
        choicesRead.set(db, {
          marker: changeMarker,
          showRecurrent,
          at: now,
          choices,
        });
      }
      return choices;
    },
  };
}

/** Names of the chosen places (unknown and non-public ids are left out). */
function placeNamesQuery(
  db: Db,
  ids: number[],
): BatchRead<Map<number, string>> {
  if (ids.length === 0) return { statements: [], read: () => new Map() };
  return {
    statements: [
      db.select({ id: places.id, name: places.name }).from(places)
        .where(and(inArray(places.id, ids), publicPlace(places.id))),
    ],
    read(results) {
      return new Map(
        (results[0] as { id: number; name: string }[]).map((
          r,
        ) => [r.id, r.name]),
      );
    },
  };
}

/** Stored spellings of the chosen tags. */
function tagNamesQuery(db: Db, keys: string[]): BatchRead<Map<string, string>> {
  if (keys.length === 0) return { statements: [], read: () => new Map() };
  return {
    statements: [
      db.select({ key: tags.normalizedTag, tag: tags.tag }).from(tags)
        .where(inArray(tags.normalizedTag, keys)),
    ],
    read(results) {
      return new Map(
        (results[0] as { key: string; tag: string }[]).map((
          r,
        ) => [r.key, r.tag]),
      );
    },
  };
}

/**
 * One page of what `filter` finds (from its `from` day, else from now),
 * grouped by day in the instance time zone, with its count and the form's
 * choices. The filter must be free of problems (parseEventFilter); whether
 * its places exist is for the caller to check (unknownPlaces).
 */
export async function loadSearchPage(
  db: Db,
  filter: EventFilter,
  page: number,
  now: number,
  options: Locality & {
    showRecurrent: boolean;
    /** The database's change marker, read before (see formChoicesQuery). */
    changeMarker: string | null;
  },
): Promise<SearchPage> {
  const window = filterWindow(filter, options.timezone);
  const search = {
    start: window.start ?? now,
    end: window.end,
    tags: filter.tags,
    places: filter.places,
    query: filter.q,
    online: filter.online,
    showRecurrent: options.showRecurrent,
  };
  const offset = (page - 1) * SEARCH_PAGE_SIZE;
  const [
    { rows, count: found },
    choices,
    placeNames,
    tagNames,
  ] = await runRead(
    db,
    asOneStatement(allReads(
      // One more than the page: whether another follows.
      searchPageQuery(
        db,
        search,
        offset,
        SEARCH_PAGE_SIZE + 1,
        SEARCH_COUNT_CAP,
      ),
      formChoicesQuery(db, now, options.showRecurrent, options.changeMarker),
      placeNamesQuery(db, filter.places),
      tagNamesQuery(db, filter.tags),
    )),
  );
  return {
    page,
    pageSize: SEARCH_PAGE_SIZE,
    // Never past the deepest page (its link would be a 400).
    hasNext: rows.length > SEARCH_PAGE_SIZE && page < SEARCH_MAX_PAGE,
    count: found,
    start: search.start,
    // The home page's grouping, every result an entry of its own.
    days: groupEntriesByDay(
      rows.slice(0, SEARCH_PAGE_SIZE).map((event) => ({ event, series: null })),
      search.start,
      options,
    ).map((day) => ({
      key: day.key,
      label: day.label,
      events: day.entries.map((entry) => entry.event),
    })),
    ...choices,
    placeNames,
    tagNames,
  };
}

/**
 * What the form offers and the names of what `filter` chose, without
 * results: for a search that cannot be done (one round trip).
 */
export async function loadSearchChoices(
  db: Db,
  filter: EventFilter,
  now: number,
  showRecurrent: boolean,
  changeMarker: string | null,
): Promise<
  Pick<SearchPage, "tagChoices" | "placeChoices" | "placeNames" | "tagNames">
> {
  const [choices, placeNames, tagNames] = await runRead(
    db,
    asOneStatement(allReads(
      formChoicesQuery(db, now, showRecurrent, changeMarker),
      placeNamesQuery(db, filter.places),
      tagNamesQuery(db, filter.tags),
    )),
  );
  return { ...choices, placeNames, tagNames };
}

/**
 * The search page's parameters besides the filter's, in their canonical
 * order and form: `page` from 2 to SEARCH_MAX_PAGE (50) (page 1 goes without),
 * then `lang` (a language of the public pages).
 */
export const SEARCH_EXTRA_PARAMS: readonly { name: string; pattern: RegExp }[] =
  [
    { name: "page", pattern: /^(?:[2-9]|[1-4]\d|50)$/ },
    {
      name: "lang",
      pattern: new RegExp(`^(?:${PUBLIC_LANGUAGES.join("|")})$`),
    },
  ];
