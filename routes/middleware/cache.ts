/**
 * The public-read cache in front of the event listings, single events,
 * feeds and public pages (one entry per language a page is asked in):
 * anonymous GETs only (no Authorization header), 200 answers only.
 * A write ends cached answers at once: on the embedded database any write
 * (its change marker sees every commit to the file), on a remote one this
 * isolate's writes, while other isolates' writes are seen once the entry
 * expires, after PUBLIC_CACHE_MS at most.
 */
import type { Context, MiddlewareHandler, Next } from "hono";
import { notModified } from "../../lib/feeds/conditional.ts";
import { PUBLIC_LANGUAGES } from "../../lib/i18n.ts";
import { CacheLookups } from "../../lib/cache-lookups.ts";
import type { CachedAnswer, ResponseCache } from "../../lib/response-cache.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { CacheRule } from "../module.ts";
import { languageAsked } from "./language.ts";
import { hasSessionCookie } from "./viewer.ts";

/**
 * The GET patterns the cache's middleware is mounted on (routes/mod.ts):
 * those of every rule.
 */
export function cachedRoutes(rules: readonly CacheRule[]): string[] {
  return rules.flatMap((rule) => rule.routes);
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
  const headers = [...res.headers.entries()];
  return {
    status: res.status,
    headers,
    body: await res.clone().text(),
    validators: headers.some(([name]) =>
      name === "etag" || name === "last-modified"
    ),
  };
}

/** A new Response of `answer`, as it was sent. */
function fresh(answer: CachedAnswer): Response {
  return new Response(answer.body, {
    status: answer.status,
    headers: answer.headers,
  });
}

/**
 * How a hit answered before the router makes its Response, the answer going
 * straight to the server. On Deno (`reusable`) it clones one Response kept per
 * answer: a new Response with several headers builds a native response,
 * registers it with a FinalizationRegistry and checks each header again,
 * which cost more than the rest of a hit, while a clone copies the checked
 * headers and shares the body. The kept body is the answer's UTF-8 bytes,
 * encoded once (the server then sends them as they are, where text beyond
 * Latin-1 was encoded again for every hit); every clone shares them, and
 * nothing writes into a body it sends. Elsewhere (Workers) a new Response
 * each time: one kept and cloned across requests fails there (a body may not
 * serve two requests).
 */
function directAnswers(reusable: boolean): (answer: CachedAnswer) => Response {
  if (!reusable) return fresh;
  // Kept beside the answer, and gone with it when the cache drops it; null
  // after its first hit. Many answers are served once before they expire
  // (reads spread over many events): a template costs more than a new
  // Response, and pays from the second hit on.
  const kept = new WeakMap<CachedAnswer, Response | null>();
  const encoder = new TextEncoder();
  return (answer) => {
    let template = kept.get(answer);
    if (template === undefined) {
      kept.set(answer, null);
      return fresh(answer);
    }
    if (template === null) {
      template = new Response(encoder.encode(answer.body), {
        status: answer.status,
        headers: answer.headers,
      });
      kept.set(answer, template);
    }
    // The template's body is never read: each clone has a body of its own
    // over the same bytes.
    return template.clone();
  };
}

