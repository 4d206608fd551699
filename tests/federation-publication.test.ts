/**
 * An event write queues its federation in its own batch (a `quando:publish`
 * row of the delivery queue), so the change and its publication commit
 * together. On an embedded database the writer publishes before answering;
 * on a remote one (deferred) the queue does it after the response. Either
 * way a writer that dies in between loses nothing: the queued row is
 * published later, once.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client.ts";
import { getSettings, updateSettings } from "../lib/settings.ts";
import { createEvent as writeEvent } from "../lib/events/write.ts";
import { runScheduledJobs } from "../lib/jobs.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { startReceiver } from "./bench/receiver.ts";
import { addFollower } from "./support/roundtrips.ts";
import {
  call,
  createTestApp,
  createTestUser,
  eventually,
  loginToken,
  postEvent,
  type TestAppOptions,
  type TestContext,
} from "./helpers.ts";

interface QueuedRow {
  id: number;
  type: string | null;
  availableAt: number;
}

async function queued(ctx: TestContext): Promise<QueuedRow[]> {
  return await ctx.database.db.all<QueuedRow>(sql`
    SELECT id, json_extract(message, '$.type') AS type, availableAt
    FROM fedify_queue ORDER BY id`);
}

async function publications(ctx: TestContext): Promise<QueuedRow[]> {
  return (await queued(ctx)).filter((r) => r.type === "quando:publish");
}

function app(
  federation: TestAppOptions["federation"],
  database?: TestContext["database"],
) {
  return createTestApp({
    database,
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    // The queue's clock is the system's: "now" is real time here.
    now: new Date().toISOString(),
    federation,
  });
}

/** Runs `fn` on an app whose queue runs, then stops the queue and closes the app. */
async function withQueue(
  federation: TestAppOptions["federation"],
  fn: (ctx: TestContext) => Promise<void>,
  database?: TestContext["database"],
): Promise<void> {
  const ctx = await app(federation, database);
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await fn(ctx);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
  }
}

/** A follower delivering to `inbox`, and a user's login token. */
async function followedInstance(ctx: TestContext, inbox: string) {
  await addFollower(ctx, inbox);
  const user = await createTestUser(ctx);
  const token = await loginToken(ctx, user.email, user.password);
  return { user, token };
}

function createEvent(
  ctx: TestContext,
  token: string,
  title = "Concert",
): Promise<{ id: number; ap_object: unknown }> {
  const start = Math.floor(Date.now() / 1000) + 86_400;
  return postEvent(ctx, token, {
    title,
    start_datetime: start,
    end_datetime: start + 3600,
    place_name: "Library",
    place_address: undefined,
  });
}

async function apObject(ctx: TestContext, id: number): Promise<unknown> {
  const res = await call(ctx, "GET", `/api/events/${id}`);
  assert.equal(res.status, 200);
  return (await res.json()).ap_object;
}

/** The activity ids the receiver got, in any order. */
function received(receiver: ReturnType<typeof startReceiver>): string[] {
  return [...receiver.perDelivery.entries()].flatMap(([key, n]) =>
    Array(n).fill(key.split(" ")[1])
  );
}

Deno.test("deferred publication: the write answers with its publication queued in the same batch; the drain after it sends the Create once", async () => {
  const receiver = startReceiver();
  try {
    await withQueue(
      { deferPublication: true, manualQueue: true },
      async (ctx) => {
        const { token } = await followedInstance(ctx, receiver.inboxUrl(0));
        const event = await createEvent(ctx, token);
        // Nothing was published in the request: the row waits for the queue.
        assert.equal(event.ap_object, null);
        const rows = await publications(ctx);
        assert.equal(rows.length, 1);
        assert.ok(Math.abs(rows[0].availableAt - Date.now()) < 10_000);
        assert.equal(ctx.federation.hasQueuedWork(), true);
        assert.deepEqual(received(receiver), []);

        await ctx.federation.drainQueue({ maxMs: 10_000 });
        assert.deepEqual(await queued(ctx), []);
        const ids = received(receiver);
        assert.equal(ids.length, 1, ids.join());
        assert.match(
          ids[0],
          new RegExp(`/federation/m/${event.id}#create-\\d+$`),
        );
        const object = await apObject(ctx, event.id) as { id: string };
        assert.equal(object.id.endsWith(`/federation/m/${event.id}`), true);

        // A hidden event is not on the fediverse: nothing is queued for it.
        const start = Math.floor(Date.now() / 1000) + 86_400;
        const hidden = await call(ctx, "POST", "/api/events", {
          token,
          json: {
            title: "Draft",
            start_datetime: start,
            place_name: "Library",
            is_visible: false,
          },
        });
        assert.equal(hidden.status, 201);
        assert.deepEqual(await publications(ctx), []);
      },
    );
  } finally {
    await receiver.close();
  }
});

