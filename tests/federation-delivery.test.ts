/**
 * Delivery guarantees and inbox rules against the real server: a delivery
 * queued while the remote inbox is down survives a restart and arrives once;
 * forged actors are refused; only an event's author may delete it.
 */
import assert from "node:assert/strict";
import { Create, Delete, Follow, Like, Tombstone } from "@fedify/vocab";
import { startPeer } from "./fedpeer.ts";
import {
  apiAt as api,
  eventually,
  freePort,
  loginAt,
  startServerProcess,
} from "./helpers.ts";

const ADMIN = { email: "admin@example.org", password: "admin-password-1" };
const env = {
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
  ALLOW_PRIVATE_ADDRESSES: "true",
  // Failed deliveries and their retries in the servers' logs, for a failure's
  // message.
  LOG_LEVEL: "info",
};

const future = () => Math.floor(Date.now() / 1000) + 7 * 86_400;

Deno.test({
  name:
    "a delivery queued while the remote inbox is down survives a restart and arrives exactly once",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const port = freePort();
    let server = await startServerProcess(dir, env, port);
    const peer = await startPeer("bob");
    try {
      const actor = `${server.base}/federation/u/relay`;
      // The peer follows the instance and is accepted.
      await peer.send(
        actor,
        new Follow({
          id: new URL(`${peer.base}/follows/1`),
          actor: new URL(peer.actorId),
          object: new URL(actor),
        }),
      );
      await eventually(
        "the Accept",
        () => peer.received.some((a) => a.type === "Accept") || undefined,
      );

      // The peer goes down; an event is published.
      await peer.stop();
      const token = await loginAt(server.base, ADMIN);
      const created = await api(server.base, "POST", "/api/events", token, {
        title: "Survives restarts",
        start_datetime: future(),
        place_name: "Hall",
      });
      assert.equal(created.status, 201);
      const objectId = `${server.base}/federation/m/${created.body.id}`;
      // Let the first attempt fail, then restart the server.
      await new Promise((r) => setTimeout(r, 1500));
      const firstLog = await server.stop();
      server = await startServerProcess(dir, env, port);

      // The peer comes back: the Create arrives, once.
      peer.restart();
      const isOurCreate = (a: Record<string, unknown>) =>
        a.type === "Create" &&
        (a.object as { id?: string } | undefined)?.id === objectId;
      try {
        await eventually(
          "the Create after the restart",
          () => peer.received.some(isOurCreate) || undefined,
          60_000,
        );
      } catch (error) {
        // Rare under a loaded machine (once in many full runs): what both
        // servers logged and what the peer got say where the delivery stuck.
        const types = peer.received.map((a) => a.type).join(", ");
        throw new Error(
          `${error}\npeer received: ${types}\nfirst server:\n${firstLog}\n` +
            `second server:\n${await server.stop()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(peer.received.filter(isOurCreate).length, 1);
    } finally {
      await peer.stop();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "forged actors are refused and only an event's author may delete it on the receiving side",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dirA = await Deno.makeTempDir();
    const dirB = await Deno.makeTempDir();
    const a = await startServerProcess(dirA, env);
    const b = await startServerProcess(dirB, env);
    const mallory = await startPeer("mallory");
    try {
      const tokenA = await loginAt(a.base, ADMIN);
      const tokenB = await loginAt(b.base, ADMIN);
      const actorA = `${a.base}/federation/u/relay`;
      const actorB = `${b.base}/federation/u/relay`;
      // B trusts and follows both A and mallory (who accepts at once).
      for (const url of [actorA, mallory.actorId]) {
        const r = await api(
          b.base,
          "POST",
          "/api/ap_actors/add_trust",
          tokenB,
          {
            url,
          },
        );
        assert.equal(r.status, 200);
      }
      await eventually("B follows both", async () => {
        const { body } = await api(
          b.base,
          "GET",
          "/api/ap_actors",
          tokenB,
        );
        const list = body.data as { ap_id: string; following: boolean }[];
        return list.filter((x) => x.following).length === 2 || undefined;
      });
      const created = await api(a.base, "POST", "/api/events", tokenA, {
        title: "Owned by A",
        start_datetime: future(),
        place_name: "Hall",
      });
      const apId = `${a.base}/federation/m/${created.body.id}`;
      await eventually(
        "the event on B",
        async () =>
          (await api(b.base, "GET", "/api/events/1")).status === 200 ||
          undefined,
      );

      // Mallory, trusted and followed too, deletes A's event: ignored.
      await mallory.send(
        actorB,
        new Delete({
          id: new URL(`${mallory.base}/deletes/1`),
          actor: new URL(mallory.actorId),
          object: new Tombstone({ id: new URL(apId) }),
        }),
      );
      // Mallory's Create of an Event claiming A's id is ignored too.
      await mallory.send(
        actorB,
        new Create({
          id: new URL(`${mallory.base}/creates/1`),
          actor: new URL(mallory.actorId),
          object: new URL(apId),
        }),
      );
      await new Promise((r) => setTimeout(r, 2000));
      const still = await api(b.base, "GET", "/api/events/1");
      assert.equal(still.status, 200);
      assert.equal(still.body.title, "Owned by A");
      assert.equal(still.body.apUserApId, actorA);

      // An activity whose actor is not the signer is refused.
      await assert.rejects(mallory.send(
        actorB,
        new Like({
          id: new URL(`${mallory.base}/likes/forged`),
          actor: new URL(actorA),
          object: new URL(apId),
        }),
      ));
      const before =
        (await api(a.base, "GET", `/api/events/${created.body.id}`))
          .body;
      assert.deepEqual(before.likes, []);
    } finally {
      await mallory.stop();
      await a.stop();
      await b.stop();
      await Deno.remove(dirA, { recursive: true });
      await Deno.remove(dirB, { recursive: true });
    }
  },
});
