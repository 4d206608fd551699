/**
 * The API's OAuth resources: registering a client (`POST /api/client`) and
 * the applications a user has authorised (`/api/oauth/authorizations`).
 * The OAuth protocol endpoints (/authorize, /oauth/token, /oauth/revoke,
 * the server metadata) are in routes/oauth/.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { OAUTH_AUTH_METHODS } from "../../db/schema.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import {
  redirectUriProblem,
  registerClient,
  serializeApplication,
} from "../../lib/oauth/clients.ts";
import {
  listAuthorizations,
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
  path: "/client",
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
  path: "/oauth/authorizations",
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
  path: "/oauth/authorizations/{client_id}",
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

/** Client registration and the user's authorisations, under /api. */
export function oauthClientRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const db = deps.database.db;

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

/** The OAuth clients module, as routes/mod.ts mounts it (at /api). */
export const oauthClientsModule: RouteModule = {
  name: "oauth-clients",
  mount: "/api",
  routes: oauthClientRoutes,
};
