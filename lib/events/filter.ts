/**
 * The visitor's filter of events, as the search page (/search) and the
 * instance feeds (/feed/{format}) read it from a query string: words (the
 * bounded full-text search of lib/search.ts), tags, places, a range of days
 * in the instance time zone and online / in person. One parser for both, so
 * that a page's results and the feed it links to select the same events, and
 * one canonical query string per filter, so that a filter has one shareable
 * URL (and one entry in the public-read cache). Pure: no database, no HTTP.
 */
import { ApiError } from "../errors.ts";
import {
  SEARCH_MAX_TERMS,
  SEARCH_QUERY_MAX_LENGTH,
  searchTerms,
} from "../search.ts";
import { localToInstantMs } from "./recurrence.ts";
import { normalizeTag } from "./tags.ts";

/** Most tags one filter may name (any of them matches). */
export const FILTER_MAX_TAGS = 10;
/** Most places one filter may name (any of them matches). */
export const FILTER_MAX_PLACES = 10;
/** Longest tag a filter may name (as the API's tags). */
export const FILTER_TAG_MAX_LENGTH = 100;

/** The filter's parameters, in their canonical order. */
export const FILTER_PARAMS = [
  "q",
  "tags",
  "places",
  "from",
  "to",
  "online",
] as const;

export interface EventFilter {
  /** Words to find (trimmed, spaces collapsed); absent when none. */
  q?: string;
  /** Normalised tags (trimmed, NFC, lower case), distinct, sorted: any of them. */
  tags: string[];
  /** Place ids, distinct, ascending: any of them. */
  places: number[];
  /** First day (`YYYY-MM-DD`, instance time zone): events still running on it or later. */
  from?: string;
  /** Last day (`YYYY-MM-DD`): events starting on it or earlier. */
  to?: string;
  /** true: can be joined online; false: held at a place. A hybrid event is both. */
  online?: boolean;
}

/** Why a filter's parameter was refused (the pages say it in the visitor's language). */
export type FilterProblemCode =
  | "queryTooLong"
  | "queryTooManyWords"
  | "tooManyTags"
  | "tagTooLong"
  | "tooManyPlaces"
  | "badPlace"
  | "unknownPlace"
  | "badDate"
  | "fromAfterTo"
  | "badOnline";

export interface FilterProblem {
  field: (typeof FILTER_PARAMS)[number];
  code: FilterProblemCode;
  /** The problem in English, for the API's error details. */
  message: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const PLACE_ID = /^[1-9]\d{0,14}$/;

/** A calendar day `YYYY-MM-DD` (years 1000-9999), or null when it is not one. */
function parseDay(text: string): { y: number; m: number; d: number } | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (y < 1000 || m < 1 || m > 12 || d < 1) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCDate() !== d || date.getUTCMonth() !== m - 1) return null;
  return { y, m, d };
}

/** The values of `name`: repeated parameters, each also comma-separated. */
function listOf(params: URLSearchParams, name: string): string[] {
  return params.getAll(name).flatMap((v) => v.split(","))
    .map((v) => v.trim()).filter(Boolean);
}

/** The single value of `name`, trimmed; undefined when absent or empty. */
function valueOf(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name).map((v) => v.trim()).filter(Boolean);
  return values.length === 0 ? undefined : values[values.length - 1];
}

/**
 * Reads a filter from a query string. Every problem is reported (the page
 * shows each next to its field); the filter holds what could be read. Place
 * ids are only checked for their form here: whether they exist is the
 * database's to say (`unknownPlace`).
 */
export function parseEventFilter(
  params: URLSearchParams,
): { filter: EventFilter; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const filter: EventFilter = { tags: [], places: [] };

  const q = valueOf(params, "q")?.normalize("NFC").replace(/\s+/g, " ");
  if (q !== undefined) {
    filter.q = q;
    try {
      searchTerms(q, "q");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const tooLong = q.length > SEARCH_QUERY_MAX_LENGTH;
      problems.push({
        field: "q",
        code: tooLong ? "queryTooLong" : "queryTooManyWords",
        message: tooLong
          ? `at most ${SEARCH_QUERY_MAX_LENGTH} characters`
          : `at most ${SEARCH_MAX_TERMS} words`,
      });
    }
  }

  const tags = [...new Set(listOf(params, "tags").map(normalizeTag))]
    .filter(Boolean).sort();
  if (tags.some((t) => t.length > FILTER_TAG_MAX_LENGTH)) {
    problems.push({
      field: "tags",
      code: "tagTooLong",
      message: `a tag has at most ${FILTER_TAG_MAX_LENGTH} characters`,
    });
  } else if (tags.length > FILTER_MAX_TAGS) {
    problems.push({
      field: "tags",
      code: "tooManyTags",
      message: `at most ${FILTER_MAX_TAGS} tags`,
    });
  } else {
    filter.tags = tags;
  }

  const placeTexts = listOf(params, "places");
  if (placeTexts.some((p) => !PLACE_ID.test(p))) {
    problems.push({
      field: "places",
      code: "badPlace",
      message: "must be place ids (positive integers)",
    });
  } else {
    const places = [...new Set(placeTexts.map(Number))].sort((a, b) => a - b);
    if (places.length > FILTER_MAX_PLACES) {
      problems.push({
        field: "places",
        code: "tooManyPlaces",
        message: `at most ${FILTER_MAX_PLACES} places`,
      });
    } else {
      filter.places = places;
    }
  }

  for (const field of ["from", "to"] as const) {
    const text = valueOf(params, field);
    if (text === undefined) continue;
    if (parseDay(text)) {
      filter[field] = text;
    } else {
      problems.push({
        field,
        code: "badDate",
        message: "must be a date as YYYY-MM-DD",
      });
    }
  }
  if (filter.from && filter.to && filter.from > filter.to) {
    problems.push({
      field: "to",
      code: "fromAfterTo",
      message: "must not be before from",
    });
  }

  const online = valueOf(params, "online");
  if (online === "true" || online === "false") {
    filter.online = online === "true";
  } else if (online !== undefined) {
    problems.push({
      field: "online",
      code: "badOnline",
      message: "must be true (online) or false (in person)",
    });
  }
  return { filter, problems };
}

