/**
 * Reports of events: `POST /api/events/{id}/reports` (anyone, rate
 * limited), and the moderators' queue: `GET /api/reports`, `PUT
 * /api/reports/{id}` (editors and admins).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { REPORT_REASONS, REPORT_STATUSES } from "../../db/schema.ts";
import {
  closeReport,
  listReports,
  MAX_REPORT_TEXT,
  reportEvent,
} from "../../lib/reports.ts";
import {
  bearerSecurity,
  clientAddress,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrForm,
  pagingQuery,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { eventWriteDeps, federateChange } from "./event-writes.ts";

const ReportInput = z.object({
  reason: z.enum(REPORT_REASONS),
  text: z.string().max(MAX_REPORT_TEXT).optional().openapi({
    description: "Plain text (HTML is refused), at most 1000 characters",
  }),
}).openapi("ReportInput");

const ReportSchema = z.object({
  id: z.number().int(),
  eventId: z.number().int(),
  event: z.object({
    id: z.number().int(),
    title: z.string(),
    slug: z.string(),
    is_visible: z.boolean(),
  }),
  reason: z.enum(REPORT_REASONS),
  text: z.string(),
  status: z.enum(REPORT_STATUSES),
  createdAt: z.string().openapi({ format: "date-time" }),
  closedAt: z.string().nullable().openapi({ format: "date-time" }),
}).openapi("Report");

const createReportRoute = createRoute({
  method: "post",
  path: "/events/{id}/reports",
  tags: ["reports"],
  summary:
    "Report a visible event to the moderators (anyone; 10 reports an hour from one address)",
  request: { params: IdParam, body: jsonOrForm(ReportInput) },
  responses: {
    201: {
      description: "Filed",
      content: {
        "application/json": {
          schema: z.object({ id: z.number().int(), createdAt: z.string() }),
        },
      },
    },
    ...errorResponses(400, 404, 415, 429),
  },
});

const listReportsRoute = createRoute({
  method: "get",
  path: "/reports",
  tags: ["reports"],
  summary:
    "Reports: the open ones oldest first, or the closed ones newest first (editors and admins)",
  security: bearerSecurity,
  request: {
    query: pagingQuery(20, 100).extend({
      status: z.enum(["open", "closed"]).optional().default("open"),
    }),
  },
  responses: {
    200: {
      description: "One page",
      content: {
        "application/json": {
          schema: z.object({
            data: z.array(ReportSchema),
            count: z.number().int(),
            totalPages: z.number().int(),
          }),
        },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const ReportClosingInput = z.object({
  status: z.enum(["dismissed", "resolved"]),
  hide_event: z.boolean().optional().default(false).openapi({
    description:
      "Also hide the event (followers get a Delete) and resolve its other open reports",
  }),
}).openapi("ReportClosing");

const closeReportRoute = createRoute({
  method: "put",
  path: "/reports/{id}",
  tags: ["reports"],
  summary:
    "Dismiss or resolve a report, optionally hiding the event (editors and admins)",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(ReportClosingInput) },
  responses: {
    200: {
      description: "The report",
      content: { "application/json": { schema: ReportSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

/** The reports' routes. */
export function reportRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const moderators = [requireAuth(deps), requireRole("editor", "admin")];

  app.openapi(
    { ...createReportRoute, middleware: [requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const filed = await reportEvent(
        { db, clock: deps.clock },
        c.req.valid("param").id,
        body,
        clientAddress(c, deps.config),
      );
      return c.json(filed, 201);
    },
  );

  app.openapi({ ...listReportsRoute, middleware: moderators }, async (c) => {
    const { status, page, pageSize } = c.req.valid("query");
    return c.json(await listReports(db, status, page, pageSize), 200);
  });

  app.openapi(
    { ...closeReportRoute, middleware: [...moderators, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const { report, write } = await closeReport(
        eventWriteDeps(deps, await settingsOf(c, db)),
        c.get("auth").user,
        c.req.valid("param").id,
        { status: body.status, hideEvent: body.hide_event },
      );
      if (write) await federateChange(deps, write);
      return c.json(report, 200);
    },
  );

  return app;
}

/** The reports module, as routes/mod.ts mounts it. */
export const reportsModule: RouteModule = {
  name: "reports",
  mount: "/api",
  routes: reportRoutes,
};
