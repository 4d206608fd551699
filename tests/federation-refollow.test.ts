/**
 * Following again after an Undo, both ways, and withdrawing trust. A peer
 * that reuses one Follow id (Gancio does: one id per target) can follow
 * again: the repeated id is handled, not dropped as a replay. Quando sends a
 * fresh Follow id at each attempt, which a peer that drops ids it has seen
 * (Fedify, here) takes, and its Undo names the Follow it undoes.
 */
import assert from "node:assert/strict";
import { Follow, Undo } from "@fedify/vocab";
import { startPeer, type TestPeer } from "./fedpeer.ts";
import {
  apiAt as api,
  eventually,
  loginAt,
  startServerProcess,
} from "./helpers.ts";

const env = {
  ADMIN_EMAIL: "admin@example.org",
  ADMIN_PASSWORD: "admin-password-1",
  ALLOW_PRIVATE_ADDRESSES: "true",
};

interface Peering {
  base: string;
  peer: TestPeer;
  /** Calls the API as the admin. */
  admin(
    method: string,
    path: string,
    json?: unknown,
  ): ReturnType<typeof api>;
  /** How Quando lists the peer's actor (undefined: not known). */
  peerRow(): Promise<
    { following: boolean; trusted: boolean } | undefined
  >;
}

/** A test with a real server process and a Fedify peer on loopback. */
function peeringTest(
  name: string,
  peerName: string,
  fn: (p: Peering) => Promise<void>,
) {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const dir = await Deno.makeTempDir();
      const server = await startServerProcess(dir, env);
      const peer = await startPeer(peerName);
      try {
        const token = await loginAt(server.base, {
          email: env.ADMIN_EMAIL,
          password: env.ADMIN_PASSWORD,
        });
        const admin: Peering["admin"] = (method, path, json) =>
          api(server.base, method, path, token, json);
        await fn({
          base: server.base,
          peer,
          admin,
          async peerRow() {
            const { body } = await admin("GET", "/api/ap_actors");
            const list = (Array.isArray(body) ? body : body.data ?? []) as {
              ap_id: string;
              following: boolean;
              trusted: boolean;
            }[];
            return list.find((a) => a.ap_id === peer.actorId);
          },
        });
      } finally {
        await peer.stop();
        await server.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

async function followers(base: string): Promise<string[]> {
  const res = await fetch(`${base}/federation/u/relay/followers`, {
    headers: { accept: "application/activity+json" },
  });
  const body = await res.json();
  // Paged: the items are on the pages, from `first` on.
  const items: string[] = [];
  for (let next = body.first; typeof next === "string";) {
    const page = await (await fetch(next, {
      headers: { accept: "application/activity+json" },
    })).json();
    items.push(...(page.orderedItems ?? page.items ?? []));
    next = page.next;
  }
  return items;
}

/** The id of the object an activity names (an embedded object or its id). */
function objectIdOf(activity: Record<string, unknown>): string | undefined {
  const object = activity.object as { id?: string } | string | undefined;
  return typeof object === "string" ? object : object?.id;
}

/** The admin trusts the peer, and the peer accepts the Follow. */
async function trustPeer(p: Peering): Promise<void> {
  const trusted = await p.admin("POST", "/api/ap_actors/add_trust", {
    url: p.peer.actorId,
  });
  assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
  await eventually(
    "following",
    async () => (await p.peerRow())?.following || undefined,
  );
}

peeringTest(
  "a peer reusing its Follow id follows again after an Undo (the repeated id is not dropped as a replay)",
  "gancio",
  async ({ base, peer }) => {
    const actor = `${base}/federation/u/relay`;
    const follow = new Follow({
      id: new URL(`${peer.base}/follows/relay`),
      actor: new URL(peer.actorId),
      object: new URL(actor),
    });
    const accepts = () =>
      peer.received.filter((a) => a.type === "Accept").length;

    await peer.send(actor, follow);
    await eventually("the first Accept", () => accepts() === 1 || undefined);
    assert.deepEqual(await followers(base), [peer.actorId]);

    await peer.send(
      actor,
      new Undo({
        id: new URL(`${peer.base}/follows/relay/undo-1`),
        actor: new URL(peer.actorId),
        object: follow,
      }),
    );
    await eventually(
      "the Undo handled",
      async () => (await followers(base)).length === 0 || undefined,
    );

    // The same Follow, with the same id, once more.
    await peer.send(actor, follow);
    await eventually("the second Accept", () => accepts() === 2 || undefined);
    assert.deepEqual(await followers(base), [peer.actorId]);
  },
);

peeringTest(
  "Quando follows, unfollows and follows a Fedify peer again: each Follow has an id of its own, the Undo names the last, and the peer accepts again",
  "hollo",
  async (p) => {
    const follows = () => p.peer.received.filter((a) => a.type === "Follow");
    await trustPeer(p);

    const toggle = () =>
      p.admin("PUT", "/api/ap_actors/follow", { ap_id: p.peer.actorId });
    assert.equal((await toggle()).status, 200);
    const undo = await eventually(
      "the Undo",
      () => p.peer.received.find((a) => a.type === "Undo"),
    );
    assert.equal((await p.peerRow())?.following, false);
    assert.equal((await toggle()).status, 200);
    await eventually(
      "following again",
      async () => (await p.peerRow())?.following || undefined,
    );

    const [first, second] = follows();
    assert.equal(follows().length, 2);
    assert.notEqual(first.id, second.id);
    // The Undo named the Follow that was accepted.
    assert.equal(objectIdOf(undo), first.id);
  },
);

peeringTest(
  "withdrawing trust undoes our Follow and stops trusting the actor; unknown actors are 404, anonymous calls 401",
  "mobilizon",
  async (p) => {
    await trustPeer(p);
    const follow = p.peer.received.find((a) => a.type === "Follow")!;

    const removed = await p.admin("POST", "/api/ap_actors/remove_trust", {
      ap_id: p.peer.actorId,
    });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.trusted, false);
    assert.equal(removed.body.following, false);
    const undo = await eventually(
      "the Undo",
      () => p.peer.received.find((a) => a.type === "Undo"),
    );
    assert.equal(objectIdOf(undo), follow.id);
    const row = await p.peerRow();
    assert.equal(row?.trusted, false);
    assert.equal(row?.following, false);

    const unknown = await p.admin("POST", "/api/ap_actors/remove_trust", {
      ap_id: "https://nowhere.example/users/x",
    });
    assert.equal(unknown.status, 404);
    assert.equal(typeof unknown.body.error, "string");
    const anonymous = await api(
      p.base,
      "POST",
      "/api/ap_actors/remove_trust",
      undefined,
      { ap_id: p.peer.actorId },
    );
    assert.equal(anonymous.status, 401);
  },
);
