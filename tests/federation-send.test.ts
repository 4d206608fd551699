/**
 * What we send, as the peers that read it most strictly read it, on loopback
 * with real signed deliveries from a Quando test app:
 * - a Mobilizon-shaped inbox, written by us after Mobilizon's converter and
 *   transmogrifier: `location` one object (its `get_address` has no clause
 *   for a list), `joinMode` one of free/restricted/invite/external (an enum
 *   cast), the status from `status` then `ical:status`, tags and images from
 *   lists; Update of a known event, Delete by id, Reject of a Join it sent;
 * - a Gancio-shaped inbox, after Gancio 1.x's `server/federation/events.js`:
 *   its Update handler reads `location.name` and `location.address` directly
 *   (a 500 otherwise), `attachment.length` and `tag.map`.
 * Both accept draft-cavage signatures only (as those servers do) and verify
 * them against the instance's key. The payloads are ours, in the documented
 * shapes; no captured payload is used.
 */
import assert from "node:assert/strict";
import {
  exportSpki,
  generateCryptoKeyPair,
  signRequest,
  verifyJsonLd,
  verifyRequest,
} from "@fedify/fedify";
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
import { png } from "./images.ts";

type Json = Record<string, unknown>;

const isMap = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Mobilizon's `Utils.get_url`: the id of a map, a string, the first of a list. */
function getUrl(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (isMap(v) && typeof v.id === "string") return v.id;
  if (Array.isArray(v)) return getUrl(v[0]);
  return null;
}

const originOf = (url: unknown) => new URL(String(url)).origin;

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

/**
 * The body of a POST signed by the instance with draft-cavage, or a refusal
 * (as Mobilizon and Gancio: no RFC 9421; a signature that does not verify).
 */
async function signedBody(
  ctx: TestContext,
  request: Request,
): Promise<Json | Response> {
  if (request.headers.has("signature-input")) {
    return new Response("RFC 9421 is not understood", { status: 401 });
  }
  const key = await verifyRequest(request.clone(), {
    documentLoader: appLoader(ctx),
    contextLoader: getDocumentLoader(),
  });
  if (!key) return new Response("bad signature", { status: 401 });
  return await request.json() as Json;
}

/** An event as the Mobilizon-shaped peer keeps it (a few of its columns). */
interface MobilizonEvent {
  url: string;
  title: string;
  organizer: string;
  beginsOn: string;
  joinOptions: string;
  externalParticipationUrl: unknown;
  status: string;
  address: Json | null;
  tags: string[];
  picture: string | null;
}

/** Mobilizon's Address converter (`as_to_model_data`), through `get_address`. */
function mobilizonAddress(location: unknown): Json | null {
  if (location === undefined || location === null) return null;
  if (typeof location === "string") return { description: location };
  if (!isMap(location)) {
    throw new Error(
      `get_address: no clause matches ${
        Array.isArray(location) ? "a list" : typeof location
      }`,
    );
  }
  const address = location.address;
  const postal = isMap(address)
    ? {
      street: address.streetAddress,
      locality: address.addressLocality,
      postalCode: address.postalCode,
      region: address.addressRegion,
      country: address.addressCountry,
    }
    : typeof address === "string"
    ? { street: address }
    : {};
  return {
    description: location.name,
    url: location.id,
    ...postal,
    ...(typeof location.latitude === "number" &&
        typeof location.longitude === "number"
      ? { geom: [location.longitude, location.latitude] }
      : {}),
  };
}

