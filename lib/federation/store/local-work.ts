/**
 * What this process knows about its own queue work, per database handle:
 * who to wake when it enqueues, and when its delayed messages fall due.
 */
import type { Db } from "../../../db/client.ts";

/**
 * What this process knows about its own work, per database handle: an
 * enqueue, or a finished message (which may unblock its ordering key), wakes
 * idle listeners at once instead of at their next poll, and the due times of
 * the delayed messages it enqueued (Fedify's retries) tell a listener when to
 * look again. Other processes' work is still found by polling.
 */
export interface LocalWork {
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

/** This process's record for `db`, made on first use. */
export function localWorkOf(db: Db): LocalWork {
  let work = localWork.get(db);
  if (work == null) {
    work = { wakers: new Set(), dues: [], enqueued: 0, drainedUpTo: 0 };
    localWork.set(db, work);
  }
  return work;
}

/** Wakes the idle listeners on `db` in this process. */
export function wakeListeners(db: Db): void {
  for (const wake of localWork.get(db)?.wakers ?? []) wake();
}

/** Remembers a delayed message's due time, in order; the latest are dropped past the bound. */
export function rememberDue(work: LocalWork, due: number): void {
  const { dues } = work;
  let i = dues.length;
  while (i > 0 && dues[i - 1] > due) i--;
  dues.splice(i, 0, due);
  if (dues.length > MAX_REMEMBERED_DUES) dues.pop();
}

/** Forgets due times that have passed (their messages were looked for). */
export function forgetPassedDues(work: LocalWork, now: number): void {
  let n = 0;
  while (n < work.dues.length && work.dues[n] <= now) n++;
  if (n > 0) work.dues.splice(0, n);
}

/**
 * Tells this process's listeners that a row was inserted into the queue
 * other than through the queue's own enqueue (a mail, in its request's
 * batch): they wake at once, or at `due` (ms) for a delayed row, and a drain
 * knows there is work.
 */
export function noteLocalEnqueue(db: Db, due?: number): void {
  const work = localWorkOf(db);
  work.enqueued++;
  if (due !== undefined) rememberDue(work, due);
  wakeListeners(db);
}
