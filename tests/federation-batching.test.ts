/**
 * lib/federation/batching.ts: the queue that stores what publishing enqueues
 * as one row per ordering key, and the KV store that remembers the signature
 * scheme of each peer.
 */
import assert from "node:assert/strict";
import {
  type KvKey,
  type KvStore,
  MemoryKvStore,
  type MessageQueue,
  type MessageQueueEnqueueOptions,
} from "@fedify/fedify";
import {
  createBundlingQueue,
  MAX_BUNDLE,
  rememberSignatureSpecs,
} from "../lib/federation/batching.ts";
import { SPEC_PREFIX } from "../lib/federation/signatures.ts";
import { silentLogger } from "../lib/log.ts";

/** A queue that records rows and hands them to the listener on drain(). */
function recordingQueue() {
  const rows: { message: unknown; options?: MessageQueueEnqueueOptions }[] = [];
  let handler: ((message: unknown) => Promise<void> | void) | null = null;
  const queue: MessageQueue = {
    enqueue(message, options) {
      rows.push({ message, options });
      return Promise.resolve();
    },
    enqueueMany(messages, options) {
      for (const message of messages) rows.push({ message, options });
      return Promise.resolve();
    },
    listen(h) {
      handler = h;
      return Promise.resolve();
    },
  };
  return {
    queue,
    rows,
    /** Hands every row to the listener, oldest first, and forgets it. */
    async drain() {
      while (rows.length > 0) await handler!(rows.shift()!.message);
    },
  };
}

Deno.test("bundling: what collect gathers is one row per ordering key, handled in order", async () => {
  const source = recordingQueue();
  const around: string[] = [];
  const bundling = createBundlingQueue(source.queue, {
    around: async (message, handle) => {
      around.push(String((message as { n: number }).n));
      await handle();
    },
    log: silentLogger,
  });
  const handled: number[] = [];
  await bundling.queue.listen((m: { n: number }) => {
    handled.push(m.n);
  });
  const key = (k: string) => ({ orderingKey: k });
  await bundling.collect(async () => {
    for (let n = 1; n <= 13; n++) {
      await bundling.queue.enqueue({ n }, key("series\nhttps://a.example"));
    }
    await bundling.queue.enqueue({ n: 100 }, key("series\nhttps://b.example"));
    await bundling.queue.enqueueMany!(
      [{ n: 200 }, { n: 201 }],
      key("other\nhttps://a.example"),
    );
  });
  // Outside collect, a message is a row of its own at once.
  await bundling.queue.enqueue({ n: 300 }, key("series\nhttps://a.example"));
  assert.equal(source.rows.length, 4);
  const [first, second, third] = source.rows;
  assert.deepEqual(first.options, key("series\nhttps://a.example"));
  assert.equal((first.message as { type: string }).type, "quando:bundle");
  // A group of one is stored as the message itself.
  assert.deepEqual(second.message, { n: 100 });
  assert.deepEqual(
    (third.message as { messages: unknown[] }).messages,
    [{ n: 200 }, { n: 201 }],
  );
  await source.drain();
  assert.deepEqual(handled, [
    ...Array.from({ length: 13 }, (_, i) => i + 1),
    100,
    200,
    201,
    300,
  ]);
  // Each message of a bundle runs in its own context, as a single one does.
  assert.deepEqual(around, handled.map(String));
});

Deno.test("bundling: a key's messages beyond MAX_BUNDLE go to further rows, in order", async () => {
  const source = recordingQueue();
  const bundling = createBundlingQueue(source.queue, {
    around: (_message, handle) => handle(),
    log: silentLogger,
  });
  const handled: number[] = [];
  await bundling.queue.listen((m: { n: number }) => {
    handled.push(m.n);
  });
  const total = MAX_BUNDLE * 2 + 1;
  await bundling.collect(async () => {
    for (let n = 0; n < total; n++) {
      await bundling.queue.enqueue({ n }, { orderingKey: "k" });
    }
  });
  assert.equal(source.rows.length, 3);
  assert.deepEqual(source.rows[2].message, { n: total - 1 });
  await source.drain();
  assert.deepEqual(handled, Array.from({ length: total }, (_, n) => n));
});