function replay(
  answer: CachedAnswer,
  request: Request,
  unconditional: (answer: CachedAnswer) => Response,
): Response {
  // Most hits are unconditional: the stored answer goes out as it is. An
  // answer without validators (the API's JSON) cannot be matched by a
  // conditional request: its request headers are not even read.
  const ifNoneMatch = answer.validators
    ? request.headers.get("if-none-match")
    : null;
  const ifModifiedSince = answer.validators
    ? request.headers.get("if-modified-since")
    : null;
  if (ifNoneMatch === null && ifModifiedSince === null) {
    return unconditional(answer);
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

/** A cacheable request's key, the cache it goes to, and its rule. */
interface Found {
  key: string;
  store: ResponseCache;
  rule: CacheRule;
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
 * miss; filtered answers (CacheRule.place in routes/module.ts) go to
 * `filtered`, a smaller cache of their own (by default a part of `cache`).
 */
export function publicReadCache(
  deps: RouteDeps,
  rules: readonly CacheRule[],
  cache: ResponseCache,
  filtered: ResponseCache = cache,
): PublicReadCache {
  /** Every rule's paths as one pattern: most paths are none of them. */
  const direct = directAnswers(deps.reusableResponses === true);
  const anyRule = new RegExp(
    rules.flatMap((rule) => rule.paths).map((re) => `(?:${re.source})`)
      .join("|") || "(?!)",
  );
  /** The rule of the first module that declares `path` cacheable. */
  const ruleOf = (path: string): CacheRule | undefined =>
    anyRule.test(path)
      ? rules.find((rule) => rule.paths.some((re) => re.test(path)))
      : undefined;
  /** The cache key of an anonymous GET of a cacheable path, and its cache; or null. */
  const keyOf = (request: Request): Found | null => {
    if (!cache.enabled || request.method !== "GET") return null;
    const target = pathAndQuery(request.url);
    // Keys stay small: anyone can send long URLs and headers, and each
    // distinct key would be an entry of its own.
    if (target.length > MAX_KEY_TARGET) return null;
    // The path first: a request the cache never holds reads no header.
    const [path, query] = split(target);
    const rule = ruleOf(path);
    // A signed-in reader's page is their own (routes/middleware/viewer.ts).
    if (
      rule === undefined || request.headers.has("authorization") ||
      hasSessionCookie(request)
    ) {
      return null;
    }
    const accept = (request.headers.get("accept") ?? "").toLowerCase()
      .replace(/\s+/g, "");
    if (accept.length > MAX_KEY_ACCEPT) return null;
    if (rule.key) {
      // Endless combinations too (the embedded list's options): kept with
      // the filtered, under the rule's canonical key.
      const key = rule.key(target);
      return key === null
        ? null
        : { key: `${key}\n${pageVariant(request)}`, store: filtered, rule };
    }
    const place = rule.place ? rule.place(path, query) : "main";
    if (place === null) return null;
    const store = place === "main" ? cache : filtered;
    return rule.variant === "language"
      ? { key: `${target}\n${accept}\n${pageVariant(request)}`, store, rule }
      : { key: `${target}\n${accept}`, store, rule };
  };
  /**
   * What hit() found of the request it last missed, for the middleware, which
   * Hono runs within the same call (routes/mod.ts; nothing before it waits),
   * so that a miss's key is worked out once. Plain variables, cleared when
   * read: a WeakMap entry per request outlived its request whenever the
   * request survived a garbage collection, and cost more than all the rest
   * of a miss under load.
   */
  let missed: Request | null = null;
  let missedFound: Found | null = null;
  let missedConsidered = false;
  /** The request whose middleware run is under way (its synchronous part). */
  let entered: Request | null = null;
  const changeMarker = () => deps.database.changeMarker();
  // Two parts, each judged on its own hits: the main cache and the filtered.
  const lookups = new CacheLookups(2, deps.database.embedded, deps.clock);
  return {
    hit(request) {
      if (!lookups.looksUp()) {
        // Dormant (lib/cache-lookups.ts): answered as with the cache off.
        missed = request;
        missedFound = null;
        return null;
      }
      const found = keyOf(request);
      if (found === null) return null;
      const answer = found.store.get(found.key, changeMarker);
      lookups.noteLookup(
        found.store === cache ? 0 : 1,
        answer !== null,
        found.store.full,
      );
      if (answer) return replay(answer, request, direct);
      missed = request;
      missedFound = found;
      // A miss while the cache churns: answered as with the cache off, but
      // for a sample (ResponseCache.considersMiss).
      missedConsidered = found.store.considersMiss(found.key);
      return null;
    },
    middleware: (c, next) => {
      const raw = c.req.raw;
      // Mounted on patterns that may overlap ("/api/events" and
      // "/api/events/*" both match the listing): the second run, reached
      // within the first's call, passes on.
      if (entered === raw) return next();
      const seen = missed === raw;
      const found = seen ? missedFound : keyOf(raw);
      const considered = seen && missedConsidered;
      missed = null;
      missedFound = null;
      entered = raw;
      try {
        if (found === null || (seen && !considered)) return next();
        return fill(c, next, found, seen);
      } finally {
        entered = null;
      }
    },
  };

  /** A miss's answer, made by the routes, and kept if the cache admits it. */
  async function fill(
    c: Context<AppEnv>,
    next: Next,
    { key, store, rule }: Found,
    missedNow: boolean,
  ): Promise<Response | void> {
    const marker = deps.database.changeMarker();
    if (marker === null) return await next();
    let ran = false;
    const ttl = deps.database.embedded && rule.embeddedTtlMs !== undefined
      ? Math.max(deps.config.publicCacheMs, rule.embeddedTtlMs)
      : deps.config.publicCacheMs;
    const answer = await store.getOrCompute(
      key,
      marker,
      async (keep) => {
        ran = true;
        await next();
        // Conditional requests may answer 304: nothing to keep, the handler
        // answered. An answer the cache will not keep is not copied.
        return keep() ? await capture(c.res) : null;
      },
      ttl,
      missedNow,
    );
    if (ran) return;
    // Back through the middleware around this one: a Response of its own,
    // not sharing the kept bytes (Hono may wrap its body in another).
    if (answer) return c.res = replay(answer, c.req.raw, fresh);
  }
}
