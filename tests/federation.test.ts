/**
 * The federation surface through HTTP: the instance actor, WebFinger,
 * NodeInfo, event objects, collections, the inbox's refusals and the admin
 * endpoints for remote actors and instances (docs/FEDERATION.md).
 */
import assert from "node:assert/strict";
import { addFollower } from "./support/roundtrips.ts";
import { apUsers, fedifyQueue, instances, resources } from "../db/schema.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  oauthAccessToken,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const HOUR = 3600;
const DAY = 24 * HOUR;
const BASE = "http://quando.test";
const ACTOR = `${BASE}/federation/u/relay`;
const AP = { accept: "application/activity+json" };
const AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

type Json = Record<string, unknown>;

/** A JSON-LD value that may be one item or an array of them, as an array. */
function arrayOf(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as Json[];
}

/** The id of a JSON-LD node given as a string or as an object. */
function idOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const id = (value as Json).id;
    return typeof id === "string" ? id : undefined;
  }
  return undefined;
}

async function getAp(ctx: TestContext, path: string): Promise<Response> {
  return await call(ctx, "GET", path, { headers: AP });
}

async function apJson(ctx: TestContext, path: string): Promise<Json> {
  const res = await getAp(ctx, path);
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text}`);
  return JSON.parse(text);
}

/** A path on the instance from one of its URLs. */
function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

/**
 * Every item of a paged collection, read as peers read it: the collection
 * has no items of its own but a `first` page, and each page a `next`.
 */
async function collectionItems(
  ctx: TestContext,
  path: string,
): Promise<{ collection: Json; pages: Json[]; items: Json[] }> {
  const collection = await apJson(ctx, path);
  assert.equal(
    arrayOf(collection.orderedItems ?? collection.items).length,
    0,
    `${path}: items outside the pages`,
  );
  assert.equal(typeof collection.first, "string", JSON.stringify(collection));
  const pages: Json[] = [];
  for (
    let next: unknown = collection.first;
    typeof next === "string";
    next = pages[pages.length - 1].next
  ) {
    assert.ok(pages.length < 100, "too many pages");
    const page = await apJson(ctx, pathOf(next));
    assert.match(String(page.type), /^(Ordered)?CollectionPage$/);
    assert.equal(page.partOf, collection.id);
    pages.push(page);
  }
  return {
    collection,
    pages,
    items: pages.flatMap((p) => arrayOf(p.orderedItems ?? p.items)),
  };
}

function createEvent(
  ctx: TestContext,
  token: string,
  fields: Record<string, unknown> = {},
) {
  return postEvent(ctx, token, {
    end_datetime: NOW + DAY + 2 * HOUR,
    ...fields,
  });
}

async function toggle(ctx: TestContext, token: string, id: number) {
  const res = await call(ctx, "PUT", `/api/events/${id}/toggle`, { token });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

async function disableFederation(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { enable_federation: false },
  });
  assert.equal(res.status, 200, await res.text());
}

async function insertInstance(
  ctx: TestContext,
  domain: string,
  blocked = false,
) {
  const now = ctx.clock.now();
  await ctx.database.db.insert(instances).values({
    domain,
    blocked,
    createdAt: now,
    updatedAt: now,
  });
}

async function insertActor(
  ctx: TestContext,
  apId: string,
  options: { blocked?: boolean; createdAt?: Date } = {},
) {
  const now = options.createdAt ?? ctx.clock.now();
  await ctx.database.db.insert(apUsers).values({
    ap_id: apId,
    blocked: options.blocked ?? false,
    instanceDomain: new URL(apId).host,
    object: { id: apId, type: "Person" },
    createdAt: now,
    updatedAt: now,
  });
}

function followFrom(actor: string) {
  return {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${actor}#follows/1`,
    type: "Follow",
    actor,
    object: ACTOR,
  };
}

async function postInbox(ctx: TestContext, path: string, activity: unknown) {
  return await ctx.app.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/activity+json",
      accept: "application/activity+json",
    },
    body: JSON.stringify(activity),
  });
}

// ------------------------------------------------------------------ actor

Deno.test("actor: the Application actor with its URLs and keys", async () => {
  const ctx = await createTestApp();
  try {
    const res = await getAp(ctx, "/federation/u/relay");
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(
      res.headers.get("content-type") ?? "",
      /application\/(activity\+json|ld\+json)/,
    );
    const actor = JSON.parse(text);
    assert.equal(actor.id, ACTOR);
    assert.equal(actor.type, "Application");
    assert.equal(actor.preferredUsername, "relay");
    assert.equal(idOf(actor.inbox), `${ACTOR}/inbox`);
    assert.equal(idOf(actor.outbox), `${ACTOR}/outbox`);
    assert.equal(idOf(actor.followers), `${ACTOR}/followers`);
    for (const key of ["inbox", "outbox", "followers"]) {
      assert.ok(idOf(actor[key])!.startsWith(`${BASE}/`), key);
    }
    assert.equal(actor.endpoints?.sharedInbox, `${BASE}/federation/inbox`);

    // The RSA key (HTTP Signatures) ...
    const publicKey = arrayOf(actor.publicKey)[0];
    assert.ok(publicKey, "publicKey");
    assert.equal(idOf(publicKey.owner), ACTOR);
    assert.ok(String(publicKey.id).startsWith(ACTOR));
    assert.match(
      String(publicKey.publicKeyPem),
      /^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/,
    );
    // ... and the Ed25519 Multikey (object integrity proofs).
    const multikeys = arrayOf(actor.assertionMethod);
    assert.ok(multikeys.length >= 1, "assertionMethod");
    const ed25519 = multikeys.find((k) =>
      String(k.publicKeyMultibase).startsWith("z6Mk")
    );
    assert.ok(ed25519, JSON.stringify(multikeys));
    assert.equal(ed25519.type, "Multikey");
    assert.equal(idOf(ed25519.controller), ACTOR);
  } finally {
    ctx.close();
  }
});

