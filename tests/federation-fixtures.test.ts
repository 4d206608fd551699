/**
 * Mastodon, Mobilizon and Gancio payloads delivered to a running Quando over
 * HTTP, signed like their servers sign them, and checked against the effects
 * docs/FEDERATION.md gives them. Two sets go through the same steps:
 * Quando's own fixtures (`tests/fixtures/activitypub/`, written by us in the
 * shapes those servers send), always; and the payloads captured from other
 * projects' deployments (`../shared/fixtures/activitypub/`, beside the
 * repository and never in it) when that folder is present. When it is not,
 * the output says so and the captured run shows as ignored.
 *
 * Each fixture is rewritten only where it must be: its actor becomes a local
 * signing peer, its own ids move under that peer, and the references to "our"
 * objects point at this Quando. Everything else in the fixture is kept and
 * delivered byte for byte (the peer signs the raw JSON instead of letting
 * Fedify re-serialise it, which would drop the fields Fedify does not know).
 * A fixture that carried a Linked Data signature gets a fresh one by the
 * peer, as its server would have made, on top of the HTTP signature. The
 * peer's actor document is `mastodon-actor.json` with the peer's key.
 *
 * One Quando serves each set; its steps share it (and some build on the
 * ones before: the Reject/Accept, Gancio and Mobilizon event steps need the
 * peer followed).
 */
import assert from "node:assert/strict";
import {
  createFederation,
  generateCryptoKeyPair,
  MemoryKvStore,
  signJsonLd,
  signRequest,
} from "@fedify/fedify";
import { Accept, Activity, Endpoints, Follow, Person } from "@fedify/vocab";
import { type FixtureDir, fixtureDirs, readFixture } from "./apfixtures.ts";
import { startPeer, type TestPeer } from "./fedpeer.ts";
import {
  apiAt as api,
  eventually,
  loginAt,
  startServerProcess,
} from "./helpers.ts";

type Json = Record<string, unknown>;

const ADMIN = { email: "admin@example.org", password: "admin-password-1" };
const env = {
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  ALLOW_PRIVATE_ADDRESSES: "true",
};
const AS = "https://www.w3.org/ns/activitystreams";

/** Replaces every string value equal to a key of `map`, at any depth. */
function replaceStrings<T>(value: T, map: Record<string, string>): T {
  if (typeof value === "string") {
    return (Object.hasOwn(map, value) ? map[value] : value) as T;
  }
  if (Array.isArray(value)) {
    return value.map((v) => replaceStrings(v, map)) as T;
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, replaceStrings(v, map)]),
    ) as T;
  }
  return value;
}

/**
 * A context this offline test can load: no `@context` -> AS; the `http://`
 * spellings of the AS and security contexts -> their preloaded `https://`
 * ones; LitePub's remote context (not preloaded, so it would have to be
 * fetched from litepub.social) is left out, as the Join uses none of its terms.
 */
function loadableContext(json: Json): Json {
  const raw = json["@context"];
  if (raw === undefined) return { "@context": AS, ...json };
  const list = (Array.isArray(raw) ? raw : [raw])
    .map((c) =>
      c === "http://www.w3.org/ns/activitystreams"
        ? AS
        : c === "http://w3id.org/security/v1"
        ? "https://w3id.org/security/v1"
        : c
    )
    .filter((c) => c !== "https://litepub.social/litepub/context.jsonld");
  return { ...json, "@context": list };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Checks that `holds` stays true for `ms` (inbox work is queued, so give it time). */
async function stays(
  what: string,
  holds: () => Promise<boolean>,
  ms = 1_200,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    assert.ok(await holds(), `no longer true: ${what}`);
    await sleep(150);
  }
}

function idOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const id = (value as { id?: unknown }).id;
    return typeof id === "string" ? id : undefined;
  }
  return undefined;
}

/**
 * A Mastodon-like peer: a Fedify Person on a loopback port that records what
 * its inbox gets (accepting Follows), serves extra objects at given paths, and
 * delivers raw JSON signed with its key (HTTP Signatures, draft-cavage, with
 * Digest; plus a Linked Data signature when asked), as Mastodon does.
 */
interface RawPeer {
  base: string;
  actorId: string;
  received: Json[];
  /** Extra documents served as application/activity+json, by path. */
  objects: Map<string, Json>;
  /**
   * POSTs `json` to `inbox` with an HTTP signature; returns the status, throws
   * unless 2xx. `ld`: "fresh" replaces any `signature` with a valid Linked
   * Data signature by the peer; "as-is" sends `json` unchanged.
   */
  sendRaw(inbox: string, json: Json, ld?: "fresh" | "as-is"): Promise<number>;
  /** The id of the peer's RSA key. */
  keyId(): Promise<string>;
  /** The peer's RSA public key, PEM-encoded (SPKI). */
  publicKeyPem(): Promise<string>;
  stop(): Promise<void>;
}

