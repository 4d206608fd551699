/**
 * What Quando accepts of a Mobilizon group's events. Mobilizon sends a
 * group's event with `actor` the member who wrote it (a Person) and
 * `attributedTo` the Group; another member may update or delete it; and an
 * instance's relay `Announce`s the Event itself. Here a "Mobilizon" origin
 * on loopback serves a Group and its members (each with a key) and the
 * Event objects, an "elsewhere" origin a stranger, and a "relay" origin a
 * relay actor. The activities are in the shapes Mobilizon sends (written
 * here, not captured), signed like a server signs its deliveries.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { generateCryptoKeyPair, signRequest } from "@fedify/fedify";
import { exportSpki } from "@fedify/vocab-runtime";
import { events } from "../db/schema.ts";
import {
  setActorFlags,
  toggleActorBlock,
  upsertActor,
} from "../lib/federation/actors.ts";
import { createTestApp, type TestContext } from "./helpers.ts";

type Json = Record<string, unknown>;
const AS = "https://www.w3.org/ns/activitystreams";
const SECURITY = "https://w3id.org/security/v1";
const PUBLIC = `${AS}#Public`;
/** Mobilizon's context, abridged: LitePub's and a few `mz:` terms. */
const MZ_CONTEXT = [
  AS,
  "https://litepub.social/litepub/context.jsonld",
  {
    mz: "https://joinmobilizon.org/ns#",
    sc: "http://schema.org#",
    ical: "http://www.w3.org/2002/12/cal/ical#",
    uuid: "sc:identifier",
    joinMode: { "@id": "mz:joinMode", "@type": "mz:joinModeType" },
    timezone: { "@id": "mz:timezone", "@type": "sc:Text" },
  },
];

interface Origin {
  base: string;
  /** JSON documents served by path. */
  docs: Map<string, Json>;
  /** Paths answered with 410 and a Tombstone, as Mobilizon does for a deleted event. */
  gone: Set<string>;
  /** Paths requested, in order. */
  hits: string[];
  stop(): Promise<void>;
}

function startOrigin(): Origin {
  const docs = new Map<string, Json>();
  const gone = new Set<string>();
  const hits: string[] = [];
  const headers = { "content-type": "application/activity+json" };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      const url = new URL(req.url);
      hits.push(url.pathname);
      if (gone.has(url.pathname)) {
        return new Response(
          JSON.stringify({
            "@context": AS,
            id: url.href,
            type: "Tombstone",
            formerType: "Event",
          }),
          { status: 410, headers },
        );
      }
      const doc = docs.get(url.pathname);
      if (doc) return new Response(JSON.stringify(doc), { headers });
      return new Response("not found", { status: 404 });
    },
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    docs,
    gone,
    hits,
    stop: () => server.shutdown(),
  };
}

interface Signer {
  actorId: string;
  keyId: string;
  privateKey: CryptoKey;
}

/** One RSA key pair per actor path, generated once for every test. */
const keyPairs = new Map<string, Promise<CryptoKeyPair>>();

/** An actor document of `type` with an RSA key, served by `origin` at `path`. */
async function serveActor(
  origin: Origin,
  path: string,
  type: "Person" | "Group" | "Application",
): Promise<Signer> {
  if (!keyPairs.has(path)) {
    keyPairs.set(path, generateCryptoKeyPair("RSASSA-PKCS1-v1_5"));
  }
  const { privateKey, publicKey } = await keyPairs.get(path)!;
  const actorId = `${origin.base}${path}`;
  const keyId = `${actorId}#main-key`;
  origin.docs.set(path, {
    "@context": [AS, SECURITY],
    id: actorId,
    type,
    preferredUsername: path.replace(/^\/@?/, ""),
    inbox: `${actorId}/inbox`,
    outbox: `${actorId}/outbox`,
    followers: `${actorId}/followers`,
    endpoints: { sharedInbox: `${origin.base}/inbox` },
    publicKey: {
      id: keyId,
      owner: actorId,
      publicKeyPem: await exportSpki(publicKey),
    },
  });
  return { actorId, keyId, privateKey };
}

interface World {
  ctx: TestContext;
  mz: Origin;
  elsewhere: Origin;
  relayOrigin: Origin;
  group: Signer;
  rosa: Signer;
  tom: Signer;
  mallory: Signer;
  relay: Signer;
}

