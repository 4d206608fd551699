/**
 * The admin API for remote actors and instances (`/api/ap_actors`,
 * `/api/instances`): lists, blocks, trust and follows.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError } from "../../lib/errors.ts";
import {
  findActorWithInstance,
  listActors,
  listInstances,
  serializeInstance,
  toggleActorBlock,
  toggleInstanceBlock,
} from "../../lib/federation/actors.ts";
import type { FederationService } from "../../lib/federation/service.ts";
import { trustInputSchema } from "../../lib/federation/trust.ts";
import {
  bearerSecurity,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  bodyOf,
  errorResponses,
  jsonOrForm,
  pagingQuery,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

function federationOff(): ApiError {
  return new ApiError(404, "not_found", "Federation is switched off");
}

const ApActorSchema = z.object({
  ap_id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  follower: z.boolean(),
  following: z.boolean(),
  trusted: z.boolean(),
  blocked: z.boolean(),
  object: z.unknown().nullable(),
  instanceDomain: z.string().nullable(),
  instance: z.unknown().nullable(),
}).openapi("ApActor");

const InstanceSchema = z.object({
  domain: z.string(),
  name: z.string().nullable(),
  blocked: z.boolean(),
  data: z.unknown().nullable(),
  applicationActor: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Instance");

const page = (schema: z.ZodType, name: string) =>
  z.object({
    data: z.array(schema),
    count: z.number().int(),
    totalPages: z.number().int(),
  }).openapi(name);

const ApIdBody = z.object({
  ap_id: z.string().trim().min(1).max(2000).openapi({
    example: "https://gancio.example/federation/u/relay",
  }),
}).openapi("ApIdRequest");

// The rule is lib's (the web form uses it too); the wrapper carries the
// OpenAPI description, which lib's zod objects cannot take.
const TrustBody = z.object(trustInputSchema.shape).openapi("TrustRequest", {
  description:
    "`url`: an actor URL, a @user@host handle, or an instance domain (its FEP-2677 application actor)",
  example: { url: "https://gancio.example/federation/u/relay" },
});

const DomainBody = z.object({
  domain: z.string().trim().min(1).max(300).openapi({
    example: "gancio.example",
  }),
}).openapi("DomainRequest");

const actorResponse = {
  200: {
    description: "The actor",
    content: { "application/json": { schema: ApActorSchema } },
  },
};

const listActorsRoute = createRoute({
  method: "get",
  path: "/ap_actors",
  tags: ["federation"],
  summary: "Remote actors (admin)",
  security: bearerSecurity,
  request: { query: pagingQuery(20, 100) },
  responses: {
    200: {
      description: "A page of actors, newest first",
      content: {
        "application/json": { schema: page(ApActorSchema, "ApActorPage") },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const toggleBlockRoute = createRoute({
  method: "put",
  path: "/ap_actors/toggle_block",
  tags: ["federation"],
  summary: "Block or unblock a remote actor (admin)",
  description:
    "A blocked actor's activities are refused and it receives no deliveries.",
  security: bearerSecurity,
  request: { body: jsonOrForm(ApIdBody) },
  responses: { ...actorResponse, ...errorResponses(400, 401, 403, 404) },
});

const addTrustRoute = createRoute({
  method: "post",
  path: "/ap_actors/add_trust",
  tags: ["federation"],
  summary: "Trust and follow a remote actor (admin)",
  description:
    "Fetches the actor, records it and its instance as trusted, and sends a Follow; " +
    "`following` turns true when the actor accepts. Private addresses are refused " +
    "unless ALLOW_PRIVATE_ADDRESSES=true.",
  security: bearerSecurity,
  request: { body: jsonOrForm(TrustBody) },
  responses: { ...actorResponse, ...errorResponses(400, 401, 403) },
});

const followRoute = createRoute({
  method: "put",
  path: "/ap_actors/follow",
  tags: ["federation"],
  summary: "Follow or unfollow a known remote actor (admin)",
  description:
    "Unfollows at once when we follow it; otherwise sends a Follow and `following` " +
    "turns true on its Accept.",
  security: bearerSecurity,
  request: { body: jsonOrForm(ApIdBody) },
  responses: { ...actorResponse, ...errorResponses(400, 401, 403, 404) },
});

const removeTrustRoute = createRoute({
  method: "post",
  path: "/ap_actors/remove_trust",
  tags: ["federation"],
  summary: "Withdraw trust from a remote actor (admin)",
  description:
    "Its events are no longer imported, and our Follow (accepted or pending) is " +
    "undone: an Undo is sent when the actor can still be reached. Events already " +
    "imported stay until they are purged.",
  security: bearerSecurity,
  request: { body: jsonOrForm(ApIdBody) },
  responses: { ...actorResponse, ...errorResponses(400, 401, 403, 404) },
});

const listInstancesRoute = createRoute({
  method: "get",
  path: "/instances",
  tags: ["federation"],
  summary: "Known instances (admin)",
  security: bearerSecurity,
  request: { query: pagingQuery(20, 100) },
  responses: {
    200: {
      description: "A page of instances by domain",
      content: {
        "application/json": { schema: page(InstanceSchema, "InstancePage") },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const toggleInstanceRoute = createRoute({
  method: "put",
  path: "/instances/toggle_block",
  tags: ["federation"],
  summary: "Block or unblock a whole instance (admin)",
  security: bearerSecurity,
  request: { body: jsonOrForm(DomainBody) },
  responses: {
    200: {
      description: "The instance",
      content: { "application/json": { schema: InstanceSchema } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

/** Admin endpoints for remote actors and instances. */
export function apActorRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const db = deps.database.db;
  const admin = [requireAuth(deps), requireRole("admin")];
  const service = (): FederationService => {
    if (!deps.federation) throw federationOff();
    return deps.federation;
  };
  const withInstance = (apId: string) => findActorWithInstance(db, apId);

  app.openapi({ ...listActorsRoute, middleware: admin }, async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await listActors(db, page, pageSize), 200);
  });

  app.openapi(
    { ...toggleBlockRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const { ap_id } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      await toggleActorBlock(db, deps.clock, ap_id);
      return c.json(await withInstance(ap_id), 200);
    },
  );

  app.openapi(
    { ...addTrustRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const { url } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const row = await service().addTrust(url);
      return c.json(await withInstance(row.ap_id), 200);
    },
  );

  app.openapi(
    { ...followRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const { ap_id } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const row = await service().toggleFollow(ap_id);
      return c.json(await withInstance(row.ap_id), 200);
    },
  );

  app.openapi(
    { ...removeTrustRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const { ap_id } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const row = await service().removeTrust(ap_id);
      return c.json(await withInstance(row.ap_id), 200);
    },
  );

  app.openapi({ ...listInstancesRoute, middleware: admin }, async (c) => {
    const { page, pageSize } = c.req.valid("query");
    return c.json(await listInstances(db, page, pageSize), 200);
  });

  app.openapi(
    { ...toggleInstanceRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const { domain } = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      return c.json(
        serializeInstance(await toggleInstanceBlock(db, deps.clock, domain)),
        200,
      );
    },
  );

  return app;
}

/** Admin endpoints for remote actors and instances (under /api). */
export const apActorsModule: RouteModule = {
  name: "ap_actors",
  mount: "/api",
  routes: apActorRoutes,
};
