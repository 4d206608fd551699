/**
 * Opens the database by URL scheme (Deno). Local files and `:memory:` use
 * Deno's built-in SQLite through db/embedded.ts; `libsql://`, `https://` and
 * `http://` use the HTTP client of `db/remote.ts`, the only part an edge
 * build (worker.ts) imports.
 */
import { EmbeddedClient } from "./embedded.ts";
import {
  countWrites,
  type Database,
  databaseHandle,
  type Db,
  fullSchema,
  isEmbeddedUrl,
  openRemoteDatabase,
} from "./remote.ts";

export {
  type Database,
  type Db,
  fullSchema,
  isEmbeddedUrl,
  openRemoteDatabase,
  type Tx,
} from "./remote.ts";

/** How long a read of another process's change marker is reused, in ms. */
export const CHANGE_CHECK_MS = 1;

interface ChangeWatcher {
  /** The marker; `fresh`: read now, whenever it was last read. */
  dataVersion(fresh?: boolean): unknown;
  close(): void;
}

/**
 * The change marker of the database file behind `client`: `PRAGMA
 * data_version` on the client's own connection, which changes whenever
 * another connection (another process: the CLI, a second server) commits a
 * change, and not for the client's own commits, which countWrites counts (so
 * that the client's fills of derived data, lib/events/bodies.ts, end no
 * cached answer). Null for `:memory:`.
 */
function openChangeWatcher(client: EmbeddedClient): ChangeWatcher | null {
  const list = client.run("PRAGMA database_list");
  // Columns: seq, name, file. The file is absolute, as SQLite resolved it.
  const main = list.rows.find((row) => row[1] === "main");
  const file = typeof main?.[2] === "string" ? main[2] : "";
  if (!file) return null;
  let open = true;
  // Reading the marker takes the file's read lock (tens of microseconds):
  // on a busy server it was most of a cache hit's time. It is read at most
  // once per CHANGE_CHECK_MS; a commit by another process is seen that much
  // later at most (this process's own commits are counted at once).
  let version: unknown;
  let readAt = -Infinity;
  return {
    dataVersion(fresh = false) {
      if (!open) throw new Error("The database is closed");
      const now = performance.now();
      if (fresh || now - readAt >= CHANGE_CHECK_MS) {
        version = client.dataVersion();
        readAt = now;
      }
      return version;
    },
    close() {
      open = false;
    },
  };
}

/** Opens a database from a URL (`file:`, `:memory:`, `libsql://`, `https://`). */
export async function openDatabase(
  url: string,
  authToken?: string,
): Promise<Database> {
  const database = isEmbeddedUrl(url)
    ? await openEmbeddedDatabase(url)
    : await openRemoteDatabase(url, authToken);
  database.migrate = () => migrateDatabase(database);
  return database;
}

/**
 * The embedded engine on a `file:` or `:memory:` URL: one `node:sqlite`
 * connection with a statement cache (db/embedded.ts), so `:memory:` is one
 * database per call.
 */
async function openEmbeddedDatabase(url: string): Promise<Database> {
  const counter = { count: 0 };
  // The web entry: the same driver, without loading the native libsql addon.
  const { drizzle } = await import("drizzle-orm/libsql/web");
  const client = countWrites(new EmbeddedClient(url), counter);
  // Foreign keys are off by default in SQLite; WAL lets readers run beside a writer.
  await client.execute("PRAGMA foreign_keys = ON");
  if (url !== ":memory:") await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client, { schema: fullSchema }) as unknown as Db;
  const watcher = openChangeWatcher(client);
  return databaseHandle({
    db,
    embedded: true,
    counter,
    dataVersion: watcher
      ? () => watcher.dataVersion() // :memory: has one connection and no other writer: the counter suffices.
      : (() => 0),
    ping: watcher
      ? () => Promise.resolve(watcher.dataVersion(true))
      : () => client.execute("select 1"),
    close: () => {
      watcher?.close();
      client.close();
    },
  });
}

/** Applies the committed migrations in `db/migrations` (needs file access). */
export async function migrateDatabase(database: Database): Promise<void> {
  const { migrate } = await import("drizzle-orm/libsql/migrator");
  const migrationsFolder = new URL("./migrations", import.meta.url).pathname;
  await migrate(database.db, { migrationsFolder });
}