/**
 * Runs `fn` with an app (its queue drained by hand), a Mobilizon origin
 * with the group `@bike_kitchen` and its members `@rosa` and `@tom`, a
 * stranger `@mallory` on another origin and a relay on a third.
 */
async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    // Signatures and the queue go by real time.
    now: new Date().toISOString(),
    federation: { manualQueue: true },
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  const mz = startOrigin();
  const elsewhere = startOrigin();
  const relayOrigin = startOrigin();
  try {
    await fn({
      ctx,
      mz,
      elsewhere,
      relayOrigin,
      group: await serveActor(mz, "/@bike_kitchen", "Group"),
      rosa: await serveActor(mz, "/@rosa", "Person"),
      tom: await serveActor(mz, "/@tom", "Person"),
      mallory: await serveActor(elsewhere, "/@mallory", "Person"),
      relay: await serveActor(relayOrigin, "/relay", "Application"),
    });
  } finally {
    stop.abort();
    await queue;
    await mz.stop();
    await elsewhere.stop();
    await relayOrigin.stop();
    ctx.close();
  }
}

/** Records an actor as an admin's add_trust and its Accept would. */
async function trust(
  w: World,
  actor: Signer,
  origin: Origin,
  flags: { trusted: boolean; following: boolean },
): Promise<void> {
  const path = new URL(actor.actorId).pathname;
  await upsertActor(
    w.ctx.database.db,
    w.ctx.clock,
    actor.actorId,
    origin.docs.get(path),
    { trusted: flags.trusted },
  );
  await setActorFlags(w.ctx.database.db, w.ctx.clock, actor.actorId, {
    following: flags.following,
  });
}

/** Posts `activity` to the shared inbox signed by `signer`, then handles the queue. */
async function deliver(w: World, activity: Json, signer: Signer) {
  const request = await signRequest(
    new Request("http://quando.test/federation/inbox", {
      method: "POST",
      headers: { "content-type": "application/activity+json" },
      body: JSON.stringify({ "@context": MZ_CONTEXT, ...activity }),
    }),
    signer.privateKey,
    new URL(signer.keyId),
    { spec: "draft-cavage-http-signatures-12" },
  );
  const res = await w.ctx.app.request(request);
  assert.ok(
    res.status === 202 || res.status === 200,
    `${res.status} ${await res.text()}`,
  );
  await w.ctx.federation.drainQueue({ maxMs: 10_000 });
}

/** A Mobilizon Event of `group` written by `member`, at `origin`'s `path`. */
function groupEvent(
  origin: Origin,
  path: string,
  member: string,
  group: string,
  title: string,
): Json {
  const id = `${origin.base}${path}`;
  return {
    "@context": MZ_CONTEXT,
    type: "Event",
    id,
    url: id,
    uuid: path.split("/").pop(),
    name: title,
    actor: member,
    attributedTo: group,
    to: [PUBLIC],
    cc: [`${member}/followers`],
    content: "<p>Bring your bike.</p>",
    mediaType: "text/html",
    startTime: "2027-03-13T10:00:00+01:00",
    endTime: "2027-03-13T13:00:00+01:00",
    timezone: "Europe/Berlin",
    "ical:status": "CONFIRMED",
    joinMode: "free",
    location: { type: "Place", name: "Bike Kitchen" },
  };
}

/** Serves `event` at its id's path and returns it. */
function serve(origin: Origin, event: Json): Json {
  origin.docs.set(new URL(String(event.id)).pathname, event);
  return event;
}

/** A Create or Update as Mobilizon sends a group's event: the member as actor. */
function activity(
  type: "Create" | "Update",
  member: Signer,
  group: Signer,
  event: Json,
): Json {
  const { "@context": _, ...object } = event;
  return {
    type,
    id: `${event.id}/${type.toLowerCase()}/${crypto.randomUUID()}`,
    actor: member.actorId,
    attributedTo: group.actorId,
    to: [PUBLIC],
    cc: [`${group.actorId}/members`, `${group.actorId}/followers`],
    object,
  };
}

/** Mobilizon's Delete: the deleting member as actor, a Tombstone as object. */
function deletion(member: Signer, eventId: string): Json {
  return {
    type: "Delete",
    id: `${eventId}/delete/${crypto.randomUUID()}`,
    actor: member.actorId,
    to: [`${member.actorId}/followers`, PUBLIC],
    object: { type: "Tombstone", formerType: "Event", id: eventId },
  };
}

