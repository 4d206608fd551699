/**
 * Round trips per endpoint on a remote database: the app over the local
 * Hrana server (hrana-server.ts), whose request counter counts one per
 * pipeline POST (a statement, or a whole `db.batch`). Shared by
 * tests/roundtrips.test.ts (which asserts the bounds of docs/DEPLOY.md)
 * and tests/bench/roundtrips.ts (which prints them).
 *
 * Each endpoint is measured on the warm path: instance settings already read
 * (they are reused for a second, so a cold read costs one more round trip at
 * most once a second), the public-read cache off (PUBLIC_CACHE_MS=0), so what
 * is counted is the work of computing the answer. The instance has a
 * follower, so every write of a visible event is federated: its publication
 * is queued in the write's own batch and done by the queue after the
 * response, so everything a write costs its request is counted.
 */
import { eq } from "drizzle-orm";
import { apUsers, instances } from "../../db/schema.ts";
import { getSettings } from "../../lib/settings.ts";
import {
  call,
  createTestUser,
  loginToken,
  oauthAccessToken,
  type TestContext,
} from "../helpers.ts";
import { type RemoteApp, startRemoteApp } from "./remote-app.ts";

export { type RemoteApp, startRemoteApp };

/** What a scenario created, for the endpoints' paths and bodies. */
export interface Scenario {
  /** A login token of the owner of the events (role user). */
  token: string;
  /** An OAuth token (scope event:write) of the same user. */
  oauthToken: string;
  /** A login token of an admin. */
  adminToken: string;
  eventId: number;
  eventSlug: string;
  seriesId: number;
  occurrenceId: number;
  placeId: number;
  tag: string;
  collection: string;
  /** A start time in the future (Unix seconds). */
  start: number;
}

async function json(
  res: Response,
  status: number,
  // deno-lint-ignore no-explicit-any -- scenario bodies are read field by field
): Promise<any> {
  const text = await res.text();
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  }
  return text ? JSON.parse(text) : null;
}

/**
 * Fills the database through the API: a user with a login and an OAuth
 * token, an admin, an event with a place and tags, a weekly series with a
 * tag, a collection of that tag, a moderation note.
 */
export async function seedScenario(app: RemoteApp): Promise<Scenario> {
  const { ctx } = app;
  const owner = await createTestUser(ctx, { role: "user" });
  const admin = await createTestUser(ctx, { role: "admin" });
  const token = await loginToken(ctx, owner.email, owner.password);
  const adminToken = await loginToken(ctx, admin.email, admin.password);
  const oauthToken = await oauthAccessToken(ctx, owner);
  // Never delivered to: the queue does not run here.
  await addFollower(ctx, "http://127.0.0.1:9/inbox");
  const start = Math.floor(ctx.clock.now().getTime() / 1000) + 2 * 86_400;
  const event = await json(
    await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Concerto al circolo",
        description: "<p>Musica dal vivo</p>",
        start_datetime: start,
        end_datetime: start + 7200,
        place_name: "Circolo",
        place_address: "Via Roma 1",
        tags: ["musica", "Jazz"],
      },
    }),
    201,
  );
  const series = await json(
    await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Prove del coro",
        start_datetime: start + 3600,
        end_datetime: start + 7200,
        place_id: event.place.id,
        tags: ["musica"],
        recurrent: { frequency: "1w" },
      },
    }),
    201,
  );
  await json(
    await call(ctx, "POST", "/api/collections", {
      token: adminToken,
      json: { name: "Musica" },
    }),
    201,
  ).then((collection) =>
    call(ctx, "POST", "/api/filters", {
      token: adminToken,
      json: { collectionId: collection.id, tags: ["musica"] },
    })
  ).then((res) => json(res, 201));
  await json(
    await call(ctx, "POST", `/api/events/${event.id}/messages`, {
      token: adminToken,
      json: { message: "Checked", is_author_visible: true },
    }),
    201,
  );
  return {
    token,
    oauthToken,
    adminToken,
    eventId: event.id,
    eventSlug: event.slug,
    seriesId: series.id,
    occurrenceId: series.children[0].id,
    placeId: event.place.id,
    tag: "musica",
    collection: "Musica",
    start,
  };
}

/** One measured request. */
export interface Endpoint {
  name: string;
  kind: "read" | "write";
  method: string;
  path: (s: Scenario) => string;
  token?: (s: Scenario) => string;
  body?: (s: Scenario) => unknown;
  status: number;
}

const eventBody = (s: Scenario, title: string) => ({
  title,
  start_datetime: s.start + 86_400,
  end_datetime: s.start + 90_000,
  place_id: s.placeId,
  tags: ["musica", "nuovo"],
});

