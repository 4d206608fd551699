/**
 * Fedify storage over our database: a `KvStore` on `fedify_kv` and a
 * `MessageQueue` on `fedify_queue`, so caches, idempotence records and pending
 * deliveries survive restarts and are shared by every process using the file.
 *
 * Every write is one SQL statement (or one `batch`): libSQL fails a second
 * interactive transaction at once (SQLITE_BUSY / TRANSACTION_ACTIVE),
 * and a single statement is atomic anyway, which is what claims and
 * compare-and-swap need.
 */
import type {
  KvKey,
  KvStore,
  KvStoreListEntry,
  KvStoreSetOptions,
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fedifyQueue } from "../../db/schema.ts";
import { type Clock, systemClock } from "../clock.ts";
import { createLogger, type Logger } from "../log.ts";

// ---------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------

/** Milliseconds in a Temporal duration; days count as 24 h (no calendar). */
function durationMs(duration: Temporal.Duration | undefined): number {
  if (duration == null) return 0;
  return duration.total({ unit: "millisecond" });
}

/** Whether an error (or one it wraps: Drizzle wraps libSQL's) is SQLITE_BUSY. */
function isBusyError(error: unknown): boolean {
  for (let e = error, depth = 0; e != null && depth < 5; depth++) {
    if (typeof e !== "object") return false;
    const { code, message, cause } = e as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return true;
    if (
      typeof message === "string" &&
      (message.includes("SQLITE_BUSY") ||
        message.includes("database is locked"))
    ) return true;
    e = cause;
  }
  return false;
}

/**
 * Runs one statement, retrying briefly on SQLITE_BUSY: another connection (a
 * second process, or an interactive transaction elsewhere in the app) may hold
 * the write lock for a moment.
 */
async function retryOnBusy<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (attempt >= 6 || !isBusyError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

// ---------------------------------------------------------------------------
// KvStore
// ---------------------------------------------------------------------------

/** Keys are stored as their JSON array text, which is what `list` matches on. */
function encodeKey(key: KvKey): string {
  if (!Array.isArray(key) || key.length === 0) {
    throw new TypeError("A KvKey is a non-empty array of strings.");
  }
  return JSON.stringify(key);
}

/**
 * JSON with object keys sorted, so two deep-equal values have the same text
 * and `cas` can compare in SQL with `=` in its single conditional statement.
 * (The replacer sees values after `toJSON`, so Dates and the like work.)
 */
function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v == null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });
  if (text === undefined) {
    throw new TypeError("A KvStore value must be JSON-serializable.");
  }
  return text;
}

/** Rows read from `fedify_kv` with raw SQL (the value stays JSON text). */
interface KvRow {
  key: string;
  value: string;
  expiresAt: number | null;
}

/** Page size for `list`, so a large store is never read into memory at once. */
const LIST_PAGE = 256;