/** Mobilizon's Event converter (`as_to_model_data`) and its changeset's casts. */
function mobilizonEvent(object: Json): MobilizonEvent {
  const address = mobilizonAddress(object.location);
  const tags = Array.isArray(object.tag)
    ? object.tag.flatMap((t) =>
      isMap(t) && t.type === "Hashtag"
        ? [String(t.name).replace(/^#/, "")]
        : typeof t === "string"
        ? [t.replace(/^#/, "")]
        : []
    )
    : [];
  const attachments = object.attachment ?? [];
  if (!Array.isArray(attachments)) throw new Error("attachment: not a list");
  const media = attachments.filter((a) =>
    isMap(a) && (a.type === "Document" || a.type === "Image")
  ) as Json[];
  const banner = media.find((a) => a.name === "Banner") ?? media[0];
  const joinOptions = String(object.joinMode ?? "free");
  if (!["free", "restricted", "invite", "external"].includes(joinOptions)) {
    throw new Error(`join_options: invalid value ${joinOptions}`);
  }
  const status = String(
    object.status ?? object["ical:status"] ?? "CONFIRMED",
  ).toLowerCase();
  if (!["tentative", "confirmed", "cancelled"].includes(status)) {
    throw new Error(`status: invalid value ${status}`);
  }
  if (typeof object.name !== "string" || typeof object.startTime !== "string") {
    throw new Error("title and begins_on are required");
  }
  return {
    url: String(object.id),
    title: object.name,
    organizer: String(getUrl(object.attributedTo) ?? getUrl(object.actor)),
    beginsOn: object.startTime,
    joinOptions,
    externalParticipationUrl: object.externalParticipationUrl,
    status,
    address,
    tags,
    picture: banner ? String(getUrl(banner.url)) : null,
  };
}

/**
 * A Mobilizon-shaped server: an inbox reading what it receives as Mobilizon's
 * transmogrifier does, and a Person whose Join it can send.
 */
async function startMobilizon(ctx: TestContext) {
  const events = new Map<string, MobilizonEvent>();
  const participants = new Map<
    string,
    { actor: string; event: string; role: string }
  >();
  const errors: string[] = [];
  const received: Json[] = [];
  const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const pem = await exportSpki(keys.publicKey);
  let origin = "";
  const actorId = () => `${origin}/@alice`;

  function handle(activity: Json): void {
    const object = activity.object;
    const actor = getUrl(activity.actor);
    switch (activity.type) {
      case "Create": {
        if (!isMap(object) || object.type !== "Event") break;
        const data = mobilizonEvent(object);
        // An event already known is left as it is.
        if (!events.has(data.url)) events.set(data.url, data);
        return;
      }
      case "Update": {
        if (!isMap(object) || object.type !== "Event") break;
        const old = events.get(String(getUrl(object)));
        if (!old) throw new Error("Update of an unknown event");
        const data = mobilizonEvent(object);
        if (originOf(actor) !== originOf(object.id)) {
          throw new Error("origin check failed");
        }
        events.set(old.url, { ...data, url: old.url });
        return;
      }
      case "Delete": {
        const id = getUrl(object);
        if (id && originOf(actor) === originOf(id)) events.delete(id);
        return;
      }
      case "Reject": {
        // do_handle_incoming_reject_join: the participant the Join made,
        // rejected by the event's organizer.
        const participant = participants.get(String(getUrl(object)));
        if (!participant || participant.role === "rejected") {
          throw new Error("Reject: not a Join of ours");
        }
        const event = events.get(participant.event);
        if (!event || event.organizer !== actor) {
          throw new Error("Reject: not from the event's organizer");
        }
        participant.role = "rejected";
        return;
      }
      case "Accept":
        return;
    }
    throw new Error(`no handle_incoming clause for ${activity.type}`);
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      if (request.method === "GET" && url.pathname === "/@alice") {
        return Response.json({
          "@context": [
            "https://www.w3.org/ns/activitystreams",
            "https://w3id.org/security/v1",
          ],
          id: actorId(),
          type: "Person",
          preferredUsername: "alice",
          name: "Alice",
          inbox: `${actorId()}/inbox`,
          outbox: `${actorId()}/outbox`,
          followers: `${actorId()}/followers`,
          endpoints: { sharedInbox: `${origin}/inbox` },
          publicKey: {
            id: `${actorId()}#main-key`,
            owner: actorId(),
            publicKeyPem: pem,
          },
        }, { headers: { "content-type": "application/activity+json" } });
      }
      if (request.method !== "POST") return new Response(null, { status: 404 });
      const body = await signedBody(ctx, request);
      if (body instanceof Response) return body;
      received.push(body);
      try {
        handle(body);
        return new Response(null, { status: 200 });
      } catch (err) {
        errors.push(`${body.type}: ${(err as Error).message}`);
        return new Response(String(err), { status: 500 });
      }
    },
  );
  origin = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return {
    inbox: `${origin}/inbox`,
    actorId: actorId(),
    events,
    participants,
    errors,
    received,
    /**
     * Joins `eventUrl` as Mobilizon does: the event fetched and converted,
     * a participant recorded under the Join's id, the Join posted signed.
     */
    async join(eventUrl: string): Promise<string> {
      const path = eventUrl.replace(ctx.config.baseUrl, "");
      const res = await ctx.app.request(path, {
        headers: { accept: "application/activity+json" },
      });
      assert.equal(res.status, 200, await res.clone().text());
      const event = mobilizonEvent(await res.json());
      events.set(event.url, event);
      const id = `${actorId()}/join/event/${crypto.randomUUID()}`;
      participants.set(id, {
        actor: actorId(),
        event: eventUrl,
        role: "not_approved",
      });
      const body = JSON.stringify({
        "@context": [
          "https://www.w3.org/ns/activitystreams",
          "https://w3id.org/security/v1",
          {
            mz: "https://joinmobilizon.org/ns#",
            participationMessage: { "@id": "mz:participationMessage" },
          },
        ],
        id,
        type: "Join",
        actor: actorId(),
        object: eventUrl,
        participationMessage: "See you there",
        to: [actorId(), event.organizer],
        cc: ["https://www.w3.org/ns/activitystreams#Public"],
      });
      const inbox = `${ctx.config.baseUrl}/federation/inbox`;
      const headers = { "content-type": "application/activity+json" };
      const signed = await signRequest(
        new Request(inbox, { method: "POST", body, headers }),
        keys.privateKey,
        new URL(`${actorId()}#main-key`),
        { spec: "draft-cavage-http-signatures-12" },
      );
      const posted = await ctx.app.fetch(
        new Request(inbox, { method: "POST", body, headers: signed.headers }),
      );
      assert.ok(posted.status < 300, `${posted.status} ${await posted.text()}`);
      return id;
    },
    close: () => server.shutdown(),
  };
}

/** An event as the Gancio-shaped peer keeps it. */
interface GancioEvent {
  title: string;
  place: { name: string; address: string };
  tags: string[];
  image: string | null;
}

/** A Gancio-shaped inbox: Create, Update and Delete as `server/federation/events.js` reads them. */
function startGancio(ctx: TestContext) {
  const events = new Map<string, GancioEvent>();
  const errors: string[] = [];
  const received: Json[] = [];

  /** `_findOrCreatePlace`: a name and an address (strings), else it throws. */
  const findOrCreatePlace = (
    name: unknown,
    address: unknown,
  ): { name: string; address: string } => {
    // A value that is not a string fails at `.trim()`, as in Gancio.
    const placeName = name ? (name as string).trim() : "";
    const placeAddress = address ? (address as string).trim() : "";
    if (!placeName || !placeAddress && placeName !== "online") {
      throw new Error("place_id or place_name and place_address are required");
    }
    return { name: placeName, address: placeAddress };
  };

  function handle(activity: Json): number {
    const object = activity.object as Json;
    switch (activity.type) {
      case "Create": {
        // The Create path (parseAPEvent) takes one location or a list.
        const locations = Array.isArray(object.location)
          ? object.location as Json[]
          : [object.location as Json];
        const place =
          locations.find((l) => l?.address && !(l.address as Json).url) ??
            locations.find((l) => l && !(l.address as Json | undefined)?.url);
        if (!place) throw new Error("no physical place");
        const address = place.address as Json | string;
        events.set(String(object.id), {
          title: String(object.name).trim(),
          place: findOrCreatePlace(
            place.name,
            typeof address === "string" ? address : address.streetAddress,
          ),
          tags: (object.tag as Json[]).map((t) => String(t.name).slice(1)),
          image: (object.attachment as Json[])[0]?.url as string ?? null,
        });
        return 201;
      }
      case "Update": {
        const apId = String(object?.id ?? object);
        if (!events.has(apId)) return 404;
        const location = object.location as Json | undefined;
        const address = location?.address as Json | string | undefined;
        const place = findOrCreatePlace(
          location?.name,
          (address as Json | undefined)?.streetAddress ??
            (address as Json | undefined)?.addressLocality ??
            (address as Json | undefined)?.addressCountry ?? address ?? "",
        );
        const attachment = object.attachment as Json[];
        const image = attachment.length > 0 ? attachment[0]?.url : null;
        events.set(apId, {
          title: (object.name as string).trim(),
          place,
          tags: object.tag
            ? (object.tag as Json[]).map((t) => (t?.name as string).substr(1))
            : [],
          image: image as string | null,
        });
        return 201;
      }
      case "Delete": {
        const apId = String((object as Json | undefined)?.id ?? object);
        if (!events.delete(apId)) return 404;
        return 201;
      }
    }
    return 202;
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 404 });
      const body = await signedBody(ctx, request);
      if (body instanceof Response) return body;
      received.push(body);
      try {
        const status = handle(body);
        if (status >= 400) errors.push(`${body.type}: ${status}`);
        return new Response(null, { status });
      } catch (err) {
        errors.push(`${body.type}: ${(err as Error).message}`);
        return new Response(String(err), { status: 500 });
      }
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    inbox: `http://127.0.0.1:${port}/inbox`,
    events,
    errors,
    received,
    close: () => server.shutdown(),
  };
}

/** Waits for `check`, failing at once with the peer's errors when it has some. */
function waitFor<T>(
  peer: { errors: string[] },
  what: string,
  check: () => T | undefined,
): Promise<T> {
  return eventually(what, () => {
    if (peer.errors.length > 0) {
      throw new Error(`${what}: the peer refused: ${peer.errors.join("; ")}`);
    }
    return check();
  });
}

/** An app with its queue running, a user's token and a follower inbox. */
async function withApp(
  run: (ctx: TestContext, token: string) => Promise<void>,
): Promise<void> {
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    const user = await createTestUser(ctx);
    await run(ctx, await loginToken(ctx, user.email, user.password));
  } finally {
    stop.abort();
    await queue;
    ctx.close();
  }
}

