/**
 * OAuth 2.0 provider endpoints: client registration, token and revocation
 * endpoints, server metadata, and the user's list of granted applications.
 * The authorization endpoint and consent page are in authorize.ts.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { OAUTH_AUTH_METHODS } from "../../db/schema.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import {
  authenticateClient,
  type ClientCredentials,
  redirectUriProblem,
  registerClient,
  serializeApplication,
} from "../../lib/oauth/clients.ts";
import {
  invalidClient,
  invalidOAuthRequest,
  OAuthError,
} from "../../lib/oauth/errors.ts";
import {
  exchangeAuthorizationCode,
  type GrantDeps,
  listAuthorizations,
  refreshTokens,
  revokeClientToken,
  withdrawAuthorization,
} from "../../lib/oauth/grants.ts";
import {
  DEFAULT_SCOPE,
  OAUTH_SCOPES,
  parseScopes,
} from "../../lib/oauth/scopes.ts";
import {
  type RateLimit,
  rateLimitRetryAfter,
  recordRateLimitHit,
} from "../../lib/ratelimit.ts";
import {
  bearerSecurity,
  clientAddress,
  requireAuth,
} from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  bodyOf,
  errorResponses,
  jsonOrForm,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

/** Registrations allowed per client address. */
export const CLIENT_REGISTRATION_LIMIT: RateLimit = {
  limit: 30,
  windowMs: 60 * 60 * 1000,
};

const ClientBody = z.object({
  client_name: z.string().trim().min(1).max(100).openapi({
    example: "Event importer",
  }),
  redirect_uris: z.union([
    z.string().max(20_000),
    z.array(z.string().max(2000)).max(10),
  ]).openapi({
    description:
      "Space-separated absolute URIs (a JSON array is accepted too): https, http only for " +
      "localhost/127.0.0.1/[::1], or a private-use scheme of a native app. Compared exactly.",
    example: "https://app.example/callback",
  }),
  scopes: z.string().max(200).optional().openapi({
    description: "Space-separated; only event:write exists (the default)",
    example: "event:write",
  }),
  scope: z.string().max(200).optional().openapi({
    description: "Alias of scopes (RFC 7591's name)",
  }),
  website: z.string().trim().max(2000).optional().openapi({
    example: "https://app.example",
  }),
  token_endpoint_auth_method: z.enum(OAUTH_AUTH_METHODS).optional().openapi({
    description:
      "`none` registers a public client (no secret, PKCE required); otherwise the " +
      "secret may be sent by HTTP Basic or in the body",
  }),
}).superRefine((body, ctx) => {
  const uris = typeof body.redirect_uris === "string"
    ? body.redirect_uris.split(/\s+/).filter(Boolean)
    : body.redirect_uris;
  if (uris.length === 0) {
    ctx.addIssue({
      code: "custom",
      path: ["redirect_uris"],
      message: "at least one redirect URI is required",
    });
  }
  if (uris.length > 10) {
    ctx.addIssue({
      code: "custom",
      path: ["redirect_uris"],
      message: "at most 10 redirect URIs",
    });
  }
  uris.forEach((uri) => {
    const problem = redirectUriProblem(uri);
    if (problem) {
      ctx.addIssue({
        code: "custom",
        path: ["redirect_uris"],
        message: `${JSON.stringify(uri.slice(0, 100))} ${problem}`,
      });
    }
  });
  const scopes = parseScopes(body.scopes ?? body.scope);
  if (scopes === null) {
    ctx.addIssue({
      code: "custom",
      path: [body.scopes !== undefined ? "scopes" : "scope"],
      message: `unknown scope; supported: ${
        Object.keys(OAUTH_SCOPES).join(" ")
      }`,
    });
  }
  if (body.website) {
    let ok = false;
    try {
      const url = new URL(body.website);
      ok = url.protocol === "https:" || url.protocol === "http:";
    } catch { /* reported below */ }
    if (!ok) {
      ctx.addIssue({
        code: "custom",
        path: ["website"],
        message: "must be an http(s) URL",
      });
    }
  }
}).openapi("ClientRegistration");

