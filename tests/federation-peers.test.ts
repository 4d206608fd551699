/**
 * Against peers' behaviour, on loopback:
 * - what we send is what peers read: an inbox as strict as Gancio 1.21 (a 500
 *   for what Gancio fails on) receives a Create, an Update and a Delete of an
 *   event and checks their shapes; their Object Integrity Proof and Linked
 *   Data signature are verified with Fedify against the instance's keys;
 * - a peer that refuses RFC 9421 signatures (as Gancio does) is never sent
 *   one: draft-cavage goes first, one request per delivery;
 * - a peer that answers only signed GETs ("authorized fetch") can be trusted
 *   and followed.
 */
import assert from "node:assert/strict";
import {
  exportSpki,
  generateCryptoKeyPair,
  signRequest,
  verifyJsonLd,
  verifyObject,
  verifyRequest,
} from "@fedify/fedify";
import { Activity } from "@fedify/vocab";
import { getDocumentLoader } from "@fedify/vocab-runtime";
import { addFollower } from "./support/roundtrips.ts";
import {
  call,
  createTestApp,
  createTestUser,
  eventually,
  loginToken,
  type TestContext,
} from "./helpers.ts";

type Json = Record<string, unknown>;

/**
 * Gancio's reading of an activity, as far as its failures go: `tag` and
 * `attachment` only as arrays; `location` one object or a list in a create,
 * but read directly in an update (`location.name`, `location.address`), which
 * needs both; a delete must name an Event. Returns why it would fail, or null.
 */
function gancioRefusal(activity: Json): string | null {
  const object = activity.object as Json;
  if (activity.type === "Create" || activity.type === "Update") {
    for (const list of ["tag", "attachment"]) {
      if (list in object && !Array.isArray(object[list])) {
        return `${list} is not an array`;
      }
    }
    if (activity.type === "Update" && object.location) {
      const place = object.location as Json;
      const address = place.address as Json | string | undefined;
      const street = typeof address === "string"
        ? address
        : address?.streetAddress;
      if (!place.name || !street) {
        return "the location of an update has no name or address";
      }
    }
  }
  if (activity.type === "Delete") {
    const type = object.type === "Tombstone" ? object.formerType : object.type;
    if (type !== "Event") return `deletes only an Event, not ${type}`;
  }
  return null;
}

/** A Gancio-strict inbox on loopback keeping the raw bodies it accepted. */
function startStrictInbox() {
  const accepted: Json[] = [];
  const refused: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 404 });
      const body = await request.json() as Json;
      const refusal = gancioRefusal(body);
      if (refusal) {
        refused.push(`${body.type}: ${refusal}`);
        return new Response(refusal, { status: 500 });
      }
      accepted.push(body);
      return new Response(null, { status: 202 });
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    inbox: `http://127.0.0.1:${port}/inbox`,
    accepted,
    refused,
    close: () => server.shutdown(),
  };
}

/** A document loader reading the instance's documents (its keys) through the app. */
function appLoader(ctx: TestContext) {
  const contexts = getDocumentLoader();
  return async (url: string) => {
    if (!url.startsWith(ctx.config.baseUrl)) return await contexts(url);
    const path = url.replace(ctx.config.baseUrl, "").split("#")[0];
    const res = await ctx.app.request(path, {
      headers: { accept: "application/activity+json" },
    });
    assert.equal(res.status, 200, url);
    return { contextUrl: null, documentUrl: url, document: await res.json() };
  };
}

/** Checks the proof (eddsa-jcs-2022) and the Linked Data signature of `activity`. */
async function assertSigned(ctx: TestContext, activity: Json) {
  const documentLoader = appLoader(ctx);
  const contextLoader = getDocumentLoader();
  assert.ok(activity.proof, `${activity.type}: no proof`);
  assert.ok(activity.signature, `${activity.type}: no Linked Data signature`);
  assert.equal(
    await verifyJsonLd(activity, { documentLoader, contextLoader }),
    true,
    `${activity.type}: the Linked Data signature does not verify`,
  );
  const { signature: _signature, ...withoutSignature } = activity;
  const verified = await verifyObject(Activity, withoutSignature, {
    documentLoader,
    contextLoader,
  });
  assert.ok(
    verified,
    `${activity.type}: the proof does not verify: ${JSON.stringify(activity)}`,
  );
}

