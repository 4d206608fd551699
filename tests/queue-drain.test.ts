/**
 * The libSQL queue without long-lived loops (Workers): manual mode, where
 * `listen` only registers the handler and `drainListening` does the work
 * within a budget; and the polling listener's wake-ups for retries it
 * scheduled itself, which let it poll a remote database only once a minute.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { type Database, migrateDatabase, openDatabase } from "../db/client.ts";
import { FixedClock } from "../lib/clock.ts";
import { createLibsqlMessageQueue } from "../lib/federation/store/queue.ts";
import { silentLogger } from "../lib/log.ts";

async function openMigrated(): Promise<Database> {
  const database = await openDatabase(":memory:");
  await migrateDatabase(database);
  return database;
}

async function rowCount(database: Database): Promise<number> {
  const [row] = await database.db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM fedify_queue`,
  );
  return row.n;
}

Deno.test("drain mode: listen never polls; drainListening handles what is ready, within its budget", async () => {
  const database = await openMigrated();
  const mq = createLibsqlMessageQueue(database.db, {
    manual: true,
    logger: silentLogger,
  });
  try {
    await assert.rejects(
      () => mq.drainListening({ maxMs: 1000 }),
      /running listen/,
    );
    const got: unknown[] = [];
    const stop = new AbortController();
    const listening = mq.listen((m) => void got.push(m), {
      signal: stop.signal,
    });
    assert.equal(mq.hasLocalWork(), false);
    await mq.enqueue({ n: 1 });
    await mq.enqueueMany([{ n: 2 }, { n: 3 }, { n: 4 }]);
    // Nothing happens on its own.
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(got, []);
    assert.equal(mq.hasLocalWork(), true);

    assert.equal(await mq.drainListening({ maxMs: 5000, maxMessages: 2 }), 2);
    assert.equal(mq.hasLocalWork(), false);
    assert.equal(got.length, 2);
    assert.equal(await rowCount(database), 2);
    assert.equal(await mq.drainListening({ maxMs: 5000 }), 2);
    assert.deepEqual(
      (got as { n: number }[]).map((m) => m.n).sort(),
      [1, 2, 3, 4],
    );
    assert.equal(await rowCount(database), 0);
    assert.equal(await mq.drainListening({ maxMs: 5000 }), 0);

    // A handler that enqueues (Fedify's fan-out) gets its work drained too.
    const chained: number[] = [];
    stop.abort();
    await listening;
    const stop2 = new AbortController();
    const listening2 = mq.listen(async (m: { n: number }) => {
      chained.push(m.n);
      if (m.n < 3) await mq.enqueue({ n: m.n + 1 });
    }, { signal: stop2.signal });
    await mq.enqueue({ n: 1 });
    assert.equal(await mq.drainListening({ maxMs: 5000 }), 3);
    assert.deepEqual(chained, [1, 2, 3]);
    stop2.abort();
    await listening2;
  } finally {
    database.close();
  }
});

Deno.test("drain mode: a retry due within the budget is waited for; one due later is left", async () => {
  const database = await openMigrated();
  const mq = createLibsqlMessageQueue(database.db, {
    manual: true,
    logger: silentLogger,
  });
  const stop = new AbortController();
  const seen: string[] = [];
  const listening = mq.listen((m: { id: string }) => void seen.push(m.id), {
    signal: stop.signal,
  });
  try {
    await mq.enqueue({ id: "soon" }, {
      delay: Temporal.Duration.from({ milliseconds: 300 }),
    });
    await mq.enqueue({ id: "later" }, {
      delay: Temporal.Duration.from({ seconds: 30 }),
    });
    const started = performance.now();
    assert.equal(await mq.drainListening({ maxMs: 2000 }), 1);
    const took = performance.now() - started;
    assert.deepEqual(seen, ["soon"]);
    assert.ok(took >= 250 && took < 1500, `took ${took} ms`);
    assert.equal(await rowCount(database), 1);
  } finally {
    stop.abort();
    await listening;
    database.close();
  }
});

Deno.test("drain mode: a drainer that dies mid-message loses nothing; the message is handled once after its lease", async () => {
  const database = await openMigrated();
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const leaseMs = 60_000;
  const dying = createLibsqlMessageQueue(database.db, {
    manual: true,
    clock,
    leaseMs,
    logger: silentLogger,
  });
  const stopDying = new AbortController();
  // The isolate stops inside the handler: it never returns.
  let claimedByDying = 0;
  void dying.listen(() => {
    claimedByDying++;
    return new Promise<void>(() => {});
  }, { signal: stopDying.signal });
  await dying.enqueue({ id: "delivery" });
  void dying.drainListening({ maxMs: 100 });
  const deadline = Date.now() + 2000;
  while (claimedByDying === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(claimedByDying, 1);

  const handled: unknown[] = [];
  const next = createLibsqlMessageQueue(database.db, {
    manual: true,
    clock,
    leaseMs,
    logger: silentLogger,
  });
  const stop = new AbortController();
  const listening = next.listen((m) => void handled.push(m), {
    signal: stop.signal,
  });
  try {
    // Still leased: nobody else takes it.
    assert.equal(await next.drainListening({ maxMs: 200 }), 0);
    clock.advance(leaseMs + 1);
    assert.equal(await next.drainListening({ maxMs: 2000 }), 1);
    assert.deepEqual(handled, [{ id: "delivery" }]);
    assert.equal(await rowCount(database), 0);
    assert.equal(await next.drainListening({ maxMs: 200 }), 0);
  } finally {
    stop.abort();
    stopDying.abort();
    await listening;
    database.close();
  }
});

Deno.test("polling listener: a retry it enqueued wakes it when due, long before its next poll", async () => {
  const database = await openMigrated();
  const mq = createLibsqlMessageQueue(database.db, {
    pollIntervalMs: 60_000,
    logger: silentLogger,
  });
  const stop = new AbortController();
  const times: number[] = [];
  const listening = mq.listen(() => void times.push(performance.now()), {
    signal: stop.signal,
  });
  try {
    const started = performance.now();
    await mq.enqueue({ id: "retry" }, {
      delay: Temporal.Duration.from({ milliseconds: 400 }),
    });
    const deadline = Date.now() + 5000;
    while (times.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(times.length, 1, "the delayed message was not handled");
    const after = times[0] - started;
    assert.ok(after >= 350 && after < 3000, `handled after ${after} ms`);
  } finally {
    stop.abort();
    await listening;
    database.close();
  }
});