/** Creates a visible event with a place, one tag and an image; returns its object id and page. */
async function createEvent(ctx: TestContext, token: string) {
  const form = new FormData();
  form.append("file", new File([png(8, 8, 200)], "poster.png"));
  const uploaded = await ctx.app.request("/api/media", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const media = await uploaded.json();
  assert.equal(uploaded.status, 201, JSON.stringify(media));
  const start = Math.floor(Date.now() / 1000) + 86_400;
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: {
      title: "Courtyard concert",
      start_datetime: start,
      end_datetime: start + 3600,
      place_name: "Courtyard",
      place_address: "Via Roma 1, Bologna",
      place_latitude: 44.4949,
      place_longitude: 11.3426,
      tags: ["music"],
      media: [{ url: media.url, name: "Poster" }],
    },
  });
  const event = await res.json();
  assert.equal(res.status, 201, JSON.stringify(event));
  return {
    id: event.id as number,
    objectId: `${ctx.config.baseUrl}/federation/m/${event.id}`,
    page: `${ctx.config.baseUrl}/event/${event.slug}`,
  };
}

/** The delivered object agrees with the served one, and the activity's signatures verify. */
async function assertAsServed(ctx: TestContext, activity: Json) {
  const object = activity.object as Json;
  const res = await ctx.app.request(new URL(String(object.id)).pathname, {
    headers: { accept: "application/activity+json" },
  });
  const { "@context": _context, ...served } = await res.json();
  assert.deepEqual(object, served, `${activity.type}: not the served object`);
  assert.ok(activity.signature, `${activity.type}: no Linked Data signature`);
  assert.equal(
    await verifyJsonLd(activity, {
      documentLoader: appLoader(ctx),
      contextLoader: getDocumentLoader(),
    }),
    true,
    `${activity.type}: the Linked Data signature does not verify`,
  );
}