/** Public reads (anonymous) and event writes, in an order that keeps them valid. */
export const ENDPOINTS: Endpoint[] = [
  {
    name: "GET /api/events/{id}",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/${s.eventId}`,
    status: 200,
  },
  {
    name: "GET /api/events/{id} (series)",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/${s.seriesId}`,
    status: 200,
  },
  {
    name: "GET /api/events/{id} (occurrence)",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/${s.occurrenceId}`,
    status: 200,
  },
  {
    name: "GET /api/events/{id} (owner)",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/${s.eventId}`,
    token: (s) => s.token,
    status: 200,
  },
  {
    name: "GET /api/events",
    kind: "read",
    method: "GET",
    path: () => "/api/events",
    status: 200,
  },
  {
    name: "GET /api/events?tags&query",
    kind: "read",
    method: "GET",
    path: () => "/api/events?tags=musica&query=coro",
    status: 200,
  },
  {
    name: "GET /api/events/tag/{tag}",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/tag/${s.tag}`,
    status: 200,
  },
  {
    name: "GET /api/collections/{name}/events",
    kind: "read",
    method: "GET",
    path: (s) => `/api/collections/${s.collection}/events`,
    status: 200,
  },
  {
    name: "GET /api/tags",
    kind: "read",
    method: "GET",
    path: () => "/api/tags?search=mu",
    status: 200,
  },
  {
    name: "GET /api/places/{id}",
    kind: "read",
    method: "GET",
    path: (s) => `/api/places/${s.placeId}`,
    status: 200,
  },
  {
    name: "GET /feed/rss",
    kind: "read",
    method: "GET",
    path: () => "/feed/rss",
    status: 200,
  },
  {
    name: "GET /feed/atom",
    kind: "read",
    method: "GET",
    path: () => "/feed/atom",
    status: 200,
  },
  {
    name: "GET /feed/json",
    kind: "read",
    method: "GET",
    path: () => "/feed/json",
    status: 200,
  },
  {
    name: "GET /feed/ics",
    kind: "read",
    method: "GET",
    path: () => "/feed/ics",
    status: 200,
  },
  {
    name: "GET /feed/rss/tag/{tag}",
    kind: "read",
    method: "GET",
    path: (s) => `/feed/rss/tag/${s.tag}`,
    status: 200,
  },
  {
    name: "GET /feed/ics/place/{id}",
    kind: "read",
    method: "GET",
    path: (s) => `/feed/ics/place/${s.placeId}`,
    status: 200,
  },
  {
    name: "GET /feed/rss/collection/{name}",
    kind: "read",
    method: "GET",
    path: (s) => `/feed/rss/collection/${s.collection}`,
    status: 200,
  },
  {
    name: "GET /api/events/{id}.ics (series)",
    kind: "read",
    method: "GET",
    path: (s) => `/api/events/${s.seriesId}.ics`,
    status: 200,
  },
  {
    name: "GET /event/{slug}.ics",
    kind: "read",
    method: "GET",
    path: (s) => `/event/${s.eventSlug}.ics`,
    status: 200,
  },
  {
    name: "GET /",
    kind: "read",
    method: "GET",
    path: () => "/",
    status: 200,
  },
  {
    name: "GET /event/{slug}",
    kind: "read",
    method: "GET",
    path: (s) => `/event/${s.eventSlug}`,
    status: 200,
  },
  {
    name: "GET /tag/{tag}",
    kind: "read",
    method: "GET",
    path: (s) => `/tag/${s.tag}`,
    status: 200,
  },
  {
    name: "GET /place/{id}",
    kind: "read",
    method: "GET",
    path: (s) => `/place/${s.placeId}`,
    status: 200,
  },
  {
    name: "GET /collection/{name}",
    kind: "read",
    method: "GET",
    path: (s) => `/collection/${s.collection}`,
    status: 200,
  },
  {
    name: "POST /api/events",
    kind: "write",
    method: "POST",
    path: () => "/api/events",
    token: (s) => s.token,
    body: (s) => eventBody(s, "Nuovo evento"),
    status: 201,
  },
  {
    name: "POST /api/events (OAuth token)",
    kind: "write",
    method: "POST",
    path: () => "/api/events",
    token: (s) => s.oauthToken,
    body: (s) => ({
      ...eventBody(s, "Via OAuth"),
      place_id: undefined,
      place_name: "Piazza",
    }),
    status: 201,
  },
  {
    name: "POST /api/events (title without a slug: event-<id>)",
    kind: "write",
    method: "POST",
    path: () => "/api/events",
    token: (s) => s.token,
    body: (s) => eventBody(s, "音乐会"),
    status: 201,
  },
  {
    name: "POST /api/events (weekly series)",
    kind: "write",
    method: "POST",
    path: () => "/api/events",
    token: (s) => s.token,
    body: (s) => ({ ...eventBody(s, "Corso"), recurrent: { frequency: "1w" } }),
    status: 201,
  },
  {
    name: "PUT /api/events/{id}",
    kind: "write",
    method: "PUT",
    path: (s) => `/api/events/${s.eventId}`,
    token: (s) => s.token,
    body: (s) => ({ ...eventBody(s, "Concerto spostato"), tags: ["jazz"] }),
    status: 200,
  },
  {
    name: "PATCH /api/events/{id}",
    kind: "write",
    method: "PATCH",
    path: (s) => `/api/events/${s.eventId}`,
    token: (s) => s.token,
    body: () => ({ status: "EventPostponed" }),
    status: 200,
  },
  {
    name: "PUT /api/events/{id} (series)",
    kind: "write",
    method: "PUT",
    path: (s) => `/api/events/${s.seriesId}`,
    token: (s) => s.token,
    body: (s) => ({
      title: "Prove del coro (nuova sala)",
      start_datetime: s.start + 3600,
      end_datetime: s.start + 7200,
      place_name: "Sala grande",
    }),
    status: 200,
  },
  {
    name: "PUT /api/events/{id}/toggle",
    kind: "write",
    method: "PUT",
    path: (s) => `/api/events/${s.eventId}/toggle`,
    token: (s) => s.token,
    status: 200,
  },
  {
    name: "DELETE /api/events/{id} (occurrence)",
    kind: "write",
    method: "DELETE",
    path: (s) => `/api/events/${s.occurrenceId}`,
    token: (s) => s.token,
    status: 204,
  },
  {
    name: "DELETE /api/events/{id}",
    kind: "write",
    method: "DELETE",
    path: (s) => `/api/events/${s.eventId}`,
    token: (s) => s.token,
    status: 204,
  },
  {
    name: "DELETE /api/events/{id} (series)",
    kind: "write",
    method: "DELETE",
    path: (s) => `/api/events/${s.seriesId}`,
    token: (s) => s.token,
    status: 204,
  },
];

export interface Measured {
  name: string;
  kind: "read" | "write";
  /** Round trips of the request, publishing included. */
  roundTrips: number;
}

/** Sends one endpoint's request on the warm path and counts its round trips. */
export async function measureEndpoint(
  app: RemoteApp,
  scenario: Scenario,
  endpoint: Endpoint,
): Promise<Measured> {
  // Warm: the settings read is reused (see the module comment).
  await getSettings(app.ctx.database.db);
  app.reset();
  const res = await call(app.ctx, endpoint.method, endpoint.path(scenario), {
    token: endpoint.token?.(scenario),
    json: endpoint.body?.(scenario),
  });
  const text = await res.text();
  const total = app.server.requests;
  if (res.status !== endpoint.status) {
    throw new Error(
      `${endpoint.name}: expected ${endpoint.status}, got ${res.status}: ${
        text.slice(0, 300)
      }`,
    );
  }
  return {
    name: endpoint.name,
    kind: endpoint.kind,
    roundTrips: total,
  };
}

/**
 * Every endpoint, in order, on one seeded app. A read is measured up to three
 * times and its fewest round trips kept: on a loaded machine a request can
 * outlive the one-second settings reuse and read them again mid-request.
 */
export async function measureAll(app: RemoteApp): Promise<Measured[]> {
  const scenario = await seedScenario(app);
  const out: Measured[] = [];
  for (const endpoint of ENDPOINTS) {
    let best = await measureEndpoint(app, scenario, endpoint);
    for (let i = 0; endpoint.kind === "read" && i < 2; i++) {
      const again = await measureEndpoint(app, scenario, endpoint);
      if (again.roundTrips < best.roundTrips) best = again;
    }
    out.push(best);
  }
  return out;
}

/** Makes an actor a follower of the instance, delivering to `sharedInbox`. */
export async function addFollower(
  ctx: TestContext,
  sharedInbox: string,
  name = "follower",
): Promise<void> {
  const origin = new URL(sharedInbox).origin;
  const id = `${origin}/users/${name}`;
  const stamp = ctx.clock.now();
  await ctx.database.db.insert(instances).values({
    domain: new URL(origin).host,
    name: "Follower",
    createdAt: stamp,
    updatedAt: stamp,
  }).onConflictDoNothing();
  await ctx.database.db.insert(apUsers).values({
    ap_id: id,
    follower: true,
    object: {
      id,
      type: "Person",
      preferredUsername: name,
      inbox: `${id}/inbox`,
      endpoints: { sharedInbox },
    },
    instanceDomain: new URL(origin).host,
    createdAt: stamp,
    updatedAt: stamp,
  }).onConflictDoUpdate({ target: apUsers.ap_id, set: { follower: true } });
  const [row] = await ctx.database.db.select().from(apUsers).where(
    eq(apUsers.ap_id, id),
  );
  if (!row?.follower) throw new Error("the follower was not stored");
}
