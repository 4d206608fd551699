/** Moderation and curation: the resources list, collections and filters. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { unixNow } from "../../lib/clock.ts";
import {
  collectionInputSchema,
  collectionPatchSchema,
  createCollection,
  createFilter,
  deleteCollection,
  deleteFilter,
  filterInputSchema,
  listCollectionEvents,
  listCollections,
  listFilters,
  replaceFilter,
  updateCollection,
} from "../../lib/curation/collections.ts";
import {
  deleteResource,
  listResources,
  setResourceHidden,
} from "../../lib/curation/resources.ts";
import {
  bearerSecurity,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { EventSummarySchema } from "./events/schemas.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrForm,
  pagingQuery,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

const ResourceSchema = z.object({
  id: z.number().int(),
  activitypub_id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  hidden: z.boolean(),
  data: z.unknown().nullable(),
  apUserApId: z.string().nullable(),
  APUser: z.unknown().nullable().openapi({
    description: "The AP actor (without events or resources)",
  }),
  eventId: z.number().int().nullable(),
  event: EventSummarySchema.nullable(),
}).openapi("Resource");

const FilterSchema = z.object({
  id: z.number().int(),
  negate: z.boolean(),
  tags: z.array(z.string()),
  places: z.array(z.object({ id: z.number().int(), name: z.string() })),
  actors: z.array(z.object({ ap_id: z.string().nullable() })),
  collectionId: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Filter");

const CollectionSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  isActive: z.boolean(),
  isTop: z.boolean(),
  sortIndex: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  filters: z.array(FilterSchema).optional(),
}).openapi("Collection");

// The rules are lib's (the web forms use them too), wrapped in this zod for
// their OpenAPI names.
const FilterBody = z.strictObject(filterInputSchema.shape).openapi(
  "FilterRequest",
  {
    description:
      "PUT replaces every field: omitted arrays become empty and negate false. " +
      "`actors: [{ap_id: null}]` means local events.",
  },
);

const CollectionBody = z.strictObject(collectionInputSchema.shape).openapi(
  "CollectionRequest",
);

const CollectionPatch = z.strictObject(collectionPatchSchema.shape).openapi(
  "CollectionUpdate",
);

const limitQuery = (def: number) =>
  z.string().regex(/^\d+$/, "must be an integer").transform(Number)
    .pipe(z.number().int().min(1).max(500)).optional().default(def)
    .openapi({ type: "integer", example: def });

const adminOnly =
  "Admin only (401 without a token, 403 for other roles and OAuth tokens).";

const resourcesListRoute = createRoute({
  method: "get",
  path: "/resources/list",
  tags: ["resources"],
  summary: "Resources, newest first, searchable (admin)",
  description:
    `${adminOnly} \`query\` matches, case-insensitively, the content, the actor id and the event title.`,
  security: bearerSecurity,
  request: {
    query: pagingQuery(20, 100).extend({
      query: z.string().max(200).optional(),
    }),
  },
  responses: {
    200: {
      description: "One page",
      content: {
        "application/json": {
          schema: z.object({
            data: z.array(ResourceSchema),
            count: z.number().int(),
            totalPages: z.number().int(),
          }).openapi("ResourcePage"),
        },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const resourceUpdateRoute = createRoute({
  method: "put",
  path: "/resources/{id}",
  tags: ["resources"],
  summary: "Hide or show a resource (admin or editor)",
  security: bearerSecurity,
  request: {
    params: IdParam,
    body: jsonOrForm(
      z.object({ hidden: z.boolean() }).strict().openapi("ResourceUpdate"),
    ),
  },
  responses: {
    200: {
      description: "The resource",
      content: {
        "application/json": {
          schema: ResourceSchema.omit({ APUser: true, event: true }),
        },
      },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

const resourceDeleteRoute = createRoute({
  method: "delete",
  path: "/resources/{id}",
  tags: ["resources"],
  summary: "Delete a resource (admin or editor)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404),
  },
});

const collectionsRoute = createRoute({
  method: "get",
  path: "/collections",
  tags: ["collections"],
  summary: "Collections, pinned first, then by sortIndex and name (public)",
  request: {
    query: z.object({
      withFilters: z.enum(["true", "false"]).optional().openapi({
        description: "Embed each collection's filters",
      }),
    }),
  },
  responses: {
    200: {
      description: "Every collection",
      content: { "application/json": { schema: z.array(CollectionSchema) } },
    },
    ...errorResponses(400),
  },
});

const collectionCreateRoute = createRoute({
  method: "post",
  path: "/collections",
  tags: ["collections"],
  summary: "Create a collection (admin)",
  description: `${adminOnly} Names are unique (409).`,
  security: bearerSecurity,
  request: { body: jsonOrForm(CollectionBody) },
  responses: {
    201: {
      description: "The collection",
      content: { "application/json": { schema: CollectionSchema } },
    },
    ...errorResponses(400, 401, 403, 409, 415),
  },
});

const collectionUpdateRoute = createRoute({
  method: "put",
  path: "/collections/{id}",
  tags: ["collections"],
  summary: "Rename, pin, activate or reorder a collection (admin)",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(CollectionPatch) },
  responses: {
    200: {
      description: "The collection",
      content: { "application/json": { schema: CollectionSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 409, 415),
  },
});

const collectionDeleteRoute = createRoute({
  method: "delete",
  path: "/collections/{id}",
  tags: ["collections"],
  summary: "Delete a collection and its filters (admin)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404),
  },
});

const collectionEventsRoute = createRoute({
  method: "get",
  path: "/collections/{name}/events",
  tags: ["collections"],
  summary: "The events a collection selects (public)",
  description:
    "The tag listing's rule: `events` upcoming ascending (default 100, max 500), " +
    "`pastEvents` descending (default 50, max 500). Remote events appear when a " +
    "positive filter names their (trusted) actor.",
  request: {
    params: z.object({
      name: z.string().min(1).max(100).openapi({
        param: { name: "name", in: "path" },
      }),
    }),
    query: z.object({
      show_recurrent: z.enum(["true", "false"]).optional(),
      limit: limitQuery(100),
      past_limit: limitQuery(50),
    }),
  },
  responses: {
    200: {
      description: "Upcoming and past events",
      content: {
        "application/json": {
          schema: z.object({
            events: z.array(EventSummarySchema),
            pastEvents: z.array(EventSummarySchema),
          }),
        },
      },
    },
    ...errorResponses(400, 404),
  },
});

const collectionFiltersRoute = createRoute({
  method: "get",
  path: "/collections/{id}/filters",
  tags: ["filters"],
  summary: "A collection's filters (admin)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The filters, oldest first",
      content: { "application/json": { schema: z.array(FilterSchema) } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

const filterCreateRoute = createRoute({
  method: "post",
  path: "/filters",
  tags: ["filters"],
  summary: "Add a filter to a collection (admin)",
  description:
    `${adminOnly} Inside a filter, non-empty dimensions are AND-ed and values OR-ed; ` +
    "positive filters are OR-ed; an event matching any negated filter is excluded.",
  security: bearerSecurity,
  request: { body: jsonOrForm(FilterBody) },
  responses: {
    201: {
      description: "The filter",
      content: { "application/json": { schema: FilterSchema } },
    },
    ...errorResponses(400, 401, 403, 415),
  },
});

const filterReplaceRoute = createRoute({
  method: "put",
  path: "/filters/{id}",
  tags: ["filters"],
  summary: "Replace a filter (admin)",
  description:
    `${adminOnly} Full replacement, including moving it to another existing collection ` +
    "(an unknown collectionId is a 400; an unknown filter a 404).",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(FilterBody) },
  responses: {
    200: {
      description: "The filter",
      content: { "application/json": { schema: FilterSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

const filterDeleteRoute = createRoute({
  method: "delete",
  path: "/filters/{id}",
  tags: ["filters"],
  summary: "Delete a filter (admin)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404),
  },
});

/** Routes of the resources list, collections and filters. */
export function curationRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const db = deps.database.db;
  const admin = [requireAuth(deps), requireRole("admin")];
  const moderator = [requireAuth(deps), requireRole("admin", "editor")];

  app.openapi({ ...resourcesListRoute, middleware: admin }, async (c) => {
    const { page, pageSize, query } = c.req.valid("query");
    return c.json(
      await listResources(db, { page, pageSize, query: query?.trim() }),
      200,
    );
  });

  app.openapi(
    { ...resourceUpdateRoute, middleware: [...moderator, requireBody] },
    async (c) => {
      const { hidden } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(
        await setResourceHidden(
          db,
          deps.clock,
          c.req.valid("param").id,
          hidden,
        ),
        200,
      );
    },
  );

  app.openapi({ ...resourceDeleteRoute, middleware: moderator }, async (c) => {
    await deleteResource(db, c.req.valid("param").id);
    return c.body(null, 204);
  });

  app.openapi(collectionsRoute, async (c) => {
    const { withFilters } = c.req.valid("query");
    return c.json(await listCollections(db, withFilters === "true"), 200);
  });

  app.openapi(
    { ...collectionCreateRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(await createCollection(db, deps.clock, body), 201);
    },
  );

  app.openapi(
    { ...collectionUpdateRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(
        await updateCollection(db, deps.clock, c.req.valid("param").id, body),
        200,
      );
    },
  );

  app.openapi({ ...collectionDeleteRoute, middleware: admin }, async (c) => {
    await deleteCollection(db, c.req.valid("param").id);
    return c.body(null, 204);
  });

  app.openapi(collectionEventsRoute, async (c) => {
    const { name } = c.req.valid("param");
    const q = c.req.valid("query");
    const showRecurrent = q.show_recurrent !== undefined
      ? q.show_recurrent === "true"
      : (await settingsOf(c, db)).recurrent_event_visible;
    return c.json(
      await listCollectionEvents(
        db,
        name,
        unixNow(deps.clock),
        showRecurrent,
        { limit: q.limit, pastLimit: q.past_limit },
      ),
      200,
    );
  });

  app.openapi({ ...collectionFiltersRoute, middleware: admin }, async (c) => {
    return c.json(await listFilters(db, c.req.valid("param").id), 200);
  });

  app.openapi(
    { ...filterCreateRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(await createFilter(db, deps.clock, body), 201);
    },
  );

  app.openapi(
    { ...filterReplaceRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(
        await replaceFilter(db, deps.clock, c.req.valid("param").id, body),
        200,
      );
    },
  );

  app.openapi({ ...filterDeleteRoute, middleware: admin }, async (c) => {
    await deleteFilter(db, c.req.valid("param").id);
    return c.body(null, 204);
  });

  return app;
}

/** Collections, filters, resources; a collection's events are the same for every reader. */
export const curationModule: RouteModule = {
  name: "curation",
  mount: "/api",
  routes: curationRoutes,
  cacheable: [{
    routes: ["/api/collections/*"],
    paths: [/^\/api\/collections\/[^/]+\/events$/],
    variant: "shared",
  }],
};
