/**
 * Following again after an Undo, both ways. A peer that reuses one Follow id
 * (Gancio does: one id per target) can follow again: the repeated id is
 * handled, not dropped as a replay. And Quando sends a fresh Follow id at
 * each attempt, which a peer that drops ids it has seen (Fedify, here) takes.
 */
import assert from "node:assert/strict";
import { Follow, Undo } from "@fedify/vocab";
import { startPeer } from "./fedpeer.ts";
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

async function followers(base: string): Promise<string[]> {
  const res = await fetch(`${base}/federation/u/relay/followers`, {
    headers: { accept: "application/activity+json" },
  });
  const body = await res.json();
  return (body.orderedItems ?? body.items ?? []) as string[];
}

Deno.test({
  name:
    "a peer reusing its Follow id follows again after an Undo (the repeated id is not dropped as a replay)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const server = await startServerProcess(dir, env);
    const peer = await startPeer("gancio");
    try {
      const actor = `${server.base}/federation/u/relay`;
      const follow = new Follow({
        id: new URL(`${peer.base}/follows/relay`),
        actor: new URL(peer.actorId),
        object: new URL(actor),
      });
      const accepts = () =>
        peer.received.filter((a) => a.type === "Accept").length;

      await peer.send(actor, follow);
      await eventually("the first Accept", () => accepts() === 1 || undefined);
      assert.deepEqual(await followers(server.base), [peer.actorId]);

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
        async () => (await followers(server.base)).length === 0 || undefined,
      );

      // The same Follow, with the same id, once more.
      await peer.send(actor, follow);
      await eventually("the second Accept", () => accepts() === 2 || undefined);
      assert.deepEqual(await followers(server.base), [peer.actorId]);
    } finally {
      await peer.stop();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "Quando follows, unfollows and follows a Fedify peer again: each Follow has an id of its own, the Undo names the last, and the peer accepts again",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const server = await startServerProcess(dir, env);
    const peer = await startPeer("hollo");
    try {
      const token = await loginAt(server.base, {
        email: env.ADMIN_EMAIL,
        password: env.ADMIN_PASSWORD,
      });
      const follows = () => peer.received.filter((a) => a.type === "Follow");
      const following = async () => {
        const { body } = await api(server.base, "GET", "/api/ap_actors", token);
        const list = (Array.isArray(body) ? body : body.data ?? []) as {
          ap_id: string;
          following: boolean;
        }[];
        return list.find((a) => a.ap_id === peer.actorId)?.following;
      };

      const trusted = await api(
        server.base,
        "POST",
        "/api/ap_actors/add_trust",
        token,
        { url: peer.actorId },
      );
      assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
      await eventually(
        "following",
        async () => (await following()) || undefined,
      );

      const toggle = () =>
        api(server.base, "PUT", "/api/ap_actors/follow", token, {
          ap_id: peer.actorId,
        });
      assert.equal((await toggle()).status, 200);
      const undo = await eventually(
        "the Undo",
        () => peer.received.find((a) => a.type === "Undo"),
      );
      assert.equal(await following(), false);
      assert.equal((await toggle()).status, 200);
      await eventually(
        "following again",
        async () => (await following()) || undefined,
      );

      const [first, second] = follows();
      assert.equal(follows().length, 2);
      assert.notEqual(first.id, second.id);
      // The Undo named the Follow that was accepted.
      const undone = undo.object as { id?: string } | string;
      assert.equal(typeof undone === "string" ? undone : undone.id, first.id);
    } finally {
      await peer.stop();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "withdrawing trust undoes our Follow and stops trusting the actor; unknown actors are 404, anonymous calls 401",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const server = await startServerProcess(dir, env);
    const peer = await startPeer("mobilizon");
    try {
      const token = await loginAt(server.base, {
        email: env.ADMIN_EMAIL,
        password: env.ADMIN_PASSWORD,
      });
      const actorRow = async () => {
        const { body } = await api(server.base, "GET", "/api/ap_actors", token);
        const list = (Array.isArray(body) ? body : body.data ?? []) as {
          ap_id: string;
          following: boolean;
          trusted: boolean;
        }[];
        return list.find((a) => a.ap_id === peer.actorId);
      };
      const trusted = await api(
        server.base,
        "POST",
        "/api/ap_actors/add_trust",
        token,
        { url: peer.actorId },
      );
      assert.equal(trusted.status, 200);
      await eventually(
        "following",
        async () => (await actorRow())?.following || undefined,
      );
      const follow = peer.received.find((a) => a.type === "Follow")!;

      const removed = await api(
        server.base,
        "POST",
        "/api/ap_actors/remove_trust",
        token,
        { ap_id: peer.actorId },
      );
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.equal(removed.body.trusted, false);
      assert.equal(removed.body.following, false);
      const undo = await eventually(
        "the Undo",
        () => peer.received.find((a) => a.type === "Undo"),
      );
      const undone = undo.object as { id?: string } | string;
      assert.equal(typeof undone === "string" ? undone : undone.id, follow.id);
      const row = await actorRow();
      assert.equal(row?.trusted, false);
      assert.equal(row?.following, false);

      const unknown = await api(
        server.base,
        "POST",
        "/api/ap_actors/remove_trust",
        token,
        { ap_id: "https://nowhere.example/users/x" },
      );
      assert.equal(unknown.status, 404);
      assert.equal(typeof unknown.body.error, "string");
      const anonymous = await api(
        server.base,
        "POST",
        "/api/ap_actors/remove_trust",
        undefined,
        { ap_id: peer.actorId },
      );
      assert.equal(anonymous.status, 401);
    } finally {
      await peer.stop();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