Deno.test("actor: an unknown actor name answers 404", async () => {
  const ctx = await createTestApp();
  try {
    const res = await getAp(ctx, "/federation/u/nobody");
    assert.equal(res.status, 404, await res.text());
  } finally {
    ctx.close();
  }
});

Deno.test("federation switched off: actor, WebFinger and NodeInfo answer 404", async () => {
  const ctx = await createTestApp();
  try {
    // On before the switch ...
    const before = await getAp(ctx, "/federation/u/relay");
    await before.body?.cancel();
    assert.equal(before.status, 200);

    await disableFederation(ctx);

    const actor = await getAp(ctx, "/federation/u/relay");
    assert.equal(actor.status, 404, await actor.text());
    const webfinger = await call(
      ctx,
      "GET",
      "/.well-known/webfinger?resource=acct:relay@quando.test",
    );
    assert.equal(webfinger.status, 404, await webfinger.text());
    for (
      const path of ["/.well-known/nodeinfo", "/nodeinfo/2.0", "/nodeinfo/2.1"]
    ) {
      const res = await call(ctx, "GET", path);
      assert.equal(res.status, 404, `${path}: ${await res.text()}`);
    }
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ WebFinger

Deno.test("WebFinger: acct:relay@quando.test links to the actor; unknown users 404", async () => {
  const ctx = await createTestApp();
  try {
    const res = await call(
      ctx,
      "GET",
      "/.well-known/webfinger?resource=acct:relay@quando.test",
    );
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const jrd = JSON.parse(text);
    assert.equal(jrd.subject, "acct:relay@quando.test");
    const self = arrayOf(jrd.links).find((l) => l.rel === "self");
    assert.ok(self, text);
    assert.equal(self.href, ACTOR);
    assert.equal(self.type, "application/activity+json");

    const unknown = await call(
      ctx,
      "GET",
      "/.well-known/webfinger?resource=acct:nobody@quando.test",
    );
    assert.equal(unknown.status, 404, await unknown.text());
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ NodeInfo

Deno.test("NodeInfo: the discovery document lists 2.0, 2.1 and the FEP-2677 actor", async () => {
  const ctx = await createTestApp();
  try {
    const res = await call(ctx, "GET", "/.well-known/nodeinfo");
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const links = arrayOf(JSON.parse(text).links);
    const byRel = new Map(links.map((l) => [l.rel, l.href]));
    assert.equal(
      byRel.get("http://nodeinfo.diaspora.software/ns/schema/2.0"),
      `${BASE}/nodeinfo/2.0`,
    );
    assert.equal(
      byRel.get("http://nodeinfo.diaspora.software/ns/schema/2.1"),
      `${BASE}/nodeinfo/2.1`,
    );
    assert.equal(
      byRel.get("https://www.w3.org/ns/activitystreams#Application"),
      ACTOR,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("NodeInfo 2.0 and 2.1: localPosts counts visible local events, localComments resources", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const first = await createEvent(ctx, owner.token, { title: "First" });
    await createEvent(ctx, owner.token, { title: "Second" });
    const third = await createEvent(ctx, owner.token, { title: "Third" });
    const hidden = await toggle(ctx, owner.token, third.id);
    assert.equal(hidden.is_visible, false);
    const now = ctx.clock.now();
    await ctx.database.db.insert(resources).values({
      activitypub_id: "https://remote.example/notes/1",
      eventId: first.id,
      data: { content: "<p>See you there</p>" },
      createdAt: now,
      updatedAt: now,
    });

    for (const version of ["2.0", "2.1"]) {
      const res = await call(ctx, "GET", `/nodeinfo/${version}`);
      const text = await res.text();
      assert.equal(res.status, 200, `${version}: ${text}`);
      const info = JSON.parse(text);
      assert.equal(info.version, version, text);
      assert.equal(info.software?.name, "quando");
      assert.deepEqual(info.protocols, ["activitypub"]);
      assert.equal(info.usage.localPosts, 2, `${version}: ${text}`);
      assert.equal(info.usage.localComments, 1, `${version}: ${text}`);
      assert.equal(typeof info.usage.users.total, "number");
    }
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ event objects

Deno.test("event object: the FEP-8a8e Event at /federation/m/{id}", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const created = await createEvent(ctx, owner.token, {
      description: "<p>Bring your instrument</p>",
      tags: ["Jazz", "Live"],
      online_locations: ["https://stream.example/live"],
    });
    const id = created.id;
    const res = await getAp(ctx, `/federation/m/${id}`);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(
      res.headers.get("content-type") ?? "",
      /^application\/activity\+json/,
    );
    const object = JSON.parse(text);
    assert.equal(object.id, `${BASE}/federation/m/${id}`);
    assert.equal(object.type, "Event");
    assert.equal(object.name, "Open mic");
    assert.match(object.startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z$/);
    assert.equal(Date.parse(object.startTime), (NOW + DAY) * 1000);
    assert.equal(Date.parse(object.endTime), (NOW + DAY + 2 * HOUR) * 1000);
    assert.equal(typeof object.timezone, "string");
    assert.equal(object.url, `${BASE}/event/${created.slug}`);
    assert.equal(idOf(object.attributedTo), ACTOR);
    assert.equal(typeof object.content, "string");
    assert.match(object.content, /Bring your instrument/);
    assert.equal(typeof object.summary, "string");
    // The title first (shown as a content warning by Misskey and others).
    assert.match(object.summary, /^Open mic\n📍 Circolo/);
    assert.equal(object.eventStatus, "EventScheduled");
    assert.equal(object.status, "CONFIRMED");
    assert.equal(object["ical:status"], "CONFIRMED");
    assert.equal(object.joinMode, "external");
    assert.equal(object.externalParticipationUrl, object.url);
    assert.ok(
      arrayOf(object.to).map(idOf).includes(AS_PUBLIC) ||
        arrayOf(object.to).map(idOf).includes("as:Public"),
      JSON.stringify(object.to),
    );

    // A physical Place with a schema.org PostalAddress, and the online URL:
    // a list, as there are two.
    assert.ok(Array.isArray(object.location), JSON.stringify(object.location));
    const locations = arrayOf(object.location);
    assert.equal(locations.length, 2, JSON.stringify(object.location));
    const physical = locations.find((l) => l.name === "Circolo");
    assert.ok(physical, JSON.stringify(locations));
    assert.equal(physical.type, "Place");
    const address = physical.address as Json;
    assert.equal(address.type, "PostalAddress");
    assert.equal(address.streetAddress, "Via Roma 1");
    const virtual = locations.find((l) =>
      (l.address as Json | undefined)?.type === "VirtualLocation"
    );
    assert.ok(virtual, JSON.stringify(locations));
    assert.equal(virtual.type, "Place");
    assert.equal(
      (virtual.address as Json).url,
      "https://stream.example/live",
    );

    const hashtags = arrayOf(object.tag);
    assert.ok(hashtags.every((t) => t.type === "Hashtag"), text);
    assert.deepEqual(hashtags.map((t) => t.name).sort(), ["#Jazz", "#Live"]);
  } finally {
    ctx.close();
  }
});

Deno.test("event object: a status change is served; hidden and unknown events 404", async () => {
  const ctx = await createTestApp();
  try {
    // The stored AP form is what followers were sent: someone follows.
    await addFollower(ctx, "https://peer.example/inbox");
    const owner = await userWithToken(ctx, "user");
    const created = await createEvent(ctx, owner.token);
    const path = `/federation/m/${created.id}`;

    const patched = await call(ctx, "PATCH", `/api/events/${created.id}`, {
      token: owner.token,
      json: { status: "EventCancelled" },
    });
    assert.equal(patched.status, 200, await patched.text());
    const served = await apJson(ctx, path);
    assert.equal(served.eventStatus, "EventCancelled");
    assert.equal(served["ical:status"], "CANCELLED");
    assert.equal(served.status, "CANCELLED");
    // The stored AP form follows the change too (it is what was federated).
    const full = await call(ctx, "GET", `/api/events/${created.id}`, {
      token: owner.token,
    });
    assert.equal(full.status, 200);
    assert.equal((await full.json()).ap_object?.eventStatus, "EventCancelled");

    await toggle(ctx, owner.token, created.id);
    const hidden = await getAp(ctx, path);
    assert.equal(hidden.status, 404, await hidden.text());

    for (const unknown of ["/federation/m/999999", "/federation/m/0"]) {
      const res = await getAp(ctx, unknown);
      assert.equal(res.status, 404, `${unknown}: ${await res.text()}`);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("event page: /event/{slug} asked for as ActivityPub redirects to the object", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const created = await createEvent(ctx, owner.token);
    const res = await getAp(ctx, `/event/${created.slug}`);
    await res.body?.cancel();
    assert.equal(res.status, 302);
    const location = new URL(res.headers.get("location") ?? "", BASE);
    assert.equal(location.pathname, `/federation/m/${created.id}`);
  } finally {
    ctx.close();
  }
});

Deno.test("event: with no follower nothing is queued, serialised or signed for federation on the write; the API's ap_object is the served object, made at the read", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const created = await createEvent(ctx, owner.token, { tags: ["Jazz"] });
    const patched = await call(ctx, "PATCH", `/api/events/${created.id}`, {
      token: owner.token,
      json: { status: "EventCancelled" },
    });
    assert.equal(patched.status, 200, await patched.text());
    const res = await call(ctx, "GET", `/api/events/${created.id}`, {
      token: owner.token,
    });
    const event = await res.json();
    assert.equal(event.ld_signature, null);
    const queued = await ctx.database.db.select().from(fedifyQueue);
    assert.deepEqual(queued, []);
    // The object is still served at its id, made when asked for; the API's
    // ap_object is that same object, made at the read.
    const served = await apJson(ctx, `/federation/m/${created.id}`);
    assert.equal(served.eventStatus, "EventCancelled");
    assert.equal(event.ap_object.id, `${BASE}/federation/m/${created.id}`);
    assert.equal(event.ap_object.type, "Event");
    assert.equal(event.ap_object.eventStatus, "EventCancelled");
    assert.deepEqual(event.ap_object.tag, served.tag);
    // A hidden event (an anonymous submission) is not federated: no object.
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const { id, is_visible } = await postEvent(ctx, undefined, {
      title: "Anonymous",
    });
    assert.equal(is_visible, false);
    const read = await call(ctx, "GET", `/api/events/${id}`, {
      token: admin.token,
    });
    assert.equal((await read.json()).ap_object, null);
  } finally {
    ctx.close();
  }
});

Deno.test("event: ap_object and ld_signature are stored at creation when someone follows", async () => {
  const ctx = await createTestApp();
  try {
    await addFollower(ctx, "https://peer.example/inbox");
    const owner = await userWithToken(ctx, "user");
    const created = await createEvent(ctx, owner.token, { tags: ["Jazz"] });
    const res = await call(ctx, "GET", `/api/events/${created.id}`, {
      token: owner.token,
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const event = JSON.parse(text);
    assert.equal(typeof event.ap_object, "object");
    assert.notEqual(event.ap_object, null, text);
    assert.equal(event.ap_object.id, `${BASE}/federation/m/${created.id}`);
    assert.equal(event.ap_object.type, "Event");
    assert.equal(typeof event.ld_signature, "object");
    assert.notEqual(event.ld_signature, null, text);
    assert.equal(typeof event.ld_signature.signatureValue, "string");
    assert.ok(event.ld_signature.signatureValue.length > 0);
    assert.equal(typeof event.ld_signature.creator, "string");
    assert.ok(event.ld_signature.creator.startsWith(ACTOR));
    assert.ok(!Number.isNaN(Date.parse(event.ld_signature.created)));
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ collections

Deno.test("outbox: an OrderedCollection of Create activities with totalItems", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const a = await createEvent(ctx, owner.token, { title: "Alpha" });
    const b = await createEvent(ctx, owner.token, { title: "Beta" });
    const c = await createEvent(ctx, owner.token, { title: "Gamma" });
    await toggle(ctx, owner.token, c.id);

    const { collection: outbox, items } = await collectionItems(
      ctx,
      "/federation/u/relay/outbox",
    );
    assert.equal(outbox.id, `${ACTOR}/outbox`);
    assert.equal(outbox.type, "OrderedCollection");
    assert.equal(outbox.totalItems, 2, JSON.stringify(outbox));
    assert.equal(items.length, 2, JSON.stringify(outbox));
    assert.ok(items.every((i) => i.type === "Create"), JSON.stringify(items));
    assert.deepEqual(
      items.map((i) => idOf(i.object)).sort(),
      [a.id, b.id].map((id) => `${BASE}/federation/m/${id}`).sort(),
    );
  } finally {
    ctx.close();
  }
});

/** A monthly series: one template and its materialised occurrences. */
async function createSeries(ctx: TestContext, token: string) {
  const parent = await createEvent(ctx, token, {
    title: "Monthly jam",
    recurrent: { frequency: "1m", type: "ordinal" },
  });
  assert.equal(parent.recurrent?.frequency, "1m");
  return parent;
}

Deno.test("outbox: totalItems counts what the outbox lists (no series templates)", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const parent = await createSeries(ctx, owner.token);
    const { collection: outbox, items } = await collectionItems(
      ctx,
      "/federation/u/relay/outbox",
    );
    assert.ok(items.length > 0, JSON.stringify(outbox));
    // The template itself is never federated ...
    assert.ok(
      !items.map((i) => idOf(i.object)).includes(
        `${BASE}/federation/m/${parent.id}`,
      ),
    );
    // ... so it is not counted either.
    assert.equal(outbox.totalItems, items.length);
  } finally {
    ctx.close();
  }
});

Deno.test("NodeInfo: localPosts counts federated events, not series templates", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    await createSeries(ctx, owner.token);
    const federated =
      (await collectionItems(ctx, "/federation/u/relay/outbox")).items.length;
    const res = await call(ctx, "GET", "/nodeinfo/2.1");
    assert.equal(res.status, 200);
    assert.equal((await res.json()).usage.localPosts, federated);
  } finally {
    ctx.close();
  }
});

Deno.test("followers: an empty collection with totalItems 0", async () => {
  const ctx = await createTestApp();
  try {
    const followers = await apJson(ctx, "/federation/u/relay/followers");
    assert.equal(followers.id, `${ACTOR}/followers`);
    assert.match(String(followers.type), /^(Ordered)?Collection$/);
    assert.equal(followers.totalItems, 0, JSON.stringify(followers));
  } finally {
    ctx.close();
  }
});

Deno.test("outbox, upcoming and followers are paged: first, then next, every item once and in order (a new follower's backfill)", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const created: number[] = [];
    // More than a page of each (OUTBOX_PAGE 20, UPCOMING_PAGE 50), starts in
    // an order other than creation.
    for (let i = 0; i < 53; i++) {
      const start = NOW + DAY + ((i * 7) % 53) * HOUR;
      const event = await createEvent(ctx, owner.token, {
        title: `Paged ${i}`,
        start_datetime: start,
        end_datetime: start + HOUR,
      });
      created.push(event.id);
    }
    const outbox = await collectionItems(ctx, "/federation/u/relay/outbox");
    assert.equal(outbox.collection.totalItems, 53);
    assert.equal(outbox.pages.length, 3);
    assert.equal(arrayOf(outbox.pages[0].orderedItems).length, 20);
    // Newest first, each once.
    assert.deepEqual(
      outbox.items.map((i) => idOf(i.object)),
      [...created].reverse().map((id) => `${BASE}/federation/m/${id}`),
    );
    // The object as served at its id (whole: its one place as one object,
    // `tag` and `attachment` as arrays).
    const first = outbox.items[0].object as Json;
    const { "@context": _context, ...served } = await apJson(
      ctx,
      new URL(String(first.id)).pathname,
    );
    assert.deepEqual(first, served);
    assert.ok(!Array.isArray(first.location), JSON.stringify(first));
    assert.ok(Array.isArray(first.tag), JSON.stringify(first));

    const upcoming = await collectionItems(
      ctx,
      "/federation/u/relay/upcoming",
    );
    assert.equal(upcoming.pages.length, 2);
    const starts = upcoming.items.map((i) => Date.parse(String(i.startTime)));
    assert.equal(starts.length, 53);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b));

    for (let i = 0; i < 105; i++) {
      await addFollower(ctx, `https://peer${i}.example/inbox`, `f${i}`);
    }
    const followers = await collectionItems(
      ctx,
      "/federation/u/relay/followers",
    );
    assert.equal(followers.collection.totalItems, 105);
    assert.equal(followers.pages.length, 2);
    assert.equal(new Set(followers.items.map(idOf)).size, 105);

    // A cursor that is not one of ours is a 404, not a 500.
    const bad = await getAp(ctx, "/federation/u/relay/outbox?cursor=nope");
    await bad.body?.cancel();
    assert.equal(bad.status, 404);
  } finally {
    ctx.close();
  }
});

Deno.test("upcoming: a collection of the upcoming events (FEP-8a8e)", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const soon = await createEvent(ctx, owner.token, {
      title: "Soon",
      start_datetime: NOW + DAY,
      end_datetime: NOW + DAY + HOUR,
    });
    const later = await createEvent(ctx, owner.token, {
      title: "Later",
      start_datetime: NOW + 3 * DAY,
      end_datetime: NOW + 3 * DAY + HOUR,
    });
    const hidden = await createEvent(ctx, owner.token, {
      title: "Hidden",
      start_datetime: NOW + 2 * DAY,
      end_datetime: NOW + 2 * DAY + HOUR,
    });
    await toggle(ctx, owner.token, hidden.id);

    const ids = async () => {
      const { collection, items } = await collectionItems(
        ctx,
        "/federation/u/relay/upcoming",
      );
      assert.match(String(collection.type), /^(Ordered)?Collection$/);
      assert.ok(
        items.every((i) => typeof i !== "object" || i.type === "Event"),
        JSON.stringify(items),
      );
      return items.map(idOf);
    };
    assert.deepEqual(await ids(), [
      `${BASE}/federation/m/${soon.id}`,
      `${BASE}/federation/m/${later.id}`,
    ]);
    // Two days on, the first one is over.
    ctx.clock.advance(2 * DAY * 1000);
    assert.deepEqual(await ids(), [`${BASE}/federation/m/${later.id}`]);
  } finally {
    ctx.close();
  }
});

Deno.test("upcoming: an event in progress is still upcoming (an event is upcoming while end ?? start >= now)", async () => {
  const ctx = await createTestApp();
  try {
    const owner = await userWithToken(ctx, "user");
    const running = await createEvent(ctx, owner.token, {
      title: "Festival",
      start_datetime: NOW + DAY,
      end_datetime: NOW + 3 * DAY,
    });
    ctx.clock.advance(2 * DAY * 1000);
    const { items } = await collectionItems(
      ctx,
      "/federation/u/relay/upcoming",
    );
    assert.deepEqual(items.map(idOf), [`${BASE}/federation/m/${running.id}`]);
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ inbox

Deno.test("inbox: an unsigned activity is refused with 401 and stores nothing", async () => {
  const ctx = await createTestApp();
  try {
    const follow = followFrom("https://remote.example/users/alice");
    for (const path of ["/federation/inbox", "/federation/u/relay/inbox"]) {
      await expectError(
        await postInbox(ctx, path, follow),
        401,
        "unauthorized",
      );
    }
    assert.equal(await countRows(ctx, "ap_users"), 0);
    assert.equal(await countRows(ctx, "instances"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("inbox: malformed posts get a 4xx in the error shape (unknown @context included), never a 500", async () => {
  const ctx = await createTestApp();
  try {
    const actor = "https://remote.example/users/alice";
    const bodies: [string, string][] = [
      ["not JSON", "{"],
      ["not an object", JSON.stringify("Follow")],
      ["no actor", JSON.stringify({ type: "Follow" })],
      ["a bad @context", JSON.stringify({ "@context": 5, type: "Follow" })],
      [
        "an unknown remote @context",
        JSON.stringify({
          ...followFrom(actor),
          "@context": [
            "https://www.w3.org/ns/activitystreams",
            "https://contexts.invalid/extra.jsonld",
          ],
        }),
      ],
      [
        "only an unknown @context",
        JSON.stringify({
          ...followFrom(actor),
          "@context": "https://contexts.invalid/only.jsonld",
        }),
      ],
    ];
    for (const path of ["/federation/inbox", "/federation/u/relay/inbox"]) {
      for (const [what, body] of bodies) {
        const res = await ctx.app.request(path, {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body,
        });
        assert.ok(
          res.status >= 400 && res.status < 500,
          `${path}, ${what}: ${res.status}`,
        );
        await expectError(res, res.status);
      }
    }
    assert.equal(await countRows(ctx, "ap_users"), 0);
    assert.equal(await countRows(ctx, "fedify_queue"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("inbox: activities from a blocked actor or a blocked instance answer 403", async () => {
  const ctx = await createTestApp();
  try {
    await insertInstance(ctx, "remote.example");
    await insertActor(ctx, "https://remote.example/users/alice", {
      blocked: true,
    });
    await insertInstance(ctx, "bad.example", true);

    for (const path of ["/federation/inbox", "/federation/u/relay/inbox"]) {
      const fromActor = await postInbox(
        ctx,
        path,
        followFrom("https://remote.example/users/alice"),
      );
      await expectError(fromActor, 403, "forbidden");
      const fromInstance = await postInbox(
        ctx,
        path,
        followFrom("https://bad.example/users/bob"),
      );
      await expectError(fromInstance, 403, "forbidden");
    }
    // Another actor of the (unblocked) remote.example is not refused as blocked.
    const other = await postInbox(
      ctx,
      "/federation/inbox",
      followFrom("https://remote.example/users/carol"),
    );
    assert.equal(other.status, 401, await other.text());
    assert.equal(await countRows(ctx, "ap_users"), 1);
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------------ admin endpoints

const ADMIN_CALLS: {
  method: string;
  path: string;
  json?: Record<string, unknown>;
}[] = [
  { method: "GET", path: "/api/ap_actors" },
  {
    method: "PUT",
    path: "/api/ap_actors/toggle_block",
    json: { ap_id: "https://remote.example/users/alice" },
  },
  {
    method: "POST",
    path: "/api/ap_actors/add_trust",
    json: { url: "https://remote.example/users/alice" },
  },
  {
    method: "PUT",
    path: "/api/ap_actors/follow",
    json: { ap_id: "https://remote.example/users/alice" },
  },
  { method: "GET", path: "/api/instances" },
  {
    method: "PUT",
    path: "/api/instances/toggle_block",
    json: { domain: "remote.example" },
  },
];

Deno.test("admin endpoints: 401 without a token, 403 for editors, users and OAuth tokens", async () => {
  const ctx = await createTestApp();
  try {
    await insertInstance(ctx, "remote.example");
    await insertActor(ctx, "https://remote.example/users/alice");
    const editor = await userWithToken(ctx, "editor");
    const user = await userWithToken(ctx, "user");
    const admin = await userWithToken(ctx, "admin");
    const oauth = await oauthAccessToken(ctx, admin);

    for (const { method, path, json } of ADMIN_CALLS) {
      const label = `${method} ${path}`;
      const anonymous = await call(ctx, method, path, { json });
      assert.equal(anonymous.status, 401, label);
      await expectError(anonymous, 401, "unauthorized");
      assert.match(
        anonymous.headers.get("www-authenticate") ?? "",
        /^Bearer/,
        label,
      );
      for (const token of [editor.token, user.token]) {
        const res = await call(ctx, method, path, { token, json });
        assert.equal(res.status, 403, label);
        await expectError(res, 403, "forbidden");
      }
      const scoped = await call(ctx, method, path, { token: oauth, json });
      assert.equal(scoped.status, 403, label);
      await expectError(scoped, 403, "insufficient_scope");
    }
    // Nothing was changed by the refused calls.
    const [alice] = await ctx.database.db.select().from(apUsers);
    assert.equal(alice.blocked, false);
    assert.equal(alice.trusted, false);
    const [instance] = await ctx.database.db.select().from(instances);
    assert.equal(instance.blocked, false);
  } finally {
    ctx.close();
  }
});

Deno.test("GET /api/ap_actors: a page of actors with their instances", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const empty = await call(ctx, "GET", "/api/ap_actors", {
      token: admin.token,
    });
    assert.equal(empty.status, 200);
    assert.deepEqual(await empty.json(), { data: [], count: 0, totalPages: 0 });

    await insertInstance(ctx, "remote.example");
    await insertActor(ctx, "https://remote.example/users/alice", {
      createdAt: new Date("2026-05-01T00:00:00Z"),
    });
    await insertActor(ctx, "https://remote.example/users/bob", {
      createdAt: new Date("2026-05-02T00:00:00Z"),
    });

    const res = await call(ctx, "GET", "/api/ap_actors", {
      token: admin.token,
    });
    assert.equal(res.status, 200);
    const page = await res.json();
    assert.equal(page.count, 2);
    assert.equal(page.totalPages, 1);
    assert.equal(page.data.length, 2);
    // Newest first.
    assert.deepEqual(page.data.map((a: Json) => a.ap_id), [
      "https://remote.example/users/bob",
      "https://remote.example/users/alice",
    ]);
    const bob = page.data[0];
    for (
      const field of [
        "ap_id",
        "createdAt",
        "updatedAt",
        "follower",
        "following",
        "trusted",
        "blocked",
        "object",
        "instanceDomain",
        "instance",
      ]
    ) {
      assert.ok(field in bob, field);
    }
    assert.equal(bob.instanceDomain, "remote.example");
    assert.equal(bob.instance.domain, "remote.example");
    assert.equal(bob.blocked, false);
    assert.ok(!Number.isNaN(Date.parse(bob.createdAt)));

    const small = await call(ctx, "GET", "/api/ap_actors?pageSize=1&page=2", {
      token: admin.token,
    });
    assert.equal(small.status, 200);
    const second = await small.json();
    assert.equal(second.count, 2);
    assert.equal(second.totalPages, 2);
    assert.deepEqual(second.data.map((a: Json) => a.ap_id), [
      "https://remote.example/users/alice",
    ]);

    const bad = await call(ctx, "GET", "/api/ap_actors?pageSize=100000", {
      token: admin.token,
    });
    await expectError(bad, 400, "invalid_request");
  } finally {
    ctx.close();
  }
});

Deno.test("PUT /api/ap_actors/toggle_block: flips blocked, 404 unknown, 400 without ap_id", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const apId = "https://remote.example/users/alice";
    await insertInstance(ctx, "remote.example");
    await insertActor(ctx, apId);

    const first = await call(ctx, "PUT", "/api/ap_actors/toggle_block", {
      token: admin.token,
      json: { ap_id: apId },
    });
    assert.equal(first.status, 200);
    const blocked = await first.json();
    assert.equal(blocked.ap_id, apId);
    assert.equal(blocked.blocked, true);
    assert.equal(blocked.instance?.domain, "remote.example");

    // A blocked actor's activities are refused now.
    const refused = await postInbox(ctx, "/federation/inbox", followFrom(apId));
    await expectError(refused, 403);

    const second = await call(ctx, "PUT", "/api/ap_actors/toggle_block", {
      token: admin.token,
      form: { ap_id: apId },
    });
    assert.equal(second.status, 200);
    assert.equal((await second.json()).blocked, false);

    const unknown = await call(ctx, "PUT", "/api/ap_actors/toggle_block", {
      token: admin.token,
      json: { ap_id: "https://remote.example/users/nobody" },
    });
    await expectError(unknown, 404, "not_found");

    const missing = await call(ctx, "PUT", "/api/ap_actors/toggle_block", {
      token: admin.token,
      json: {},
    });
    await expectError(missing, 400, "invalid_request");
    assert.equal(await countRows(ctx, "ap_users"), 1);
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/ap_actors/add_trust: garbage and private addresses are refused, nothing written", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    for (const url of ["not a url!!", "http://127.0.0.1:9/actor"]) {
      const res = await call(ctx, "POST", "/api/ap_actors/add_trust", {
        token: admin.token,
        json: { url },
      });
      await expectError(res, 400, "invalid_request");
    }
    const missing = await call(ctx, "POST", "/api/ap_actors/add_trust", {
      token: admin.token,
      json: {},
    });
    await expectError(missing, 400, "invalid_request");
    assert.equal(await countRows(ctx, "ap_users"), 0);
    assert.equal(await countRows(ctx, "instances"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("PUT /api/ap_actors/follow: 404 for an unknown actor", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const res = await call(ctx, "PUT", "/api/ap_actors/follow", {
      token: admin.token,
      json: { ap_id: "https://remote.example/users/nobody" },
    });
    await expectError(res, 404, "not_found");
    const missing = await call(ctx, "PUT", "/api/ap_actors/follow", {
      token: admin.token,
      json: {},
    });
    await expectError(missing, 400, "invalid_request");
    assert.equal(await countRows(ctx, "ap_users"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("instances: GET /api/instances pages; toggle_block flips blocked, 404 unknown", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await insertInstance(ctx, "b.example");
    await insertInstance(ctx, "a.example");

    const list = await call(ctx, "GET", "/api/instances", {
      token: admin.token,
    });
    assert.equal(list.status, 200);
    const page = await list.json();
    assert.equal(page.count, 2);
    assert.equal(page.totalPages, 1);
    assert.deepEqual(page.data.map((i: Json) => i.domain), [
      "a.example",
      "b.example",
    ]);
    for (
      const field of ["domain", "name", "blocked", "data", "applicationActor"]
    ) {
      assert.ok(field in page.data[0], field);
    }

    const first = await call(ctx, "PUT", "/api/instances/toggle_block", {
      token: admin.token,
      json: { domain: "a.example" },
    });
    assert.equal(first.status, 200);
    const blocked = await first.json();
    assert.equal(blocked.domain, "a.example");
    assert.equal(blocked.blocked, true);

    // Every actor of a blocked instance is refused.
    const refused = await postInbox(
      ctx,
      "/federation/inbox",
      followFrom("https://a.example/users/zed"),
    );
    await expectError(refused, 403);

    const second = await call(ctx, "PUT", "/api/instances/toggle_block", {
      token: admin.token,
      json: { domain: "a.example" },
    });
    assert.equal(second.status, 200);
    assert.equal((await second.json()).blocked, false);

    const unknown = await call(ctx, "PUT", "/api/instances/toggle_block", {
      token: admin.token,
      json: { domain: "nowhere.example" },
    });
    await expectError(unknown, 404, "not_found");
    assert.equal(await countRows(ctx, "instances"), 2);
  } finally {
    ctx.close();
  }
});

Deno.test("a remote event whose documents SQLite cannot read (nested deeper than 1,000 levels) is still served; those documents are null", async () => {
  const ctx = await createTestApp();
  try {
    const { upsertRemoteEvent } = await import("../lib/events/remote.ts");
    const deep = (depth: number): unknown => {
      let value: unknown = "bottom";
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    await ctx.database.db.insert(apUsers).values({
      ap_id: "https://remote.example/u/deep",
      trusted: true,
      following: true,
      // An actor document as fetched: nothing capped its depth.
      object: { id: "https://remote.example/u/deep", nested: deep(1_100) },
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    });
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const { id } = await upsertRemoteEvent(
      { db: ctx.database.db, clock: ctx.clock },
      {
        ap_id: "https://remote.example/m/deep",
        apUserApId: "https://remote.example/u/deep",
        title: "Deep",
        description: "",
        start_datetime: now + 86_400,
        end_datetime: null,
        status: "EventScheduled",
        place: null,
        online_locations: [],
        tags: [],
        media: [],
        ap_object: { type: "Event", nested: deep(1_100) },
        ld_signature: null,
      },
    );
    const res = await call(ctx, "GET", `/api/events/${id}`);
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body).slice(0, 300));
    assert.equal(body.title, "Deep");
    assert.equal(body.ap_object, null);
    assert.equal(body.apUser.ap_id, "https://remote.example/u/deep");
    assert.equal(body.apUser.object, null);
  } finally {
    ctx.close();
  }
});

Deno.test("remote events are purged a week after they end, not when they start", async () => {
  const ctx = await createTestApp();
  try {
    const { upsertRemoteEvent } = await import("../lib/events/remote.ts");
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const day = 86_400;
    await ctx.database.db.insert(apUsers).values({
      ap_id: "https://remote.example/u/relay",
      trusted: true,
      following: true,
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    });
    const remote = (title: string, start: number, end: number | null) =>
      upsertRemoteEvent({ db: ctx.database.db, clock: ctx.clock }, {
        ap_id: `https://remote.example/m/${title}`,
        apUserApId: "https://remote.example/u/relay",
        title,
        description: "",
        start_datetime: start,
        end_datetime: end,
        status: "EventScheduled",
        place: null,
        online_locations: [],
        tags: ["remote"],
        media: [],
        ap_object: {},
        ld_signature: null,
      });
    // Started long ago but still running: kept.
    await remote("festival", now - 30 * day, now + day);
    // Ended eight days ago: purged.
    await remote("old", now - 9 * day, now - 8 * day);
    // Ended three days ago: kept for now.
    await remote("recent", now - 3 * day, null);
    assert.equal(await ctx.federation.purgeEndedRemoteEvents(), 1);
    const titles = (await ctx.database.db.all<{ title: string }>(
      "select title from events order by title",
    )).map((r) => r.title);
    assert.deepEqual(titles, ["festival", "recent"]);
    ctx.clock.advance(5 * day * 1000);
    assert.equal(await ctx.federation.purgeEndedRemoteEvents(), 1);
    assert.equal(await countRows(ctx, "events"), 1);
  } finally {
    ctx.close();
  }
});
