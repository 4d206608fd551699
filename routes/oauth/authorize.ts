/**
 * GET and POST /authorize: the authorization endpoint with its server-rendered
 * consent page (RFC 6749 section 4.1.1; docs/API.md).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { authenticateWithPassword } from "../../lib/auth/login.ts";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  type AuthorizationParams,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  issueAuthorizationCode,
  redirectWith,
} from "../../lib/oauth/authorize.ts";
import {
  createCsrfToken,
  CSRF_TTL_SECONDS,
  type CsrfBinding,
  csrfTokenProblem,
} from "../../lib/oauth/csrf.ts";
import { OAUTH_SCOPES } from "../../lib/oauth/scopes.ts";
import { clientAddress } from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { AuthorizeErrorPage, ConsentPage } from "../views/app/consent.tsx";

const PARAM_NAMES = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const;

const CSRF_COOKIE = "quando_consent";

/** Where the form may post and be redirected to: ourselves and the client's redirect target. */
function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:"
    ? url.origin
    : url.protocol;
}

function pageHeaders(
  c: Context<AppEnv>,
  nonce: string,
  redirectUri?: string,
): void {
  const formAction = redirectUri
    ? `'self' ${formActionSource(redirectUri)}`
    : "'self'";
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; ` +
      `form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  // Same-origin keeps the request's URL from the app's website while letting
  // the browser send our Origin on the form post (no-referrer would make it "null").
  c.header("Referrer-Policy", "same-origin");
}

function errorPage(
  c: Context<AppEnv>,
  status: 400 | 403 | 415,
  error: string,
  description: string,
) {
  const nonce = randomToken(16);
  pageHeaders(c, nonce);
  return c.html(AuthorizeErrorPage({ nonce, error, description }), status);
}

function redirectHost(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || url.protocol.replace(/:$/, " app");
}

/** The nonce a (checked) form token carries. */
function nonceOf(token: string | undefined): string {
  return token?.split(".")[0] ?? randomToken(32);
}

function bindingOf(request: AuthorizationRequest): CsrfBinding {
  return {
    clientId: request.client.id,
    redirectUri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    codeChallenge: request.codeChallenge,
  };
}