const Application = z.object({
  name: z.string(),
  scopes: z.string().openapi({ example: "event:write" }),
  website: z.string().nullable(),
  redirect_uris: z.string().openapi({
    description: "Space-separated, as registered",
  }),
  client_id: z.string(),
  client_secret: z.string().nullable().openapi({
    description: "Shown only in this response; null for public clients",
  }),
  token_endpoint_auth_method: z.enum(OAUTH_AUTH_METHODS),
}).openapi("Application");

const clientRoute = createRoute({
  method: "post",
  path: "/api/client",
  tags: ["oauth"],
  summary: "Register an OAuth client",
  description:
    "No authentication. The secret is returned once and stored hashed. " +
    "At most 30 registrations per hour from one address (429 with Retry-After).",
  middleware: [requireBody],
  request: { body: jsonOrForm(ClientBody) },
  responses: {
    201: {
      description: "The registered application",
      content: { "application/json": { schema: Application } },
    },
    ...errorResponses(400, 415, 429),
  },
});

const OAuthErrorSchema = z.object({
  error: z.string().openapi({ example: "invalid_grant" }),
  error_description: z.string(),
}).openapi("OAuthError");

const oauthErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, {
    description: s === 401 ? "invalid_client" : "RFC 6749 error",
    content: { "application/json": { schema: OAuthErrorSchema } },
  }]));

const str = (max = 4096) => z.string().max(max).optional();

const TokenBody = z.object({
  grant_type: str(100).openapi({
    description: "authorization_code or refresh_token",
  }),
  code: str(),
  redirect_uri: str(2000),
  code_verifier: str(200),
  refresh_token: str(),
  scope: str(200),
  client_id: str(200),
  client_secret: str(200),
}).openapi("TokenRequest");

const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int(),
  scope: z.string(),
  refresh_token: z.string(),
}).openapi("OAuthTokenResponse");

const tokenRoute = createRoute({
  method: "post",
  path: "/oauth/token",
  tags: ["oauth"],
  summary: "Token endpoint (RFC 6749 section 3.2)",
  description:
    "Grants `authorization_code` (with PKCE `code_verifier` when a challenge was sent) and " +
    "`refresh_token` (rotating: each refresh token works once; reusing one revokes the whole " +
    "chain). Client authentication by HTTP Basic or `client_id`/`client_secret` in the body; " +
    "public clients send only `client_id`. Errors are RFC 6749 bodies.",
  request: { body: jsonOrForm(TokenBody) },
  responses: {
    200: {
      description: "Tokens (Cache-Control: no-store)",
      content: { "application/json": { schema: TokenResponseSchema } },
    },
    ...oauthErrors(400, 401),
  },
});

const RevokeBody = z.object({
  token: str(),
  token_type_hint: str(100),
  client_id: str(200),
  client_secret: str(200),
}).openapi("RevocationRequest");

const revokeRoute = createRoute({
  method: "post",
  path: "/oauth/revoke",
  tags: ["oauth"],
  summary: "Revoke a token (RFC 7009)",
  description:
    "Revoking a refresh token revokes every token of its authorization. Unknown tokens " +
    "answer 200 too.",
  request: { body: jsonOrForm(RevokeBody) },
  responses: {
    200: { description: "Revoked, or nothing to revoke" },
    ...oauthErrors(400, 401),
  },
});

const Authorization = z.object({
  client_id: z.string(),
  name: z.string(),
  website: z.string().nullable(),
  scopes: z.string(),
  createdAt: z.string().openapi({ format: "date-time" }),
  lastUsedAt: z.string().openapi({ format: "date-time" }),
}).openapi("Authorization");

const listAuthorizationsRoute = createRoute({
  method: "get",
  path: "/api/oauth/authorizations",
  tags: ["oauth"],
  summary: "Applications you have authorised",
  description: "Needs a login token (OAuth tokens get 403 insufficient_scope).",
  security: bearerSecurity,
  responses: {
    200: {
      description: "Applications with a live authorization",
      content: { "application/json": { schema: z.array(Authorization) } },
    },
    ...errorResponses(401, 403),
  },
});

