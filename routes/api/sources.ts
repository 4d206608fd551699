/**
 * Calendar subscriptions (`/api/sources`, editors and admins) and the
 * one-off import of an .ics file (`POST /api/events/import`, any member or
 * an OAuth token with `event:write`).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError, invalidRequest } from "../../lib/errors.ts";
import { applyImport } from "../../lib/imports/apply.ts";
import { quandoUserAgent } from "../../lib/federation/loader.ts";
import {
  IcsBudgetError,
  type IcsReading,
  readIcs,
} from "../../lib/imports/ics.ts";
import {
  createSource,
  deleteSource,
  getSource,
  importDepsOf,
  listSources,
  reserveFileImport,
  serializeSource,
  SOURCE_MAX_BYTES,
  SOURCE_PAUSE_AFTER,
  SOURCES_PAGE_MAX,
  SOURCES_PAGE_SIZE,
  type SyncDeps,
  syncDepsOf,
  syncSource,
  updateSource,
} from "../../lib/imports/sources.ts";
import type { Settings } from "../../lib/settings.ts";
import {
  bearerSecurity,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import type { AppDeps, AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { EVENT_WRITE_SCOPE } from "./events/schemas.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrForm,
  pagingQuery,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

const CountsSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  cancelled: z.number().int(),
  unchanged: z.number().int(),
  skipped: z.number().int(),
}).openapi("ImportCounts");

const SourceSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string(),
  userId: z.number().int().openapi({
    description: "Imported events are created as this user",
  }),
  default_tags: z.array(z.string()),
  default_place_id: z.number().int().nullable(),
  needs_confirmation: z.boolean(),
  last_sync_at: z.string().nullable(),
  last_success_at: z.string().nullable(),
  last_error: z.string().nullable().openapi({
    description:
      "Why the last sync failed, or the items it skipped (one per line)",
  }),
  last_counts: CountsSchema.nullable(),
  failures: z.number().int().openapi({
    description: "Syncs in a row that failed (0 after a success)",
  }),
  next_sync_at: z.string().nullable().openapi({
    description:
      "After a failure, the hourly sync waits until then (1 h, doubling up to a day)",
  }),
  paused: z.boolean().openapi({
    description:
      `Not synced by the hourly job: after ${SOURCE_PAUSE_AFTER} failures in a row, or ` +
      "paused by an editor. A sync by hand still runs; `paused: false` resumes it",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Source");

const tagList = z.array(z.string().trim().min(1).max(100)).max(20);

const SourceBody = z.object({
  url: z.string().min(1).max(2000).openapi({
    description: "An https, http or webcal URL of an iCalendar feed",
    example: "webcal://calendar.example.org/events.ics",
  }),
  name: z.string().max(200).optional(),
  default_tags: tagList.optional(),
  default_place_id: z.number().int().positive().nullable().optional()
    .openapi({ description: "For events without LOCATION" }),
  needs_confirmation: z.boolean().optional().openapi({
    description: "Imported events wait for an editor (default false)",
  }),
}).strict().openapi("SourceRequest");

const SourcePatch = SourceBody.partial().extend({
  paused: z.boolean().optional().openapi({
    description:
      "true stops the hourly syncs; false resumes them and forgets the failures",
  }),
}).strict().openapi("SourceUpdate");

const SyncResultSchema = z.object({
  result: z.enum(["synced", "not_modified", "failed", "busy"]),
  counts: CountsSchema.nullable(),
  problems: z.array(z.string()),
  source: SourceSchema,
}).openapi("SyncResult");

const ImportResultSchema = z.object({
  counts: CountsSchema,
  problems: z.array(z.string()),
}).openapi("ImportResult");

const moderators =
  "Editors and admins (401 without a token, 403 for users and OAuth tokens).";

const listRoute = createRoute({
  method: "get",
  path: "/sources",
  tags: ["sources"],
  summary: "Calendar subscriptions, with their last sync",
  description: `${moderators} Oldest first, a page at a time (\`page\` ` +
    `from 1, \`pageSize\` up to ${SOURCES_PAGE_MAX}, ${SOURCES_PAGE_SIZE} by default).`,
  security: bearerSecurity,
  request: { query: pagingQuery(SOURCES_PAGE_SIZE, SOURCES_PAGE_MAX) },
  responses: {
    200: {
      description: "A page of the sources",
      content: { "application/json": { schema: z.array(SourceSchema) } },
    },
    ...errorResponses(400, 401, 403),
  },
});

const createSourceRoute = createRoute({
  method: "post",
  path: "/sources",
  tags: ["sources"],
  summary: "Subscribe to an iCalendar feed (synced every hour)",
  description: `${moderators} The feed is read at once; its events are ` +
    "created as the caller, kept in step by UID (and RECURRENCE-ID), and " +
    "upcoming ones it stops listing are marked cancelled. The answer is the " +
    "first sync's result.",
  security: bearerSecurity,
  request: { body: jsonOrForm(SourceBody) },
  responses: {
    201: {
      description: "The source and its first sync",
      content: { "application/json": { schema: SyncResultSchema } },
    },
    ...errorResponses(400, 401, 403, 415),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/sources/{id}",
  tags: ["sources"],
  summary: "One calendar subscription",
  description: moderators,
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The source",
      content: { "application/json": { schema: SourceSchema } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

const updateRoute = createRoute({
  method: "put",
  path: "/sources/{id}",
  tags: ["sources"],
  summary: "Change a subscription (omitted fields keep their value)",
  description: moderators,
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(SourcePatch) },
  responses: {
    200: {
      description: "The source",
      content: { "application/json": { schema: SourceSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/sources/{id}",
  tags: ["sources"],
  summary: "Unsubscribe (the events it brought stay, as ordinary events)",
  description: moderators,
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    204: { description: "Removed" },
    ...errorResponses(400, 401, 403, 404),
  },
});

const syncRoute = createRoute({
  method: "post",
  path: "/sources/{id}/sync",
  tags: ["sources"],
  summary: "Sync a subscription now (the whole feed, not conditionally)",
  description: `${moderators} A sync already running answers ` +
    '`result: "busy"`. A feed that cannot be read is not an error of the ' +
    'request: `result: "failed"` with the reason in `last_error`.',
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: {
      description: "What the sync did",
      content: { "application/json": { schema: SyncResultSchema } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

// `file` is checked by the handler: a text/calendar request reaches the
// form validator too, as an empty form.
const ImportBody = z.object({
  file: z.instanceof(File).optional().openapi({
    type: "string",
    format: "binary",
    description: "The .ics file (required with multipart/form-data)",
  }),
});

const importRoute = createRoute({
  method: "post",
  path: "/events/import",
  tags: ["events"],
  summary: "Import an .ics file: its events created as the caller",
  description:
    "multipart/form-data with `file`, or the file itself as `text/calendar`; " +
    "at most 5 MiB. Importing the same file again updates the events it " +
    "created (by UID) instead of adding copies. Times without a zone are " +
    "the instance's. A file over the reading budget (more than 200,000 " +
    "lines or 50,000 components, components nested deeper than 8, a " +
    "component with more than 2,000 properties, a property Quando reads " +
    "with more than 20 parameters or 2,000 values, or longer than 256 KiB " +
    "of text or 64 KiB otherwise) is refused with 413 before any of it is " +
    "read. OAuth scope `event:write`.",
  security: bearerSecurity,
  request: {
    body: {
      required: true,
      content: {
        "multipart/form-data": { schema: ImportBody },
        "text/calendar": {
          schema: z.string().openapi({ type: "string", format: "binary" }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "What was created, updated or skipped, and why",
      content: { "application/json": { schema: ImportResultSchema } },
    },
    ...errorResponses(400, 401, 403, 413, 415),
  },
});

/** How long one .ics import request may write. */
const IMPORT_BUDGET_MS = 60_000;

