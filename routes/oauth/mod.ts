/**
 * OAuth 2.0 provider endpoints: the token and revocation endpoints and the
 * server metadata. The authorization endpoint and consent page are in
 * authorize.ts; client registration and the user's list of granted
 * applications are API resources (routes/api/oauth-clients.ts).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import {
  authenticateClient,
  type ClientCredentials,
} from "../../lib/oauth/clients.ts";
import {
  invalidClient,
  invalidOAuthRequest,
  OAuthError,
} from "../../lib/oauth/errors.ts";
import {
  exchangeAuthorizationCode,
  type GrantDeps,
  refreshTokens,
  revokeClientToken,
} from "../../lib/oauth/grants.ts";
import { OAUTH_SCOPES } from "../../lib/oauth/scopes.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  bodyOf,
  jsonOrForm,
  validationHook,
} from "../middleware/validation.ts";

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

/** OAuth routes under /oauth and /.well-known. */
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

  return app;
}

/** The oauth module, as routes/mod.ts mounts it. */
export const oauthModule: RouteModule = { name: "oauth", routes: oauthRoutes };