const withdrawRoute = createRoute({
  method: "delete",
  path: "/api/oauth/authorizations/{client_id}",
  tags: ["oauth"],
  summary: "Withdraw an application's access",
  description:
    "Revokes every token you granted to the application; they answer 401 from then on.",
  security: bearerSecurity,
  request: {
    params: z.object({
      client_id: z.string().min(1).max(200).openapi({
        param: { name: "client_id", in: "path" },
      }),
    }),
  },
  responses: {
    204: { description: "Withdrawn" },
    ...errorResponses(401, 403, 404),
  },
});

/** Throws RFC 6749 errors instead of the API's error shape for /oauth/* bodies. */
function oauthHook(
  result: {
    success: boolean;
    error?: { issues: readonly { path: PropertyKey[]; message: string }[] };
  },
): undefined {
  if (!result.success) {
    const issue = result.error?.issues[0];
    throw invalidOAuthRequest(
      issue
        ? `${issue.path.map(String).join(".") || "body"}: ${issue.message}`
        : "The request is not valid",
    );
  }
  return undefined;
}

const requireOAuthBody: MiddlewareHandler = async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|application\/json)/i.test(type)) {
    throw invalidOAuthRequest(
      "Send the parameters as application/x-www-form-urlencoded",
    );
  }
  await next();
};

const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
};

/** Decodes one half of a Basic credential (RFC 6749 section 2.3.1 form-encodes them). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

/** The client's credentials from HTTP Basic or the body; both at once is an error. */
function clientCredentials(
  c: Context,
  body: { client_id?: string; client_secret?: string },
): ClientCredentials {
  const header = c.req.header("authorization");
  if (header) {
    const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
    let decoded: string | null = null;
    try {
      decoded = match ? atob(match[1]) : null;
    } catch { /* malformed base64 */ }
    const colon = decoded?.indexOf(":") ?? -1;
    if (decoded === null || colon < 0) {
      throw invalidClient("Malformed Authorization header");
    }
    let clientId: string;
    let secret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw invalidClient("Malformed Authorization header");
    }
    if (body.client_secret !== undefined) {
      throw invalidOAuthRequest(
        "Use one client authentication method, not Basic and client_secret together",
      );
    }
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw invalidOAuthRequest("client_id differs from the Basic credentials");
    }
    return { clientId, secret };
  }
  if (!body.client_id) {
    throw invalidClient("Client authentication is required");
  }
  return { clientId: body.client_id, secret: body.client_secret ?? null };
}