async function startRawPeer(name: string): Promise<RawPeer> {
  const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const received: Json[] = [];
  const objects = new Map<string, Json>();
  const federation = createFederation<void>({
    kv: new MemoryKvStore(),
    allowPrivateAddress: true,
  });
  federation.setActorDispatcher(
    "/users/{identifier}",
    async (ctx, identifier) => {
      if (identifier !== name) return null;
      const [key] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: `Test ${identifier}`,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: key.cryptographicKey,
      });
    },
  ).setKeyPairsDispatcher((_ctx, identifier) =>
    identifier === name ? [rsa] : []
  );
  federation.setInboxListeners("/users/{identifier}/inbox", "/inbox")
    .on(Follow, async (ctx, follow) => {
      received.push(await follow.toJsonLd() as Json);
      const follower = await follow.getActor(ctx);
      if (!follower) return;
      await ctx.sendActivity(
        { identifier: name },
        follower,
        new Accept({
          id: new URL(
            `${ctx.getActorUri(name).href}#accept-${crypto.randomUUID()}`,
          ),
          actor: ctx.getActorUri(name),
          object: follow,
        }),
        { immediate: true },
      );
    })
    .on(Activity, async (_ctx, activity) => {
      received.push(await activity.toJsonLd() as Json);
    });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const served = objects.get(new URL(request.url).pathname);
      if (served && request.method === "GET") {
        return new Response(JSON.stringify(served), {
          headers: { "content-type": "application/activity+json" },
        });
      }
      return federation.fetch(request, { contextData: undefined });
    },
  );
  const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  const ctx = federation.createContext(new URL(base));
  return {
    base,
    actorId: `${base}/users/${name}`,
    received,
    objects,
    async keyId() {
      const [{ keyId }] = await ctx.getActorKeyPairs(name);
      return keyId.href;
    },
    async publicKeyPem() {
      const der = new Uint8Array(
        await crypto.subtle.exportKey("spki", rsa.publicKey),
      );
      const b64 = btoa(String.fromCharCode(...der));
      return `-----BEGIN PUBLIC KEY-----\n${
        b64.match(/.{1,64}/g)!.join("\n")
      }\n-----END PUBLIC KEY-----\n`;
    },
    async sendRaw(inbox, json, ld = "as-is") {
      const [{ keyId }] = await ctx.getActorKeyPairs(name);
      const { signature: _old, ...unsigned } = json;
      const body = ld === "fresh"
        ? await signJsonLd(unsigned, rsa.privateKey, keyId, {
          contextLoader: ctx.contextLoader,
        })
        : json;
      const request = await signRequest(
        new Request(inbox, {
          method: "POST",
          headers: {
            "content-type": "application/activity+json",
            accept: "application/activity+json",
          },
          body: JSON.stringify(body),
        }),
        rsa.privateKey,
        keyId,
      );
      const res = await fetch(request);
      const text = await res.text();
      if (!res.ok) {
        throw new Error(
          `${inbox} refused ${json.type} ${json.id}: ${res.status} ${text}`,
        );
      }
      return res.status;
    },
    async stop() {
      await server.shutdown();
    },
  };
}

type ApActor = {
  ap_id: string;
  object: unknown;
  follower: boolean;
  following: boolean;
  trusted: boolean;
};
type EventBody = Json & {
  id: number;
  likes: string[];
  boost: string[];
  resources: {
    activitypub_id: string;
    apUserApId: string;
    data: Json & { content: string };
  }[];
};

/** Deno's test steps check ops and resources by default; these servers run throughout. */
function step(
  t: Deno.TestContext,
  name: string,
  fn: () => Promise<void>,
): Promise<boolean> {
  return t.step({ name, fn, sanitizeOps: false, sanitizeResources: false });
}

/** What the fixtures' own ids are rewritten to. */
interface Refs {
  /** The peer's actor id (it signs and sends everything). */
  peer: string;
  /** The peer's origin. */
  peerBase: string;
  /** The peer's followers collection. */
  followers: string;
  /** The id of the peer's RSA key. */
  keyId: string;
  /** Quando's instance actor. */
  ourActor: string;
  /** The AP id of the local event the activities are about. */
  eventUrl: string;
}

type Strings = Record<string, string>;

/**
 * One set of fixtures: for each step, which of its strings become which
 * local ids (exact string values, see replaceStrings), and what it should
 * leave behind. The steps themselves are the same for every set.
 */
interface FixtureSet {
  /** mastodon-actor.json, served as the peer's actor document. */
  actor(r: Refs): Strings;
  /** The actor document's `name`. */
  actorName: string;
  /** mastodon-follow-activity.json and mastodon-unfollow-activity.json. */
  follow(r: Refs, followId: string): Strings;
  /** mastodon-like.json and mastodon-undo-like.json. */
  like(r: Refs, likeId: string): Strings;
  /** mastodon-announce.json. */
  announce(r: Refs, announceId: string): Strings;
  /** mastodon-undo-announce.json: undoes the Announce sent before. */
  undoAnnounce(r: Refs, announceId: string): Strings;
  /** mastodon-post-activity.json. */
  post(r: Refs, noteId: string): Strings;
  /** What the stored note's content shows of the fixture's mention. */
  mention: { name: RegExp; href: RegExp };
  /** mastodon-delete.json: deletes the note posted before. */
  delete(r: Refs, noteId: string): Strings;
  /** mobilizon-join-activity.json: a Join of the local event. */
  join(r: Refs, joinId: string): Strings;
  /** mastodon-accept-activity.json and mastodon-reject-activity.json, both about our Follow. */
  acceptReject(r: Refs, ourFollowId: string): Strings;
  /** mastodon-reject-activity.json from the peer, about a Follow not ours. */
  rejectOther(r: Refs): Strings;
  /** gancio-event-activity.json, its object at `objectId`. */
  gancio(r: Refs, objectId: string): Strings;
  /** What the Gancio event becomes. */
  gancioEvent: { title: string; place: string; tags: string[] };
  /**
   * mobilizon-event-activity.json, its object at `objectId`, and what it
   * becomes (only our set has one).
   */
  mobilizon?: {
    map(r: Refs, objectId: string): Strings;
    title: string;
    place: {
      name: string;
      address: string;
      latitude: number;
      longitude: number;
    };
    tags: string[];
    description: RegExp;
  };
}

