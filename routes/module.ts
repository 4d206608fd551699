/**
 * What a route module declares besides its routes: the paths the public-read
 * cache may keep (routes/middleware/cache.ts) and the body limits of its
 * routes that take more than the default (routes/middleware/body-limit.ts).
 * `createApp` (routes/mod.ts) mounts the modules of its ordered list and
 * builds the cache's lookup and the body limits from what they declare: a
 * route and its caching are written in one file.
 */
import type { Hono } from "hono";
import type { Config } from "../lib/config.ts";
import type { AppEnv, RouteDeps } from "./env.ts";

/**
 * Paths whose anonymous GETs the public-read cache may answer: 200 answers
 * only, kept until a write (routes/middleware/cache.ts).
 */
export interface CacheRule {
  /** The GET patterns, as Hono writes them, the cache's middleware is mounted on. */
  routes: readonly string[];
  /** The paths among them whose answers may be kept. */
  paths: readonly RegExp[];
  /**
   * "shared": one answer for every reader (its key: path, query and Accept);
   * "language": one per language the request asks for (the public pages).
   */
  variant: "shared" | "language";
  /**
   * Where an answer to `path` with `query` (without `?`) is kept: "main", or
   * "filtered", the smaller cache of the answers whose queries are endless
   * combinations (searches, filtered feeds), so that they push out only each
   * other; null: not kept. Without it, "main" whatever the query.
   */
  place?(path: string, query: string): "main" | "filtered" | null;
  /**
   * A key of its own instead of the path and query (`target`, the path with
   * its query), kept with the filtered answers and without the Accept
   * header; null: not kept.
   */
  key?(target: string): string | null;
  /** On the embedded database, kept at least this long (its marker sees every write). */
  embeddedTtlMs?: number;
}

/** A body limit other than the default (BODY_LIMIT) for some of a module's paths. */
export interface BodyLimitRule {
  /** Whether a POST, PUT, PATCH or DELETE of `path` takes this limit. */
  matches(path: string): boolean;
  /** The largest body, in bytes. */
  maxBytes(config: Config): number;
  /** Only multipart/form-data bodies (a file's upload) take it; others keep the default. */
  multipartOnly?: boolean;
}

/** A module of routes, as `createApp` mounts it. */
export interface RouteModule {
  /** What it is, in the ordered list (routes/mod.ts) and its test. */
  name: string;
  /**
   * Where its routes are mounted: "/api" for the JSON API's modules
   * (routes/api/, whose paths are written without it), "/" (the default)
   * for the others. Cache rules and body limits name full paths: they are
   * looked up before the router.
   */
  mount?: "/" | "/api";
  /** Its routes (and the middleware of its own paths), mounted at `mount`. */
  // deno-lint-ignore no-explicit-any
  routes(deps: RouteDeps): Hono<AppEnv, any, any>;
  /** What the public-read cache may keep of its answers. */
  cacheable?: readonly CacheRule[];
  /** Its routes that take more, or less, than the default body limit. */
  bodyLimits?: readonly BodyLimitRule[];
}
