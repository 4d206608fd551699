/**
 * Opens the database by URL scheme. Local files and `:memory:` use the native
 * libSQL addon; `libsql://`, `https://` and `http://` use the HTTP client, so an
 * edge build never loads the addon (it is only imported dynamically).
 */
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import * as schema from "./schema.ts";
import * as relations from "./relations.ts";

export const fullSchema = { ...schema, ...relations };
export type Db = LibSQLDatabase<typeof fullSchema>;
/** The handle passed to `db.transaction()` callbacks. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  /** The Drizzle instance. */
  db: Db;
  /** True for `file:` and `:memory:` databases (the embedded engine). */
  embedded: boolean;
  /**
   * Runs an interactive transaction, one at a time per database: libSQL fails
   * concurrent transactions at once with SQLITE_BUSY (STACK.md), so they queue here.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  close(): void;
}

/** Whether a URL names the embedded engine rather than a remote server. */
export function isEmbeddedUrl(url: string): boolean {
  return url === ":memory:" || url.startsWith("file:");
}

/** Opens a database from a URL (`file:`, `:memory:`, `libsql://`, `https://`). */
export async function openDatabase(
  url: string,
  authToken?: string,
): Promise<Database> {
  const embedded = isEmbeddedUrl(url);
  let db: Db;
  let close: () => void;
  if (embedded) {
    const { createClient } = await import("@libsql/client");
    const { drizzle } = await import("drizzle-orm/libsql");
    const client = createClient({ url });
    // Foreign keys are off by default in SQLite; WAL lets readers run beside a writer.
    await client.execute("PRAGMA foreign_keys = ON");
    if (url !== ":memory:") await client.execute("PRAGMA journal_mode = WAL");
    db = drizzle(client, { schema: fullSchema });
    close = () => client.close();
  } else {
    const { createClient } = await import("@libsql/client/web");
    const { drizzle } = await import("drizzle-orm/libsql/web");
    const client = createClient({ url, authToken });
    db = drizzle(client, { schema: fullSchema }) as unknown as Db;
    close = () => client.close();
  }
  let queue: Promise<unknown> = Promise.resolve();
  return {
    db,
    embedded,
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const run = queue.then(() => db.transaction(fn));
      queue = run.catch(() => undefined);
      return run;
    },
    close,
  };
}

/** Applies the committed migrations in `db/migrations` (needs file access). */
export async function migrateDatabase(database: Database): Promise<void> {
  const { migrate } = await import("drizzle-orm/libsql/migrator");
  const migrationsFolder = new URL("./migrations", import.meta.url).pathname;
  await migrate(database.db, { migrationsFolder });
}
