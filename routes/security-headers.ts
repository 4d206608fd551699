/**
 * Security headers, decided once when the app is built rather than per
 * request. Every answer gets the few that matter to any content (no sniffing,
 * no framing, HTTPS only, referrer and cross-origin reading rules); HTML
 * pages also get the browser isolation switches; other answers (JSON,
 * feeds, ActivityPub) that set no policy of their own get a policy under
 * which nothing in them can run or load.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

/** For every answer. */
const EVERY_ANSWER: readonly [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Strict-Transport-Security", "max-age=15552000; includeSubDomains"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  // Feeds, images and the API are read from other sites on purpose.
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

/** The policy of answers that are data, not pages. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Adds the security headers to every answer (see the module comment). */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    for (const [name, value] of EVERY_ANSWER) headers.set(name, value);
    if ((headers.get("content-type") ?? "").startsWith("text/html")) {
      for (const [name, value] of PAGE_ONLY) headers.set(name, value);
    } else if (!headers.has("content-security-policy")) {
      headers.set("Content-Security-Policy", DATA_CSP);
    }
  };
}
