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
import { notModified } from "../lib/feeds/conditional.ts";
import { PUBLIC_LANGUAGES } from "../lib/i18n.ts";
import type { CachedAnswer, ResponseCache } from "../lib/response-cache.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import { languageAsked } from "./language.ts";

/** Paths whose anonymous answers are the same for every reader. */
const CACHEABLE = [
  /^\/api\/events$/,
  /^\/api\/events\/tag\/[^/]+$/,
  /^\/api\/events\/(?!mine$)[^/]+$/,
  /^\/api\/collections\/[^/]+\/events$/,
  /^\/feed\/[^/]+(\/(tag|place|collection)\/[^/]+)?$/,
];

/**
 * The public pages (routes/pages.ts): the same for every reader of one
 * language, so their key carries the language the request asks for.
 */
const PAGES =
  /^\/$|^\/(tag|place|collection)\/[^/]+$|^\/event\/[^/]+(?<!\.ics)$|^\/(past|tags|places)$|^\/calendar\/[^/]+$/;

/** The GET paths the cache middleware is mounted on (routes/mod.ts). */
export const CACHED_ROUTES = [
  "/api/events",
  "/api/events/*",
  "/api/collections/*",
  "/feed/*",
  "/",
  "/event/*",
  "/tag/*",
  "/place/*",
  "/collection/*",
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

/** Path without the query. */
function pathOf(pathAndQuery: string): string {
  const query = pathAndQuery.indexOf("?");
  return query === -1 ? pathAndQuery : pathAndQuery.slice(0, query);
}

/** Serves anonymous GETs of cacheable paths from `cache`, filling it on a miss. */
export function publicReadCache(
  deps: RouteDeps,
  cache: ResponseCache,
): PublicReadCache {
  /** The cache key of an anonymous GET of a cacheable path, or null. */
  const keyOf = (request: Request): string | null => {
    if (
      !cache.enabled || request.method !== "GET" ||
      request.headers.has("authorization")
    ) {
      return null;
    }
    const target = pathAndQuery(request.url);
    const path = pathOf(target);
    const accept = request.headers.get("accept") ?? "";
    if (PAGES.test(path)) {
      return `${target}\n${accept}\n${pageVariant(request)}`;
    }
    if (!isCacheablePath(path)) return null;
    return `${target}\n${accept}`;
  };
  return {
    hit(request) {
      const key = keyOf(request);
      if (key === null) return null;
      const marker = deps.database.changeMarker();
      if (marker === null) return null;
      const answer = cache.get(key, marker);
      return answer ? replay(answer, request) : null;
    },
    middleware: async (c, next) => {
      const key = keyOf(c.req.raw);
      if (key === null) return await next();
      const marker = deps.database.changeMarker();
      if (marker === null) return await next();
      let ran = false;
      const ttl = deps.database.embedded && c.req.path.startsWith("/feed/")
        ? Math.max(deps.config.publicCacheMs, FEED_TTL_MS)
        : deps.config.publicCacheMs;
      const answer = await cache.getOrCompute(key, marker, async () => {
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
