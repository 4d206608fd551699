/**
 * The public-read cache in front of the event listings, single events,
 * feeds and public pages (one entry per language a page is asked in):
 * anonymous GETs only (no Authorization header), 200 answers only.
 * A write ends cached answers at once: on the embedded database any write
 * (its change marker sees every commit to the file), on a remote one this
 * isolate's writes, while other isolates' writes are seen once the entry
 * expires, after PUBLIC_CACHE_MS at most.
 */
import type { MiddlewareHandler } from "hono";
import {
  canonicalEmbedQuery,
  parseEmbedOptions,
} from "../../lib/embed/options.ts";
import { notModified } from "../../lib/feeds/conditional.ts";
import { canonicalFilterQuery } from "../../lib/events/filter.ts";
import { SEARCH_EXTRA_PARAMS } from "../../lib/pages/search.ts";
import { PUBLIC_LANGUAGES } from "../../lib/i18n.ts";
import type { CachedAnswer, ResponseCache } from "../../lib/response-cache.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { languageAsked } from "./language.ts";

/** Paths whose anonymous answers are the same for every reader. */
const CACHEABLE = [
  /^\/api\/instance$/,
  /^\/api\/events$/,
  /^\/api\/events\/tag\/[^/]+$/,
  /^\/api\/events\/(?!mine$)[^/]+$/,
  /^\/api\/collections\/[^/]+\/events$/,
  /^\/feed\/[^/]+(\/(tag|place|collection)\/[^/]+)?$/,
];

/**
 * The public pages (routes/site/pages.ts): the same for every reader of one
 * language, so their key carries the language the request asks for.
 */
const PAGES =
  /^\/$|^\/search$|^\/(tag|place|collection)\/[^/]+$|^\/event\/[^/]+(?<!\.ics)$|^\/(past|tags|places)$|^\/calendar\/[^/]+$/;

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
 * Whether an answer to `path` with `query` (without `?`) may be kept, and
 * where. Filtered answers (the search page and the instance feed with a
 * filter) are kept only for canonical query strings (lib/events/filter.ts),
 * so that a filter written in many ways costs one entry, and apart from the
 * others: random searches can only push out each other, never the home page
 * or the plain feeds. Null: not kept.
 */
function placeOf(path: string, query: string): "main" | "filtered" | null {
  if (path === "/search") {
    if (query === "") return "main";
    return canonicalFilterQuery(query, SEARCH_EXTRA_PARAMS) === query
      ? "filtered"
      : null;
  }
  if (!path.startsWith("/feed/")) return "main";
  if (INSTANCE_FEED.test(path)) {
    if (PAST_DAYS_ONLY.test(query)) return "main";
    return canonicalFilterQuery(query, FEED_EXTRA_PARAMS) === query
      ? "filtered"
      : null;
  }
  return PAST_DAYS_ONLY.test(query) ? "main" : null;
}

/** The GET paths the cache middleware is mounted on (routes/mod.ts). */
export const CACHED_ROUTES = [
  "/api/instance",
  "/api/events",
  "/api/events/*",
  "/api/collections/*",
  "/feed/*",
  "/",
  "/search",
  "/event/*",
  "/tag/*",
  "/place/*",
  "/collection/*",
  "/embed",
  "/past",
  "/tags",
  "/places",
  "/calendar/*",
];

/**
 * Feeds tell clients they may keep them five minutes (max-age=300) and cost
 * the most to build: on the embedded database, whose marker sees every
 * write, they are kept a minute unless a write ends that sooner. On a remote
 * database they expire as everything else, after PUBLIC_CACHE_MS, which
 * bounds how long another isolate's write goes unseen.
 */
const FEED_TTL_MS = 60_000;

/** Whether a GET of `path` may be answered from the public-read cache. */
function isCacheablePath(path: string): boolean {
  return CACHEABLE.some((re) => re.test(path));
}

/**
 * What besides the URL and Accept tells a page's readers apart: the
 * language its request asks for (`?lang=`, the cookie, Accept-Language),
 * empty when none of the page's languages (the instance's then decides,
 * and a change of the instance's settings is a write, ending the entry).
 */
function pageVariant(request: Request): string {
  return languageAsked(request, PUBLIC_LANGUAGES).requested ?? "";
}

/**
 * The key of an embedded list (`/embed`, framed by other sites: each of
 * their visitors asks for it): its options in one canonical order, so the
 * same list asked with its tags in another order or case is one entry;
 * null for options that are not valid (a 400, never kept).
 */
function embedKey(target: string): string | null {
  const query = target.indexOf("?");
  const parsed = parseEmbedOptions(
    new URLSearchParams(query === -1 ? "" : target.slice(query + 1)),
  );
  return parsed.ok
    ? `/embed?${canonicalEmbedQuery(parsed.options, false)}`
    : null;
}

/** Bodies kept as text: JSON, XML, iCalendar and other text types. */
const TEXTUAL = /^(text\/|application\/([a-z.+-]*\+)?(json|xml)\b)/i;

