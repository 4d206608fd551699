/**
 * Events: the documented endpoints, the write API, messages. The routes are
 * in `events/`: `reads.ts`, `writes.ts` and `messages.ts`, over the shapes
 * of `schemas.ts`; they are registered here in that order, which is the
 * order of the OpenAPI document.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, RouteDeps } from "../../env.ts";
import { uploadMaxBytes } from "../../middleware/body-limit.ts";
import type { RouteModule } from "../../module.ts";
import { validationHook } from "../../middleware/validation.ts";
import { eventReadRoutes } from "./reads.ts";
import { eventWriteRoutes } from "./writes.ts";
import { eventMessageRoutes } from "./messages.ts";

/** The events API: reads, writes, then moderation notes. */
export function eventRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  eventReadRoutes(app, deps);
  eventWriteRoutes(app, deps);
  eventMessageRoutes(app, deps);
  return app;
}

/**
 * The events API. Its listings and single events are the same for every
 * reader (a user's own events, /api/events/mine, are not); the last pattern
 * also holds an event's iCalendar file, /api/events/{id}.ics
 * (routes/site/feeds.ts). Uploads of an event's image take the upload's
 * limit.
 */
export const eventsModule: RouteModule = {
  name: "events",
  mount: "/api",
  routes: eventRoutes,
  cacheable: [{
    routes: ["/api/events", "/api/events/*"],
    paths: [
      /^\/api\/events$/,
      /^\/api\/events\/tag\/[^/]+$/,
      /^\/api\/events\/(?!mine$)[^/]+$/,
    ],
    variant: "shared",
  }],
  bodyLimits: [{
    matches: (path) => path.startsWith("/api/events"),
    maxBytes: uploadMaxBytes,
    multipartOnly: true,
  }],
};
