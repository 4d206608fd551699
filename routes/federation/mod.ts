/**
 * The federation surface (Fedify mounted as middleware, NodeInfo documents,
 * ActivityPub content negotiation on event pages). The admin API for remote
 * actors and instances is routes/api/ap-actors.ts.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { INBOX_MAX_BYTES } from "../../lib/federation/inbox-guard.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { errorCodeFor } from "../middleware/errors.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";

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