/** A Fedify `KvStore` over the `fedify_kv` table; `clock` decides TTL expiry. */
export function createLibsqlKvStore(
  db: Db,
  clock: Clock = systemClock,
): KvStore {
  const nowMs = () => clock.now().getTime();
  const expiresAt = (options?: KvStoreSetOptions) =>
    options?.ttl == null ? null : nowMs() + durationMs(options.ttl);

  async function set(
    key: KvKey,
    value: unknown,
    options?: KvStoreSetOptions,
  ): Promise<void> {
    // JSON has no `undefined`; storing it would read back as a different value,
    // and "no value" is exactly what get() reports for a missing key.
    if (value === undefined) return remove(key);
    const k = encodeKey(key);
    const v = canonicalJson(value);
    const exp = expiresAt(options);
    await retryOnBusy(() =>
      db.run(sql`
        INSERT INTO fedify_kv (key, value, expiresAt) VALUES (${k}, ${v}, ${exp})
        ON CONFLICT (key) DO UPDATE
          SET value = excluded.value, expiresAt = excluded.expiresAt`)
    );
  }

  async function remove(key: KvKey): Promise<void> {
    const k = encodeKey(key);
    await retryOnBusy(() =>
      db.run(sql`DELETE FROM fedify_kv WHERE key = ${k}`)
    );
  }

  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      const k = encodeKey(key);
      // `all` rather than `get`: Drizzle's raw `get` throws when no row matches.
      const [row] = await db.all<KvRow>(
        sql`SELECT key, value, expiresAt FROM fedify_kv WHERE key = ${k}`,
      );
      if (row == null) return undefined;
      const now = nowMs();
      if (row.expiresAt != null && row.expiresAt <= now) {
        // Lazy expiry; the condition keeps a value set meanwhile (with a new
        // expiry) from being deleted by this stale read.
        await retryOnBusy(() =>
          db.run(sql`DELETE FROM fedify_kv WHERE key = ${k}
            AND expiresAt IS NOT NULL AND expiresAt <= ${now}`)
        );
        return undefined;
      }
      return JSON.parse(row.value) as T;
    },

    set,

    delete: remove,

    async cas(
      key: KvKey,
      expectedValue: unknown,
      newValue: unknown,
      options?: KvStoreSetOptions,
    ): Promise<boolean> {
      const k = encodeKey(key);
      const now = nowMs();
      const exp = expiresAt(options);
      if (expectedValue === undefined) {
        // Expecting "absent": an expired row counts as absent.
        if (newValue === undefined) {
          const [row] = await db.all<{ present: number }>(sql`
            SELECT 1 AS present FROM fedify_kv WHERE key = ${k}
              AND (expiresAt IS NULL OR expiresAt > ${now})`);
          return row == null;
        }
        const v = canonicalJson(newValue);
        // The upsert's WHERE only lets an expired row be overwritten; a live
        // one makes the statement change nothing (rowsAffected = 0).
        const result = await retryOnBusy(() =>
          db.run(sql`
            INSERT INTO fedify_kv (key, value, expiresAt) VALUES (${k}, ${v}, ${exp})
            ON CONFLICT (key) DO UPDATE
              SET value = excluded.value, expiresAt = excluded.expiresAt
              WHERE fedify_kv.expiresAt IS NOT NULL
                AND fedify_kv.expiresAt <= ${now}`)
        );
        return result.rowsAffected > 0;
      }
      const expected = canonicalJson(expectedValue);
      if (newValue === undefined) {
        const result = await retryOnBusy(() =>
          db.run(sql`
            DELETE FROM fedify_kv WHERE key = ${k} AND value = ${expected}
              AND (expiresAt IS NULL OR expiresAt > ${now})`)
        );
        return result.rowsAffected > 0;
      }
      const v = canonicalJson(newValue);
      const result = await retryOnBusy(() =>
        db.run(sql`
          UPDATE fedify_kv SET value = ${v}, expiresAt = ${exp}
          WHERE key = ${k} AND value = ${expected}
            AND (expiresAt IS NULL OR expiresAt > ${now})`)
      );
      return result.rowsAffected > 0;
    },

    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      const now = nowMs();
      // Sweep expired rows (partial index on expiresAt) so they do not pile up.
      await retryOnBusy(() =>
        db.run(sql`DELETE FROM fedify_kv
          WHERE expiresAt IS NOT NULL AND expiresAt <= ${now}`)
      );
      // A key extends the prefix iff its JSON text equals the prefix's, or
      // starts with the prefix's text minus "]" plus ",". Those texts form the
      // range [p, p with "," bumped to "-") in byte order, which the primary
      // key index serves; ["a","bc"] is outside the range for prefix ["a","b"]
      // because its next character after `"b` is `c`, not `"`.
      let filter = sql`1 = 1`;
      if (prefix != null && prefix.length > 0) {
        const exact = encodeKey(prefix);
        const start = exact.slice(0, -1) + ",";
        const end = exact.slice(0, -1) + "-";
        filter = sql`(key = ${exact} OR (key >= ${start} AND key < ${end}))`;
      }
      let after: string | null = null;
      while (true) {
        const page: KvRow[] = await db.all<KvRow>(sql`
          SELECT key, value, expiresAt FROM fedify_kv
          WHERE ${filter}
            AND (expiresAt IS NULL OR expiresAt > ${now})
            ${after == null ? sql`` : sql`AND key > ${after}`}
          ORDER BY key LIMIT ${LIST_PAGE}`);
        for (const row of page) {
          yield {
            key: JSON.parse(row.key) as KvKey,
            value: JSON.parse(row.value),
          };
        }
        if (page.length < LIST_PAGE) return;
        after = page[page.length - 1].key;
      }
    },
  };
}

