/**
 * Feeds: the instance's events (and a tag's, a place's, a collection's) as
 * iCalendar, RSS 2.0, Atom 1.0 and JSON Feed 1.1, and one event as an .ics
 * file. Public, CORS-open, with ETag / Last-Modified and 304 answers.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { unixNow } from "../../lib/clock.ts";
import { invalidRequest, notFound } from "../../lib/errors.ts";
import {
  dayStartIn,
  isFiltered,
  parseEventFilter,
} from "../../lib/events/filter.ts";
import { createLimiter } from "../../lib/limit.ts";
import { etagOf, httpDate, notModified } from "../../lib/feeds/conditional.ts";
import { renderCalendar } from "../../lib/feeds/ics.ts";
import {
  calendarContentQuery,
  eventCalendarQuery,
} from "../../lib/feeds/calendar.ts";
import {
  collectionScope,
  DEFAULT_PAST_DAYS,
  feedEntriesQuery,
  type FeedScope,
  filteredScopeQuery,
  instanceScope,
  knownScope,
  placeScopeQuery,
  type ScopeQuery,
  settingsModifiedAtQuery,
  tagScopeQuery,
} from "../../lib/feeds/select.ts";
import { allReads, runRead } from "../../db/batch.ts";
import { asOneStatement } from "../../db/prebuilt.ts";
import { renderFeed, type TextFormat } from "../../lib/feeds/syndication.ts";
import type { Settings } from "../../lib/settings.ts";
import { canonicalFilterQuery } from "../../lib/events/filter.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  collectionRoute,
  FEED_CONTENT_TYPES,
  FEED_FORMATS,
  type FeedFormat,
  instanceRoute,
  placeRoute,
  tagRoute,
} from "./feed-routes.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { errorResponses, validationHook } from "../middleware/validation.ts";

/** Clients may keep a feed this long before asking again (with its ETag). */
const CACHE_CONTROL = "public, max-age=300";
const DAY = 86_400;

/** How many feeds are built at the same time; more requests wait their turn. */
const FEED_BUILDS_AT_ONCE = 2;

/** Sets the open CORS headers first, so that error answers carry them too. */
const openCors: MiddlewareHandler = async (c, next) => {
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Expose-Headers", "ETag, Last-Modified");
  await next();
};

function parseFormat(format: string): FeedFormat {
  if (!(FEED_FORMATS as readonly string[]).includes(format)) {
    throw notFound("Feed format");
  }
  return format as FeedFormat;
}

/** The query string of a feed's own URL: its filter, then `past_days` unless the default. */
function feedQuery(scope: FeedScope, pastDays: number): string {
  const params = [
    scope.query,
    pastDays === DEFAULT_PAST_DAYS ? "" : `past_days=${pastDays}`,
  ].filter(Boolean);
  return params.length ? `?${params.join("&")}` : "";
}

function latest(dates: (Date | null | undefined)[]): Date {
  let max = 0;
  for (const d of dates) if (d && d.getTime() > max) max = d.getTime();
  return new Date(max);
}

