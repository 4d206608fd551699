/** GET/PUT /api/settings (admin); GET /api/instance (public). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  publicInstance,
  settingsSchema,
  updateSettings,
} from "../../lib/settings.ts";
import {
  bearerSecurity,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import {
  bodyOf,
  errorResponses,
  jsonOrForm,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

// Rebuilt here: zod 4 gives `.openapi()` only to schemas made after the extension loads.
const SettingsSchema = z.strictObject(settingsSchema.shape).openapi("Settings");
const SettingsPatch = z.strictObject(settingsSchema.partial().shape).openapi(
  "SettingsPatch",
);

const getRoute = createRoute({
  method: "get",
  path: "/settings",
  tags: ["settings"],
  summary: "All instance settings (admin)",
  security: bearerSecurity,
  responses: {
    200: {
      description: "Every known setting with its current value",
      content: { "application/json": { schema: SettingsSchema } },
    },
    ...errorResponses(401, 403),
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/settings",
  tags: ["settings"],
  summary: "Change settings (admin)",
  description:
    "Any subset of the known keys. Unknown keys and wrongly typed values are a 400 and change nothing.",
  security: bearerSecurity,
  request: { body: jsonOrForm(SettingsPatch) },
  responses: {
    200: {
      description: "All settings after the change",
      content: { "application/json": { schema: SettingsSchema } },
    },
    ...errorResponses(400, 401, 403, 415),
  },
});

const InstanceSchema = z.object({
  title: z.string(),
  description: z.string(),
  url: z.string().openapi({ description: "The public origin" }),
  timezone: z.string().openapi({
    description: "IANA time zone the instance's events are shown in",
    example: "Europe/Rome",
  }),
  locale: z.string().openapi({ description: "BCP 47", example: "it" }),
}).openapi("Instance");

const instanceRoute = createRoute({
  method: "get",
  path: "/instance",
  tags: ["settings"],
  summary: "What anyone may know of the instance",
  description:
    "Its title, description, public origin, time zone and locale: what an embedded list or " +
    "another client needs to show the instance's events as its pages do.",
  responses: {
    200: {
      description: "The instance",
      content: { "application/json": { schema: InstanceSchema } },
    },
  },
});

export function settingsRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const admin = [requireAuth(deps), requireRole("admin")];
  app.openapi(
    instanceRoute,
    async (c) =>
      c.json(publicInstance(await settingsOf(c, db), deps.config.baseUrl), 200),
  );
  app.openapi(
    { ...getRoute, middleware: admin },
    async (c) => c.json(await settingsOf(c, db), 200),
  );
  app.openapi(
    { ...putRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const patch = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(await updateSettings(db, deps.clock, patch), 200);
    },
  );
  return app;
}

/** The settings API; what anyone may know of the instance is the same for every reader. */
export const settingsModule: RouteModule = {
  name: "settings",
  mount: "/api",
  routes: settingsRoutes,
  cacheable: [{
    routes: ["/api/instance"],
    paths: [/^\/api\/instance$/],
    variant: "shared",
  }],
};
