/** Authentication and authorisation middleware. */
import type { Context, MiddlewareHandler } from "hono";
import type { UserRole } from "../../db/schema.ts";
import {
  isLoginTokenCurrent,
  isOAuthToken,
  verifyAccessToken,
} from "../../lib/auth/tokens.ts";
import { ApiError } from "../../lib/errors.ts";
import { findTokenUser } from "../../lib/oauth/grants.ts";
import { delegatedUser } from "../../lib/oauth/scopes.ts";
import type { AppEnv, AuthInfo, RouteDeps } from "../env.ts";

function unauthorized(message: string, invalidToken: boolean): ApiError {
  return new ApiError(401, "unauthorized", message, undefined, {
    "WWW-Authenticate": invalidToken
      ? 'Bearer realm="quando", error="invalid_token"'
      : 'Bearer realm="quando"',
  });
}

/** The bearer token of a request, or null when there is no Authorization header. */
function bearerToken(c: Context): string | null {
  const header = c.req.header("authorization");
  if (!header) return null;
  const match = /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)\s*$/i.exec(header);
  if (!match) throw unauthorized("Malformed Authorization header", true);
  return match[1];
}

/**
 * Resolves a token to the caller, reading role and is_active from the
 * database: one round trip (the user and, for an OAuth token, whether it is
 * still active, in one batch).
 */
async function authenticate(deps: RouteDeps, token: string): Promise<AuthInfo> {
  const claims = await verifyAccessToken(deps.tokens, deps.clock, token);
  if (!claims) throw unauthorized("The token is invalid or expired", true);
  const oauth = isOAuthToken(claims);
  const { user, oauthActive } = await findTokenUser(
    deps.database.db,
    claims,
    oauth,
  );
  if (!user || !user.is_active) {
    throw unauthorized("The token is invalid or expired", true);
  }
  if (oauth) {
    // OAuth tokens can be revoked (by the client, by the user, on code
    // replay, and with every grant of the user on a password change or
    // deactivation).
    if (!oauthActive) throw unauthorized("The token was revoked", true);
  } else if (!isLoginTokenCurrent(claims, user)) {
    // Issued before the user's last password change or deactivation.
    throw unauthorized("The token was revoked", true);
  }
  return {
    // A login token carries the user's role; an OAuth token never more than a user's.
    user: claims.scope === undefined ? user : delegatedUser(user),
    claims,
    scopes: claims.scope !== undefined
      ? claims.scope.split(" ").filter(Boolean)
      : null,
  };
}

export interface AuthOptions {
  /**
   * The OAuth scope that lets a third-party token use this route. Routes that
   * name none accept only login tokens (403 `insufficient_scope` for OAuth ones).
   */
  scope?: string;
}

function checkScope(auth: AuthInfo, scope: string | undefined): void {
  if (auth.scopes === null) return;
  if (scope && auth.scopes.includes(scope)) return;
  throw new ApiError(
    403,
    "insufficient_scope",
    "The token's scope does not allow this",
    undefined,
    {
      "WWW-Authenticate": `Bearer realm="quando", error="insufficient_scope"${
        scope ? `, scope="${scope}"` : ""
      }`,
    },
  );
}

/** Requires a valid bearer token of an active user; sets `c.var.auth`. */
export function requireAuth(
  deps: RouteDeps,
  options: AuthOptions = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c);
    if (!token) throw unauthorized("Authentication required", false);
    const auth = await authenticate(deps, token);
    checkScope(auth, options.scope);
    c.set("auth", auth);
    await next();
  };
}

/**
 * Identifies the caller when a token is sent, for public routes that show more
 * to owners and moderators. A bad token is still a 401.
 */
export function optionalAuth(
  deps: RouteDeps,
  options: AuthOptions = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c);
    if (token) {
      const auth = await authenticate(deps, token);
      checkScope(auth, options.scope);
      c.set("auth", auth);
    }
    await next();
  };
}

/** Requires one of the roles (after requireAuth). */
export function requireRole(...roles: UserRole[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = c.get("auth");
    if (!auth) throw unauthorized("Authentication required", false);
    if (!roles.includes(auth.user.role)) {
      throw new ApiError(
        403,
        "forbidden",
        `Requires role: ${roles.join(" or ")}`,
      );
    }
    await next();
  };
}

/**
 * The address `hops` entries from the right of an X-Forwarded-For value: each
 * trusted proxy appends the peer it saw, so entries further left are whatever
 * the client sent. With fewer entries than hops, the left-most one.
 */
export function forwardedClientAddress(
  header: string,
  hops: number,
): string | null {
  const entries = header.split(",").map((entry) => entry.trim());
  const address = entries[Math.max(0, entries.length - hops)];
  return address ? address : null;
}

/**
 * The client's address: the socket peer, or with TRUST_PROXY the proxy's
 * CF-Connecting-IP or the X-Forwarded-For entry our own proxies added.
 */
export function clientAddress(
  c: Context<AppEnv>,
  config: { trustProxy: boolean; trustedProxyHops: number },
): string {
  if (config.trustProxy) {
    const cloudflare = c.req.header("cf-connecting-ip")?.trim();
    if (cloudflare) return cloudflare;
    const forwarded = c.req.header("x-forwarded-for");
    const address = forwarded
      ? forwardedClientAddress(forwarded, config.trustedProxyHops)
      : null;
    if (address) return address;
  }
  return c.env?.remoteAddr?.hostname ?? "unknown";
}

/**
 * The origin the request was sent to, as the browser saw it: the scheme of
 * the request's URL and its Host header; with TRUST_PROXY, the
 * X-Forwarded-Proto and X-Forwarded-Host our own proxies set (the entry
 * `trustedProxyHops` from the right, as for the client address). Null when
 * they do not make an origin.
 */
export function requestOrigin(
  c: Context<AppEnv>,
  config: { trustProxy: boolean; trustedProxyHops: number },
): string | null {
  const url = new URL(c.req.url);
  let scheme = url.protocol.slice(0, -1);
  let host = c.req.header("host")?.trim() || url.host;
  if (config.trustProxy) {
    const proto = c.req.header("x-forwarded-proto");
    const forwardedHost = c.req.header("x-forwarded-host");
    scheme =
      (proto && forwardedClientAddress(proto, config.trustedProxyHops)) ||
      scheme;
    host = (forwardedHost &&
      forwardedClientAddress(forwardedHost, config.trustedProxyHops)) || host;
  }
  // A host only: no path, query, user or space may ride along.
  if (scheme !== "http" && scheme !== "https") return null;
  if (host === "" || /[/\\?#@\s]/.test(host)) return null;
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return null;
  }
}

/** OpenAPI security requirement for bearer-protected routes. */
export const bearerSecurity = [{ bearerAuth: [] as string[] }];
