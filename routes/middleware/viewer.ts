/**
 * Who reads a public page: the user of the request's session cookie, when
 * it carries one (the header then shows their way to /my or /admin, and an
 * event they may change its Edit link). Such a page is that reader's own:
 * the public-read cache never answers or keeps a request with the session
 * cookie (routes/middleware/cache.ts), and the page is sent private.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { findSession } from "../../lib/auth/sessions.ts";
import type { AppEnv, RouteDeps } from "../env.ts";

/** The session cookie's name: `__Host-` and Secure behind https. */
export function sessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith("https:")
    ? "__Host-quando_session"
    : "quando_session";
}

/** Whether a request carries a session cookie (valid or not: only a lookup says). */
export function hasSessionCookie(request: Request): boolean {
  return /(?:^|;\s*)(?:__Host-)?quando_session=/.test(
    request.headers.get("cookie") ?? "",
  );
}

/** Puts the user of the request's session, if any, on `c.var.viewer` (public pages' GETs only). */
export function publicViewer(deps: RouteDeps): MiddlewareHandler<AppEnv> {
  const name = sessionCookieName(deps.config.baseUrl);
  return async (c, next) => {
    if (c.req.method === "GET" && hasSessionCookie(c.req.raw)) {
      const session = await findSession(
        deps.database.db,
        deps.clock,
        getCookie(c, name),
      );
      if (session) c.set("viewer", session.user);
    }
    await next();
  };
}
