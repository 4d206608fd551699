/**
 * A peer that reuses one Follow id (Gancio does: one id per target) can
 * follow again after an Undo: the repeated id is handled, not dropped as a
 * replay, and the peer is a follower again.
 */
import assert from "node:assert/strict";
import { Follow, Undo } from "@fedify/vocab";
import { startPeer } from "./fedpeer.ts";
import { eventually, startServerProcess } from "./helpers.ts";

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
