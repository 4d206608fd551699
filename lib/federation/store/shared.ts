/**
 * What the database-backed Fedify store and queue (kv.ts, queue.ts) share:
 * durations in milliseconds, retrying a statement on SQLITE_BUSY, and error
 * text for the log.
 *
 * Every write is one SQL statement (or one `batch`): libSQL fails a second
 * interactive transaction at once (SQLITE_BUSY / TRANSACTION_ACTIVE),
 * and a single statement is atomic anyway, which is what claims and
 * compare-and-swap need.
 */

/** Milliseconds in a Temporal duration; days count as 24 h (no calendar). */
export function durationMs(duration: Temporal.Duration | undefined): number {
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
export async function retryOnBusy<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (attempt >= 6 || !isBusyError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}
