/**
 * Fewer database round trips for federation on a remote database, where each
 * one is a network request (and, on Workers, a subrequest of a small budget):
 *
 * - A KvStore that remembers, for a while, which HTTP signature scheme each
 *   peer accepts: Fedify reads it before every delivery and writes it after
 *   every success, two round trips per delivery for a value that seldom
 *   changes.
 * - A MessageQueue that, while `collect` runs (and while a queued message is
 *   handled), gathers what Fedify enqueues and stores the messages that share
 *   an ordering key as one row (a bundle), handled in order by one claim: a
 *   series' 13 Creates to one inbox origin are one row, not 13, each costing
 *   an insert, a claim and a delete.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type {
  KvKey,
  KvStore,
  KvStoreSetOptions,
  MessageQueue,
  MessageQueueEnqueueOptions,
} from "@fedify/fedify";
import type { Logger } from "../log.ts";
import { isSpecKey } from "./signatures.ts";

/** How long a remembered signature scheme is trusted without a read. */
export const SPEC_MEMORY_MS = 10 * 60_000;

/**
 * `kv`, with signature schemes remembered for `memoryMs`: reads within that
 * time cost nothing, and writes of the value already stored are skipped.
 * Another process's change is seen once the memory expires; until then a
 * stale scheme costs at most a second attempt of a delivery with the other
 * scheme (Fedify's double knock), never a lost one.
 */
export function rememberSignatureSpecs(
  kv: KvStore,
  memoryMs = SPEC_MEMORY_MS,
  now: () => number = () => performance.now(),
): KvStore {
  const memory = new Map<string, { value: unknown; at: number }>();
  const fresh = (id: string) => {
    const entry = memory.get(id);
    if (entry && now() - entry.at < memoryMs) return entry;
    memory.delete(id);
    return undefined;
  };
  const wrapped: KvStore = {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      if (!isSpecKey(key)) return await kv.get<T>(key);
      const id = JSON.stringify(key);
      const known = fresh(id);
      if (known) return known.value as T | undefined;
      const value = await kv.get<T>(key);
      memory.set(id, { value, at: now() });
      return value;
    },
    async set(key: KvKey, value: unknown, options?: KvStoreSetOptions) {
      if (!isSpecKey(key)) return await kv.set(key, value, options);
      const id = JSON.stringify(key);
      if (!options?.ttl && fresh(id)?.value === value) return;
      memory.delete(id);
      await kv.set(key, value, options);
      if (!options?.ttl) memory.set(id, { value, at: now() });
    },
    async delete(key: KvKey) {
      if (isSpecKey(key)) memory.delete(JSON.stringify(key));
      await kv.delete(key);
    },
    list: (prefix?: KvKey) => kv.list(prefix),
  };
  if (kv.cas) {
    const cas = kv.cas.bind(kv);
    wrapped.cas = (key, expected, value, options) => {
      if (isSpecKey(key)) memory.delete(JSON.stringify(key));
      return cas(key, expected, value, options);
    };
  }
  return wrapped;
}

/** The row that stands for several messages of one ordering key. */
interface Bundle {
  type: "quando:bundle";
  messages: unknown[];
  /** Times its messages' handling failed unexpectedly (a retried bundle). */
  failures?: number;
}

function isBundle(message: unknown): message is Bundle {
  return (message as Bundle | null)?.type === "quando:bundle" &&
    Array.isArray((message as Bundle).messages);
}

interface Collected {
  message: unknown;
  options?: MessageQueueEnqueueOptions;
}

/**
 * Messages per bundle at most: a bundle is handled in one go, one message
 * after another, and must end well within the queue's lease (and a Workers
 * drain's time).
 */
export const MAX_BUNDLE = 50;

/** A bundle whose handling keeps failing is dropped after this many tries. */
const MAX_BUNDLE_FAILURES = 10;

export interface BundlingQueue {
  queue: MessageQueue;
  /**
   * Runs `fn`; what it enqueues is stored when it has finished, messages
   * sharing an ordering key (and delay) as one bundle: one insert per key.
   * `rewrite`, when given, is what each message is stored as.
   */
  collect<T>(
    fn: () => Promise<T>,
    rewrite?: (message: unknown) => Promise<unknown>,
  ): Promise<T>;
}