Deno.test("a Mobilizon-shaped follower reads an event with a place, a tag and an image, its update, its cancellation and its deletion", async () => {
  await withApp(async (ctx, token) => {
    const peer = await startMobilizon(ctx);
    try {
      await addFollower(ctx, peer.inbox, "mobilizon");
      const event = await createEvent(ctx, token);
      const created = await waitFor(
        peer,
        "the Create",
        () => peer.events.get(event.objectId),
      );
      assert.equal(created.title, "Courtyard concert");
      assert.equal(
        created.organizer,
        `${ctx.config.baseUrl}/federation/u/relay`,
      );
      assert.equal(created.address?.description, "Courtyard");
      assert.equal(created.address?.street, "Via Roma 1, Bologna");
      assert.deepEqual(created.address?.geom, [11.3426, 44.4949]);
      assert.deepEqual(created.tags, ["music"]);
      assert.match(String(created.picture), /\/media\/[^/]+\.png$/);
      assert.equal(created.joinOptions, "external");
      assert.equal(created.externalParticipationUrl, event.page);
      assert.equal(created.status, "confirmed");
      await assertAsServed(
        ctx,
        peer.received.find((a) => a.type === "Create")!,
      );

      const patched = await call(ctx, "PATCH", `/api/events/${event.id}`, {
        token,
        json: { title: "Courtyard concert (indoors)" },
      });
      assert.equal(patched.status, 200, await patched.text());
      const updated = await waitFor(peer, "the Update", () => {
        const e = peer.events.get(event.objectId);
        return e?.title === "Courtyard concert (indoors)" ? e : undefined;
      });
      assert.equal(updated.address?.description, "Courtyard");
      assert.deepEqual(updated.tags, ["music"]);
      assert.equal(updated.status, "confirmed");
      await assertAsServed(
        ctx,
        peer.received.find((a) => a.type === "Update")!,
      );

      const cancelled = await call(ctx, "PATCH", `/api/events/${event.id}`, {
        token,
        json: { status: "EventCancelled" },
      });
      assert.equal(cancelled.status, 200, await cancelled.text());
      await waitFor(
        peer,
        "the cancellation",
        () =>
          peer.events.get(event.objectId)?.status === "cancelled" || undefined,
      );

      const deleted = await call(ctx, "DELETE", `/api/events/${event.id}`, {
        token,
      });
      assert.equal(deleted.status, 204);
      await waitFor(
        peer,
        "the Delete",
        () => !peer.events.has(event.objectId) || undefined,
      );
      assert.deepEqual(peer.errors, []);
    } finally {
      await peer.close();
    }
  });
});