Deno.test("deferred publication: an isolate that dies before draining loses nothing; another drains its publications once, in order", async () => {
  const receiver = startReceiver();
  const first = await app({ deferPublication: true, manualQueue: true });
  const stop = new AbortController();
  let second: TestContext | null = null;
  try {
    const { token } = await followedInstance(first, receiver.inboxUrl(0));
    const event = await createEvent(first, token);
    const put = await call(first, "PATCH", `/api/events/${event.id}`, {
      token,
      json: { title: "Concert (moved)" },
    });
    assert.equal(put.status, 200);
    // The first isolate ends here without draining. Another one, over the
    // same database, finds the publications.
    assert.equal((await publications(first)).length, 2);
    second = await app(
      { deferPublication: true, manualQueue: true },
      first.database,
    );
    const queue = second.federation.startQueue(stop.signal);
    await second.federation.drainQueue({ maxMs: 10_000 });
    await second.federation.drainQueue({ maxMs: 1_000 });
    stop.abort();
    await queue;
    const ids = received(receiver);
    assert.equal(ids.length, 2, ids.join());
    assert.match(ids[0], /#create-\d+$/);
    assert.match(ids[1], /#update-\d+$/);
    assert.deepEqual(await queued(second), []);
  } finally {
    stop.abort();
    first.close();
    await receiver.close();
  }
});

Deno.test("embedded database: the writer publishes before answering and settles its queued row; a writer that died leaves it to the queue after the grace", async () => {
  const receiver = startReceiver();
  try {
    // Embedded whatever the test database (QUANDO_TEST_DATABASE=hrana).
    const embedded = await openDatabase(":memory:");
    await withQueue({}, async (ctx) => {
      const { user, token } = await followedInstance(
        ctx,
        receiver.inboxUrl(0),
      );
      const event = await createEvent(ctx, token);
      // Published before the answer was sent.
      assert.notEqual(await apObject(ctx, event.id), null);
      assert.deepEqual(await publications(ctx), []);
      assert.equal(
        await receiver.whenAllReceived(
          `http://quando.test/federation/m/${event.id}#create-`,
          1,
          10_000,
        ),
        true,
      );

      // A writer that dies right after its batch: the write and its queued
      // publication are committed, the publication itself never ran.
      const settings = await getSettings(ctx.database.db);
      const start = Math.floor(Date.now() / 1000) + 86_400;
      const written = await writeEvent(
        {
          db: ctx.database.db,
          clock: ctx.clock,
          settings,
          publication: ctx.federation.publicationWrite(settings)!,
        },
        user.user,
        { title: "Orphan", start_datetime: start, place_name: "Library" },
      );
      assert.ok(written.publication);
      const [row] = await publications(ctx);
      assert.equal(row.id, written.publication.id);
      // Not before the grace: a live writer is still publishing it.
      assert.ok(row.availableAt > Date.now() + 50_000);
      // The grace is over (as if a minute had passed).
      await ctx.database.db.run(
        sql`UPDATE fedify_queue SET availableAt = ${Date.now()} WHERE id = ${row.id}`,
      );
      assert.equal(
        await receiver.whenAllReceived(
          `http://quando.test/federation/m/${written.id}#create-`,
          1,
          10_000,
        ),
        true,
      );
      assert.notEqual(await apObject(ctx, written.id), null);
      assert.equal(
        received(receiver).filter((id) => id.includes("#create-")).length,
        2,
      );
    }, embedded);
  } finally {
    await receiver.close();
  }
});

/** An inbox on loopback that keeps the raw JSON bodies posted to it. */
function startRawInbox() {
  const bodies: Record<string, unknown>[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 404 });
      bodies.push(await request.json());
      return new Response(null, { status: 202 });
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    inbox: `http://127.0.0.1:${port}/inbox`,
    bodies,
    close: () => server.shutdown(),
  };
}

