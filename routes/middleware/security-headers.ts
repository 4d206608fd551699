/**
 * Security headers, decided once when the app is built rather than per
 * request, by what the answer is:
 * - JSON (the API, ActivityPub): no sniffing, HTTPS only, and a policy under
 *   which nothing in it can run, load or be framed. JSON is read by scripts,
 *   never rendered, so framing, referrer and cross-origin-resource switches
 *   change nothing for it; every header costs a share of the request floor
 *   (measured: seven headers instead of one cut a bare Deno route's
 *   throughput by 40%), so it gets these three only.
 * - other data (feeds, calendars, images): the same, plus no framing, the
 *   referrer rule and Cross-Origin-Resource-Policy (images are embedded by
 *   other sites on purpose).
 * - HTML pages: all of that and the browser isolation switches.
 * An answer whose own policy lets any site frame it (`frame-ancestors *`: the
 * `/embed` list, made for other sites' pages) goes without X-Frame-Options.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/** The policy of answers that are data, not pages. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/** A policy that lets any site frame the answer. */
const FRAMEABLE = /(^|;)\s*frame-ancestors \*\s*(;|$)/;

/** For every answer. */
const EVERY_ANSWER: readonly [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Strict-Transport-Security", "max-age=15552000; includeSubDomains"],
];

/** What answers other than JSON add (feeds, calendars, images, pages). */
const NOT_JSON: readonly [string, string][] = [
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  // Feeds and images are read from other sites on purpose.
  ["Cross-Origin-Resource-Policy", "cross-origin"],
];

/** What a page adds: isolation from other windows and old browsers' switches. */
const PAGE_ONLY: readonly [string, string][] = [
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

/**
 * The API's JSON types: application/json, and the ActivityPub, JSON-LD,
 * WebFinger and problem types. Not JSON Feed (`application/feed+json`),
 * which is a feed like the others.
 */
const JSON_TYPE = /^application\/((activity|ld|jrd|problem)\+)?json\b/i;

/**
 * Adds the security headers to every answer (see the module comment), and
 * `Access-Control-Allow-Origin: *` to those under `openToAnyOrigin` (the
 * API: bearer tokens, never cookies, authenticate it). One middleware for
 * both: each layer costs a share of the request floor.
 */
export function securityHeaders(
  options: { openToAnyOrigin?: string } = {},
): MiddlewareHandler<AppEnv> {
  const open = options.openToAnyOrigin;
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    if (open && c.req.path.startsWith(open)) {
      headers.set("Access-Control-Allow-Origin", "*");
    }
    for (const [name, value] of EVERY_ANSWER) headers.set(name, value);
    const type = headers.get("content-type") ?? "";
    if (!JSON_TYPE.test(type)) {
      for (const [name, value] of NOT_JSON) {
        // A page with a token in its path (/invite/…, /reset/…) sends none.
        if (name === "Referrer-Policy" && headers.has(name)) continue;
        headers.set(name, value);
      }
      if (FRAMEABLE.test(headers.get("content-security-policy") ?? "")) {
        headers.delete("X-Frame-Options");
      }
    }
    if (type.startsWith("text/html")) {
      for (const [name, value] of PAGE_ONLY) headers.set(name, value);
    } else if (!headers.has("content-security-policy")) {
      headers.set("Content-Security-Policy", DATA_CSP);
    }
  };
}