async function capture(res: Response): Promise<CachedAnswer | null> {
  if (res.status !== 200 || res.headers.has("set-cookie")) return null;
  if (!TEXTUAL.test(res.headers.get("content-type") ?? "")) return null;
  const cacheControl = res.headers.get("cache-control") ?? "";
  if (/no-store|private/i.test(cacheControl)) return null;
  return {
    status: res.status,
    headers: [...res.headers.entries()],
    body: await res.clone().text(),
  };
}

function replay(
  answer: CachedAnswer,
  request: Request,
): Response {
  // Most hits are unconditional: the stored answer goes out as it is.
  const ifNoneMatch = request.headers.get("if-none-match");
  const ifModifiedSince = request.headers.get("if-modified-since");
  if (ifNoneMatch === null && ifModifiedSince === null) {
    // A new Response each time: one kept and cloned across requests fails on
    // Workers (a body may not serve two requests there).
    return new Response(answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  }
  const headers = new Headers(answer.headers);
  const etag = headers.get("etag");
  if (etag) {
    const lastModified = headers.get("last-modified");
    const conditional = notModified(
      { ifNoneMatch, ifModifiedSince },
      etag,
      // No Last-Modified: an invalid date, so If-Modified-Since never matches.
      new Date(lastModified ? Date.parse(lastModified) : Number.NaN),
    );
    if (conditional) {
      // A 304 carries the 200's headers but describes no body (RFC 9110 15.4.5).
      headers.delete("content-type");
      headers.delete("content-length");
      return new Response(null, { status: 304, headers });
    }
  }
  return new Response(answer.body, {
    status: answer.status,
    headers,
  });
}

/** The public-read cache: the middleware that fills it, and its hits. */
export interface PublicReadCache {
  /** Answers misses through the routes and keeps what may be kept. */
  middleware: MiddlewareHandler<AppEnv>;
  /**
   * The cached answer to `request`, or null: called before the router, so a
   * hit costs no routing and no middleware.
   */
  hit(request: Request): Response | null;
}

/** The path and query of `url`, as its parser normalised them. */
function pathAndQuery(url: string): string {
  return url.slice(url.indexOf("/", url.indexOf("//") + 2));
}

/** Path and query (without `?`). */
function split(pathAndQuery: string): [string, string] {
  const query = pathAndQuery.indexOf("?");
  return query === -1
    ? [pathAndQuery, ""]
    : [pathAndQuery.slice(0, query), pathAndQuery.slice(query + 1)];
}

/** Longer paths with their query are answered, never cached. */
const MAX_KEY_TARGET = 2048;
/** Longer Accept headers (whitespace removed) are answered, never cached. */
const MAX_KEY_ACCEPT = 256;

/**
 * Serves anonymous GETs of cacheable paths from `cache`, filling it on a
 * miss; filtered answers (see placeOf) go to `filtered`, a smaller cache of
 * their own (by default a part of `cache`).
 */
export function publicReadCache(
  deps: RouteDeps,
  cache: ResponseCache,
  filtered: ResponseCache = cache,
): PublicReadCache {
  /** The cache key of an anonymous GET of a cacheable path, and its cache; or null. */
  const keyOf = (
    request: Request,
  ): { key: string; store: ResponseCache } | null => {
    if (
      !cache.enabled || request.method !== "GET" ||
      request.headers.has("authorization")
    ) {
      return null;
    }
    const target = pathAndQuery(request.url);
    // Keys stay small: anyone can send long URLs and headers, and each
    // distinct key would be an entry of its own.
    if (target.length > MAX_KEY_TARGET) return null;
    const accept = (request.headers.get("accept") ?? "").toLowerCase()
      .replace(/\s+/g, "");
    if (accept.length > MAX_KEY_ACCEPT) return null;
    const [path, query] = split(target);
    if (path === "/embed") {
      // Its options are endless combinations too: kept with the filtered.
      const key = embedKey(target);
      return key === null
        ? null
        : { key: `${key}\n${pageVariant(request)}`, store: filtered };
    }
    const page = PAGES.test(path);
    if (!page && !isCacheablePath(path)) return null;
    const place = placeOf(path, query);
    if (place === null) return null;
    const store = place === "main" ? cache : filtered;
    return page
      ? { key: `${target}\n${accept}\n${pageVariant(request)}`, store }
      : { key: `${target}\n${accept}`, store };
  };
  return {
    hit(request) {
      const found = keyOf(request);
      if (found === null) return null;
      const marker = deps.database.changeMarker();
      if (marker === null) return null;
      const answer = found.store.get(found.key, marker);
      return answer ? replay(answer, request) : null;
    },
    middleware: async (c, next) => {
      const found = keyOf(c.req.raw);
      if (found === null) return await next();
      const { key, store } = found;
      const marker = deps.database.changeMarker();
      if (marker === null) return await next();
      let ran = false;
      const ttl = deps.database.embedded && c.req.path.startsWith("/feed/")
        ? Math.max(deps.config.publicCacheMs, FEED_TTL_MS)
        : deps.config.publicCacheMs;
      const answer = await store.getOrCompute(key, marker, async () => {
        ran = true;
        await next();
        // Conditional requests may answer 304: nothing to keep, the handler answered.
        return await capture(c.res);
      }, ttl);
      if (ran) return;
      if (answer) return c.res = replay(answer, c.req.raw);
    },
  };
}