Deno.test('a deleted event is sent as Delete of a Tombstone whose formerType is "Event"', async () => {
  const peer = startRawInbox();
  try {
    await withQueue({}, async (ctx) => {
      const { token } = await followedInstance(ctx, peer.inbox);
      const event = await createEvent(ctx, token);
      const res = await call(ctx, "DELETE", `/api/events/${event.id}`, {
        token,
      });
      assert.equal(res.status, 204);
      const deletion = await eventually(
        "the Delete",
        () => peer.bodies.find((b) => b.type === "Delete"),
      );
      const object = deletion.object as Record<string, unknown>;
      assert.equal(object.type, "Tombstone");
      // The plain "Event" Gancio compares with (Fedify's serialisation
      // would write "as:Event"): the activity is delivered as we write it.
      assert.equal(object.formerType, "Event");
      assert.match(String(object.id), new RegExp(`/federation/m/${event.id}$`));
    });
  } finally {
    await peer.close();
  }
});

Deno.test("the hourly job announces the occurrences that came into a series' horizon, a Create each, and nothing else; the extension's far ones wait", async () => {
  const receiver = startReceiver();
  try {
    await withQueue({}, async (ctx) => {
      const { token } = await followedInstance(ctx, receiver.inboxUrl(0));
      const start = Math.floor(Date.now() / 1000) + 3600;
      const res = await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title: "Weekly choir",
          start_datetime: start,
          end_datetime: start + 3600,
          place_name: "Hall",
          recurrent: { frequency: "1w" },
        },
      });
      assert.equal(res.status, 201);
      const series = await res.json();
      assert.equal(series.children.length, 13);
      const creates = () =>
        received(receiver).filter((id) => id.includes("#create-"));
      // Within the 14 days of the horizon: today's and next week's.
      await eventually(
        "the first occurrences' Creates",
        () => creates().length === 2 || undefined,
      );
      // Two occurrences at the end of the 90 days are missing (as if the
      // layout had moved on), and the horizon grows to 4 weeks.
      const last = (series.children as { id: number }[]).slice(-2).map((c) =>
        c.id
      );
      await ctx.database.db.run(
        sql`DELETE FROM events WHERE id IN (${last[0]}, ${last[1]})`,
      );
      await updateSettings(ctx.database.db, ctx.clock, {
        federation_series_horizon_days: 28,
      });
      const jobs = await runScheduledJobs({
        db: ctx.database.db,
        clock: ctx.clock,
        log: silentLogger,
        media: createDbMediaStore(ctx.database.db, ctx.clock),
        federation: ctx.federation,
      });
      // Laid out again, not announced (far ahead); the dates of days 14 and 21 are.
      assert.equal(jobs.occurrencesCreated, 2);
      assert.equal(jobs.occurrencesAnnounced, 2);
      assert.deepEqual(jobs.failed, []);
      await eventually(
        "the new occurrences' Creates",
        () => creates().length === 4 || undefined,
      );
      // Give a wrong Update of the old occurrences, or a second Create, the time to show.
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        creates().map((id) => id.split("#")[0]).sort(),
        (series.children as { id: number }[]).slice(0, 4).map((c) =>
          `http://quando.test/federation/m/${c.id}`
        ).sort(),
      );
      assert.deepEqual(
        received(receiver).filter((id) => !id.includes("#create-")),
        [],
      );
      assert.deepEqual(await publications(ctx), []);
    });
  } finally {
    await receiver.close();
  }
});
