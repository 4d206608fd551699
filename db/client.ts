/**
 * Opens the database by URL scheme (Deno). Local files and `:memory:` use the
 * native libSQL addon, imported dynamically; `libsql://`, `https://` and
 * `http://` use the HTTP client of `db/remote.ts`, the only part an edge
 * build (worker.ts) imports.
 */
import {
  countWrites,
  type Database,
  databaseHandle,
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

interface ChangeWatcher {
  dataVersion(): unknown;
  close(): void;
}

/**
 * A connection of its own to the database file behind `client`, kept to read
 * `PRAGMA data_version`, which changes whenever another connection (any of
 * the client's pool, the CLI, a second server) commits a change. One
 * prepared statement read with `get()`: the client's `execute()` prepares a
 * statement and a row iterator each time, and under Deno's Node-API layer
 * each of those native objects leaves ~50 bytes behind for good, too much for
 * a call made on every cached read. Null for `:memory:`.
 */
async function openChangeWatcher(
  client: { execute(sql: string): Promise<{ rows: ArrayLike<unknown>[] }> },
): Promise<ChangeWatcher | null> {
  const list = await client.execute("PRAGMA database_list");
  // Columns: seq, name, file. The file is absolute, as SQLite resolved it.
  const main = Array.from(list.rows).find((row) => row[1] === "main");
  const file = typeof main?.[2] === "string" ? main[2] : "";
  if (!file) return null;
  const { default: Libsql } = await import("libsql");
  const connection = new Libsql(file);
  connection.exec("PRAGMA query_only = 1");
  const statement = connection.prepare("PRAGMA data_version");
  let open = true;
  return {
    dataVersion() {
      // libSQL still answers a closed connection's prepared statements.
      if (!open) throw new Error("The database is closed");
      return (statement.get() as { data_version?: unknown } | undefined)
        ?.data_version;
    },
    close() {
      open = false;
      connection.close();
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

/** The embedded engine on a `file:` or `:memory:` URL. */
async function openEmbeddedDatabase(url: string): Promise<Database> {
  const counter = { count: 0 };
  const { createClient } = await import("@libsql/client");
  const { drizzle } = await import("drizzle-orm/libsql");
  const client = countWrites(createClient({ url }), counter);
  // Foreign keys are off by default in SQLite; WAL lets readers run beside a writer.
  await client.execute("PRAGMA foreign_keys = ON");
  if (url !== ":memory:") await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client, { schema: fullSchema });
  const watcher = await openChangeWatcher(client);
  return databaseHandle({
    db,
    embedded: true,
    counter,
    dataVersion: watcher?.dataVersion ??
      // :memory: has one connection and no other writer: the counter suffices.
      (() => 0),
    // The watcher's prepared statement creates no native objects per call.
    ping: watcher
      ? () => Promise.resolve(watcher.dataVersion())
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
