/**
 * The federation surface (Fedify mounted as middleware, NodeInfo documents,
 * ActivityPub content negotiation on event pages) and the admin endpoints for
 * remote actors and instances.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Hono, type MiddlewareHandler } from "hono";
import { INBOX_MAX_BYTES } from "../../lib/federation/inbox-guard.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
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
import { errorCodeFor } from "../middleware/errors.ts";
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

const AP_ACCEPT =
  /application\/(activity\+json|ld\+json)|application\/json(?!\w)/i;

function federationOff(): ApiError {
  return new ApiError(404, "not_found", "Federation is switched off");
}

/**
 * Fedify and the federation service refuse bad requests (an inbox post that
 * is not JSON, not an activity, badly signed, or from a blocked sender) with a
 * plain-text 4xx: the same refusal, said in the project's error shape.
 */
async function inErrorShape(res: Response): Promise<Response> {
  if (res.status < 400 || res.status >= 500) return res;
  if (/json/i.test(res.headers.get("content-type") ?? "")) return res;
  const text = (await res.text()).trim();
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/json");
  return new Response(
    JSON.stringify({
      error: errorCodeFor(res.status),
      message: text || `Refused with status ${res.status}`,
    }),
    { status: res.status, headers },
  );
}

/**
 * Hands federation requests to Fedify and serves the NodeInfo documents. Runs
 * before the API routes; anything that is not federation passes through.
 */
export function federationMiddleware(
  deps: RouteDeps,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const federation = deps.federation;
    const path = c.req.path;
    if (!federation) return await next();
    if (path === "/.well-known/nodeinfo" || path.startsWith("/nodeinfo/")) {
      const info = await federation.nodeInfo();
      if (!info) throw federationOff();
      c.header("Access-Control-Allow-Origin", "*");
      if (path === "/.well-known/nodeinfo") {
        return c.json({
          links: [
            {
              rel: "http://nodeinfo.diaspora.software/ns/schema/2.0",
              href: `${deps.config.baseUrl}/nodeinfo/2.0`,
            },
            {
              rel: "http://nodeinfo.diaspora.software/ns/schema/2.1",
              href: `${deps.config.baseUrl}/nodeinfo/2.1`,
            },
            // FEP-2677: the instance's application actor.
            {
              rel: "https://www.w3.org/ns/activitystreams#Application",
              href: info.actorUrl,
            },
          ],
        });
      }
      // 2.1 is Fedify's (below); 2.0 is the same figures in the older schema.
      if (path === "/nodeinfo/2.0") {
        return c.json(
          {
            version: "2.0",
            software: { name: "quando", version: "0.1.0" },
            protocols: ["activitypub"],
            services: { inbound: [], outbound: [] },
            openRegistrations: false,
            usage: {
              users: { total: info.users },
              localPosts: info.localPosts,
              localComments: info.localComments,
            },
            metadata: {
              nodeName: info.title,
              nodeDescription: info.description,
            },
          },
          200,
          {
            "Content-Type":
              'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"',
          },
        );
      }
    }
    // The places our events name as their location (Fedify's Place has no
    // address, so the object is written here, not by a Fedify dispatcher).
    const placePath = /^\/federation\/p\/([1-9]\d{0,15})$/.exec(path);
    if (placePath && (c.req.method === "GET" || c.req.method === "HEAD")) {
      if (!AP_ACCEPT.test(c.req.header("accept") ?? "")) {
        return c.redirect(`/place/${placePath[1]}`, 302);
      }
      const object = await federation.placeObject(Number(placePath[1]));
      if (!object) throw notFound("Place");
      return c.body(JSON.stringify(object), 200, {
        "Content-Type": "application/activity+json",
      });
    }
    // `/event/{slug}` asked for as ActivityPub: the object lives at /federation/m/{id}.
    const eventPage = /^\/event\/([^/]+)$/.exec(path);
    if (eventPage && AP_ACCEPT.test(c.req.header("accept") ?? "")) {
      let slug: string;
      try {
        slug = decodeURIComponent(eventPage[1]);
      } catch {
        throw notFound("Event");
      }
      // Hidden events are 404 here as on their HTML page; a series'
      // template has no object, a remote event's lives on its own server.
      const url = await federation.eventObjectUrl(slug);
      if (url === null) throw notFound("Event");
      return c.redirect(url, 302);
    }
    if (
      // Only what Fedify serves: other /.well-known paths (OAuth metadata)
      // are ours, and handing them over costs a warning line each.
      path.startsWith("/federation/") || path === "/.well-known/webfinger" ||
      path.startsWith("/nodeinfo/")
    ) {
      const result = await federation.handle(c.req.raw);
      if ("response" in result) return await inErrorShape(result.response);
      if (result.notAcceptable) {
        // A browser on an event object: send it to the event's page when the
        // object is served; any other id is not found, as it is when asked
        // for as ActivityPub (no slug of a hidden event, no tell-tale 406).
        const object = /^\/federation\/m\/([^/]+)$/.exec(path);
        if (object) {
          const id = /^[1-9]\d{0,15}$/.test(object[1]) ? Number(object[1]) : 0;
          const slug = id ? await federation.servedEventSlug(id) : null;
          if (slug === null) throw notFound("Object");
          return c.redirect(`/event/${slug}`, 302);
        }
        throw new ApiError(
          406,
          "not_acceptable",
          "Ask for application/activity+json",
        );
      }
      if (path.startsWith("/federation/")) throw notFound("Object");
    }
    return await next();
  };
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
  path: "/api/ap_actors",
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
  path: "/api/ap_actors/toggle_block",
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
  path: "/api/ap_actors/add_trust",
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
  path: "/api/ap_actors/follow",
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
  path: "/api/ap_actors/remove_trust",
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
  path: "/api/instances",
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
  path: "/api/instances/toggle_block",
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

/**
 * Fedify answers its own paths (actor, inbox, objects, WebFinger, NodeInfo),
 * and an event's page asked for as ActivityPub is sent to its object: other
 * paths never pass through it. First in routes/mod.ts's order, before every
 * route. Inboxes take what anyone on the internet sends: a limit of their own.
 */
export const federationModule: RouteModule = {
  name: "federation",
  routes(deps) {
    const app = new Hono<AppEnv>();
    const federation = federationMiddleware(deps);
    for (const path of FEDERATION_PATHS) app.use(path, federation);
    return app;
  },
  bodyLimits: [{
    matches: isInboxPath,
    maxBytes: () => INBOX_MAX_BYTES,
  }],
};

/** Admin endpoints for remote actors and instances (under /api). */
export const apActorsModule: RouteModule = {
  name: "ap_actors",
  routes: apActorRoutes,
};