Deno.test("a Gancio-shaped follower reads an event with a place, a tag and an image, its update, its cancellation and its deletion (its Update handler reads location.name and location.address)", async () => {
  await withApp(async (ctx, token) => {
    const peer = startGancio(ctx);
    try {
      await addFollower(ctx, peer.inbox, "gancio");
      const event = await createEvent(ctx, token);
      const created = await waitFor(
        peer,
        "the Create",
        () => peer.events.get(event.objectId),
      );
      assert.deepEqual(created.place, {
        name: "Courtyard",
        address: "Via Roma 1, Bologna",
      });
      assert.deepEqual(created.tags, ["music"]);
      assert.match(String(created.image), /\/media\/[^/]+\.png$/);

      for (
        const [step, json, title] of [
          [
            "the Update",
            { title: "Courtyard concert (indoors)" },
            "Courtyard concert (indoors)",
          ],
          [
            "the cancellation",
            { status: "EventCancelled", title: "Cancelled: courtyard" },
            "Cancelled: courtyard",
          ],
        ] as const
      ) {
        const res = await call(ctx, "PATCH", `/api/events/${event.id}`, {
          token,
          json,
        });
        assert.equal(res.status, 200, await res.text());
        const updated = await waitFor(peer, step, () => {
          const e = peer.events.get(event.objectId);
          return e?.title === title ? e : undefined;
        });
        assert.deepEqual(updated.place, created.place, step);
        assert.deepEqual(updated.tags, ["music"], step);
        assert.equal(updated.image, created.image, step);
      }
      await assertAsServed(
        ctx,
        peer.received.findLast((a) => a.type === "Update")!,
      );

      const deleted = await call(ctx, "DELETE", `/api/events/${event.id}`, {
        token,
      });
      assert.equal(deleted.status, 204);
      await waitFor(
        peer,
        "the Delete",
        () => !peer.events.has(event.objectId) || undefined,
      );
      assert.deepEqual(peer.errors, []);
    } finally {
      await peer.close();
    }
  });
});

Deno.test("a Join from a Mobilizon-shaped actor is answered with a Reject naming the Join, which Mobilizon applies to its participation", async () => {
  await withApp(async (ctx, token) => {
    const peer = await startMobilizon(ctx);
    try {
      const event = await createEvent(ctx, token);
      const joinId = await peer.join(event.objectId);
      const reject = await waitFor(
        peer,
        "the Reject",
        () => peer.received.find((a) => a.type === "Reject"),
      );
      assert.equal(getUrl(reject.object), joinId);
      assert.equal(reject.actor, `${ctx.config.baseUrl}/federation/u/relay`);
      assert.equal(peer.participants.get(joinId)?.role, "rejected");
      assert.deepEqual(peer.errors, []);
    } finally {
      await peer.close();
    }
  });
});