/** A sync's dependencies with this instance's configuration and settings. */
export function sourceSyncDeps(deps: AppDeps, settings: Settings): SyncDeps {
  const { db } = deps.database;
  return syncDepsOf({
    db,
    clock: deps.clock,
    federation: deps.federation,
    allowPrivateAddresses: deps.config.allowPrivateAddresses,
    egress: deps.egress,
    baseUrl: deps.config.baseUrl,
    images: importMediaOf(deps),
  }, settings);
}

/** Where imported images are stored, and how large they may be. */
function importMediaOf(deps: AppDeps) {
  return {
    media: deps.media,
    maxBytes: deps.config.mediaMaxBytes,
    quotaBytes: deps.config.mediaQuotaBytes,
  };
}

/** The routes of calendar subscriptions and of the .ics import. */
export function sourceRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const moderator = [requireAuth(deps), requireRole("admin", "editor")];
  const importMedia = importMediaOf(deps);
  const syncAnswer = (outcome: Awaited<ReturnType<typeof syncSource>>) => ({
    ...outcome,
    source: serializeSource(outcome.source),
  });

  app.openapi({ ...listRoute, middleware: moderator }, async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(
      (await listSources(db, page, pageSize)).map(serializeSource),
      200,
    );
  });

  app.openapi(
    { ...createSourceRoute, middleware: [...moderator, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const source = await createSource(
        db,
        deps.clock.now(),
        c.get("auth").user,
        body,
      );
      const syncDeps = sourceSyncDeps(deps, await settingsOf(c, db));
      const outcome = await syncSource(syncDeps, source.id, { force: true });
      return c.json(syncAnswer(outcome), 201);
    },
  );

  app.openapi({ ...getRoute, middleware: moderator }, async (c) => {
    return c.json(
      serializeSource(await getSource(db, c.req.valid("param").id)),
      200,
    );
  });

  app.openapi(
    { ...updateRoute, middleware: [...moderator, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(
        serializeSource(
          await updateSource(
            db,
            deps.clock.now(),
            c.req.valid("param").id,
            body,
          ),
        ),
        200,
      );
    },
  );

  app.openapi({ ...deleteRoute, middleware: moderator }, async (c) => {
    await deleteSource(db, c.req.valid("param").id);
    return c.body(null, 204);
  });

  app.openapi({ ...syncRoute, middleware: moderator }, async (c) => {
    const { id } = c.req.valid("param");
    await getSource(db, id);
    const syncDeps = sourceSyncDeps(deps, await settingsOf(c, db));
    const outcome = await syncSource(syncDeps, id, { force: true });
    return c.json(syncAnswer(outcome), 200);
  });

  app.openapi(
    {
      ...importRoute,
      middleware: [requireAuth(deps, { scope: EVENT_WRITE_SCOPE })],
    },
    async (c) => {
      const type = c.req.header("content-type") ?? "";
      await reserveFileImport(db, deps.clock, c.get("auth").user.id);
      const declared = Number(c.req.header("content-length"));
      if (Number.isFinite(declared) && declared > SOURCE_MAX_BYTES + 4096) {
        throw new ApiError(413, "payload_too_large", "The file is over 5 MiB");
      }
      let bytes: Uint8Array;
      if (/^multipart\/form-data/i.test(type)) {
        const form = c.req.valid("form");
        const file = typeof form === "string" ? undefined : form.file;
        if (!file) {
          throw invalidRequest("The request is not valid", [
            { field: "file", message: "Required" },
          ]);
        }
        if (file.size > SOURCE_MAX_BYTES) {
          throw new ApiError(
            413,
            "payload_too_large",
            "The file is over 5 MiB",
          );
        }
        bytes = new Uint8Array(await file.arrayBuffer());
      } else if (/^text\/calendar/i.test(type)) {
        bytes = new Uint8Array(await c.req.arrayBuffer());
        if (bytes.length > SOURCE_MAX_BYTES) {
          throw new ApiError(
            413,
            "payload_too_large",
            "The file is over 5 MiB",
          );
        }
      } else {
        throw new ApiError(
          415,
          "unsupported_media_type",
          "Send the file as multipart/form-data (`file`) or text/calendar",
        );
      }
      const settings = await settingsOf(c, db);
      let reading: IcsReading;
      try {
        reading = await readIcs(
          new TextDecoder().decode(bytes),
          settings.instance_timezone,
        );
      } catch (error) {
        if (!(error instanceof IcsBudgetError)) throw error;
        throw new ApiError(413, "payload_too_large", error.message, [
          { field: "file", message: error.message },
        ]);
      }
      if (reading.items.length === 0) {
        throw invalidRequest("The file has no event to import", [{
          field: "file",
          message: reading.problems[0] ?? "no VEVENT",
        }]);
      }
      const user = c.get("auth").user;
      const outcome = await applyImport(
        {
          ...importDepsOf(
            { db, clock: deps.clock, federation: deps.federation },
            settings,
            {
              ...importMedia,
              fetch: {
                allowPrivateAddress: deps.config.allowPrivateAddresses,
                userAgent: quandoUserAgent(deps.config.baseUrl),
                egress: deps.egress,
              },
            },
          ),
          // A request does not run for ever: the rest of a huge file is
          // imported by sending it again.
          deadline: Date.now() + IMPORT_BUDGET_MS,
        },
        {
          origin: `ics:user:${user.id}`,
          user,
          defaultTags: [],
          defaultPlaceId: null,
          needsConfirmation: false,
          complete: false,
        },
        reading.items,
      );
      return c.json({
        counts: outcome.counts,
        problems: [...reading.problems, ...outcome.problems],
      }, 200);
    },
  );

  return app;
}

/**
 * Calendar sources and the one-off import. Mounted before the events API
 * (routes/mod.ts): /api/events/import is not an event id. The import takes
 * an .ics file, in whichever body type it comes.
 */
export const sourcesModule: RouteModule = {
  name: "sources",
  mount: "/api",
  routes: sourceRoutes,
  bodyLimits: [{
    matches: (path) => path === "/api/events/import",
    maxBytes: () => SOURCE_MAX_BYTES + 64 * 1024,
  }],
};
