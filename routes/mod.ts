/** The composition root: `createApp(deps)` builds the whole HTTP application. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import type { AppDeps, AppEnv, RouteDeps } from "./env.ts";
import type { RouteModule } from "./module.ts";
import { errorHandler, notFoundHandler } from "./middleware/errors.ts";
import { createJwtCodec } from "./middleware/jwt.ts";
import { validationHook } from "./middleware/validation.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { cachedRoutes, publicReadCache } from "./middleware/cache.ts";
import { bodyLimits } from "./middleware/body-limit.ts";
import { healthModule } from "./api/health.ts";
import { loginModule } from "./api/login.ts";
import { usersModule } from "./api/users.ts";
import { settingsModule } from "./api/settings.ts";
import { sourcesModule } from "./api/sources.ts";
import { eventsModule } from "./api/events/mod.ts";
import { catalogModule } from "./api/catalog.ts";
import { mediaModule } from "./api/media.ts";
import { curationModule } from "./api/curation.ts";
import { reportsModule } from "./api/reports.ts";
import { oauthModule } from "./oauth/mod.ts";
import { oauthClientsModule } from "./api/oauth-clients.ts";
import { mediaFilesModule } from "./site/media.ts";
import { authorizeModule } from "./oauth/authorize.ts";
import { federationModule } from "./federation/mod.ts";
import { apActorsModule } from "./api/ap-actors.ts";
import { feedsModule } from "./site/feeds.ts";
import { appModule } from "./app/mod.ts";
import { siteModule } from "./site/mod.ts";
import { ResponseCache } from "../lib/response-cache.ts";
import { randomToken } from "../lib/auth/tokens.ts";
import { apiDocsRenderer } from "./views/api-docs.tsx";

export type { AppDeps } from "./env.ts";

/**
 * The share of PUBLIC_CACHE_BYTES, on top of it, for filtered answers
 * (searches, filtered feeds), apart: visitors' endless combinations push out
 * only each other.
 */
const FILTERED_CACHE_SHARE = 1 / 4;

/**
 * Every route module, in the order `createApp` mounts them. The order is the
 * OpenAPI document's, and it decides where two modules could answer one
 * request (tests/route-order.test.ts):
 * - federation first: Fedify answers its paths, and an event's page asked
 *   for as ActivityPub, before any route;
 * - sources before events: /api/events/import is not an event id;
 * - feeds before the site: /event/{slug}.ics is a calendar, not a page;
 * - the site last: its pages answer only what nothing else answered.
 * Each module declares what the public-read cache may keep of its answers
 * and its body limits (routes/module.ts); nothing else lists its paths.
 */
export const ROUTE_MODULES: readonly RouteModule[] = [
  federationModule,
  healthModule,
  loginModule,
  usersModule,
  settingsModule,
  feedsModule,
  sourcesModule,
  eventsModule,
  catalogModule,
  mediaModule,
  mediaFilesModule,
  oauthClientsModule,
  oauthModule,
  authorizeModule,
  apActorsModule,
  curationModule,
  reportsModule,
  appModule,
  siteModule,
];

/** What the public-read cache may keep, as the modules declare it. */
export const CACHE_RULES = ROUTE_MODULES.flatMap((module) =>
  module.cacheable ?? []
);

/** The GET patterns the public-read cache's middleware is mounted on. */
export const CACHED_ROUTES = cachedRoutes(CACHE_RULES);

/** Builds the application from its dependencies. */
export function createApp(deps: AppDeps) {
  const routeDeps: RouteDeps = {
    ...deps,
    tokens: createJwtCodec(deps.config.jwtSecret),
  };
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(errorHandler(deps.log));
  app.notFound(notFoundHandler);

  if (deps.config.logLevel === "debug") {
    app.use("*", async (c, next) => {
      const started = performance.now();
      await next();
      // Path only: query strings may carry codes or tokens.
      deps.log.debug("request", {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      });
    });
  }
  // Anonymous reads of events and feeds, answered from memory until a write,
  // as they were sent (every header below included): a hit does nothing else.
  const readCache = publicReadCache(
    routeDeps,
    CACHE_RULES,
    new ResponseCache({
      ttlMs: deps.config.publicCacheMs,
      maxBytes: deps.config.publicCacheBytes,
      clock: deps.clock,
    }),
    new ResponseCache({
      ttlMs: deps.config.publicCacheMs,
      maxBytes: Math.floor(deps.config.publicCacheBytes * FILTERED_CACHE_SHARE),
      clock: deps.clock,
    }),
  );
  // Misses fill it: only GETs of the paths it may hold pass through it.
  app.on("GET", CACHED_ROUTES, readCache.middleware);
  app.use("*", securityHeaders({ openToAnyOrigin: "/api/" }));
  // Bearer tokens, not cookies, authenticate the API, so any origin may call
  // it. Preflights are Hono's CORS middleware's; other answers get the one
  // header that allows any origin from securityHeaders, on the final answer
  // (Hono's middleware, run on every API request, set it before the route
  // and halved the throughput of an unknown API path).
  app.options(
    "/api/*",
    cors({
      origin: "*",
      allowHeaders: ["Authorization", "Content-Type"],
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      maxAge: 86_400,
    }),
  );
  // Requests without a body (GET, HEAD, OPTIONS) have nothing to limit;
  // the modules declare the limits other than BODY_LIMIT.
  app.on(
    ["POST", "PUT", "PATCH", "DELETE"],
    "*",
    bodyLimits(
      deps.config,
      ROUTE_MODULES.flatMap((module) => module.bodyLimits ?? []),
    ),
  );

  for (const module of ROUTE_MODULES) {
    app.route(module.mount ?? "/", module.routes(routeDeps));
  }

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A login token from POST /api/login/token, or an OAuth 2.0 access token.",
  });
  const openApiConfig = {
    openapi: "3.1.0",
    info: {
      title: "Quando API",
      version: "0.1.0",
      description:
        "Federated event calendar. Errors are {error, message, details?}; " +
        "times are Unix seconds; see the README's API notes.",
    },
    servers: [{ url: deps.config.baseUrl }],
  };
  app.doc31("/api/openapi.json", openApiConfig);
  // The reference, rendered here from the same document, once per app: no
  // script, nothing from another origin, a fresh style nonce per response.
  let docsPage: Promise<(nonce: string) => string> | undefined;
  app.get("/api/docs", async (c) => {
    docsPage ??= apiDocsRenderer(app.getOpenAPI31Document(openApiConfig))
      .catch((error) => {
        docsPage = undefined;
        throw error;
      });
    const page = await docsPage;
    const nonce = randomToken(16);
    c.header(
      "Content-Security-Policy",
      `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; ` +
        "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    c.header("Cache-Control", "public, max-age=300");
    return c.html(page(nonce));
  });
  // Hits of the public-read cache are answered before the router: no
  // routing, context or middleware for them (the request log at debug level
  // sees every request, so it keeps them on the router's path).
  if (deps.config.logLevel !== "debug") {
    const dispatch = app.fetch;
    app.fetch = (request, env, executionCtx) =>
      readCache.hit(request) ?? dispatch(request, env, executionCtx);
  }
  return app;
}

export type App = ReturnType<typeof createApp>;