export function feedRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const baseUrl = deps.config.baseUrl;

  /** Answers a rendered document, or 304 when the client has it already. */
  const send = async (
    c: Context<AppEnv>,
    body: string,
    format: FeedFormat,
    lastModified: Date,
    extra: Record<string, string> = {},
  ) => {
    const etag = await etagOf(body);
    const headers: Record<string, string> = {
      ETag: etag,
      "Last-Modified": httpDate(lastModified),
      "Cache-Control": CACHE_CONTROL,
    };
    if (
      notModified(
        {
          ifNoneMatch: c.req.header("if-none-match"),
          ifModifiedSince: c.req.header("if-modified-since"),
        },
        etag,
        lastModified,
      )
    ) {
      return c.body(null, 304, headers);
    }
    return c.body(body, 200, {
      ...headers,
      ...extra,
      "Content-Type": FEED_CONTENT_TYPES[format],
    });
  };

  const scopeTitle = (settings: Settings, scope: FeedScope) => {
    switch (scope.kind) {
      case "tag":
        return `${settings.instance_title} — #${scope.label}`;
      case "place":
      case "collection":
      case "filter":
        return `${settings.instance_title} — ${scope.label}`;
      default:
        return settings.instance_title;
    }
  };

  const scopeDescription = (settings: Settings, scope: FeedScope) => {
    switch (scope.kind) {
      case "tag":
        return `Events tagged ${scope.label}`;
      case "place":
        return `Events at ${scope.label}`;
      case "collection":
        return `Events of the collection ${scope.label}`;
      case "filter":
        return `Events matching ${scope.label}`;
      default:
        return settings.instance_description || "Upcoming events";
    }
  };

  // A feed of a large instance takes tens of milliseconds and megabytes to
  // build: a few at a time finish sooner than many fighting for one thread
  // and the heap (the public-read cache then serves repeats).
  const feedBuilds = createLimiter(FEED_BUILDS_AT_ONCE);

  const serveFeed = (
    c: Context<AppEnv>,
    format: FeedFormat,
    scope: ScopeQuery | ((settings: Settings) => ScopeQuery),
    pastDays: number,
    windowStartOf?: (settings: Settings) => number | undefined,
  ) =>
    feedBuilds.run(() => buildFeed(c, format, scope, pastDays, windowStartOf));

  /**
   * Reads and writes a feed: one round trip (the settings read is reused
   * for a second; a collection's filters cost one before).
   */
  const buildFeed = async (
    c: Context<AppEnv>,
    format: FeedFormat,
    scopeOf: ScopeQuery | ((settings: Settings) => ScopeQuery),
    pastDays: number,
    windowStartOf?: (settings: Settings) => number | undefined,
  ) => {
    const settings = await settingsOf(c, db);
    const now = unixNow(deps.clock);
    const scopeQuery = typeof scopeOf === "function"
      ? scopeOf(settings)
      : scopeOf;
    const windowStart = windowStartOf?.(settings) ?? now - pastDays * DAY;
    if (format === "ics") {
      const [settingsAt, scope, content] = await runRead(
        db,
        asOneStatement(allReads(
          settingsModifiedAtQuery(db),
          scopeQuery,
          calendarContentQuery(
            db,
            scopeQuery,
            now,
            windowStart,
            settings.instance_timezone,
          ),
        )),
      );
      const title = scopeTitle(settings, scope);
      const query = feedQuery(scope, pastDays);
      const rows = [
        ...content.singles.map((s) => s.row),
        ...content.series.flatMap((s) => [
          s.parent.row,
          ...s.occurrences.map((o) => o.row),
        ]),
      ];
      const body = renderCalendar(content, {
        baseUrl,
        timeZone: settings.instance_timezone,
        name: title,
        description: scopeDescription(settings, scope),
        sourceUrl: `${baseUrl}/feed/ics${scope.path}${query}`,
        now,
        windowStart,
      });
      return send(
        c,
        body,
        format,
        latest([
          settingsAt,
          ...scope.modifiedAt,
          ...rows.map((r) => r.updatedAt),
        ]),
      );
    }
    const [settingsAt, scope, entries] = await runRead(
      db,
      asOneStatement(allReads(
        settingsModifiedAtQuery(db),
        scopeQuery,
        feedEntriesQuery(
          db,
          scopeQuery,
          now,
          windowStart,
          settings.recurrent_event_visible,
        ),
      )),
    );
    const updated = latest([
      settingsAt,
      ...scope.modifiedAt,
      ...entries.map((e) => e.row.updatedAt),
    ]);
    const body = renderFeed(format as TextFormat, entries, {
      baseUrl,
      locality: {
        locale: settings.instance_locale,
        timeZone: settings.instance_timezone,
      },
      title: scopeTitle(settings, scope),
      description: scopeDescription(settings, scope),
      link: `${baseUrl}${scope.pagePath}`,
      path: `${scope.path}${feedQuery(scope, pastDays)}`,
      updated,
    });
    return send(c, body, format, updated);
  };

  app.openapi(
    { ...instanceRoute, middleware: [openCors] },
    async (c) => {
      const { format } = c.req.valid("param");
      const parsed = parseFormat(format);
      const pastDays = c.req.valid("query").past_days;
      const { filter, problems } = parseEventFilter(
        new URL(c.req.url).searchParams,
      );
      if (problems.length > 0) {
        throw invalidRequest(
          "The request is not valid",
          problems.map(({ field, message }) => ({ field, message })),
        );
      }
      if (!isFiltered(filter)) {
        return await serveFeed(
          c,
          parsed,
          knownScope(instanceScope()),
          pastDays,
        );
      }
      return await serveFeed(
        c,
        parsed,
        (settings) =>
          filteredScopeQuery(db, filter, settings.instance_timezone),
        pastDays,
        (settings) =>
          filter.from
            ? dayStartIn(filter.from, settings.instance_timezone)
            : undefined,
      );
    },
  );

  app.openapi({ ...tagRoute, middleware: [openCors] }, async (c) => {
    const { format, tag } = c.req.valid("param");
    const parsed = parseFormat(format);
    return await serveFeed(
      c,
      parsed,
      tagScopeQuery(db, tag),
      c.req.valid("query").past_days,
    );
  });

  app.openapi({ ...placeRoute, middleware: [openCors] }, async (c) => {
    const { format, id } = c.req.valid("param");
    const parsed = parseFormat(format);
    return await serveFeed(
      c,
      parsed,
      placeScopeQuery(db, id),
      c.req.valid("query").past_days,
    );
  });

  app.openapi({ ...collectionRoute, middleware: [openCors] }, async (c) => {
    const { format, name } = c.req.valid("param");
    const parsed = parseFormat(format);
    return await serveFeed(
      c,
      parsed,
      knownScope(await collectionScope(db, name)),
      c.req.valid("query").past_days,
    );
  });

  /**
   * One event as an .ics file; a series template gives its whole series.
   * One round trip.
   */
  const serveEvent = async (
    c: Context<AppEnv>,
    by: { id: number } | { slug: string },
  ) => {
    const settings = await settingsOf(c, db);
    const now = unixNow(deps.clock);
    const windowStart = now - DEFAULT_PAST_DAYS * DAY;
    const [settingsAt, found] = await runRead(
      db,
      asOneStatement(allReads(
        settingsModifiedAtQuery(db),
        eventCalendarQuery(db, by, windowStart, settings.instance_timezone),
      )),
    );
    if (!found) throw notFound("Event");
    const { row, content } = found;
    const rows = [
      ...content.singles.map((s) => s.row),
      ...content.series.flatMap((s) => [
        s.parent.row,
        ...s.occurrences.map((o) => o.row),
      ]),
    ];
    const body = renderCalendar(content, {
      baseUrl,
      timeZone: settings.instance_timezone,
      name: row.title,
      now,
      windowStart,
    });
    return send(
      c,
      body,
      "ics",
      latest([settingsAt, ...rows.map((r) => r.updatedAt)]),
      { "Content-Disposition": `attachment; filename="${row.slug}.ics"` },
    );
  };

  // Preflight for scripts that send their own conditional headers.
  for (const path of ["/feed/*", "/event/:file{[^/]+\\.ics}"]) {
    app.options(path, (c) =>
      c.body(null, 204, {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
        "Access-Control-Allow-Headers": "If-None-Match, If-Modified-Since",
        "Access-Control-Max-Age": "86400",
      }));
  }

  app.get("/event/:file{[^/]+\\.ics}", openCors, async (c) => {
    const slug = c.req.param("file").slice(0, -".ics".length);
    return await serveEvent(c, { slug });
  });

  app.get("/api/events/:file{[0-9]+\\.ics}", openCors, async (c) => {
    const id = Number(c.req.param("file").slice(0, -".ics".length));
    if (!Number.isSafeInteger(id)) throw notFound("Event");
    return await serveEvent(c, { id });
  });

  // Documentation of the two routes above (registered with Hono patterns).
  for (
    const [path, param, summary] of [
      ["/event/{slug}.ics", "slug", "One event as iCalendar, by slug"],
      ["/api/events/{id}.ics", "id", "One event as iCalendar, by id"],
    ] as const
  ) {
    app.openAPIRegistry.registerPath({
      method: "get",
      path,
      tags: ["feeds"],
      summary,
      description:
        "A single event or occurrence is one VEVENT with its own UID; a series template gives " +
        "the whole series (RRULE, EXDATE, RECURRENCE-ID overrides). Hidden or unknown: 404.",
      request: {
        params: z.object({ [param]: z.string() }),
      },
      responses: {
        200: {
          description: "text/calendar",
          content: { "text/calendar": { schema: z.string() } },
        },
        304: { description: "Not modified" },
        ...errorResponses(404),
      },
    });
  }

  return app;
}