/**
 * A MessageQueue over `source` that stores what `collect` gathers as
 * bundles and hands a bundle's messages to the handler one at a time, in
 * order (wrapped by `around`, as single messages are). A message whose
 * handling throws (the handlers catch delivery failures themselves, so this
 * is a bug or a database error) does not stop the others: the failed ones
 * are enqueued again as a bundle after a growing delay, up to ten times.
 */
export function createBundlingQueue(
  source: MessageQueue,
  options: {
    around: (message: unknown, handle: () => Promise<void>) => Promise<void>;
    log: Logger;
    /**
     * For a queue row about to be handled: how what its handling enqueues is
     * stored (`rewrite`), and what to do once it is (`done`); null: as is.
     */
    whileHandling?: (
      message: unknown,
    ) => { rewrite(message: unknown): Promise<unknown>; done(): void } | null;
  },
): BundlingQueue {
  const collecting = new AsyncLocalStorage<Collected[]>();

  const flush = async (collected: Collected[]) => {
    const groups = new Map<string, Collected[]>();
    for (const item of collected) {
      const key = JSON.stringify([
        item.options?.orderingKey ?? null,
        item.options?.delay ?? null,
      ]);
      const group = groups.get(key) ?? [];
      group.push(item);
      groups.set(key, group);
    }
    await Promise.all(
      [...groups.values()].map(async (group) => {
        // In order: a key's rows are handled oldest first.
        for (let i = 0; i < group.length; i += MAX_BUNDLE) {
          const part = group.slice(i, i + MAX_BUNDLE);
          await (part.length === 1
            ? source.enqueue(part[0].message, part[0].options)
            : source.enqueue(
              {
                type: "quando:bundle",
                messages: part.map((g) => g.message),
              } satisfies Bundle,
              part[0].options,
            ));
        }
      }),
    );
  };

  const queue: MessageQueue = {
    get nativeRetrial() {
      return source.nativeRetrial;
    },
    enqueue(message, enqueueOptions) {
      const buffer = collecting.getStore();
      if (buffer) {
        buffer.push({ message, options: enqueueOptions });
        return Promise.resolve();
      }
      return source.enqueue(message, enqueueOptions);
    },
    enqueueMany: source.enqueueMany
      ? (messages, enqueueOptions) => {
        const buffer = collecting.getStore();
        if (buffer) {
          for (const message of messages) {
            buffer.push({ message, options: enqueueOptions });
          }
          return Promise.resolve();
        }
        return source.enqueueMany!(messages, enqueueOptions);
      }
      : undefined,
    listen(handler, listenOptions) {
      // What handling enqueues (a fan-out's deliveries, say) is collected
      // too: one row per ordering key and inbox origin.
      return source.listen(
        async (message) => {
          const scope = options.whileHandling?.(message) ?? null;
          try {
            await collect(() => handle(message), scope?.rewrite);
          } finally {
            scope?.done();
          }
        },
        listenOptions,
      );
      async function handle(message: unknown): Promise<void> {
        if (!isBundle(message)) {
          return await options.around(message, async () => {
            await handler(message);
          });
        }
        const failed: unknown[] = [];
        for (const inner of message.messages) {
          try {
            await options.around(inner, async () => {
              await handler(inner);
            });
          } catch (error) {
            failed.push(inner);
            options.log.warning("a bundled queue message failed", {
              error: String(error),
            });
          }
        }
        if (failed.length === 0) return;
        const failures = (message.failures ?? 0) + 1;
        if (failures >= MAX_BUNDLE_FAILURES) {
          options.log.error(
            "dropping bundled queue messages that keep failing",
            {
              messages: failed.length,
            },
          );
          return;
        }
        // Fedify's outbox messages carry the ordering key they were queued with.
        const key = (failed[0] as { orderingKey?: unknown }).orderingKey;
        await source.enqueue(
          {
            type: "quando:bundle",
            messages: failed,
            failures,
          } satisfies Bundle,
          {
            orderingKey: typeof key === "string" ? key : undefined,
            delay: Temporal.Duration.from({
              milliseconds: Math.min(1000 * 2 ** (failures - 1), 3_600_000),
            }),
          },
        );
      }
    },
  };

  async function collect<T>(
    fn: () => Promise<T>,
    rewrite?: (message: unknown) => Promise<unknown>,
  ): Promise<T> {
    const buffer: Collected[] = [];
    const result = await collecting.run(buffer, fn);
    if (rewrite) {
      for (const item of buffer) item.message = await rewrite(item.message);
    }
    if (buffer.length > 0) await flush(buffer);
    return result;
  }

  return { queue, collect };
}