Deno.test("Create, Update and Delete reach a Gancio-strict follower as it reads them, and their proof and Linked Data signature verify", async () => {
  const peer = startStrictInbox();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    // Six inboxes: Fedify hands an activity for five or more to a fan-out
    // message first, expanded by the queue; the raw activity goes along.
    const inboxes = 6;
    for (let i = 0; i < inboxes; i++) {
      await addFollower(ctx, `${peer.inbox}/${i}`, `follower${i}`);
    }
    const user = await createTestUser(ctx);
    const token = await loginToken(ctx, user.email, user.password);
    const start = Math.floor(Date.now() / 1000) + 86_400;
    const created = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Courtyard concert",
        start_datetime: start,
        end_datetime: start + 3600,
        place_name: "Courtyard",
        place_address: "Via Roma 1, Bologna",
        // One tag: Fedify's serialisation would make it a single object.
        tags: ["music"],
      },
    });
    const event = await created.json();
    assert.equal(created.status, 201, JSON.stringify(event));
    const create = await eventually(
      "the Creates",
      () =>
        peer.accepted.filter((a) => a.type === "Create").length === inboxes
          ? peer.accepted.find((a) => a.type === "Create")
          : undefined,
    );
    const object = create.object as Json;
    assert.equal(object.type, "Event");
    assert.deepEqual(
      (object.tag as Json[]).map((t) => t.name),
      ["#music"],
    );
    // One place: one object (Gancio's Update handler reads it directly).
    const place = object.location as Json;
    assert.equal(place.type, "Place");
    assert.equal(place.name, "Courtyard");
    assert.deepEqual(place.address, {
      type: "PostalAddress",
      streetAddress: "Via Roma 1, Bologna",
    });
    assert.match(String(place.id), /\/federation\/p\/\d+$/);
    await assertSigned(ctx, create);

    const updated = await call(ctx, "PATCH", `/api/events/${event.id}`, {
      token,
      json: { title: "Courtyard concert (moved indoors)" },
    });
    assert.equal(updated.status, 200, await updated.text());
    const update = await eventually(
      "the Updates",
      () =>
        peer.accepted.filter((a) => a.type === "Update").length === inboxes
          ? peer.accepted.find((a) => a.type === "Update")
          : undefined,
    );
    // The whole object, as the Create carried it.
    const updatedObject = update.object as Json;
    assert.equal(updatedObject.name, "Courtyard concert (moved indoors)");
    assert.equal(updatedObject.startTime, object.startTime);
    assert.deepEqual(updatedObject.location, object.location);
    assert.deepEqual(updatedObject.tag, object.tag);
    await assertSigned(ctx, update);

    const deleted = await call(ctx, "DELETE", `/api/events/${event.id}`, {
      token,
    });
    assert.equal(deleted.status, 204);
    const deletion = await eventually(
      "the Deletes",
      () =>
        peer.accepted.filter((a) => a.type === "Delete").length === inboxes
          ? peer.accepted.find((a) => a.type === "Delete")
          : undefined,
    );
    assert.deepEqual(deletion.object, {
      id: object.id,
      type: "Tombstone",
      formerType: "Event",
    });
    // The proof covers the JSON as written; the Linked Data signature, if
    // the relative "Event" keeps JSON-LD processing from making one, is absent.
    const { signature: _signature, ...deletionWithoutSignature } = deletion;
    assert.ok(
      await verifyObject(Activity, deletionWithoutSignature, {
        documentLoader: appLoader(ctx),
        contextLoader: getDocumentLoader(),
      }),
      "Delete: the proof does not verify",
    );
    assert.deepEqual(peer.refused, []);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await peer.close();
  }
});

