/**
 * Sliding-window rate limits kept in the database, so they hold across
 * processes and edge isolates and survive restarts.
 */
import { and, asc, gt, inArray, lte } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { rateLimitHits } from "../db/schema.ts";
import type { Clock } from "./clock.ts";

export interface RateLimit {
  /** Hits allowed inside the window. */
  limit: number;
  windowMs: number;
}

/**
 * Seconds until a request under any of `keys` may be tried again, or null when
 * none of them has reached the limit.
 */
export async function rateLimitRetryAfter(
  db: Db,
  clock: Clock,
  keys: string[],
  rule: RateLimit,
): Promise<number | null> {
  const now = clock.now().getTime();
  const rows = await db.select({ key: rateLimitHits.key, at: rateLimitHits.at })
    .from(rateLimitHits)
    .where(
      and(
        inArray(rateLimitHits.key, keys),
        gt(rateLimitHits.at, now - rule.windowMs),
      ),
    )
    .orderBy(asc(rateLimitHits.at));
  let retryAfter: number | null = null;
  for (const key of keys) {
    const hits = rows.filter((r) => r.key === key);
    if (hits.length < rule.limit) continue;
    // The window drops below the limit when this hit leaves it.
    const freeing = hits[hits.length - rule.limit];
    const seconds = Math.max(
      1,
      Math.ceil((freeing.at + rule.windowMs - now) / 1000),
    );
    retryAfter = Math.max(retryAfter ?? 0, seconds);
  }
  return retryAfter;
}

/** Counts one hit under each key and drops hits that left every window. */
export async function recordRateLimitHit(
  db: Db,
  clock: Clock,
  keys: string[],
  rule: RateLimit,
): Promise<void> {
  const now = clock.now().getTime();
  await db.batch([
    db.insert(rateLimitHits).values(keys.map((key) => ({ key, at: now }))),
    db.delete(rateLimitHits).where(
      and(
        inArray(rateLimitHits.key, keys),
        lte(rateLimitHits.at, now - rule.windowMs),
      ),
    ),
  ]);
}

/** Forgets the hits under the given keys (a successful login clears its e-mail's count). */
export async function clearRateLimit(db: Db, keys: string[]): Promise<void> {
  await db.delete(rateLimitHits).where(inArray(rateLimitHits.key, keys));
}