/** Whether the filter narrows anything (no filter: every upcoming event). */
export function isFiltered(filter: EventFilter): boolean {
  return filter.q !== undefined || filter.tags.length > 0 ||
    filter.places.length > 0 || filter.from !== undefined ||
    filter.to !== undefined || filter.online !== undefined;
}

/**
 * The filter's canonical query string (without `?`; empty for no filter):
 * its parameters in the order of FILTER_PARAMS, lists as repeated
 * parameters in their sorted order, nothing empty. `extra` parameters follow
 * in the order given (paging, language...).
 */
export function filterQuery(
  filter: EventFilter,
  extra: [string, string][] = [],
): string {
  const params = new URLSearchParams();
  if (filter.q !== undefined) params.append("q", filter.q);
  for (const tag of filter.tags) params.append("tags", tag);
  for (const place of filter.places) params.append("places", String(place));
  if (filter.from) params.append("from", filter.from);
  if (filter.to) params.append("to", filter.to);
  if (filter.online !== undefined) {
    params.append("online", String(filter.online));
  }
  for (const [name, value] of extra) params.append(name, value);
  return params.toString();
}

/** `?` and the query, or nothing when it is empty. */
export function withQuery(path: string, query: string): string {
  return query ? `${path}?${query}` : path;
}

/** The filter without one of its values (a chip's removal link). */
export function withoutValue(
  filter: EventFilter,
  field: (typeof FILTER_PARAMS)[number],
  value?: string | number,
): EventFilter {
  const copy: EventFilter = { ...filter };
  if (field === "tags") copy.tags = filter.tags.filter((t) => t !== value);
  else if (field === "places") {
    copy.places = filter.places.filter((p) => p !== value);
  } else delete copy[field];
  return copy;
}

/**
 * The canonical form of a whole query string made of the filter's
 * parameters and `extra` ones (each at most once, in that order, with a
 * value matching its pattern), or null when the query has anything else or a
 * filter problem. The public-read cache keeps only answers to canonical
 * queries, so that a filter has one entry whatever way it was written.
 */
export function canonicalFilterQuery(
  search: string,
  extra: readonly { name: string; pattern: RegExp }[] = [],
): string | null {
  const params = new URLSearchParams(search);
  const known = new Set<string>([
    ...FILTER_PARAMS,
    ...extra.map((e) => e.name),
  ]);
  for (const name of params.keys()) if (!known.has(name)) return null;
  const { filter, problems } = parseEventFilter(params);
  if (problems.length > 0) return null;
  const extras: [string, string][] = [];
  for (const { name, pattern } of extra) {
    const values = params.getAll(name);
    if (values.length > 1) return null;
    if (values.length === 1) {
      if (!pattern.test(values[0])) return null;
      extras.push([name, values[0]]);
    }
  }
  return filterQuery(filter, extras);
}

/** The Unix second a day (`YYYY-MM-DD`) begins in `timeZone`. */
export function dayStartIn(day: string, timeZone: string): number {
  const { y, m, d } = parseDay(day)!;
  return Math.floor(localToInstantMs(Date.UTC(y, m - 1, d), timeZone) / 1000);
}

/** The last Unix second of a day in `timeZone`. */
export function dayEndIn(day: string, timeZone: string): number {
  const { y, m, d } = parseDay(day)!;
  return Math.floor(
    localToInstantMs(Date.UTC(y, m - 1, d + 1), timeZone) / 1000,
  ) - 1;
}

/** The moments a filter's days stand for in `timeZone` (Unix seconds). */
export function filterWindow(
  filter: EventFilter,
  timeZone: string,
): { start?: number; end?: number } {
  return {
    start: filter.from ? dayStartIn(filter.from, timeZone) : undefined,
    end: filter.to ? dayEndIn(filter.to, timeZone) : undefined,
  };
}