// ---------------------------------------------------------------------------
// MessageQueue
// ---------------------------------------------------------------------------

/** Options for {@link createLibsqlMessageQueue}. */
export interface LibsqlMessageQueueOptions {
  /** Where "now" comes from for availability and leases; the system clock by default. */
  clock?: Clock;
  /**
   * How often an idle listener looks for work enqueued by other processes
   * (ms). Work this process enqueues wakes it at once, and a message it
   * enqueued with a delay (a retry) wakes it when due, so on a remote
   * database, where each look is a round trip, this can be long (a minute).
   */
  pollIntervalMs?: number;
  /**
   * Drain mode, for runtimes without long-lived loops (Workers): `listen`
   * only registers its handler and waits for its signal, never polling;
   * `drainListening` does the work when the caller has time for it.
   */
  manual?: boolean;
  /** How long a claimed message stays invisible to other workers (ms). */
  leaseMs?: number;
  /** Messages one `listen` call handles at once (different ordering keys only). */
  concurrency?: number;
  /** Claims after which a message that keeps failing is dropped (and logged). */
  maxAttempts?: number;
  /** First retry delay after a handler throws (ms); doubles per attempt, capped at 1 h. */
  retryDelayMs?: number;
  /** Where failures are reported; warnings and errors to the console by default. */
  logger?: Logger;
}

/** Limits of one {@link LibsqlMessageQueue.drainListening} call. */
export interface DrainBudget {
  /**
   * No message is claimed after this many milliseconds (those in hand are
   * finished); it also bounds the wait for a retry this process scheduled.
   */
  maxMs: number;
  /** At most this many messages are claimed. */
  maxMessages?: number;
}

/** The queue: Fedify's interface plus `getDepth` and `drain`. */
export interface LibsqlMessageQueue extends MessageQueue {
  readonly nativeRetrial: false;
  enqueueMany(
    // deno-lint-ignore no-explicit-any
    messages: readonly any[],
    options?: MessageQueueEnqueueOptions,
  ): Promise<void>;
  getDepth(): Promise<MessageQueueDepth>;
  /**
   * Handles the messages available now, one by one, until none is left (or
   * `limit` is reached), and returns how many were handled. For tests, CLI
   * tasks and clocks that do not move on their own.
   */
  drain(
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
    options?: { limit?: number },
  ): Promise<number>;
  /**
   * Handles ready messages with the handler of a running `listen` call (in
   * manual mode, Fedify's, registered by `startQueue`), up to `concurrency`
   * at once, until none is ready or the budget is spent; a retry this
   * process scheduled within the time left is waited for. Leases and retries
   * work as in `listen`, so a caller that dies midway loses nothing: its
   * claimed messages come back when their lease runs out. Resolves with the
   * number handled; throws when no `listen` call is running.
   */
  drainListening(budget: DrainBudget): Promise<number>;
  /**
   * Whether this process enqueued anything since the last `drainListening`
   * started: a cheap test, with no query, of whether a drain is worth it.
   */
  hasLocalWork(): boolean;
  /**
   * Tells the queue that this process inserted a ready row itself (an event
   * write queues its publication in its own batch): listeners wake at once,
   * and `hasLocalWork` says so.
   */
  noteEnqueued(): void;
}

