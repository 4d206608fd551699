/** Builds the federation service over a database: storage, queue, logging. */
import { AsyncLocalStorage } from "node:async_hooks";
import { configure, getConsoleSink } from "@logtape/logtape";
import type { RetryPolicy } from "@fedify/fedify";
import type { Database } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ActorKeyPairs } from "./keys.ts";
import type { EgressFetch } from "../net/egress.ts";
import type { QueueWork } from "./context-types.ts";
import { createFederationService, type FederationService } from "./service.ts";
import { createLibsqlKvStore } from "./store/kv.ts";
import { createLibsqlMessageQueue } from "./store/queue.ts";

/** The idle queue's look for other processes' work on a remote database. */
export const REMOTE_POLL_INTERVAL_MS = 60_000;

let logtapeConfigured = false;

/**
 * Routes Fedify's LogTape records to the console at `level` and above. LogTape
 * is process-wide, so this runs once; later calls do nothing.
 */
export async function configureFedifyLogging(
  level: "debug" | "info" | "warning" | "error" | "fatal",
): Promise<void> {
  if (logtapeConfigured) return;
  logtapeConfigured = true;
  await configure({
    sinks: { console: getConsoleSink() },
    loggers: [
      { category: "fedify", lowestLevel: level, sinks: ["console"] },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: [] },
    ],
    // Fedify keeps request context here; without it LogTape warns on every request.
    contextLocalStorage: new AsyncLocalStorage(),
  });
}

export interface FederationSetupOptions {
  /** Deliveries handled at once by one process. */
  concurrency?: number;
  /**
   * How often an idle queue looks for work from other processes (ms). By
   * default half a second on an embedded file, where a look is a local read,
   * and a minute on a remote database, where it is a round trip (this
   * process's own work wakes the queue at once either way).
   */
  pollIntervalMs?: number;
  /**
   * Drain mode (Workers): the queue never polls; startQueue only registers
   * the handler and drainQueue does the work.
   */
  manualQueue?: boolean;
  outboxRetryPolicy?: RetryPolicy;
  /** Fixed key pairs (tests); otherwise generated once and stored. */
  keyPairs?: ActorKeyPairs;
  /**
   * Event writes leave their publication to the queue, after the response,
   * instead of publishing before it. By default on remote databases, where
   * publishing in the request would cost it several round trips.
   */
  deferPublication?: boolean;
  /** The egress guard of every fetch (main.ts: Deno's pinned one). */
  egress?: EgressFetch;
  /** Other work the queue carries (the mailer). */
  queueWork?: QueueWork[];
}

/** The federation service for an app: libSQL KV and queue on the app's database. */
export function createFederationForDatabase(
  database: Database,
  config: Config,
  clock: Clock,
  log: Logger,
  options: FederationSetupOptions = {},
): FederationService {
  return createFederationService({
    db: database.db,
    clock,
    log,
    baseUrl: config.baseUrl,
    allowPrivateAddresses: config.allowPrivateAddresses,
    kv: createLibsqlKvStore(database.db),
    queue: createLibsqlMessageQueue(database.db, {
      concurrency: options.concurrency ?? 8,
      pollIntervalMs: options.pollIntervalMs ??
        (database.embedded ? 500 : REMOTE_POLL_INTERVAL_MS),
      manual: options.manualQueue,
      logger: log,
    }),
    outboxRetryPolicy: options.outboxRetryPolicy,
    keyPairs: options.keyPairs,
    deferPublication: options.deferPublication ?? !database.embedded,
    egress: options.egress,
    queueWork: options.queueWork,
  });
}
