/**
 * Drains the federation queue on demand, one drain at a time per process or
 * isolate, for runtimes without a long-lived queue loop: after a response
 * that enqueued work (Workers' `waitUntil`, Deno Deploy) and from a cron
 * trigger. Work enqueued while a drain runs makes it go round once more,
 * within the first caller's budget.
 */
import type { Logger } from "../log.ts";
import type { FederationService } from "./service.ts";
import type { DrainBudget } from "./store/queue.ts";

export interface QueueDrainer {
  /** Resolves when the drain (this one, or the one already running) ends; never rejects. */
  drain(budget: DrainBudget): Promise<void>;
}

export function createQueueDrainer(
  federation: FederationService,
  log: Logger,
): QueueDrainer {
  let draining: Promise<void> | null = null;
  let again = false;
  return {
    drain(budget) {
      if (draining) {
        again = true;
        return draining;
      }
      const until = Date.now() + budget.maxMs;
      draining = (async () => {
        try {
          do {
            again = false;
            const maxMs = until - Date.now();
            if (maxMs <= 0) break;
            await federation.drainQueue({ ...budget, maxMs });
          } while (again);
        } catch (err) {
          log.error("draining the delivery queue failed", {
            error: String(err),
          });
        } finally {
          draining = null;
        }
      })();
      return draining;
    },
  };
}
