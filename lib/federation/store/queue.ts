/**
 * Fedify's `MessageQueue` over our database (`fedify_queue`), so pending
 * deliveries survive restarts and are shared by every process using the
 * file. Claims are leases taken in one SQL statement (see shared.ts).
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { fedifyQueue } from "../../../db/schema.ts";
import { type Clock, systemClock } from "../../clock.ts";
import { createLogger, type Logger } from "../../log.ts";
import {
  forgetPassedDues,
  localWorkOf,
  rememberDue,
  wakeListeners,
} from "./local-work.ts";
import { durationMs, errorText, retryOnBusy } from "./shared.ts";

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