/** OAuth routes under /api, /oauth and /.well-known. */
export function oauthRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const db = deps.database.db;
  const grantDeps: GrantDeps = {
    db,
    clock: deps.clock,
    tokens: deps.tokens,
    accessTokenTtl: deps.config.oauthAccessTokenTtl,
    refreshTokenTtl: deps.config.oauthRefreshTokenTtl,
  };
  const openCors = cors({
    origin: "*",
    allowHeaders: ["Authorization", "Content-Type"],
    allowMethods: ["GET", "POST", "OPTIONS"],
    maxAge: 86_400,
  });
  app.use("/oauth/*", openCors, noStore);
  app.use("/.well-known/oauth-authorization-server", openCors);

  app.openapi(clientRoute, async (c) => {
    const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
    const keys = [`client:ip:${clientAddress(c, deps.config)}`];
    const retryAfter = await rateLimitRetryAfter(
      db,
      deps.clock,
      keys,
      CLIENT_REGISTRATION_LIMIT,
    );
    if (retryAfter !== null) {
      throw new ApiError(
        429,
        "rate_limited",
        "Too many client registrations from this address; try again later",
        undefined,
        { "Retry-After": String(retryAfter) },
      );
    }
    await recordRateLimitHit(db, deps.clock, keys, CLIENT_REGISTRATION_LIMIT);
    const uris = typeof body.redirect_uris === "string"
      ? body.redirect_uris.split(/\s+/).filter(Boolean)
      : body.redirect_uris;
    const scopes = parseScopes(body.scopes ?? body.scope) ?? [];
    const { client, secret } = await registerClient(db, deps.clock, {
      client_name: body.client_name,
      redirect_uris: [...new Set(uris)],
      scopes: scopes.length > 0 ? scopes : [DEFAULT_SCOPE],
      website: body.website || null,
      token_endpoint_auth_method: body.token_endpoint_auth_method ??
        "client_secret_basic",
    });
    c.header("Cache-Control", "no-store");
    return c.json(serializeApplication(client, secret), 201);
  });

  app.openapi(
    { ...tokenRoute, middleware: [requireOAuthBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      if (!body.grant_type) throw invalidOAuthRequest("grant_type is required");
      if (
        body.grant_type !== "authorization_code" &&
        body.grant_type !== "refresh_token"
      ) {
        throw new OAuthError(
          400,
          "unsupported_grant_type",
          "Supported grant types: authorization_code, refresh_token",
        );
      }
      const client = await authenticateClient(db, clientCredentials(c, body));
      const tokens = body.grant_type === "authorization_code"
        ? await exchangeAuthorizationCode(grantDeps, client, body)
        : await refreshTokens(grantDeps, client, body);
      return c.json(tokens, 200);
    },
    oauthHook,
  );

  app.openapi(
    { ...revokeRoute, middleware: [requireOAuthBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const client = await authenticateClient(db, clientCredentials(c, body));
      if (!body.token) throw invalidOAuthRequest("token is required");
      await revokeClientToken(grantDeps, client, body.token);
      return c.body(null, 200);
    },
    oauthHook,
  );

  app.get("/.well-known/oauth-authorization-server", (c) => {
    const base = deps.config.baseUrl;
    c.header("Cache-Control", "public, max-age=3600");
    return c.json({
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      scopes_supported: Object.keys(OAUTH_SCOPES),
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: [
        "client_secret_basic",
        "client_secret_post",
        "none",
      ],
      revocation_endpoint_auth_methods_supported: [
        "client_secret_basic",
        "client_secret_post",
        "none",
      ],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/api/docs`,
    });
  });

  // Served as HTML or plain JSON by hand; listed here so the document is complete.
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    tags: ["oauth"],
    summary: "Authorization server metadata (RFC 8414)",
    responses: { 200: { description: "The metadata document" } },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/authorize",
    tags: ["oauth"],
    summary: "Authorization endpoint: the consent page (HTML)",
    description:
      "Query: response_type=code, client_id, redirect_uri (exactly as registered), scope " +
      "(event:write), state, code_challenge + code_challenge_method=S256 (required for " +
      "public clients). An unknown client or redirect_uri gives an HTML error page; other " +
      "errors redirect with error, error_description, state and iss.",
    responses: {
      200: { description: "The consent form" },
      302: { description: "Error redirect to the client" },
      400: { description: "HTML error page (no redirect)" },
    },
  });
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/authorize",
    tags: ["oauth"],
    summary: "The consent form's decision (form-urlencoded, CSRF-protected)",
    description:
      "Approve (with e-mail and password) redirects 302 to redirect_uri with code, state " +
      "and iss; Deny redirects with error=access_denied. A missing or wrong CSRF token or " +
      "cookie answers 403 with an HTML page.",
    responses: {
      302: { description: "Redirect to the client" },
      401: { description: "Wrong credentials: the form again" },
      403: { description: "CSRF check failed" },
    },
  });

  app.openapi(
    { ...listAuthorizationsRoute, middleware: [requireAuth(deps)] },
    async (c) => {
      const list = await listAuthorizations(
        db,
        deps.clock,
        c.get("auth").user.id,
      );
      return c.json(list, 200);
    },
  );

  app.openapi(
    { ...withdrawRoute, middleware: [requireAuth(deps)] },
    async (c) => {
      const { client_id } = c.req.valid("param");
      const withdrawn = await withdrawAuthorization(
        db,
        deps.clock,
        c.get("auth").user.id,
        client_id,
      );
      if (!withdrawn) throw notFound("Authorization");
      return c.body(null, 204);
    },
  );

  return app;
}

/** The oauth module, as routes/mod.ts mounts it. */
export const oauthModule: RouteModule = { name: "oauth", routes: oauthRoutes };
