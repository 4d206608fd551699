/**
 * Federation end to end: two Quando servers (separate databases) on loopback
 * ports, plus a Mastodon-like test peer, talking through their HTTP APIs and
 * inboxes with real signatures and the persistent delivery queue.
 */
import assert from "node:assert/strict";
import { Create, Delete, Like, Note, Tombstone, Undo } from "@fedify/vocab";
import { startPeer } from "./fedpeer.ts";
import {
  apiAt as api,
  eventually,
  loginAt,
  startServerProcess,
} from "./helpers.ts";

const ADMIN = { email: "admin@example.org", password: "admin-password-1" };

type Actor = { ap_id: string; following: boolean; follower: boolean };
type Event = Record<string, unknown> & { id: number; title: string };

async function actorOn(base: string, token: string, apId: string) {
  const { body } = await api(base, "GET", "/api/ap_actors?pageSize=100", token);
  return (body as { data: Actor[] }).data.find((a) => a.ap_id === apId);
}

const env = {
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  ALLOW_PRIVATE_ADDRESSES: "true",
};

const future = () => Math.floor(Date.now() / 1000) + 7 * 86_400;

Deno.test({
  name:
    "two instances federate: trust and follow, events created, updated and deleted, likes, replies, blocks",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dirA = await Deno.makeTempDir();
    const dirB = await Deno.makeTempDir();
    const a = await startServerProcess(dirA, env);
    const b = await startServerProcess(dirB, env);
    const peer = await startPeer("alice");
    try {
      const tokenA = await loginAt(a.base, ADMIN);
      const tokenB = await loginAt(b.base, ADMIN);
      const actorA = `${a.base}/federation/u/relay`;
      const actorB = `${b.base}/federation/u/relay`;

      // B's admin trusts A's actor by URL: B follows A, A accepts.
      const trusted = await api(
        b.base,
        "POST",
        "/api/ap_actors/add_trust",
        tokenB,
        {
          url: actorA,
        },
      );
      assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
      assert.equal(
        (trusted.body as Actor & { trusted: boolean }).trusted,
        true,
      );
      await eventually(
        "B follows A",
        async () =>
          (await actorOn(b.base, tokenB, actorA))?.following || undefined,
      );
      await eventually(
        "A lists B as follower",
        async () =>
          (await actorOn(a.base, tokenA, actorB))?.follower || undefined,
      );
      const followers = await fetch(`${actorA}/followers`, {
        headers: { accept: "application/activity+json" },
      });
      assert.equal((await followers.json()).totalItems, 1);

      // An event created on A arrives on B as a remote event.
      const created = await api(a.base, "POST", "/api/events", tokenA, {
        title: "Federated picnic",
        start_datetime: future(),
        end_datetime: future() + 3600,
        place_name: "Riverside park",
        place_address: "1 River Road",
        tags: ["Outdoors"],
        description: "<p>Bring <b>food</b></p>",
      });
      assert.equal(created.status, 201);
      const eventA = created.body as Event;
      const apId = `${a.base}/federation/m/${eventA.id}`;
      // B has no local events, so the first remote event is id 1.
      const remote = await eventually("the event on B", async () => {
        const r = await api(b.base, "GET", "/api/events/1", tokenB);
        return r.status === 200 ? r.body as Event : undefined;
      });
      assert.equal(remote.title, "Federated picnic");
      assert.equal(remote.ap_id, apId);
      assert.equal(remote.apUserApId, actorA);
      assert.equal((remote.place as { name: string }).name, "Riverside park");
      assert.equal(
        (remote.place as { address: string }).address,
        "1 River Road",
      );
      assert.deepEqual(
        (remote.tags as { tag: string }[]).map((t) => t.tag),
        ["Outdoors"],
      );
      assert.match(String(remote.description), /<b>food<\/b>/);
      assert.equal(typeof remote.ap_object, "object");

      // Editing it on A updates it on B.
      const edited = await api(
        a.base,
        "PATCH",
        `/api/events/${eventA.id}`,
        tokenA,
        {
          title: "Federated picnic (moved)",
          status: "EventPostponed",
        },
      );
      assert.equal(edited.status, 200);
      await eventually("the update on B", async () => {
        const r = await api(b.base, "GET", "/api/events/1", tokenB);
        const e = r.body as Event;
        return e.title === "Federated picnic (moved)" &&
            e.status === "EventPostponed"
          ? true
          : undefined;
      });

      // A Like and an Undo Like are counted and uncounted on A.
      const like = new Like({
        id: new URL(`${peer.base}/likes/1`),
        actor: new URL(peer.actorId),
        object: new URL(apId),
      });
      await peer.send(actorA, like);
      await eventually("the like on A", async () => {
        const r = await api(a.base, "GET", `/api/events/${eventA.id}`);
        return (r.body as Event & { likes: string[] }).likes.includes(
            peer.actorId,
          )
          ? true
          : undefined;
      });
      await peer.send(actorA, like); // a second Like counts once
      await peer.send(
        actorA,
        new Undo({
          id: new URL(`${peer.base}/likes/1/undo`),
          actor: new URL(peer.actorId),
          object: like,
        }),
      );
      await eventually("the like removed on A", async () => {
        const r = await api(a.base, "GET", `/api/events/${eventA.id}`);
        return (r.body as Event & { likes: string[] }).likes.length === 0
          ? true
          : undefined;
      });

      // A Note replying to A's event becomes a Resource; its Delete removes it.
      const note = new Note({
        id: new URL(`${peer.base}/notes/1`),
        attribution: new URL(peer.actorId),
        content: "<p>See you there! <script>alert(1)</script></p>",
        replyTarget: new URL(apId),
        to: new URL("https://www.w3.org/ns/activitystreams#Public"),
      });
      await peer.send(
        actorA,
        new Create({
          id: new URL(`${peer.base}/notes/1/create`),
          actor: new URL(peer.actorId),
          object: note,
        }),
      );
      const resource = await eventually("the resource on A", async () => {
        const r = await api(a.base, "GET", `/api/events/${eventA.id}`);
        return (r.body as Event & {
          resources: { data: { content: string } }[];
        })
          .resources[0];
      });
      assert.match(resource.data.content, /See you there!/);
      assert.doesNotMatch(resource.data.content, /<script/);
      await peer.send(
        actorA,
        new Delete({
          id: new URL(`${peer.base}/notes/1/delete`),
          actor: new URL(peer.actorId),
          object: new Tombstone({ id: new URL(`${peer.base}/notes/1`) }),
        }),
      );
      await eventually("the resource removed on A", async () => {
        const r = await api(a.base, "GET", `/api/events/${eventA.id}`);
        return (r.body as Event & { resources: unknown[] }).resources.length ===
            0
          ? true
          : undefined;
      });

      // Deleting it on A removes it from B.
      assert.equal(
        (await api(a.base, "DELETE", `/api/events/${eventA.id}`, tokenA))
          .status,
        204,
      );
      await eventually(
        "the deletion on B",
        async () =>
          (await api(b.base, "GET", "/api/events/1", tokenB)).status === 404
            ? true
            : undefined,
      );

      // After A blocks B's actor and the peer, their activities are refused
      // and B no longer receives deliveries.
      for (const target of [actorB, peer.actorId]) {
        if (target === peer.actorId) {
          // A knows the peer once it has sent something.
          assert.ok(await actorOn(a.base, tokenA, target));
        }
        const blocked = await api(
          a.base,
          "PUT",
          "/api/ap_actors/toggle_block",
          tokenA,
          { ap_id: target },
        );
        assert.equal(blocked.status, 200);
        assert.equal((blocked.body as { blocked: boolean }).blocked, true);
      }
      await assert.rejects(peer.send(
        actorA,
        new Like({
          id: new URL(`${peer.base}/likes/2`),
          actor: new URL(peer.actorId),
          object: new URL(apId),
        }),
      ));
      const second = await api(a.base, "POST", "/api/events", tokenA, {
        title: "Not for B",
        start_datetime: future(),
        place_name: "Riverside park",
      });
      assert.equal(second.status, 201);
      // A third event on a fresh, unblocked path shows the queue is moving.
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(
        (await api(b.base, "GET", "/api/events/2", tokenB)).status,
        404,
      );
    } finally {
      await peer.stop();
      await a.stop();
      await b.stop();
      await Deno.remove(dirA, { recursive: true });
      await Deno.remove(dirB, { recursive: true });
    }
  },
});
