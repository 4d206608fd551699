/**
 * The feeds' routes as the OpenAPI document describes them: the formats,
 * the query of every feed and of the instance feed's filters, the answers.
 * The handlers are in feeds.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { FILTER_MAX_PLACES, FILTER_MAX_TAGS } from "../../lib/events/filter.ts";
import { SEARCH_MAX_TERMS, SEARCH_QUERY_MAX_LENGTH } from "../../lib/search.ts";
import { DEFAULT_PAST_DAYS, MAX_PAST_DAYS } from "../../lib/feeds/select.ts";
import { errorResponses } from "../middleware/validation.ts";

export const FEED_FORMATS = ["ics", "rss", "atom", "json"] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

export const FEED_CONTENT_TYPES: Record<FeedFormat, string> = {
  ics: "text/calendar; charset=utf-8",
  rss: "application/rss+xml; charset=utf-8",
  atom: "application/atom+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

const FormatParam = z.string().openapi({
  param: { name: "format", in: "path" },
  enum: [...FEED_FORMATS],
  example: "ics",
});

const FeedQuery = z.object({
  past_days: z.string().regex(/^\d+$/, "must be an integer").transform(Number)
    .pipe(z.number().int().min(0).max(MAX_PAST_DAYS)).optional()
    .default(DEFAULT_PAST_DAYS)
    .openapi({
      type: "integer",
      example: DEFAULT_PAST_DAYS,
      description:
        `Also list events that ended in the last N days (0-${MAX_PAST_DAYS}, default ${DEFAULT_PAST_DAYS})`,
    }),
});

const listQuery = (description: string, example: string) =>
  z.union([z.string(), z.array(z.string())]).optional().openapi({
    description,
    example,
  });

/** The instance feed's filter: the search page's (/search), the same names and values. */
const FilterQuery = FeedQuery.extend({
  q: z.string().optional().openapi({
    description:
      `Words, each the start of a word of the title, description, place or tags (any case and ` +
      `accents; at most ${SEARCH_QUERY_MAX_LENGTH} characters and ${SEARCH_MAX_TERMS} words)`,
    example: "jazz",
  }),
  tags: listQuery(
    `Tags, any of them (case-insensitive; repeated or comma-separated; at most ${FILTER_MAX_TAGS})`,
    "jazz",
  ),
  places: listQuery(
    `Place ids, any of them (repeated or comma-separated; at most ${FILTER_MAX_PLACES}; ` +
      "an unknown id is a 400)",
    "3",
  ),
  from: z.string().optional().openapi({
    description:
      "First day, `YYYY-MM-DD` in the instance time zone: events still running on it or later " +
      "(replaces the `past_days` window)",
    example: "2026-06-01",
  }),
  to: z.string().optional().openapi({
    description:
      "Last day, `YYYY-MM-DD` in the instance time zone: events starting on it or earlier " +
      "(not before `from`)",
    example: "2026-06-30",
  }),
  online: z.string().optional().openapi({
    description:
      "`true`: events with an online location; `false`: events held at a place (a hybrid event " +
      "is both)",
    enum: ["true", "false"],
    example: "true",
  }),
});

const feedResponses = {
  200: {
    description: "The feed",
    content: Object.fromEntries(
      Object.values(FEED_CONTENT_TYPES).map((t) => [
        t.split(";")[0],
        { schema: z.string() },
      ]),
    ),
  },
  304: { description: "Not modified (If-None-Match or If-Modified-Since)" },
};

const FEED_DESCRIPTION =
  "Visible events of the scope, never series templates: up to 200 upcoming plus up to 200 " +
  "that ended within `past_days`. `ics` is iCalendar (a series is one VEVENT with RRULE, " +
  "EXDATE and RECURRENCE-ID overrides), `rss` RSS 2.0, `atom` Atom 1.0, `json` JSON Feed 1.1. " +
  "ETag and Last-Modified; 304 on a match.";

function feedRoute<P extends z.ZodObject, Q extends z.ZodObject>(
  path: string,
  summary: string,
  params: P,
  query: Q,
  description = FEED_DESCRIPTION,
) {
  return createRoute({
    method: "get",
    path,
    tags: ["feeds"],
    summary,
    description,
    request: { params, query },
    responses: { ...feedResponses, ...errorResponses(400, 404) },
  });
}

export const instanceRoute = feedRoute(
  "/feed/{format}",
  "The instance's local events, all or filtered",
  z.object({ format: FormatParam }),
  FilterQuery,
  FEED_DESCRIPTION +
    " Filtered by the search page's parameters (`q`, `tags`, `places`, `from`, `to`, `online`, " +
    "all combinable: a visitor subscribes to exactly what they searched for). With `from` or " +
    "`to`, a series is written as its occurrences (one VEVENT each) rather than one RRULE. " +
    "Answers are kept in the public-read cache only for canonical query strings (parameters " +
    "in the order above, lists repeated and sorted, nothing empty), as the search page links them.",
);
export const tagRoute = feedRoute(
  "/feed/{format}/tag/{tag}",
  "Local events with a tag (case-insensitive; an unknown tag is an empty feed)",
  z.object({ format: FormatParam, tag: z.string().min(1).max(100) }),
  FeedQuery,
);
export const placeRoute = feedRoute(
  "/feed/{format}/place/{id}",
  "Local events at a place",
  z.object({
    format: FormatParam,
    id: z.string().regex(/^[1-9]\d{0,15}$/, "must be a positive integer")
      .transform(Number).openapi({ type: "string", example: "1" }),
  }),
  FeedQuery,
);
export const collectionRoute = feedRoute(
  "/feed/{format}/collection/{name}",
  "Events of a collection (remote ones when its filters name their actors)",
  z.object({ format: FormatParam, name: z.string().min(1).max(200) }),
  FeedQuery,
);
