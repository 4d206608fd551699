/** GET /api/health: 200 while the database answers. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { ErrorSchema, validationHook } from "../middleware/validation.ts";

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["meta"],
  summary: "Liveness and database check",
  responses: {
    200: {
      description: "Serving, and the database answers",
      content: {
        "application/json": {
          schema: z.object({ status: z.literal("ok") }).openapi("Health"),
        },
      },
    },
    503: {
      description: "The database does not answer",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

export function healthRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(healthRoute, async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      await deps.database.ping();
      return c.json({ status: "ok" as const }, 200);
    } catch (err) {
      deps.log.error("health check: database unreachable", {
        error: err instanceof Error ? err.message : String(err),
      });
      return c.json({
        error: "unavailable",
        message: "The database does not answer",
      }, 503);
    }
  });
  return app;
}

/** The health module, as routes/mod.ts mounts it. */
export const healthModule: RouteModule = {
  name: "health",
  mount: "/api",
  routes: healthRoutes,
};