Deno.test("bundling: what a handler enqueues is collected too", async () => {
  const source = recordingQueue();
  const bundling = createBundlingQueue(source.queue, {
    around: (_message, handle) => handle(),
    log: silentLogger,
  });
  const delivered: number[] = [];
  // A fan-out: each message enqueues three deliveries with one key.
  await bundling.queue.listen(async (m: { fanout?: number; n?: number }) => {
    if (m.fanout === undefined) {
      delivered.push(m.n!);
      return;
    }
    for (let i = 0; i < 3; i++) {
      await bundling.queue.enqueue({ n: m.fanout * 10 + i }, {
        orderingKey: "series\nhttps://a.example",
      });
    }
  });
  await bundling.collect(async () => {
    await bundling.queue.enqueue({ fanout: 1 }, { orderingKey: "series" });
    await bundling.queue.enqueue({ fanout: 2 }, { orderingKey: "series" });
  });
  assert.equal(source.rows.length, 1);
  await source.drain();
  assert.deepEqual(delivered, [10, 11, 12, 20, 21, 22]);
});

Deno.test("bundling: a bundled message that throws is enqueued again alone, the others are not", async () => {
  const source = recordingQueue();
  const bundling = createBundlingQueue(source.queue, {
    around: (_message, handle) => handle(),
    log: silentLogger,
  });
  const seen: number[] = [];
  let failOnce = true;
  await bundling.queue.listen((m: { n: number }) => {
    seen.push(m.n);
    if (m.n === 2 && failOnce) {
      failOnce = false;
      throw new Error("a bug");
    }
  });
  await bundling.collect(async () => {
    for (const n of [1, 2, 3]) {
      await bundling.queue.enqueue({ n, orderingKey: "k" }, {
        orderingKey: "k",
      });
    }
  });
  await source.drain();
  assert.deepEqual(seen, [1, 2, 3, 2]);
  assert.equal(source.rows.length, 0);
});

Deno.test("bundling: messages whose handling keeps failing are dropped after ten tries", async () => {
  const source = recordingQueue();
  const bundling = createBundlingQueue(source.queue, {
    around: (_message, handle) => handle(),
    log: silentLogger,
  });
  let tries = 0;
  await bundling.queue.listen(() => {
    tries++;
    throw new Error("always");
  });
  await bundling.collect(async () => {
    await bundling.queue.enqueue({ n: 1 }, { orderingKey: "k" });
    await bundling.queue.enqueue({ n: 2 }, { orderingKey: "k" });
  });
  await source.drain();
  assert.equal(tries, 20);
});

Deno.test("signature schemes: read once and written once while remembered; other keys untouched", async () => {
  const inner = new MemoryKvStore();
  const calls: string[] = [];
  const counted: KvStore = {
    get: <T>(key: KvKey) => {
      calls.push(`get ${key.join("/")}`);
      return inner.get<T>(key);
    },
    set: (key: KvKey, value: unknown) => {
      calls.push(`set ${key.join("/")}`);
      return inner.set(key, value);
    },
    delete: (key: KvKey) => inner.delete(key),
    list: (prefix?: KvKey) => inner.list(prefix),
  };
  let now = 0;
  const kv = rememberSignatureSpecs(counted, 1000, () => now);
  const spec: KvKey = [...SPEC_PREFIX, "https://a.example"];
  // Fedify, delivering 13 activities to one origin.
  for (let i = 0; i < 13; i++) {
    await kv.get(spec);
    await kv.set(spec, "rfc9421");
  }
  assert.deepEqual(calls, [
    "get quando/httpSignatureSpec/https://a.example",
    "set quando/httpSignatureSpec/https://a.example",
  ]);
  assert.equal(await kv.get(spec), "rfc9421");
  // A different scheme is written at once.
  await kv.set(spec, "draft-cavage-http-signatures-12");
  assert.equal(await inner.get(spec), "draft-cavage-http-signatures-12");
  // Once the memory expires, the store is read again.
  now = 1000;
  calls.length = 0;
  await kv.get(spec);
  assert.deepEqual(calls, [
    "get quando/httpSignatureSpec/https://a.example",
  ]);
  // Other keys go through every time.
  calls.length = 0;
  await kv.get(["_fedify", "other"]);
  await kv.get(["_fedify", "other"]);
  assert.equal(calls.length, 2);
});