Deno.test("a peer that refuses RFC 9421 signatures (500, as Gancio does) is never sent one: draft-cavage goes first, one request per delivery", async () => {
  // Every request, with the signature scheme it carried.
  const requests: { scheme: "rfc9421" | "cavage"; type: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 404 });
      const body = await request.json() as Json;
      const scheme = request.headers.has("signature-input")
        ? "rfc9421"
        : "cavage";
      requests.push({ scheme, type: String(body.type) });
      return new Response(null, { status: scheme === "rfc9421" ? 500 : 202 });
    },
  );
  const inbox = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/inbox`;
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await addFollower(ctx, inbox);
    const user = await createTestUser(ctx);
    const token = await loginToken(ctx, user.email, user.password);
    const post = async (title: string) => {
      const start = Math.floor(Date.now() / 1000) + 86_400;
      const res = await call(ctx, "POST", "/api/events", {
        token,
        json: { title, start_datetime: start, place_name: "Hall" },
      });
      assert.equal(res.status, 201, await res.text());
    };
    await post("First");
    await eventually(
      "the first Create, accepted",
      () => requests.some((r) => r.scheme === "cavage") || undefined,
    );
    for (const title of ["Second", "Third"]) await post(title);
    await eventually(
      "two more Creates",
      () => requests.length >= 3 || undefined,
    );
    // Give a stray second knock time to show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // No double knock: draft-cavage first, accepted, each time.
    assert.deepEqual(requests.map((r) => r.scheme), [
      "cavage",
      "cavage",
      "cavage",
    ]);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await server.shutdown();
  }
});

Deno.test("a peer that answers only signed GETs (authorized fetch) is looked up and followed: every GET carries a signature the peer verifies", async () => {
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  const gets: { path: string; signedBy: string | null }[] = [];
  const posts: Json[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      if (request.method === "POST") {
        posts.push(await request.json());
        return new Response(null, { status: 202 });
      }
      // As Mastodon in secure mode: no valid signature, no document.
      const key = await verifyRequest(request, {
        documentLoader: appLoader(ctx),
        contextLoader: getDocumentLoader(),
      });
      gets.push({ path: url.pathname, signedBy: key?.ownerId?.href ?? null });
      if (!key) return new Response("signature required", { status: 401 });
      if (url.pathname !== "/users/strict") {
        return new Response(null, { status: 404 });
      }
      const id = `${url.origin}/users/strict`;
      return Response.json({
        "@context": [
          "https://www.w3.org/ns/activitystreams",
          "https://w3id.org/security/v1",
        ],
        id,
        type: "Person",
        preferredUsername: "strict",
        inbox: `${id}/inbox`,
        endpoints: { sharedInbox: `${url.origin}/inbox` },
      }, { headers: { "content-type": "application/activity+json" } });
    },
  );
  const actor = `http://127.0.0.1:${
    (server.addr as Deno.NetAddr).port
  }/users/strict`;
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    const res = await call(ctx, "POST", "/api/ap_actors/add_trust", {
      token,
      json: { url: actor },
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${res.status} ${text}`);
    assert.ok(gets.length > 0, "the actor was fetched");
    assert.ok(
      gets.every((g) =>
        g.signedBy === `${ctx.config.baseUrl}/federation/u/relay`
      ),
      JSON.stringify(gets),
    );
    const follow = await eventually(
      "the Follow",
      () => posts.find((p) => p.type === "Follow"),
    );
    assert.equal(follow.object, actor);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await server.shutdown();
  }
});

Deno.test("Mastodon users see a readable post: the delivered Event gives Mastodon's converted status its title, place, local date and time, and link", async () => {
  const peer = startStrictInbox();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await addFollower(ctx, peer.inbox);
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    const settings = await call(ctx, "PUT", "/api/settings", {
      token,
      json: { instance_timezone: "Europe/Rome", instance_locale: "en" },
    });
    assert.ok(settings.status < 300, await settings.text());
    // 19:00 UTC on a summer evening next year: 21:00 in Rome (CEST).
    const year = new Date().getUTCFullYear() + 1;
    const start = Date.UTC(year, 6, 10, 19, 0) / 1000;
    const res = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Jazz in the courtyard",
        start_datetime: start,
        place_name: "Courtyard",
        place_address: "Via Roma 1, Bologna",
      },
    });
    assert.equal(res.status, 201, await res.text());
    const create = await eventually(
      "the Create",
      () => peer.accepted.find((a) => a.type === "Create"),
    );
    const object = create.object as Json;
    // Mastodon (4.x) turns an Event into a status: its `name`, then its
    // `summary`, then a link to its `url` (which must be on the actor's host);
    // public when `to` has as:Public; dated by `published`.
    assert.equal(object.type, "Event");
    assert.equal(object.name, "Jazz in the courtyard");
    const summary = String(object.summary);
    assert.match(summary, /Courtyard, Via Roma 1, Bologna/);
    assert.match(summary, new RegExp(`July 10, ${year}`));
    assert.match(summary, /9:00\s?PM/, "the time in the instance's zone");
    const url = new URL(String(object.url));
    assert.equal(url.host, new URL(String(create.actor)).host);
    assert.match(url.pathname, /^\/event\/jazz-in-the-courtyard/);
    assert.ok(
      (create.to as string[]).includes(
        "https://www.w3.org/ns/activitystreams#Public",
      ),
    );
    assert.ok(!Number.isNaN(Date.parse(String(object.published))));
    // What a Mastodon follower reads; the summary starts with the title too
    // (Misskey, GoToSocial, Pleroma and Friendica show only the summary, as a
    // content warning).
    assert.match(summary, /^Jazz in the courtyard\n📍 Courtyard.*\n📅 .*9:00/s);
    const status = `${object.name}\n\n${summary} ${url.href}`;
    assert.match(status, /^Jazz in the courtyard\n\nJazz in the courtyard\n📍/);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await peer.close();
  }
});

