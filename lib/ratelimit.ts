/**
 * Sliding-window rate limits kept in the database, so they hold across
 * processes and edge isolates and survive restarts.
 */
import { and, asc, gt, inArray, lte, or, sql } from "drizzle-orm";
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

/** Hits counted by {@link reserveRateLimitHit}, to release when the attempt turns out fine. */
export interface RateLimitReservation {
  ids: number[];
}

/**
 * Counts one hit under each key, but only when none of them has reached the
 * limit; otherwise nothing is written and the answer is the seconds to wait.
 * Check and count are one SQL statement, so concurrent attempts cannot all
 * pass the check before any of them is counted.
 */
export async function reserveRateLimitHit(
  db: Db,
  clock: Clock,
  keys: string[],
  rule: RateLimit,
): Promise<
  { reservation: RateLimitReservation } | { retryAfter: number }
> {
  const now = clock.now().getTime();
  const since = now - rule.windowMs;
  const keyRows = sql.join(
    keys.map((key) => sql`select ${key} as key`),
    sql` union all `,
  );
  const keyList = sql.join(keys.map((key) => sql`${key}`), sql`, `);
  // SQLite reads the whole SELECT before inserting (it reads the target
  // table), so either every key gets its hit or none does.
  const inserted = await db.all<{ id: number }>(sql`
    insert into ${rateLimitHits} (key, at)
    select k.key, ${now} from (${keyRows}) as k
    where not exists (
      select 1 from ${rateLimitHits} as h
      where h.key in (${keyList}) and h.at > ${since}
      group by h.key having count(*) >= ${rule.limit}
    )
    returning id`);
  if (inserted.length === 0) {
    const retryAfter = await rateLimitRetryAfter(db, clock, keys, rule);
    // The hits may have left the window in between: wait one second at least.
    return { retryAfter: retryAfter ?? 1 };
  }
  await db.delete(rateLimitHits).where(
    and(inArray(rateLimitHits.key, keys), lte(rateLimitHits.at, since)),
  );
  return { reservation: { ids: inserted.map((row) => Number(row.id)) } };
}

/**
 * Takes back the hits of a reservation (the attempt did not count) and, in the
 * same statement, forgets every hit under `clearKeys`.
 */
export async function releaseRateLimitHit(
  db: Db,
  reservation: RateLimitReservation,
  clearKeys: string[] = [],
): Promise<void> {
  await db.delete(rateLimitHits).where(
    or(
      inArray(rateLimitHits.id, reservation.ids),
      inArray(rateLimitHits.key, clearKeys),
    ),
  );
}

/** Forgets the hits under the given keys (a successful login clears its e-mail's count). */
export async function clearRateLimit(db: Db, keys: string[]): Promise<void> {
  await db.delete(rateLimitHits).where(inArray(rateLimitHits.key, keys));
}
