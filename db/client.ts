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
  /**
   * A value that differs whenever the content may have changed since it was
   * last read: this handle's completed writes, plus commits by any other
   * connection (`PRAGMA data_version`). Null for remote databases, which have
   * no such marker (other replicas write unseen), so nothing may be cached.
   */
  changeMarker(): Promise<string | null>;
  close(): void;
}

/** Statements that only read: SELECT, EXPLAIN, and PRAGMA without a value. */
const READ_ONLY = /^\s*(select|explain)\b|^\s*pragma\s+[a-z_]+\s*;?\s*$/i;

function isWrite(stmt: unknown): boolean {
  const text = typeof stmt === "string"
    ? stmt
    : String((stmt as { sql?: unknown } | null)?.sql ?? "");
  return !READ_ONLY.test(text);
}

interface ClientLike {
  execute(...args: unknown[]): Promise<unknown>;
  batch(...args: unknown[]): Promise<unknown>;
  executeMultiple(...args: unknown[]): Promise<unknown>;
  migrate(...args: unknown[]): Promise<unknown>;
  transaction(...args: unknown[]): Promise<TransactionLike>;
}
interface TransactionLike {
  execute(...args: unknown[]): Promise<unknown>;
  batch(...args: unknown[]): Promise<unknown>;
  executeMultiple(...args: unknown[]): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): void;
}

/**
 * Makes every completed write through a libSQL client bump `counter` (the
 * client's methods are replaced in place). The bump comes after the write
 * finishes, so a reader that cached an answer computed before it sees a new
 * generation and drops that answer.
 */
function countWrites<C extends object>(
  client: C,
  counter: { count: number },
): C {
  const after = async <T>(write: boolean, run: () => Promise<T>) => {
    try {
      return await run();
    } finally {
      if (write) counter.count++;
    }
  };
  const inner = client as unknown as ClientLike;
  const execute = inner.execute.bind(inner);
  const batch = inner.batch.bind(inner);
  const executeMultiple = inner.executeMultiple.bind(inner);
  const migrate = inner.migrate.bind(inner);
  const transaction = inner.transaction.bind(inner);
  inner.execute = (stmt: unknown, ...rest: unknown[]) =>
    after(isWrite(stmt), () => execute(stmt, ...rest));
  inner.batch = (stmts: unknown, ...rest: unknown[]) =>
    after(
      (stmts as unknown[]).some(isWrite),
      () => batch(stmts, ...rest),
    );
  inner.executeMultiple = (...args: unknown[]) =>
    after(true, () => executeMultiple(...args));
  inner.migrate = (...args: unknown[]) => after(true, () => migrate(...args));
  inner.transaction = async (...args: unknown[]) => {
    const tx = await transaction(...args);
    const commit = tx.commit.bind(tx);
    const rollback = tx.rollback.bind(tx);
    const close = tx.close.bind(tx);
    tx.commit = () => after(true, commit);
    tx.rollback = () => after(true, rollback);
    tx.close = () => {
      counter.count++;
      close();
    };
    return tx;
  };
  return client;
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
  let dataVersion: (() => Promise<unknown>) | null = null;
  const counter = { count: 0 };
  if (embedded) {
    const { createClient } = await import("@libsql/client");
    const { drizzle } = await import("drizzle-orm/libsql");
    const client = countWrites(createClient({ url }), counter);
    // Foreign keys are off by default in SQLite; WAL lets readers run beside a writer.
    await client.execute("PRAGMA foreign_keys = ON");
    if (url !== ":memory:") await client.execute("PRAGMA journal_mode = WAL");
    db = drizzle(client, { schema: fullSchema });
    close = () => client.close();
    dataVersion = async () =>
      (await client.execute("PRAGMA data_version")).rows[0]?.[0];
  } else {
    const { createClient } = await import("@libsql/client/web");
    const { drizzle } = await import("drizzle-orm/libsql/web");
    const client = countWrites(createClient({ url, authToken }), counter);
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
    async changeMarker() {
      if (!dataVersion) return null;
      const before = counter.count;
      const version = await dataVersion();
      return `${before}.${String(version)}`;
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
