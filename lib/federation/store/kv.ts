/**
 * Fedify's `KvStore` over our database (`fedify_kv`), so caches and
 * idempotence records survive restarts and are shared by every process using
 * the file. Every write is one SQL statement (see shared.ts).
 */
import type {
  KvKey,
  KvStore,
  KvStoreListEntry,
  KvStoreSetOptions,
} from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { type Clock, systemClock } from "../../clock.ts";
import { durationMs, retryOnBusy } from "./shared.ts";

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