/** The authorization endpoint's routes. */
export function authorizeRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const secret = deps.config.jwtSecret;
  const secureCookie = deps.config.baseUrl.startsWith("https:");

  async function renderConsent(
    c: Context<AppEnv>,
    request: AuthorizationRequest,
    nonceCookie: string,
    status: 200 | 401 | 403 | 429,
    extra: { error?: string; email?: string } = {},
  ) {
    const settings = await settingsOf(c, deps.database.db);
    const nonce = randomToken(16);
    const csrfToken = await createCsrfToken(
      secret,
      nonceCookie,
      bindingOf(request),
      unixNow(deps.clock),
    );
    pageHeaders(c, nonce, request.redirectUri);
    return c.html(
      ConsentPage({
        nonce,
        instanceName: settings.instance_title,
        appName: request.client.name,
        website: request.client.website,
        scopes: request.scope.split(" ").map((scope) => ({
          scope,
          description: OAUTH_SCOPES[scope],
        })),
        redirectHost: redirectHost(request.redirectUri),
        hidden: {
          response_type: "code",
          client_id: request.client.id,
          redirect_uri: request.redirectUri,
          scope: request.scope,
          state: request.state,
          code_challenge: request.codeChallenge,
          code_challenge_method: request.codeChallenge ? "S256" : null,
        },
        csrfToken,
        ...extra,
      }),
      status,
    );
  }

  function redirectTo(
    c: Context<AppEnv>,
    redirectUri: string,
    params: Record<string, string | null>,
  ) {
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
    // RFC 9207: the issuer tells the client which server answered (mix-up defence).
    return c.redirect(
      redirectWith(redirectUri, { ...params, iss: deps.config.baseUrl }),
      302,
    );
  }

  app.get("/authorize", async (c) => {
    const all = c.req.queries();
    const params: AuthorizationParams = {};
    const repeated: string[] = [];
    for (const name of PARAM_NAMES) {
      const values = all[name];
      if (values === undefined) continue;
      if (values.length > 1) repeated.push(name);
      params[name] = values[0];
    }
    const check = await checkAuthorizationRequest(
      deps.database.db,
      params,
      repeated,
    );
    if (check.kind === "fatal") {
      return errorPage(c, 400, check.error, check.description);
    }
    if (check.kind === "redirect") {
      return redirectTo(c, check.redirectUri, {
        error: check.error,
        error_description: check.description,
        state: check.state,
      });
    }
    // Reuse the browser's nonce when it has one, so two tabs do not clash.
    let nonceCookie = getCookie(c, CSRF_COOKIE);
    if (!nonceCookie || !/^[A-Za-z0-9_-]{22,64}$/.test(nonceCookie)) {
      nonceCookie = randomToken(32);
    }
    setCookie(c, CSRF_COOKIE, nonceCookie, {
      path: "/authorize",
      httpOnly: true,
      secure: secureCookie,
      sameSite: "Strict",
      maxAge: CSRF_TTL_SECONDS,
    });
    return renderConsent(c, check.request, nonceCookie, 200);
  });

  app.post("/authorize", async (c) => {
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/x-www-form-urlencoded/i.test(type)) {
      return errorPage(
        c,
        415,
        "invalid_request",
        "The consent form must be posted as application/x-www-form-urlencoded.",
      );
    }
    const body = await c.req.parseBody();
    const field = (name: string): string | undefined => {
      const value = body[name];
      return typeof value === "string" ? value : undefined;
    };
    const params: AuthorizationParams = {};
    for (const name of PARAM_NAMES) params[name] = field(name);
    const check = await checkAuthorizationRequest(deps.database.db, params);
    if (check.kind === "fatal") {
      return errorPage(c, 400, check.error, check.description);
    }
    if (check.kind === "redirect") {
      return redirectTo(c, check.redirectUri, {
        error: check.error,
        error_description: check.description,
        state: check.state,
      });
    }
    const request = check.request;
    const nonceCookie = getCookie(c, CSRF_COOKIE);
    const problem = await csrfTokenProblem(
      secret,
      {
        origin: c.req.header("origin"),
        cookie: nonceCookie,
        token: field("csrf_token"),
        ownOrigin: new URL(deps.config.baseUrl).origin,
      },
      bindingOf(request),
      unixNow(deps.clock),
    );
    if (problem !== null) {
      return errorPage(c, 403, "invalid_csrf_token", problem);
    }
    const decision = field("decision");
    if (decision === "deny") {
      return redirectTo(c, request.redirectUri, {
        error: "access_denied",
        error_description: "The user denied the request",
        state: request.state,
      });
    }
    if (decision !== "approve") {
      return errorPage(
        c,
        400,
        "invalid_request",
        "Choose Approve or Deny.",
      );
    }
    const email = field("email")?.trim() ?? "";
    const password = field("password") ?? "";
    if (!email || !password) {
      return renderConsent(c, request, nonceOf(field("csrf_token")), 401, {
        error: "Enter your e-mail and password to approve.",
        email,
      });
    }
    try {
      const user = await authenticateWithPassword(
        { db: deps.database.db, clock: deps.clock, hasher: deps.hasher },
        email.slice(0, 320),
        password.slice(0, 1024),
        clientAddress(c, deps.config),
      );
      const code = await issueAuthorizationCode(
        deps.database.db,
        deps.clock,
        request,
        user.id,
      );
      return redirectTo(c, request.redirectUri, {
        code,
        state: request.state,
      });
    } catch (err) {
      if (
        err instanceof ApiError &&
        (err.status === 401 || err.status === 403 || err.status === 429)
      ) {
        if (err.headers?.["Retry-After"]) {
          c.header("Retry-After", err.headers["Retry-After"]);
        }
        return renderConsent(
          c,
          request,
          nonceOf(field("csrf_token")),
          err.status,
          {
            error: err.status === 429
              ? "Too many failed attempts. Wait a while and try again."
              : err.status === 403
              ? "This account waits for an admin's approval."
              : "Wrong e-mail or password, or the account is disabled.",
            email,
          },
        );
      }
      throw err;
    }
  });

  return app;
}

/** The authorize module, as routes/mod.ts mounts it. */
export const authorizeModule: RouteModule = {
  name: "authorize",
  routes: authorizeRoutes,
};