async function stored(w: World, apId: string) {
  const [row] = await w.ctx.database.db.select().from(events).where(
    eq(events.ap_id, apId),
  );
  return row;
}

Deno.test("a member's Create of an Event attributedTo a trusted, followed group is imported as the group's; refused while the group is not trusted, followed and unblocked", async () => {
  await withWorld(async (w) => {
    const send = async (path: string, title: string) => {
      const event = serve(
        w.mz,
        groupEvent(w.mz, path, w.rosa.actorId, w.group.actorId, title),
      );
      await deliver(w, activity("Create", w.rosa, w.group, event), w.rosa);
      return String(event.id);
    };
    // Unknown group.
    assert.equal(await stored(w, await send("/events/a", "A")), undefined);
    // The member is trusted and followed, the group it posts for is not.
    await trust(w, w.rosa, w.mz, { trusted: true, following: true });
    assert.equal(await stored(w, await send("/events/b", "B")), undefined);
    // Trusted, but our Follow was not accepted yet.
    await trust(w, w.group, w.mz, { trusted: true, following: false });
    assert.equal(await stored(w, await send("/events/c", "C")), undefined);

    await trust(w, w.group, w.mz, { trusted: true, following: true });
    const imported = await stored(w, await send("/events/d", "Repair day"));
    assert.ok(imported, "the group's event is imported");
    assert.equal(imported.title, "Repair day");
    assert.equal(imported.apUserApId, w.group.actorId);
    assert.equal(imported.start_datetime, Date.UTC(2027, 2, 13, 9) / 1000);

    // Blocked, the group's events are refused again.
    await toggleActorBlock(
      w.ctx.database.db,
      w.ctx.clock,
      w.group.actorId,
      true,
    );
    assert.equal(await stored(w, await send("/events/e", "E")), undefined);
  });
});

Deno.test("a group's event: another member of its origin may update it; an actor of another origin may not, nor post for the group", async () => {
  await withWorld(async (w) => {
    await trust(w, w.group, w.mz, { trusted: true, following: true });
    // A trusted, followed actor elsewhere is no member of the group.
    await trust(w, w.mallory, w.elsewhere, { trusted: true, following: true });
    const event = serve(
      w.mz,
      groupEvent(
        w.mz,
        "/events/1",
        w.rosa.actorId,
        w.group.actorId,
        "Repair day",
      ),
    );
    const id = String(event.id);
    await deliver(w, activity("Create", w.rosa, w.group, event), w.rosa);
    assert.equal((await stored(w, id))?.title, "Repair day");

    // Tom, of the same origin, updates it: the origin serves the new version.
    serve(w.mz, { ...event, name: "Repair day (moved)", actor: w.tom.actorId });
    await deliver(
      w,
      activity("Update", w.tom, w.group, w.mz.docs.get("/events/1")!),
      w.tom,
    );
    assert.equal((await stored(w, id))?.title, "Repair day (moved)");

    // Mallory, elsewhere, cannot: neither with the group's event id...
    await deliver(
      w,
      activity("Update", w.mallory, w.group, {
        ...event,
        name: "Hijacked",
        actor: w.mallory.actorId,
      }),
      w.mallory,
    );
    // ...nor with an object of her origin attributed to the group.
    const hers = serve(
      w.elsewhere,
      groupEvent(
        w.elsewhere,
        "/events/1",
        w.mallory.actorId,
        w.group.actorId,
        "Forged",
      ),
    );
    await deliver(w, activity("Create", w.mallory, w.group, hers), w.mallory);
    await deliver(w, activity("Update", w.mallory, w.group, hers), w.mallory);
    assert.equal((await stored(w, id))?.title, "Repair day (moved)");
    assert.equal(await stored(w, String(hers.id)), undefined);
    assert.equal((await stored(w, id))?.apUserApId, w.group.actorId);

    // A member's embedded copy counts only as its origin serves it.
    const unserved = groupEvent(
      w.mz,
      "/events/2",
      w.rosa.actorId,
      w.group.actorId,
      "Not served",
    );
    await deliver(w, activity("Create", w.rosa, w.group, unserved), w.rosa);
    assert.equal(await stored(w, String(unserved.id)), undefined);
  });
});

