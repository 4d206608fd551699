/** Fedify KvStore and MessageQueue over libSQL: Fedify's own queue suite, TTLs, CAS, restarts, leases. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testMessageQueue } from "@fedify/testing";
import { sql } from "drizzle-orm";
import { type Database, migrateDatabase, openDatabase } from "../db/client.ts";
import { FixedClock } from "../lib/clock.ts";
import { createLibsqlKvStore } from "../lib/federation/store/kv.ts";
import { createLibsqlMessageQueue } from "../lib/federation/store/queue.ts";
import { silentLogger } from "../lib/log.ts";

async function openMigrated(url = ":memory:"): Promise<Database> {
  const database = await openDatabase(url);
  await migrateDatabase(database);
  return database;
}

/** Polls until `predicate` holds (real time), failing after `timeoutMs`. */
async function until(predicate: () => boolean, timeoutMs = 5000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function queueRows(database: Database) {
  return await database.db.all<{
    id: number;
    message: string;
    lockedUntil: number | null;
    attempts: number;
    availableAt: number;
  }>(
    sql`SELECT id, message, lockedUntil, attempts, availableAt FROM fedify_queue ORDER BY id`,
  );
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

// ---------------------------------------------------------------------------
// Fedify's own conformance suite (real time, ~10 s: its steps wait seconds)
// ---------------------------------------------------------------------------

Deno.test("testMessageQueue passes over :memory: and over a file shared by two connections", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Both runs at once: each mostly sleeps, and together they fit the budget.
    await Promise.all([
      (async () => {
        // One in-memory database (a second :memory: connection would be a
        // different database), two queue instances over it.
        const database = await openMigrated();
        try {
          await testMessageQueue(
            () =>
              createLibsqlMessageQueue(database.db, { logger: silentLogger }),
            ({ controller }) => controller.abort(),
            { testOrderingKey: true },
          );
        } finally {
          database.close();
        }
      })(),
      (async () => {
        // Two connections to one file, like two processes: no in-process
        // wake-ups cross them, so this exercises polling and atomic claims.
        const url = `file:${join(dir, "suite.db")}`;
        (await openMigrated(url)).close();
        const databases: Database[] = [];
        try {
          await testMessageQueue(
            async () => {
              const database = await openDatabase(url);
              databases.push(database);
              return createLibsqlMessageQueue(database.db, {
                pollIntervalMs: 100,
                logger: silentLogger,
              });
            },
            ({ controller }) => controller.abort(),
            { testOrderingKey: true },
          );
        } finally {
          for (const database of databases) database.close();
        }
      })(),
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------
// KvStore
// ---------------------------------------------------------------------------

Deno.test("kv: get/set/delete and values of every JSON type", async () => {
  const database = await openMigrated();
  try {
    const kv = createLibsqlKvStore(database.db);
    assert.equal(await kv.get(["missing"]), undefined);
    const values: [string, unknown][] = [
      ["string", 'héllo "quoted" \u2603'],
      ["number", 42.5],
      ["zero", 0],
      ["true", true],
      ["false", false],
      ["null", null],
      ["array", [1, "two", { three: 3 }, [null]]],
      ["object", { b: 1, a: { nested: ["x"] }, "@context": "https://w3c" }],
      ["empty", {}],
    ];
    for (const [name, value] of values) await kv.set(["t", name], value);
    for (const [name, value] of values) {
      assert.deepEqual(await kv.get(["t", name]), value, name);
    }
    await kv.set(["t", "string"], "replaced");
    assert.equal(await kv.get(["t", "string"]), "replaced");
    await kv.delete(["t", "string"]);
    assert.equal(await kv.get(["t", "string"]), undefined);
    await kv.delete(["t", "never-there"]); // no error
    await kv.set(["t", "number"], undefined); // undefined = no value
    assert.equal(await kv.get(["t", "number"]), undefined);
  } finally {
    database.close();
  }
});

Deno.test("kv: ttl expires with the injected clock and expired rows are deleted lazily", async () => {
  const database = await openMigrated();
  try {
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const kv = createLibsqlKvStore(database.db, clock);
    await kv.set(["ttl"], { v: 1 }, {
      ttl: Temporal.Duration.from({ seconds: 10 }),
    });
    await kv.set(["forever"], 1);
    await kv.set(["day"], 1, { ttl: Temporal.Duration.from({ days: 1 }) });
    clock.advance(9_999);
    assert.deepEqual(await kv.get(["ttl"]), { v: 1 });
    clock.advance(1);
    assert.equal(await kv.get(["ttl"]), undefined);
    const left = await database.db.all<{ key: string }>(
      sql`SELECT key FROM fedify_kv ORDER BY key`,
    );
    assert.deepEqual(left.map((r) => r.key), ['["day"]', '["forever"]']);
    clock.advance(24 * 3600_000);
    assert.equal(await kv.get(["day"]), undefined);
    assert.equal(await kv.get(["forever"]), 1);
    // Setting again without ttl clears the expiry.
    await kv.set(["ttl"], 2, { ttl: Temporal.Duration.from({ seconds: 1 }) });
    await kv.set(["ttl"], 3);
    clock.advance(60_000);
    assert.equal(await kv.get(["ttl"]), 3);
  } finally {
    database.close();
  }
});

Deno.test("kv: cas succeeds only on a deep-equal current value, and treats expired as absent", async () => {
  const database = await openMigrated();
  try {
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const kv = createLibsqlKvStore(database.db, clock);
    assert.ok(kv.cas);
    // Absent -> value.
    assert.equal(await kv.cas(["c"], undefined, { a: 1, b: [1, 2] }), true);
    assert.equal(await kv.cas(["c"], undefined, "again"), false);
    // Key order of objects does not matter (canonical comparison).
    assert.equal(await kv.cas(["c"], { b: [1, 2], a: 1 }, { n: 2 }), true);
    assert.deepEqual(await kv.get(["c"]), { n: 2 });
    assert.equal(await kv.cas(["c"], { n: 1 }, { n: 3 }), false);
    assert.equal(await kv.cas(["c"], { n: 2, extra: true }, { n: 3 }), false);
    assert.deepEqual(await kv.get(["c"]), { n: 2 });
    // Primitive types must match exactly: 1 is not "1".
    await kv.set(["p"], 1);
    assert.equal(await kv.cas(["p"], "1", 2), false);
    assert.equal(await kv.cas(["p"], 1, 2), true);
    // Value -> absent.
    assert.equal(await kv.cas(["p"], 2, undefined), true);
    assert.equal(await kv.get(["p"]), undefined);
    // An expired value counts as absent, and cas can set a ttl.
    await kv.set(["e"], "old", { ttl: Temporal.Duration.from({ seconds: 5 }) });
    assert.equal(await kv.cas(["e"], undefined, "new"), false);
    clock.advance(5_000);
    assert.equal(await kv.cas(["e"], "old", "x"), false);
    assert.equal(
      await kv.cas(["e"], undefined, "new", {
        ttl: Temporal.Duration.from({ seconds: 5 }),
      }),
      true,
    );
    assert.equal(await kv.get(["e"]), "new");
    clock.advance(5_000);
    assert.equal(await kv.get(["e"]), undefined);
    // Concurrent cas on one counter: every increment lands exactly once.
    await kv.set(["counter"], 0);
    const cas = kv.cas.bind(kv);
    await Promise.all(Array.from({ length: 10 }, async () => {
      while (true) {
        const current = await kv.get<number>(["counter"]);
        if (await cas(["counter"], current, (current ?? 0) + 1)) return;
      }
    }));
    assert.equal(await kv.get(["counter"]), 10);
  } finally {
    database.close();
  }
});

Deno.test("kv: list by prefix matches whole key elements only", async () => {
  const database = await openMigrated();
  try {
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const kv = createLibsqlKvStore(database.db, clock);
    await kv.set(["a"], 0);
    await kv.set(["a", "b"], 1);
    await kv.set(["a", "b", "c"], 2);
    await kv.set(["a", "b", "d", "e"], 3);
    await kv.set(["a", "bc"], 4);
    await kv.set(["a", 'b"', "x"], 5);
    await kv.set(["ab"], 6);
    await kv.set(["a", "b", "gone"], 7, {
      ttl: Temporal.Duration.from({ seconds: 1 }),
    });
    clock.advance(1_000);
    const collect = async (prefix?: [string, ...string[]]) => {
      const out: [string, unknown][] = [];
      for await (const { key, value } of kv.list(prefix)) {
        out.push([JSON.stringify(key), value]);
      }
      return out.sort();
    };
    assert.deepEqual(await collect(["a", "b"]), [
      ['["a","b","c"]', 2],
      ['["a","b","d","e"]', 3],
      ['["a","b"]', 1],
    ]);
    assert.deepEqual(
      (await collect(["a"])).map(([k]) => k).sort(),
      [
        '["a","b\\"","x"]',
        '["a","b","c"]',
        '["a","b","d","e"]',
        '["a","b"]',
        '["a","bc"]',
        '["a"]',
      ].sort(),
    );
    assert.deepEqual(await collect(["a", "bc"]), [['["a","bc"]', 4]]);
    assert.deepEqual(await collect(["nothing"]), []);
    assert.equal((await collect()).length, 7);
    // Keys come back as arrays.
    for await (const entry of kv.list(["ab"])) {
      assert.deepEqual(entry.key, ["ab"]);
    }
    // More entries than one page.
    for (let i = 0; i < 600; i++) await kv.set(["many", String(i)], i);
    let n = 0;
    for await (const _ of kv.list(["many"])) n++;
    assert.equal(n, 600);
  } finally {
    database.close();
  }
});

// ---------------------------------------------------------------------------
// MessageQueue: persistence, failures, leases, concurrency
// ---------------------------------------------------------------------------

Deno.test("queue: a message enqueued before a restart arrives exactly once after it", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${join(dir, "restart.db")}`;
  try {
    const first = await openMigrated(url);
    try {
      const mq = createLibsqlMessageQueue(first.db, { logger: silentLogger });
      await mq.enqueue({ hello: "after restart" }, { orderingKey: "k" });
      await mq.enqueueMany([1, 2]);
    } finally {
      first.close();
    }

    const second = await openDatabase(url);
    const controller = new AbortController();
    try {
      const mq = createLibsqlMessageQueue(second.db, {
        pollIntervalMs: 20,
        logger: silentLogger,
      });
      const got: unknown[] = [];
      const listening = mq.listen((m) => {
        got.push(m);
      }, { signal: controller.signal });
      await until(() => got.length >= 3);
      await wait(100); // time for a duplicate to show up, if there were one
      controller.abort();
      await listening;
      assert.deepEqual(got, [{ hello: "after restart" }, 1, 2]);
      assert.deepEqual(await queueRows(second), []);
    } finally {
      controller.abort();
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("queue: a message whose handler threw is kept (across a restart) and retried with backoff", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${join(dir, "throw.db")}`;
  try {
    const first = await openMigrated(url);
    const controller = new AbortController();
    try {
      const mq = createLibsqlMessageQueue(first.db, {
        pollIntervalMs: 20,
        retryDelayMs: 60_000,
        logger: silentLogger,
      });
      await mq.enqueue("fragile");
      let calls = 0;
      const listening = mq.listen(() => {
        calls++;
        throw new Error("boom");
      }, { signal: controller.signal });
      await until(() => calls === 1);
      await wait(60);
      controller.abort();
      await listening;
      assert.equal(calls, 1); // backing off, not spinning
      const [row] = await queueRows(first);
      assert.equal(JSON.parse(row.message), "fragile");
      assert.equal(row.lockedUntil, null);
      assert.equal(row.attempts, 1);
      assert.ok(row.availableAt > Date.now() + 50_000);
      assert.deepEqual(await mq.getDepth(), {
        queued: 1,
        ready: 0,
        delayed: 1,
      });
    } finally {
      controller.abort();
      first.close();
    }

    // After a restart, once the backoff has passed, it is delivered.
    const second = await openDatabase(url);
    try {
      const clock = new FixedClock(Date.now() + 61_000);
      const mq = createLibsqlMessageQueue(second.db, {
        clock,
        logger: silentLogger,
      });
      const got: unknown[] = [];
      assert.equal(await mq.drain((m) => void got.push(m)), 1);
      assert.deepEqual(got, ["fragile"]);
      assert.deepEqual(await queueRows(second), []);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("queue: a failing message holds back its ordering key; maxAttempts drops a poison message", async () => {
  const database = await openMigrated();
  try {
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const mq = createLibsqlMessageQueue(database.db, {
      clock,
      retryDelayMs: 1000,
      maxAttempts: 3,
      logger: silentLogger,
    });
    await mq.enqueue("create", { orderingKey: "obj" });
    await mq.enqueue("delete", { orderingKey: "obj" });
    await mq.enqueue("other");
    const seen: string[] = [];
    let failCreate = true;
    const handler = (m: string) => {
      seen.push(m);
      if (m === "create" && failCreate) throw new Error("down");
    };
    // "create" fails; "delete" must wait behind it; "other" goes through.
    assert.equal(await mq.drain(handler), 2);
    assert.deepEqual(seen, ["create", "other"]);
    clock.advance(999);
    assert.equal(await mq.drain(handler), 0);
    clock.advance(1); // first backoff: 1 s
    failCreate = false;
    assert.equal(await mq.drain(handler), 2);
    assert.deepEqual(seen, ["create", "other", "create", "delete"]);

    // A message that always throws is retried (1 s, 2 s) and then dropped.
    await mq.enqueue("poison");
    const always = () => {
      throw new Error("always");
    };
    assert.equal(await mq.drain(always), 1);
    clock.advance(1000);
    assert.equal(await mq.drain(always), 1);
    clock.advance(1999);
    assert.equal(await mq.drain(always), 0);
    clock.advance(1);
    assert.equal(await mq.drain(always), 1);
    assert.deepEqual(await queueRows(database), []);
  } finally {
    database.close();
  }
});

Deno.test("queue: a crashed worker's message is redelivered once its lease runs out", async () => {
  const database = await openMigrated();
  const controller = new AbortController();
  const hang = deferred();
  try {
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const options = { clock, leaseMs: 60_000, logger: silentLogger };
    const worker = createLibsqlMessageQueue(database.db, {
      ...options,
      pollIntervalMs: 20,
    });
    const rescuer = createLibsqlMessageQueue(database.db, options);
    await worker.enqueue("job");
    // The worker claims the job and never finishes (a hung or dead process).
    let claimed = false;
    const listening = worker.listen(async () => {
      claimed = true;
      await hang.promise;
    }, { signal: controller.signal });
    await until(() => claimed);
    const got: unknown[] = [];
    assert.equal(await rescuer.drain((m) => void got.push(m)), 0);
    assert.deepEqual(await rescuer.getDepth(), {
      queued: 0,
      ready: 0,
      delayed: 0,
    });
    clock.advance(59_999);
    assert.equal(await rescuer.drain((m) => void got.push(m)), 0);
    clock.advance(1);
    assert.equal(await rescuer.drain((m) => void got.push(m)), 1);
    assert.deepEqual(got, ["job"]);
    assert.deepEqual(await queueRows(database), []);

    // A lease set by another process that died (no listener here at all).
    await rescuer.enqueue("orphan");
    const now = clock.now().getTime();
    await database.db.run(
      sql`UPDATE fedify_queue SET lockedUntil = ${now + 60_000}, attempts = 1`,
    );
    assert.equal(await rescuer.drain((m) => void got.push(m)), 0);
    clock.advance(60_000);
    assert.equal(await rescuer.drain((m) => void got.push(m)), 1);
    assert.deepEqual(got, ["job", "orphan"]);

    // The hung worker finally returns: abort resolves listen only then.
    controller.abort();
    let resolved = false;
    const done = listening.then(() => resolved = true);
    await wait(30);
    assert.equal(resolved, false);
    hang.resolve();
    await done;
  } finally {
    hang.resolve();
    controller.abort();
    database.close();
  }
});

Deno.test("queue: two listeners on two connections handle 50 messages once each, in key order", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${join(dir, "pair.db")}`;
  const a = await openMigrated(url);
  const b = await openDatabase(url);
  const controller = new AbortController();
  try {
    const mqA = createLibsqlMessageQueue(a.db, {
      pollIntervalMs: 20,
      concurrency: 4,
      logger: silentLogger,
    });
    const mqB = createLibsqlMessageQueue(b.db, {
      pollIntervalMs: 20,
      logger: silentLogger,
    });
    const got: { n: number; key: string | null; by: string }[] = [];
    const active = new Set<string>();
    let overlap = false;
    const handler =
      (by: string) => async (m: { n: number; key: string | null }) => {
        if (m.key != null) {
          if (active.has(m.key)) overlap = true;
          active.add(m.key);
        }
        await wait(Math.random() * 5);
        got.push({ ...m, by });
        if (m.key != null) active.delete(m.key);
      };
    const listening = [
      mqA.listen(handler("a"), { signal: controller.signal }),
      mqB.listen(handler("b"), { signal: controller.signal }),
    ];
    const messages = Array.from({ length: 50 }, (_, n) => ({
      n,
      key: n % 5 === 0 ? null : `k${n % 3}`,
    }));
    // Half one by one from A, half in one batch from B (per key, in order).
    for (const m of messages.slice(0, 25)) {
      await mqA.enqueue(m, m.key == null ? {} : { orderingKey: m.key });
    }
    for (const key of [null, "k0", "k1", "k2"]) {
      await mqB.enqueueMany(
        messages.slice(25).filter((m) => m.key === key),
        key == null ? {} : { orderingKey: key },
      );
    }
    await until(() => got.length >= 50, 10_000);
    await wait(100);
    controller.abort();
    await Promise.all(listening);
    assert.equal(got.length, 50);
    assert.deepEqual(
      new Set(got.map((m) => m.n)),
      new Set(messages.map((m) => m.n)),
    );
    assert.equal(
      new Set(got.map((m) => m.by)).size,
      2,
      "both listeners worked",
    );
    assert.equal(overlap, false, "one ordering key was handled twice at once");
    for (const key of ["k0", "k1", "k2"]) {
      const ns = got.filter((m) => m.key === key).map((m) => m.n);
      assert.deepEqual(ns, [...ns].sort((x, y) => x - y), `order of ${key}`);
    }
    assert.deepEqual(await queueRows(a), []);
  } finally {
    controller.abort();
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