/** The instance feed, which takes the search page's filter (lib/events/filter.ts). */
const INSTANCE_FEED = /^\/feed\/[^/]+$/;

/** The instance feed's parameters besides the filter's. */
const FEED_EXTRA_PARAMS = [{
  name: "past_days",
  pattern: /^(?:0|[1-9]\d{0,2})$/,
}];

/** The only parameter of the tag, place and collection feeds. */
const PAST_DAYS_ONLY = /^(?:past_days=(?:0|[1-9]\d{0,2}))?$/;

/**
 * Feeds tell clients they may keep them five minutes (max-age=300) and cost
 * the most to build: on the embedded database, whose marker sees every
 * write, they are kept a minute unless a write ends that sooner. On a remote
 * database they expire as everything else, after PUBLIC_CACHE_MS, which
 * bounds how long another isolate's write goes unseen.
 */
const FEED_TTL_MS = 60_000;

/**
 * The feeds, the same for every reader. The instance feed with a filter is
 * kept only for canonical query strings (lib/events/filter.ts), so that a
 * filter written in many ways costs one entry, and with the filtered
 * answers; the other feeds take only `past_days`.
 */
export const feedsModule: RouteModule = {
  name: "feeds",
  routes: feedRoutes,
  cacheable: [{
    routes: ["/feed/*"],
    paths: [/^\/feed\/[^/]+(\/(tag|place|collection)\/[^/]+)?$/],
    variant: "shared",
    place(path, query) {
      if (INSTANCE_FEED.test(path)) {
        if (PAST_DAYS_ONLY.test(query)) return "main";
        return canonicalFilterQuery(query, FEED_EXTRA_PARAMS) === query
          ? "filtered"
          : null;
      }
      return PAST_DAYS_ONLY.test(query) ? "main" : null;
    },
    embeddedTtlMs: FEED_TTL_MS,
  }],
};