/** Quando's own fixtures, tests/fixtures/activitypub/. */
const OURS: FixtureSet = (() => {
  const M = "https://mastodon.example";
  const ANA = `${M}/users/ana`;
  const CLUB = `${M}/users/cinema_club`;
  const QUANDO_RELAY = "https://quando.example/federation/u/relay";
  const QUANDO_EVENT = "https://quando.example/federation/m/7";
  const ANNOUNCE = `${CLUB}/statuses/112233445566778899/activity`;
  const NOTE = `${ANA}/statuses/112240118734650021`;
  const MZ = "https://mobilizon.example";
  const MZ_EVENT = `${MZ}/events/0d7c4e1a-3b52-4f6e-8a91-5c2d7e0f4b38`;
  const GANCIO = "https://gancio.example/federation/u/events";
  const GANCIO_EVENT = "https://gancio.example/federation/m/12";
  return {
    actorName: "Cinema Club",
    actor: (r) => ({
      ...Object.fromEntries(
        [
          "",
          "/following",
          "/followers",
          "/inbox",
          "/outbox",
          "/collections/featured",
          "/collections/devices",
        ].map((path) => [`${CLUB}${path}`, `${r.peer}${path}`]),
      ),
      [`${M}/@cinema_club`]: `${r.peerBase}/@cinema_club`,
      [`${M}/inbox`]: `${r.peerBase}/inbox`,
      [`${CLUB}#main-key`]: r.keyId,
    }),
    follow: (r, followId) => ({
      [ANA]: r.peer,
      [QUANDO_RELAY]: r.ourActor,
      [`${ANA}#follows/31`]: followId,
      [`${ANA}#follows/31/undo`]: `${followId}/undo`,
    }),
    like: (r, likeId) => ({
      [ANA]: r.peer,
      [QUANDO_EVENT]: r.eventUrl,
      [`${ANA}#likes/58`]: likeId,
      [`${ANA}#likes/58/undo`]: `${likeId}/undo`,
    }),
    announce: (r, announceId) => ({
      [CLUB]: r.peer,
      [`${CLUB}/followers`]: r.followers,
      [QUANDO_EVENT]: r.eventUrl,
      [QUANDO_RELAY]: r.ourActor,
      [ANNOUNCE]: announceId,
    }),
    undoAnnounce: (r, announceId) => ({
      [CLUB]: r.peer,
      [`${CLUB}/`]: r.peer,
      [`${CLUB}/followers`]: r.followers,
      [QUANDO_EVENT]: r.eventUrl,
      [ANNOUNCE]: announceId,
      [`${CLUB}#announces/112233445566778899/undo`]: `${announceId}/undo`,
    }),
    post: (r, noteId) => ({
      [ANA]: r.peer,
      [`${ANA}/followers`]: r.followers,
      [NOTE]: noteId,
      [`${NOTE}/activity`]: `${noteId}/activity`,
      [`${M}/@ana/112240118734650021`]: `${r.peerBase}/@ana/112240118734650021`,
    }),
    mention: { name: /cinema_club/, href: /href="https:\/\/mastodon\.example/ },
    delete: (r, noteId) => ({
      [ANA]: r.peer,
      [NOTE]: noteId,
      [`${NOTE}#delete`]: `${noteId}#delete`,
    }),
    join: (r, joinId) => ({
      [`${MZ}/@rosa`]: r.peer,
      [`${MZ}/@rosa/join/event/27`]: joinId,
      [`${MZ}/events/4b9f3c2e-7d1a-4e55-9a0b-2f6c8d1e9a73`]: r.eventUrl,
    }),
    acceptReject: (r, ourFollowId) => ({
      [CLUB]: r.peer,
      // The Accept answers a Follow by Quando's relay...
      [QUANDO_RELAY]: r.ourActor,
      "https://quando.example/federation/follows/6f0e2b7d": ourFollowId,
      [`${CLUB}#accepts/follows/19`]: `${r.peer}#accepts/follows/19`,
      // ...the Reject one by a Gancio instance: here both are ours.
      "https://gancio.example/federation/u/events": r.ourActor,
      "https://gancio.example/federation/u/events#follows/3": ourFollowId,
      [`${CLUB}#rejects/follows/20`]: `${r.peer}#rejects/follows/20`,
    }),
    rejectOther: (r) => ({
      [CLUB]: r.peer,
      [`${CLUB}#rejects/follows/20`]: `${r.peer}#rejects/follows/other`,
    }),
    gancio: (r, objectId) => ({
      [GANCIO]: r.peer,
      [`${GANCIO}/followers`]: r.followers,
      [GANCIO_EVENT]: objectId,
      [`${GANCIO_EVENT}#create`]: `${objectId}#create`,
    }),
    gancioEvent: {
      title: "Open-air cinema night",
      place: "Community garden",
      tags: ["cinema"],
    },
    mobilizon: {
      // The member who posts it and the group it is attributed to are both
      // the peer here (a member posting for its group, as on Mobilizon, is
      // tests/federation-accept.test.ts).
      map: (r, objectId) => ({
        [`${MZ}/@rosa`]: r.peer,
        [`${MZ}/@rosa/followers`]: r.followers,
        [`${MZ}/@bike_kitchen`]: r.peer,
        [`${MZ}/@bike_kitchen/followers`]: r.followers,
        [`${MZ}/@bike_kitchen/members`]: `${r.peer}/members`,
        [MZ_EVENT]: objectId,
        [`${MZ_EVENT}/activity`]: `${objectId}/activity`,
      }),
      title: "Bike repair workshop",
      place: {
        name: "Bike Kitchen",
        address: "Werkstattweg 8, 10999 Berlin, Berlin, Germany",
        latitude: 52.4986,
        longitude: 13.4188,
      },
      tags: ["bikes", "repair"],
      description: /Bring your bike/,
    },
  };
})();

/** The payloads captured from other projects, ../shared/fixtures/activitypub/. */
const CAPTURED: FixtureSet = {
  actorName: "PeerTube",
  actor: (r) => ({
    "https://framapiaf.org/users/peertube": r.peer,
    "https://framapiaf.org/users/peertube/following": `${r.peer}/following`,
    "https://framapiaf.org/users/peertube/followers": r.followers,
    "https://framapiaf.org/users/peertube/inbox": `${r.peer}/inbox`,
    "https://framapiaf.org/users/peertube/outbox": `${r.peer}/outbox`,
    "https://framapiaf.org/users/peertube/collections/featured":
      `${r.peer}/collections/featured`,
    "https://framapiaf.org/users/peertube/collections/devices":
      `${r.peer}/collections/devices`,
    "https://framapiaf.org/@peertube": `${r.peerBase}/@peertube`,
    "https://framapiaf.org/inbox": `${r.peerBase}/inbox`,
    "https://framapiaf.org/users/peertube#main-key": r.keyId,
  }),
  follow: (r, followId) => ({
    "https://social.tcit.fr/users/tcit": r.peer,
    "http://localtesting.pleroma.lol/users/lain": r.ourActor,
    "https://social.tcit.fr/users/tcit#follows/2": followId,
    "https://social.tcit.fr/users/tcit#follow/2/undo": `${followId}/undo`,
  }),
  like: (r, likeId) => ({
    "http://mastodon.example.org/users/admin": r.peer,
    "http://localtesting.pleroma.lol/objects/eb92579d-3417-42a8-8652-2492c2d4f454":
      r.eventUrl,
    "http://mastodon.example.org/users/admin#likes/2": likeId,
    "http://mastodon.example.org/users/admin#likes/2/undo": `${likeId}/undo`,
  }),
  announce: (r, announceId) => ({
    "https://framapiaf.org/users/peertube": r.peer,
    "https://framapiaf.org/users/peertube/followers": r.followers,
    "https://framapiaf.org/users/peertube/statuses/104584600044284729":
      r.eventUrl,
    "https://framapiaf.org/users/peertube/statuses/104584600044284729/activity":
      announceId,
  }),
  undoAnnounce: (r, announceId) => ({
    "https://framapiaf.org/users/Framasoft": r.peer,
    "https://framapiaf.org/users/Framasoft/": r.peer,
    "https://framapiaf.org/users/Framasoft/followers": r.followers,
    "https://framapiaf.org/@Framasoft/statuses/102501959686438400": r.eventUrl,
    // The Announce it undoes is the one sent before.
    "https://framapiaf.org/users/Framasoft/statuses/102501959686438400/activity":
      announceId,
    "https://framapiaf.org/users/Framasoft#announces/100011594053806179/undo":
      `${announceId}/undo`,
  }),
  post: (r, noteId) => ({
    "https://framapiaf.org/users/admin": r.peer,
    "https://framapiaf.org/users/admin/followers": r.followers,
    "https://framapiaf.org/users/admin/statuses/99512778738411822": noteId,
    "https://framapiaf.org/users/admin/statuses/99512778738411822/activity":
      `${noteId}/activity`,
    "https://framapiaf.org/@admin/99512778738411822":
      `${r.peerBase}/@peertube/99512778738411822`,
  }),
  mention: { name: /tcit/, href: /href="https:\/\/framapiaf\.org/ },
  delete: (r, noteId) => ({
    "http://mastodon.example.org/users/gargron": r.peer,
    "http://mastodon.example.org/users/gargron/statuses/99620895606148759":
      noteId,
    "http://mastodon.example.org/users/gargron/statuses/99620895606148759#delete":
      `${noteId}#delete`,
  }),
  join: (r, joinId) => ({
    "http://mobilizon2.test/@admin": r.peer,
    "http://mobilizon2.test/@admin/join/event/1": joinId,
    "http://mobilizon.test/events/some-uuid": r.eventUrl,
  }),
  acceptReject: (r, ourFollowId) => ({
    "http://mastodon.example.org/users/admin": r.peer,
    "http://localtesting.pleroma.lol/users/lain": r.ourActor,
    "http://localtesting.pleroma.lol/users/lain#follows/4": ourFollowId,
    "http://mastodon.example.org/users/admin#rejects/follows/4":
      `${r.peer}#rejects/follows/4`,
    "http://mobilizon.test/@thomas0": r.peer,
    "http://mobilizon.test/@thomas1": r.ourActor,
    "http://mobilizon.test/follows/fdfds": ourFollowId,
    "http://mobilizon.test/accepts/follows/fdfds":
      `${r.peer}#accepts/follows/fdfds`,
  }),
  rejectOther: (r) => ({
    // The fixture as Mastodon sent it, only its actor is the peer: the
    // Follow it rejects is lain's, not ours.
    "http://mastodon.example.org/users/admin": r.peer,
    "http://mastodon.example.org/users/admin#rejects/follows/4":
      `${r.peer}#rejects/follows/lain`,
  }),
  gancio: (r, objectId) => ({
    "https://demo.gancio.org/federation/u/gancio": r.peer,
    "https://demo.gancio.org/federation/u/gancio/followers": r.followers,
    "https://demo.gancio.org/federation/m/1": objectId,
    "https://demo.gancio.org/federation/m/1#create": `${objectId}#create`,
  }),
  gancioEvent: { title: "Demo event", place: "Colosseo", tags: ["test"] },
};

const SETS: Record<FixtureDir["label"], FixtureSet> = {
  ours: OURS,
  captured: CAPTURED,
};

/** Runs every step over the fixtures of `fx`, against a fresh Quando. */
async function runSet(
  t: Deno.TestContext,
  fx: FixtureDir,
  set: FixtureSet,
): Promise<void> {
  const fixture = (name: string) => readFixture(fx, name) as Json;
  const dir = await Deno.makeTempDir();
  let server: Awaited<ReturnType<typeof startServerProcess>> | null = null;
  let peer: RawPeer | null = null;
  let other: TestPeer | null = null;
  try {
    // Started one by one so that `finally` stops whatever did start.
    server = await startServerProcess(dir, env);
    peer = await startRawPeer("peertube");
    other = await startPeer("mallory");
    const { base } = server;
    const p = peer;
    const token = await loginAt(base, ADMIN);
    const ourActor = `${base}/federation/u/relay`;
    const actorDoc = await (await fetch(ourActor, {
      headers: { accept: "application/activity+json" },
    })).json();
    const inbox: string = actorDoc.endpoints?.sharedInbox ?? actorDoc.inbox;
    assert.ok(inbox, "the instance actor names an inbox");
    const followers = `${p.actorId}/followers`;
    const keyId = await p.keyId();
    const created = await api(base, "POST", "/api/events", token, {
      title: "Fixture party",
      start_datetime: Math.floor(Date.now() / 1000) + 7 * 86_400,
      place_name: "Town hall",
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const eventId = (created.body as { id: number }).id;
    const eventUrl = `${base}/federation/m/${eventId}`;
    /** What the fixtures' ids are rewritten to. */
    const refs: Refs = {
      peer: p.actorId,
      peerBase: p.base,
      followers,
      keyId,
      ourActor,
      eventUrl,
    };

    // The peer's actor document is Mastodon's (mastodon-actor.json), with
    // its ids on the peer and its key swapped for the peer's.
    const mastodonActor = replaceStrings(
      fixture("mastodon-actor.json"),
      set.actor(refs),
    );
    (mastodonActor.publicKey as Json).publicKeyPem = await p.publicKeyPem();
    p.objects.set(new URL(p.actorId).pathname, mastodonActor);
    const event = async () => {
      const r = await api(base, "GET", `/api/events/${eventId}`);
      assert.equal(r.status, 200);
      return r.body as EventBody;
    };
    const actorRow = async (apId: string) => {
      const r = await api(base, "GET", "/api/ap_actors?pageSize=100", token);
      assert.equal(r.status, 200);
      return (r.body as { data: ApActor[] }).data.find((a) => a.ap_id === apId);
    };
    /**
     * Sends a rewritten fixture raw, with an HTTP signature. A fixture that
     * carried a Linked Data signature gets a fresh, valid one by the peer;
     * when the fixture cannot be signed in JSON-LD safe mode (Fedify's, and
     * so Quando's: an undefined term such as Pleroma's `nickname`, or a
     * relative IRI), no receiver using safe mode can verify any signature of
     * it, so the fixture's own signature goes along, re-attributed to the
     * peer's key, as the unverifiable signature it is.
     */
    const deliver = async (json: Json) => {
      const doc = loadableContext(json);
      let status: number;
      if (!("signature" in json)) {
        status = await p.sendRaw(inbox, doc);
      } else {
        try {
          status = await p.sendRaw(inbox, doc, "fresh");
        } catch (err) {
          if ((err as Error).name !== "jsonld.ValidationError") throw err;
          status = await p.sendRaw(inbox, {
            ...doc,
            signature: { ...(json.signature as Json), creator: keyId },
          });
        }
      }
      assert.ok(status === 200 || status === 202, `status ${status}`);
    };

    // ------------------------------------------------ Follow, Undo Follow
    const followId = `${p.actorId}#follows/2`;
    const followMap = set.follow(refs, followId);
    await step(
      t,
      "mastodon-follow-activity: follower, answered with Accept",
      async () => {
        await deliver(
          replaceStrings(fixture("mastodon-follow-activity.json"), followMap),
        );
        const row = await eventually(
          "the peer is a follower",
          async () => {
            const a = await actorRow(p.actorId);
            return a?.follower ? a : undefined;
          },
        );
        // The Mastodon actor document it was fetched as.
        assert.equal((row.object as Json | null)?.name, set.actorName);
        const accept = await eventually(
          "an Accept of the Follow",
          () =>
            p.received.find((a) =>
              a.type === "Accept" && idOf(a.object) === followId
            ),
        );
        assert.equal(idOf(accept.actor), ourActor);
      },
    );
    await step(
      t,
      "mastodon-unfollow-activity: no longer a follower",
      async () => {
        await deliver(
          replaceStrings(
            fixture("mastodon-unfollow-activity.json"),
            followMap,
          ),
        );
        await eventually(
          "the peer is no longer a follower",
          async () =>
            (await actorRow(p.actorId))?.follower === false ? true : undefined,
        );
      },
    );

    // ------------------------------------------------ Like, Undo Like
    const likeId = `${p.actorId}#likes/2`;
    const likeMap = set.like(refs, likeId);
    await step(
      t,
      "mastodon-like: counted in likes once; mastodon-undo-like removes it",
      async () => {
        const like = replaceStrings(fixture("mastodon-like.json"), likeMap);
        await deliver(like);
        await eventually(
          "the like",
          async () => (await event()).likes.includes(p.actorId) || undefined,
        );
        // The same activity again, and a second Like with its own id.
        await deliver(like);
        await deliver({ ...like, id: `${p.actorId}#likes/3` });
        await stays(
          "one like",
          async () =>
            JSON.stringify((await event()).likes) ===
              JSON.stringify([p.actorId]),
        );
        await deliver(
          replaceStrings(fixture("mastodon-undo-like.json"), likeMap),
        );
        await eventually(
          "the like removed",
          async () => (await event()).likes.length === 0 || undefined,
        );
      },
    );

    // ------------------------------------------------ Announce, Undo Announce
    const announceId = `${p.actorId}/statuses/104584600044284729/activity`;
    await step(
      t,
      "mastodon-announce: counted in boost; mastodon-undo-announce removes it",
      async () => {
        await deliver(
          replaceStrings(
            fixture("mastodon-announce.json"),
            set.announce(refs, announceId),
          ),
        );
        await eventually(
          "the boost",
          async () => (await event()).boost.includes(p.actorId) || undefined,
        );
        await deliver(
          replaceStrings(
            fixture("mastodon-undo-announce.json"),
            set.undoAnnounce(refs, announceId),
          ),
        );
        await eventually(
          "the boost removed",
          async () => (await event()).boost.length === 0 || undefined,
        );
      },
    );

    // ------------------------------------------------ Create Note, Delete
    const noteId = `${p.actorId}/statuses/99512778738411822`;
    const post = replaceStrings(
      fixture("mastodon-post-activity.json"),
      set.post(refs, noteId),
    );
    const note = post.object as Json;
    note.inReplyTo = eventUrl;
    note.inReplyToAtomUri = eventUrl;
    note.content = `${note.content}<script>alert("content")</script>`;
    // `conversation` is a tag: URI, never fetched; it stays, as sent.
    const resourceOf = async () =>
      (await event()).resources.find((r) => r.activitypub_id === noteId);
    const createdNote = await step(
      t,
      "mastodon-post-activity: a resource on the event, content sanitised",
      async () => {
        await deliver(post);
        const resource = await eventually("the resource", resourceOf);
        assert.equal(resource.apUserApId, p.actorId);
        assert.match(resource.data.content, set.mention.name);
        assert.match(resource.data.content, set.mention.href);
        assert.doesNotMatch(resource.data.content, /<script|alert/);
      },
    );
    await step(
      t,
      "the stored note's other HTML (summary, contentMap) is sanitised too",
      async () => {
        const id = `${noteId}-cw`;
        await deliver({
          ...post,
          id: `${id}/activity`,
          object: {
            ...note,
            id,
            atomUri: id,
            summary: `cw<script>alert("summary")</script>`,
            // As today's Mastodon sends it, next to content.
            contentMap: {
              en: `${note.content}<script>alert("map")</script>`,
            },
          },
        });
        const resource = await eventually(
          "the second resource",
          async () =>
            (await event()).resources.find((r) => r.activitypub_id === id),
        );
        assert.doesNotMatch(
          JSON.stringify(resource.data),
          /<script/,
          `resource.data as served: ${JSON.stringify(resource.data)}`,
        );
      },
    );
    const deleteJson = replaceStrings(
      fixture("mastodon-delete.json"),
      set.delete(refs, noteId),
    );
    // The captured fixture's @context is only Mastodon's extension map,
    // without the AS vocabulary (see the report); JSON-LD needs AS for
    // "Delete" to mean anything, so it is put first when missing.
    const deleteContext = [deleteJson["@context"]].flat();
    if (!deleteContext.includes(AS)) {
      deleteJson["@context"] = [AS, ...deleteContext];
    }
    await step(
      t,
      "mastodon-delete by another actor leaves the resource",
      async () => {
        assert.ok(createdNote, "needs the resource");
        const o = other!;
        const foreign = replaceStrings(deleteJson, {
          [p.actorId]: o.actorId,
          [`${noteId}#delete`]: `${o.actorId}#delete-1`,
        });
        delete foreign.signature;
        await o.send(ourActor, await Activity.fromJsonLd(foreign));
        await stays(
          "the resource is still there",
          async () => (await resourceOf()) !== undefined,
        );
      },
    );
    await step(t, "mastodon-delete by its author removes it", async () => {
      assert.ok(createdNote, "needs the resource");
      await deliver(deleteJson);
      await eventually(
        "the resource removed",
        async () => (await resourceOf()) === undefined || undefined,
      );
    });

    // ------------------------------------------------ Join
    await step(
      t,
      "mobilizon-join-activity: answered with Reject",
      async () => {
        const joinId = `${p.base}/@admin/join/event/1`;
        await deliver(
          replaceStrings(
            fixture("mobilizon-join-activity.json"),
            set.join(refs, joinId),
          ),
        );
        const reject = await eventually(
          "a Reject",
          () => p.received.find((a) => a.type === "Reject"),
        );
        assert.equal(idOf(reject.object), joinId);
        assert.equal(idOf(reject.actor), ourActor);
      },
    );

    // ------------------------------------------------ Accept, Reject
    let ourFollowId = "";
    const followedBack = await step(
      t,
      "add_trust follows the peer; it accepts",
      async () => {
        const r = await api(
          base,
          "POST",
          "/api/ap_actors/add_trust",
          token,
          { url: p.actorId },
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal((r.body as ApActor).trusted, true);
        const follow = await eventually(
          "our Follow at the peer",
          () =>
            p.received.find((a) =>
              a.type === "Follow" && idOf(a.actor) === ourActor
            ),
        );
        ourFollowId = idOf(follow.id)!;
        await eventually(
          "following",
          async () => (await actorRow(p.actorId))?.following || undefined,
        );
      },
    );
    // Built when used: ourFollowId is known once add_trust has run.
    const acceptReject = () => set.acceptReject(refs, ourFollowId);
    const following = async () => (await actorRow(p.actorId))?.following;
    await step(
      t,
      "mastodon-reject-activity: following false; mastodon-accept-activity: true again",
      async () => {
        assert.ok(followedBack, "needs our Follow");
        await deliver(
          replaceStrings(
            fixture("mastodon-reject-activity.json"),
            acceptReject(),
          ),
        );
        await eventually(
          "not following",
          async () => (await following()) === false || undefined,
        );
        await deliver(
          replaceStrings(
            fixture("mastodon-accept-activity.json"),
            acceptReject(),
          ),
        );
        await eventually(
          "following again",
          async () => (await following()) || undefined,
        );
      },
    );
    await step(
      t,
      "a Reject of somebody else's Follow leaves following alone",
      async () => {
        assert.ok(followedBack, "needs our Follow");
        // The fixture as its server sent it, only its actor is the peer:
        // the Follow it rejects is somebody else's, not ours.
        await deliver(
          replaceStrings(
            fixture("mastodon-reject-activity.json"),
            set.rejectOther(refs),
          ),
        );
        try {
          await stays("following", async () => (await following()) === true);
        } finally {
          // Put it back for what follows, whatever happened.
          if ((await following()) !== true) {
            await deliver({
              ...replaceStrings(
                fixture("mastodon-accept-activity.json"),
                acceptReject(),
              ),
              id: `${p.actorId}#accepts/again`,
            });
            await eventually(
              "following again",
              async () => (await following()) || undefined,
            );
          }
        }
      },
    );

    // ------------------------------------------------ Gancio Create Event
    const inAWeek = Date.now() + 7 * 86_400_000;
    const start = Math.floor(inAWeek / 1000);
    // The fixture's form: local time with a +02:00 offset.
    const withOffset = (seconds: number) =>
      new Date((seconds + 2 * 3600) * 1000).toISOString().slice(0, 19) +
      "+02:00";
    const gancio = (objectId: string): Json => {
      const json = replaceStrings(
        fixture("gancio-event-activity.json"),
        set.gancio(refs, objectId),
      );
      Object.assign(json.object as Json, {
        startTime: withOffset(start),
        endTime: withOffset(start + 3600),
      });
      return loadableContext(json);
    };
    const remoteEvent = async (apId: string) => {
      for (let id = 1; id <= 10; id++) {
        if (id === eventId) continue;
        const r = await api(base, "GET", `/api/events/${id}`, token);
        if (r.status === 200 && (r.body as Json).ap_id === apId) {
          return r.body as EventBody;
        }
      }
      return undefined;
    };
    const checkGancio = (e: EventBody, apId: string) => {
      assert.equal(e.title, set.gancioEvent.title);
      assert.equal(e.ap_id, apId);
      assert.equal(e.apUserApId, p.actorId);
      assert.equal(e.start_datetime, start);
      assert.equal(e.end_datetime, start + 3600);
      assert.equal(
        (e.place as { name: string } | null)?.name,
        set.gancioEvent.place,
      );
      assert.deepEqual(
        (e.tags as { tag: string }[]).map((x) => x.tag),
        set.gancioEvent.tags,
      );
      assert.ok(
        String(e.description).includes(set.gancioEvent.place),
        `description: ${e.description}`,
      );
      assert.equal(typeof e.ap_object, "object");
    };
    await step(
      t,
      "gancio-event-activity, object on the peer's host (fetched from there): a remote event",
      async () => {
        assert.ok(followedBack, "needs a trusted, followed peer");
        const objectId = `${p.base}/federation/m/1`;
        const json = gancio(objectId);
        p.objects.set(
          "/federation/m/1",
          { "@context": AS, ...(json.object as Json) },
        );
        await p.sendRaw(inbox, json);
        checkGancio(
          await eventually("the remote event", () => remoteEvent(objectId)),
          objectId,
        );
      },
    );
    await step(
      t,
      "gancio-event-activity, object on the peer's host that it does not serve (embedded copy used): a remote event",
      async () => {
        assert.ok(followedBack, "needs a trusted, followed peer");
        const objectId = `${p.base}/federation/m/2`;
        await p.sendRaw(inbox, gancio(objectId));
        checkGancio(
          await eventually("the remote event", () => remoteEvent(objectId)),
          objectId,
        );
      },
    );
    await step(
      t,
      "gancio-event-activity, object on another host than its author: ignored",
      async () => {
        assert.ok(followedBack, "needs a trusted, followed peer");
        const objectId = "https://gancio.invalid/federation/m/2";
        assert.equal(await p.sendRaw(inbox, gancio(objectId)), 202);
        await stays(
          "no event for an object off its author's origin",
          async () => (await remoteEvent(objectId)) === undefined,
        );
      },
    );
    await step(
      t,
      "a remote event keeps the LD signature of the Create that carried it",
      async () => {
        assert.ok(followedBack, "needs a trusted, followed peer");
        // Gancio sends no LD signature, and its relative tag `href` cannot
        // be signed in safe mode; an absolute one can.
        const objectId = `${p.base}/federation/m/3`;
        const json = gancio(objectId);
        const [tag] = set.gancioEvent.tags;
        (json.object as Json).tag = [{
          type: "Hashtag",
          name: `#${tag}`,
          href: `${p.base}/tags/${tag}`,
        }];
        await p.sendRaw(inbox, json, "fresh");
        const e = await eventually(
          "the remote event",
          () => remoteEvent(objectId),
        );
        assert.equal(e.title, set.gancioEvent.title);
        const sig = e.ld_signature as Json | null;
        assert.ok(sig, "ld_signature is null");
        assert.equal(sig.type, "RsaSignature2017");
        assert.equal(sig.creator, keyId);
      },
    );

    // ------------------------------------------------ Mobilizon Create Event
    const mobilizon = set.mobilizon;
    if (mobilizon) {
      await step(
        t,
        "mobilizon-event-activity, LitePub context and mz: terms as sent: a remote event with its PostalAddress",
        async () => {
          assert.ok(followedBack, "needs a trusted, followed peer");
          const objectId = `${p.base}/events/mobilizon-1`;
          const json = replaceStrings(
            fixture("mobilizon-event-activity.json"),
            mobilizon.map(refs, objectId),
          );
          assert.ok(
            [json["@context"]].flat().includes(
              "https://litepub.social/litepub/context.jsonld",
            ),
            "the fixture names the LitePub context",
          );
          Object.assign(json.object as Json, {
            startTime: withOffset(start),
            endTime: withOffset(start + 3 * 3600),
          });
          // Sent with its @context untouched: Quando holds LitePub's.
          await p.sendRaw(inbox, json);
          const e = await eventually(
            "the remote event",
            () => remoteEvent(objectId),
          );
          assert.equal(e.title, mobilizon.title);
          assert.equal(e.apUserApId, p.actorId);
          assert.equal(e.start_datetime, start);
          assert.equal(e.end_datetime, start + 3 * 3600);
          const place = e.place as Json | null;
          assert.equal(place?.name, mobilizon.place.name);
          assert.equal(place?.address, mobilizon.place.address);
          assert.equal(place?.latitude, mobilizon.place.latitude);
          assert.equal(place?.longitude, mobilizon.place.longitude);
          assert.deepEqual(
            (e.tags as { tag: string }[]).map((x) => x.tag),
            mobilizon.tags,
          );
          assert.match(String(e.description), mobilizon.description);
        },
      );
    }
  } finally {
    await other?.stop();
    await peer?.stop();
    await server?.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

for (const fx of fixtureDirs("tests/federation-fixtures.test.ts")) {
  Deno.test({
    name: fx.label === "ours"
      ? "Quando's own Mastodon, Mobilizon and Gancio fixtures (tests/fixtures/activitypub/) have their section 7 effects in Quando's inbox"
      : "captured Mastodon, Mobilizon and Gancio payloads (../shared/fixtures/activitypub/) have their section 7 effects in Quando's inbox",
    sanitizeResources: false,
    sanitizeOps: false,
    fn: (t) => runSet(t, fx, SETS[fx.label]),
  });
}