Deno.test("a group's event: another member of its origin may delete it once the origin no longer serves it; an actor of another origin may not", async () => {
  await withWorld(async (w) => {
    await trust(w, w.group, w.mz, { trusted: true, following: true });
    await trust(w, w.mallory, w.elsewhere, { trusted: true, following: true });
    const event = serve(
      w.mz,
      groupEvent(w.mz, "/events/9", w.rosa.actorId, w.group.actorId, "Ride"),
    );
    const id = String(event.id);
    await deliver(w, activity("Create", w.rosa, w.group, event), w.rosa);
    assert.ok(await stored(w, id), "imported");

    await deliver(w, deletion(w.mallory, id), w.mallory);
    assert.ok(await stored(w, id), "deleted from another origin");
    // While the origin still serves it, a member's Delete is not believed.
    await deliver(w, deletion(w.tom, id), w.tom);
    assert.ok(await stored(w, id), "deleted while still served");

    // Deleted on Mobilizon: the event URL answers 410 with a Tombstone.
    w.mz.docs.delete("/events/9");
    w.mz.gone.add("/events/9");
    await deliver(w, deletion(w.tom, id), w.tom);
    assert.equal(await stored(w, id), undefined, "a member deletes it");
  });
});

Deno.test("a relay's Announce of an Event imports the copy its origin serves when its author is trusted and followed; never the embedded copy, never an untrusted author's", async () => {
  await withWorld(async (w) => {
    await trust(w, w.group, w.mz, { trusted: true, following: true });
    await trust(w, w.relay, w.relayOrigin, { trusted: true, following: true });
    const announce = (object: unknown, signer = w.relay): Json => ({
      type: "Announce",
      id: `${signer.actorId}/announces/${crypto.randomUUID()}`,
      actor: signer.actorId,
      to: [`${signer.actorId}/followers`],
      cc: [PUBLIC],
      object,
    });
    const served = serve(
      w.mz,
      groupEvent(w.mz, "/events/r1", w.rosa.actorId, w.group.actorId, "Real"),
    );
    const forged: Json = {
      ...served,
      name: "Forged",
      content: "<p>Pay at the door</p>",
    };
    delete forged["@context"];
    await deliver(w, announce(forged), w.relay);
    const real = await stored(w, String(served.id));
    assert.ok(real, "the announced event is imported");
    assert.equal(real.title, "Real", "as its origin serves it");
    assert.doesNotMatch(String(real.description), /Pay at the door/);
    assert.equal(real.apUserApId, w.group.actorId);
    assert.equal(real.ld_signature, null);

    // By id, too.
    const byId = serve(
      w.mz,
      groupEvent(w.mz, "/events/r2", w.rosa.actorId, w.group.actorId, "By id"),
    );
    await deliver(w, announce(byId.id), w.relay);
    assert.equal((await stored(w, String(byId.id)))?.title, "By id");

    // Another group of the same origin, not trusted: nothing.
    const other = await serveActor(w.mz, "/@other_group", "Group");
    const untrusted = serve(
      w.mz,
      groupEvent(w.mz, "/events/r3", w.rosa.actorId, other.actorId, "Other"),
    );
    await deliver(w, announce(untrusted), w.relay);
    await deliver(w, announce(untrusted.id), w.relay);
    assert.equal(await stored(w, String(untrusted.id)), undefined);

    // An event served elsewhere in the trusted group's name: nothing.
    const offOrigin = serve(
      w.elsewhere,
      groupEvent(
        w.elsewhere,
        "/events/r4",
        w.mallory.actorId,
        w.group.actorId,
        "Off origin",
      ),
    );
    await deliver(w, announce(offOrigin.id), w.relay);
    assert.equal(await stored(w, String(offOrigin.id)), undefined);

    // An announcer that is not trusted relays nothing, and is not asked.
    const hitsBefore = w.mz.hits.length;
    const fresh = serve(
      w.mz,
      groupEvent(w.mz, "/events/r5", w.rosa.actorId, w.group.actorId, "Fresh"),
    );
    await deliver(w, announce(fresh.id, w.mallory), w.mallory);
    assert.equal(await stored(w, String(fresh.id)), undefined);
    assert.ok(!w.mz.hits.slice(hitsBefore).includes("/events/r5"));
  });
});
