/** Tags and places: search, one place with its events, editors' edits and merges. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { unixNow } from "../../lib/clock.ts";
import {
  getPlaceWithEvents,
  searchPlaces,
  searchTags,
} from "../../lib/events/catalog.ts";
import {
  editPlace,
  MAX_MERGED_PLACES,
  mergePlaces,
  type PlaceWriteResult,
} from "../../lib/events/places.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { eventWriteDeps, federateChange } from "./event-writes.ts";
import {
  bearerSecurity,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { EventSummarySchema, PlaceSchema } from "./events/schemas.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrForm,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

const limitQuery = z.string().regex(/^\d+$/, "must be an integer").transform(
  Number,
)
  .pipe(z.number().int().min(1).max(100)).optional().default(20)
  .openapi({ type: "integer", example: 20 });

const TagCount = z.object({
  tag: z.string(),
  normalizedTag: z.string(),
  count: z.number().int(),
}).openapi("TagCount");

const tagsRoute = createRoute({
  method: "get",
  path: "/tags",
  tags: ["tags"],
  summary: "Tags matching a search, prefix matches first, then most used",
  request: {
    query: z.object({
      search: z.string().max(100).optional().default(""),
      limit: limitQuery,
    }),
  },
  responses: {
    200: {
      description: "Matching tags",
      content: { "application/json": { schema: z.array(TagCount) } },
    },
    ...errorResponses(400),
  },
});

const placesRoute = createRoute({
  method: "get",
  path: "/places",
  tags: ["places"],
  summary:
    "Public places (named by a visible event) whose name or address matches",
  request: {
    query: z.object({
      search: z.string().max(200).optional().default(""),
      limit: limitQuery,
    }),
  },
  responses: {
    200: {
      description: "By name",
      content: { "application/json": { schema: z.array(PlaceSchema) } },
    },
    ...errorResponses(400),
  },
});

const PlaceWithEvents = PlaceSchema.extend({
  events: z.array(EventSummarySchema),
})
  .openapi("PlaceWithEvents");

const placeRoute = createRoute({
  method: "get",
  path: "/places/{id}",
  tags: ["places"],
  summary:
    "A public place (named by a visible event) with its upcoming events (at most 100); any other id is 404",
  request: { params: IdParam },
  responses: {
    200: {
      description: "The place",
      content: { "application/json": { schema: PlaceWithEvents } },
    },
    ...errorResponses(400, 404),
  },
});

const PlaceBody = z.object({
  name: z.string().trim().min(1).max(200),
  address: z.string().trim().max(300).optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
}).openapi("PlaceInput");

const putPlaceRoute = createRoute({
  method: "put",
  path: "/places/{id}",
  tags: ["places"],
  summary:
    "Replace a place's name, address and coordinates (editors and admins); its events' sequence moves on and local ones federate an Update",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(PlaceBody) },
  responses: {
    200: {
      description: "The place",
      content: { "application/json": { schema: PlaceSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 409, 415),
  },
});

const MergeBody = z.object({
  places: z.array(z.number().int().positive()).min(1).max(MAX_MERGED_PLACES)
    .openapi({
      description: "The ids of the duplicates, merged into the path's place",
    }),
}).openapi("PlaceMerge");

const mergePlaceRoute = createRoute({
  method: "post",
  path: "/places/{id}/merge",
  tags: ["places"],
  summary:
    "Merge duplicate places into this one (editors and admins): their events, collection filters and calendar subscriptions move here and they are deleted, atomically",
  security: bearerSecurity,
  request: {
    params: IdParam,
    body: jsonOrForm(
      MergeBody,
      "A form sends `places` as JSON text (`[3,4]`) or one id",
    ),
  },
  responses: {
    200: {
      description: "The place kept",
      content: { "application/json": { schema: PlaceSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

export function catalogRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;

  app.openapi(tagsRoute, async (c) => {
    const { search, limit } = c.req.valid("query");
    return c.json(await searchTags(db, search, limit), 200);
  });

  app.openapi(placesRoute, async (c) => {
    const { search, limit } = c.req.valid("query");
    return c.json(await searchPlaces(db, search, limit), 200);
  });

  app.openapi(placeRoute, async (c) => {
    const place = await getPlaceWithEvents(
      db,
      c.req.valid("param").id,
      unixNow(deps.clock),
      100,
    );
    return c.json(place, 200);
  });

  /** Federates what a place write did to the events held there. */
  const federated = async (result: PlaceWriteResult) => {
    for (const change of result.changes) await federateChange(deps, change);
    return result.place;
  };

  app.openapi(
    {
      ...putPlaceRoute,
      middleware: [
        requireAuth(deps),
        requireRole("editor", "admin"),
        requireBody,
      ],
    },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const writeDeps = eventWriteDeps(deps, await settingsOf(c, db));
      const result = await editPlace(writeDeps, c.req.valid("param").id, body);
      return c.json(await federated(result), 200);
    },
  );

  app.openapi(
    {
      ...mergePlaceRoute,
      middleware: [
        requireAuth(deps),
        requireRole("editor", "admin"),
        requireBody,
      ],
    },
    async (c) => {
      const writeDeps = eventWriteDeps(deps, await settingsOf(c, db));
      const result = await mergePlaces(
        writeDeps,
        c.req.valid("param").id,
        bodyOf(c, c.req.valid("json"), c.req.valid("form")).places,
      );
      return c.json(await federated(result), 200);
    },
  );
  return app;
}

/** The catalog module, as routes/mod.ts mounts it. */
export const catalogModule: RouteModule = {
  name: "catalog",
  mount: "/api",
  routes: catalogRoutes,
};