/** A claimed row, leased to us until `lockedUntil`. */
interface ClaimedRow {
  id: number;
  message: string;
  attempts: number;
  lockedUntil: number;
}

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Rows per INSERT in enqueueMany (5 bound values each, far under SQLite's limit). */
const INSERT_CHUNK = 500;

/**
 * What this process knows about its own work, per database handle: an
 * enqueue, or a finished message (which may unblock its ordering key), wakes
 * idle listeners at once instead of at their next poll, and the due times of
 * the delayed messages it enqueued (Fedify's retries) tell a listener when to
 * look again. Other processes' work is still found by polling.
 */
interface LocalWork {
  wakers: Set<() => void>;
  /** Due times (ms) of delayed messages enqueued here, ascending, bounded. */
  dues: number[];
  /** Enqueue calls so far, and the count when a drain last started. */
  enqueued: number;
  drainedUpTo: number;
}

const localWork = new WeakMap<Db, LocalWork>();

/** Due times remembered per database; later ones are found by polling. */
const MAX_REMEMBERED_DUES = 1000;

function localWorkOf(db: Db): LocalWork {
  let work = localWork.get(db);
  if (work == null) {
    work = { wakers: new Set(), dues: [], enqueued: 0, drainedUpTo: 0 };
    localWork.set(db, work);
  }
  return work;
}

function wakeListeners(db: Db): void {
  for (const wake of localWork.get(db)?.wakers ?? []) wake();
}

function rememberDue(work: LocalWork, due: number): void {
  const { dues } = work;
  let i = dues.length;
  while (i > 0 && dues[i - 1] > due) i--;
  dues.splice(i, 0, due);
  if (dues.length > MAX_REMEMBERED_DUES) dues.pop();
}

/** Forgets due times that have passed (their messages were looked for). */
function forgetPassedDues(work: LocalWork, now: number): void {
  let n = 0;
  while (n < work.dues.length && work.dues[n] <= now) n++;
  if (n > 0) work.dues.splice(0, n);
}

/** A Fedify `MessageQueue` over the `fedify_queue` table (persistent, multi-process, at-least-once). */
export function createLibsqlMessageQueue(
  db: Db,
  options: LibsqlMessageQueueOptions = {},
): LibsqlMessageQueue {
  const clock = options.clock ?? systemClock;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const leaseMs = options.leaseMs ?? 5 * 60 * 1000;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const maxAttempts = options.maxAttempts ?? 10;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const logger = options.logger ?? createLogger("warning");
  const manual = options.manual ?? false;
  const nowMs = () => clock.now().getTime();
  const local = localWorkOf(db);
  /** Handlers of the running `listen` calls (manual mode uses the first). */
  // deno-lint-ignore no-explicit-any
  const listening: ((message: any) => Promise<void> | void)[] = [];

  /** Milliseconds until the next remembered due time (Infinity: none). */
  const nextDueIn = () =>
    local.dues.length === 0 ? Infinity : Math.max(0, local.dues[0] - nowMs());

  async function enqueueRows(
    messages: readonly unknown[],
    enqueueOptions?: MessageQueueEnqueueOptions,
  ): Promise<void> {
    if (messages.length === 0) return;
    // Fedify clamps negative delays itself; "must not be negative" is the
    // contract, so clamp rather than fail a delivery over it.
    const delay = Math.max(0, durationMs(enqueueOptions?.delay));
    const now = nowMs();
    const rows = messages.map((message) => {
      if (message === undefined) {
        throw new TypeError("A queued message must be JSON-serializable.");
      }
      return {
        message,
        availableAt: now + delay,
        orderingKey: enqueueOptions?.orderingKey ?? null,
        createdAt: now,
      };
    });
    const chunks = [];
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      chunks.push(
        db.insert(fedifyQueue).values(rows.slice(i, i + INSERT_CHUNK)),
      );
    }
    // One batch is one SQLite transaction: all messages or none. Ids follow
    // array order, which is the order messages sharing a key are handled in.
    const [first, ...rest] = chunks;
    await retryOnBusy(() => db.batch([first, ...rest]));
    local.enqueued++;
    if (delay > 0) rememberDue(local, now + delay);
    wakeListeners(db);
  }

  /**
   * Leases the next message in one statement, so two workers (listeners,
   * processes) can never both get it. A message is eligible when it is due,
   * not leased (or its lease ran out: at-least-once after a crash), and, if
   * it has an ordering key, no older message with that key is still in the
   * table. The last rule keeps one key strictly first-in-first-out: a leased,
   * delayed or backing-off older message holds the newer ones back, which is
   * what "a Delete is never handled before its Create" needs.
   */
  async function claim(): Promise<ClaimedRow | undefined> {
    const now = nowMs();
    const rows = await retryOnBusy(() =>
      db.all<ClaimedRow>(sql`
        UPDATE fedify_queue
        SET lockedUntil = ${now + leaseMs}, attempts = attempts + 1
        WHERE id = (
          SELECT q.id FROM fedify_queue AS q
          WHERE q.availableAt <= ${now}
            AND (q.lockedUntil IS NULL OR q.lockedUntil <= ${now})
            AND (q.orderingKey IS NULL OR NOT EXISTS (
              SELECT 1 FROM fedify_queue AS o
              WHERE o.orderingKey = q.orderingKey AND o.id < q.id))
          ORDER BY q.availableAt, q.id
          LIMIT 1
        )
        AND (lockedUntil IS NULL OR lockedUntil <= ${now})
        RETURNING id, message, attempts, lockedUntil`)
    );
    return rows[0];
  }

  /** Deletes a finished (or abandoned) message. */
  async function finish(row: ClaimedRow): Promise<void> {
    // By id alone: the work is done even if our lease ran out and another
    // worker re-claimed it (that worker's own delete then does nothing).
    await retryOnBusy(() =>
      db.run(sql`DELETE FROM fedify_queue WHERE id = ${row.id}`)
    );
  }

  /**
   * Handles one claimed message and settles its row; never throws, since a
   * listener must keep going (and the lease covers us if the database fails).
   *
   * Retries: `nativeRetrial` is false, so Fedify catches delivery and inbox
   * failures itself and enqueues a new, delayed message under its own retry
   * policy (backoff, Retry-After, circuit breaker, giving up, metrics); its
   * handler then returns normally and the row is deleted here. A throwing
   * handler is therefore unexpected (a bug, a database error): the message is
   * kept in place, in order, and retried with exponential backoff, up to
   * `maxAttempts` claims, rather than lost.
   */
  async function handle(
    row: ClaimedRow,
    // deno-lint-ignore no-explicit-any
    handler: (message: any) => Promise<void> | void,
  ): Promise<void> {
    try {
      if (row.attempts > maxAttempts) {
        // Claimed this often without ever settling: its workers keep dying.
        logger.error("fedify queue: dropping a message that never completed", {
          id: row.id,
          attempts: row.attempts,
        });
        await finish(row);
        return;
      }
      let failure: { error: unknown } | undefined;
      try {
        await handler(JSON.parse(row.message));
      } catch (error) {
        failure = { error };
      }
      if (failure == null) {
        await finish(row);
      } else if (row.attempts >= maxAttempts) {
        logger.error("fedify queue: giving up on a message", {
          id: row.id,
          attempts: row.attempts,
          error: errorText(failure.error),
        });
        await finish(row);
      } else {
        const backoff = Math.min(
          retryDelayMs * 2 ** (row.attempts - 1),
          MAX_RETRY_DELAY_MS,
        );
        logger.warning("fedify queue: handler failed; will retry", {
          id: row.id,
          attempts: row.attempts,
          retryInMs: backoff,
          error: errorText(failure.error),
        });
        const now = nowMs();
        // Only release our own lease: if it ran out and someone else holds
        // the message now, it is theirs to settle.
        await retryOnBusy(() =>
          db.run(sql`
            UPDATE fedify_queue
            SET lockedUntil = NULL, availableAt = ${now + backoff}
            WHERE id = ${row.id} AND lockedUntil = ${row.lockedUntil}`)
        );
      }
    } catch (error) {
      logger.error("fedify queue: could not settle a message", {
        id: row.id,
        error: errorText(error),
      });
    } finally {
      // The row is gone or moved: a newer message with its key may be due.
      wakeListeners(db);
    }
  }

  return {
    nativeRetrial: false,

    enqueue(message: unknown, enqueueOptions?: MessageQueueEnqueueOptions) {
      return enqueueRows([message], enqueueOptions);
    },

    enqueueMany(
      messages: readonly unknown[],
      enqueueOptions?: MessageQueueEnqueueOptions,
    ) {
      return enqueueRows(messages, enqueueOptions);
    },

    async getDepth(): Promise<MessageQueueDepth> {
      const now = nowMs();
      // Leased messages are being handled, so they are not "waiting".
      const [row] = await db.all<{ queued: number; ready: number }>(sql`
        SELECT count(*) AS queued, total(availableAt <= ${now}) AS ready
        FROM fedify_queue
        WHERE lockedUntil IS NULL OR lockedUntil <= ${now}`);
      const queued = Number(row?.queued ?? 0);
      const ready = Number(row?.ready ?? 0);
      return { queued, ready, delayed: queued - ready };
    },

    async drain(handler, drainOptions = {}): Promise<number> {
      const limit = drainOptions.limit ?? Infinity;
      let handled = 0;
      while (handled < limit) {
        const row = await claim();
        if (row == null) break;
        await handle(row, handler);
        handled++;
      }
      return handled;
    },

    hasLocalWork() {
      return local.enqueued > local.drainedUpTo;
    },

    noteEnqueued() {
      local.enqueued++;
      wakeListeners(db);
    },

    async drainListening(budget: DrainBudget): Promise<number> {
      const handler = listening[0];
      if (handler == null) {
        throw new Error("drainListening needs a running listen() (startQueue)");
      }
      local.drainedUpTo = local.enqueued;
      const deadline = performance.now() + budget.maxMs;
      const maxMessages = budget.maxMessages ?? Infinity;
      const left = () => deadline - performance.now();
      const inFlight = new Set<Promise<void>>();
      let claimed = 0;
      let slotFreed: (() => void) | null = null;
      const waitForSlot = () =>
        new Promise<void>((resolve) => slotFreed = resolve);
      while (claimed < maxMessages && left() > 0) {
        if (inFlight.size >= concurrency) {
          await waitForSlot();
          continue;
        }
        let row: ClaimedRow | undefined;
        try {
          row = await claim();
        } catch (error) {
          logger.error("fedify queue: claiming failed", {
            error: errorText(error),
          });
          break;
        }
        if (row == null) {
          forgetPassedDues(local, nowMs());
          if (inFlight.size > 0) {
            // A message in hand may enqueue more (a fan-out, a retry).
            await waitForSlot();
            continue;
          }
          // A retry scheduled here that falls due within the budget.
          const due = nextDueIn();
          if (due >= left()) break;
          await new Promise((resolve) => setTimeout(resolve, due));
          continue;
        }
        claimed++;
        const work: Promise<void> = handle(row, handler).finally(() => {
          inFlight.delete(work);
          slotFreed?.();
          slotFreed = null;
        });
        inFlight.add(work);
      }
      await Promise.all(inFlight);
      return claimed;
    },

    async listen(
      // deno-lint-ignore no-explicit-any
      handler: (message: any) => Promise<void> | void,
      listenOptions: MessageQueueListenOptions = {},
    ): Promise<void> {
      const { signal } = listenOptions;
      if (manual) {
        // Drain mode: the handler waits here for drainListening().
        listening.push(handler);
        try {
          if (signal?.aborted) return;
          await new Promise<void>((resolve) =>
            signal?.addEventListener("abort", () => resolve(), { once: true })
          );
        } finally {
          listening.splice(listening.indexOf(handler), 1);
        }
        return;
      }
      listening.push(handler);
      const inFlight = new Set<Promise<void>>();
      // `woken` remembers a wake-up that came while we were busy, so it is
      // not lost between a claim finding nothing and the wait starting.
      let woken = false;
      let resolveWait: (() => void) | null = null;
      const wake = () => {
        woken = true;
        resolveWait?.();
      };
      const set = local.wakers;
      set.add(wake);
      signal?.addEventListener("abort", wake);

      /**
       * Sleeps until woken, aborted, a remembered due time, or `ms` passes;
       * clears its timer either way.
       */
      const sleep = async (ms: number, untilDue = false) => {
        if (woken || signal?.aborted) return;
        if (untilDue) ms = Math.min(ms, nextDueIn());
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          resolveWait = resolve;
          timer = setTimeout(resolve, ms);
        });
        clearTimeout(timer);
        resolveWait = null;
      };

      try {
        while (!signal?.aborted) {
          woken = false;
          if (inFlight.size >= concurrency) {
            // A finishing handler wakes us (handle() calls wakeListeners).
            await sleep(pollIntervalMs);
            continue;
          }
          let row: ClaimedRow | undefined;
          try {
            row = await claim();
          } catch (error) {
            // listen() must never reject; the database may come back.
            logger.error("fedify queue: claiming failed", {
              error: errorText(error),
            });
            await sleep(pollIntervalMs);
            continue;
          }
          if (row == null) {
            forgetPassedDues(local, nowMs());
            await sleep(pollIntervalMs, true);
            continue;
          }
          const work: Promise<void> = handle(row, handler).finally(() => {
            inFlight.delete(work);
            wake(); // a slot is free
          });
          inFlight.add(work);
        }
      } finally {
        listening.splice(listening.indexOf(handler), 1);
        set.delete(wake);
        signal?.removeEventListener("abort", wake);
        // Resolve only after the messages in hand are settled, so the caller
        // can close the database right after.
        await Promise.all(inFlight);
      }
    },
  };
}