Deno.test("add_trust takes a handle or a bare domain of a peer served over plain http when ALLOW_PRIVATE_ADDRESSES is on (local peers); https is tried first", async () => {
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const hits: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      hits.push(url.pathname);
      const id = `${url.origin}/users/local`;
      const json = (body: unknown, type = "application/activity+json") =>
        new Response(JSON.stringify(body), {
          headers: { "content-type": type },
        });
      if (url.pathname === "/.well-known/webfinger") {
        return json({
          subject: `acct:local@${url.host}`,
          links: [{ rel: "self", type: "application/activity+json", href: id }],
        }, "application/jrd+json");
      }
      if (url.pathname === "/.well-known/nodeinfo") {
        return json({
          links: [{
            rel: "https://www.w3.org/ns/activitystreams#Application",
            href: id,
          }],
        }, "application/json");
      }
      if (url.pathname === "/users/local") {
        return json({
          "@context": "https://www.w3.org/ns/activitystreams",
          id,
          type: "Application",
          preferredUsername: "local",
          inbox: `${id}/inbox`,
        });
      }
      if (request.method === "POST") {
        return new Response(null, { status: 202 });
      }
      return new Response(null, { status: 404 });
    },
  );
  const host = `127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    for (const input of [`@local@${host}`, host]) {
      const res = await call(ctx, "POST", "/api/ap_actors/add_trust", {
        token,
        json: { url: input },
      });
      const body = await res.json();
      assert.ok(res.status < 300, `${input}: ${JSON.stringify(body)}`);
      assert.equal(body.ap_id, `http://${host}/users/local`, input);
    }
    assert.ok(hits.includes("/.well-known/webfinger"));
    assert.ok(hits.includes("/.well-known/nodeinfo"));
  } finally {
    ctx.close();
    await server.shutdown();
  }
});

Deno.test("behind a TLS-terminating proxy (BASE_URL https, the process sees http), inbox posts signed with RFC 9421 for the public URL are accepted, as draft-cavage ones are", async () => {
  const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const pem = await exportSpki(keys.publicKey);
  let base = "";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      if (new URL(request.url).pathname === "/users/bob") {
        return Response.json({
          "@context": [
            "https://www.w3.org/ns/activitystreams",
            "https://w3id.org/security/v1",
          ],
          id: `${base}/users/bob`,
          type: "Person",
          preferredUsername: "bob",
          inbox: `${base}/inbox`,
          publicKey: {
            id: `${base}/users/bob#main-key`,
            owner: `${base}/users/bob`,
            publicKeyPem: pem,
          },
        }, { headers: { "content-type": "application/activity+json" } });
      }
      return new Response(null, { status: 202 });
    },
  );
  base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true", BASE_URL: "https://quando.test" },
  });
  try {
    for (
      const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const
    ) {
      const body = JSON.stringify({
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${base}/likes/${spec}`,
        type: "Like",
        actor: `${base}/users/bob`,
        object: "https://quando.test/federation/m/1",
      });
      // Signed for the public URL, as the sender addresses it ...
      const signed = await signRequest(
        new Request("https://quando.test/federation/inbox", {
          method: "POST",
          body,
          headers: { "content-type": "application/activity+json" },
        }),
        keys.privateKey,
        new URL(`${base}/users/bob#main-key`),
        { spec },
      );
      // ... and reaching the process over plain http.
      const res = await ctx.app.fetch(
        new Request("http://quando.test/federation/inbox", {
          method: "POST",
          body,
          headers: signed.headers,
        }),
      );
      const text = await res.text();
      assert.ok(res.status < 300, `${spec}: ${res.status} ${text}`);
    }
  } finally {
    ctx.close();
    await server.shutdown();
  }
});
