/** The composition root: `createApp(deps)` builds the whole HTTP application. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { ApiError } from "../lib/errors.ts";
import type { AppDeps, AppEnv, RouteDeps } from "./env.ts";
import { errorHandler, notFoundHandler } from "./middleware/errors.ts";
import { healthRoutes } from "./api/health.ts";
import { createJwtCodec } from "./middleware/jwt.ts";
import { loginRoutes } from "./api/login.ts";
import { settingsRoutes } from "./api/settings.ts";
import { userRoutes } from "./api/users.ts";
import { eventRoutes } from "./api/events/mod.ts";
import { catalogRoutes } from "./api/catalog.ts";
import { mediaRoutes } from "./api/media.ts";
import { validationHook } from "./middleware/validation.ts";
import { oauthRoutes } from "./oauth/mod.ts";
import { authorizeRoutes } from "./oauth/authorize.ts";
import { apActorRoutes, federationMiddleware } from "./federation/mod.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { curationRoutes } from "./api/curation.ts";
import { feedRoutes } from "./site/feeds.ts";
import { pageRoutes } from "./site/pages.ts";
import { isWebUploadPath, webRoutes } from "./app/mod.ts";
import { sourceRoutes } from "./api/sources.ts";
import { SOURCE_MAX_BYTES } from "../lib/imports/sources.ts";
import { CACHED_ROUTES, publicReadCache } from "./middleware/cache.ts";
import { ResponseCache } from "../lib/response-cache.ts";
import { randomToken } from "../lib/auth/tokens.ts";
import { apiDocsRenderer } from "./views/api-docs.tsx";
import { INBOX_MAX_BYTES } from "../lib/federation/inbox-guard.ts";

export type { AppDeps } from "./env.ts";

/** Memory the public-read cache may hold (bodies and headers). */
const PUBLIC_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * Memory for filtered answers (searches, filtered feeds), apart: visitors'
 * endless combinations push out only each other.
 */
const FILTERED_CACHE_BYTES = 2 * 1024 * 1024;

/** The shared inbox and the instance actor's inbox. */
function isInboxPath(path: string): boolean {
  return path === "/federation/inbox" ||
    /^\/federation\/u\/[^/]+\/inbox$/.test(path);
}

/** The paths federationMiddleware answers or looks at. */
const FEDERATION_PATHS = [
  "/federation/*",
  "/.well-known/*",
  "/nodeinfo/*",
  "/event/*",
];

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
    new ResponseCache({
      ttlMs: deps.config.publicCacheMs,
      maxBytes: PUBLIC_CACHE_BYTES,
      clock: deps.clock,
    }),
    new ResponseCache({
      ttlMs: deps.config.publicCacheMs,
      maxBytes: FILTERED_CACHE_BYTES,
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
  const limitTo = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(
          413,
          "payload_too_large",
          `The body is larger than ${maxSize} bytes`,
        );
      },
    });
  const defaultLimit = limitTo(deps.config.bodyLimit);
  // Multipart bodies of the routes that take a file may be as large as an upload.
  const uploadLimit = limitTo(deps.config.mediaMaxBytes + 64 * 1024);
  // Inboxes take what anyone on the internet sends: a limit of their own.
  const inboxLimit = limitTo(INBOX_MAX_BYTES);
  // An .ics file, in whichever body type it comes.
  const calendarLimit = limitTo(SOURCE_MAX_BYTES + 64 * 1024);
  // Requests without a body (GET, HEAD, OPTIONS) have nothing to limit.
  app.on(["POST", "PUT", "PATCH", "DELETE"], "*", (c, next) => {
    if (isInboxPath(c.req.path)) return inboxLimit(c, next);
    if (c.req.path === "/api/events/import") return calendarLimit(c, next);
    const upload =
      /^multipart\/form-data/i.test(c.req.header("content-type") ?? "") &&
      (c.req.path === "/api/media" || c.req.path.startsWith("/api/events") ||
        isWebUploadPath(c.req.path));
    return (upload ? uploadLimit : defaultLimit)(c, next);
  });

  // Fedify answers its own paths (actor, inbox, objects, WebFinger, NodeInfo),
  // and an event's page asked for as ActivityPub is sent to its object:
  // other paths never pass through it.
  const federation = federationMiddleware(routeDeps);
  for (const path of FEDERATION_PATHS) app.use(path, federation);

  app.route("/", healthRoutes(routeDeps));
  app.route("/", loginRoutes(routeDeps));
  app.route("/", userRoutes(routeDeps));
  app.route("/", settingsRoutes(routeDeps));
  app.route("/", feedRoutes(routeDeps));
  // Before the events' routes: /api/events/import is not an event id.
  app.route("/", sourceRoutes(routeDeps));
  app.route("/", eventRoutes(routeDeps));
  app.route("/", catalogRoutes(routeDeps));
  app.route("/", mediaRoutes(routeDeps));
  app.route("/", oauthRoutes(routeDeps));
  app.route("/", authorizeRoutes(routeDeps));
  app.route("/", apActorRoutes(routeDeps));
  app.route("/", curationRoutes(routeDeps));
  app.route("/", webRoutes(routeDeps));
  app.route("/", pageRoutes(routeDeps));

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
