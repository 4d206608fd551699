/**
 * Events: the documented endpoints, the write API, messages. The routes are
 * in `events/`: `reads.ts`, `writes.ts` and `messages.ts`, over the shapes
 * of `schemas.ts`; they are registered here in that order, which is the
 * order of the OpenAPI document.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, RouteDeps } from "../../env.ts";
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
