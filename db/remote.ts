/**
 * The database handle and the remote opener, safe for every runtime (Deno,
 * Deno Deploy, Cloudflare Workers): nothing here loads a native addon or
 * reads a file. `db/client.ts` adds the embedded engine (Deno only) on top.
 */
import { DERIVED_WRITE } from "./statement-cache.ts";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import * as schema from "./schema.ts";

/** The tables Drizzle is given (no relations: no query uses its relational API). */
export const fullSchema = schema;
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
   * concurrent transactions at once with SQLITE_BUSY, so they queue here.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A value that differs whenever the content may have changed since it was
   * last read: this handle's completed writes that changed rows, plus, for a
   * file, every commit by any connection, seen by `PRAGMA data_version` on a
   * connection of its own. Synchronous and free of queries through the
   * client. On a remote database it sees this handle's writes only (other
   * isolates and replicas write unseen): what is cached there must also
   * expire on its own (`embedded` is false). Null: nothing may be cached.
   */
  changeMarker(): string | null;
  /** Resolves while the database answers a query; rejects once it does not. */
  ping(): Promise<void>;
  /**
   * Applies the committed migrations (db/migrations). Only where files can be
   * read: set by `db/client.ts`'s opener, absent from the edge opener.
   */
  migrate?: () => Promise<void>;
  close(): void;
}

/** Statements that only read: SELECT, EXPLAIN, and PRAGMA without a value. */
const READ_ONLY = /^\s*(select|explain)\b|^\s*pragma\s+[a-z_]+\s*;?\s*$/i;

/** Schema changes, which report no changed rows but change what reads see. */
const SCHEMA_CHANGE = /^\s*(create|drop|alter)\b/i;

function sqlOf(stmt: unknown): string {
  return typeof stmt === "string"
    ? stmt
    : String((stmt as { sql?: unknown } | null)?.sql ?? "");
}

/**
 * Whether running `stmt` may change what public reads see, given how many
 * rows it changed or returned (undefined when it failed, which counts as a
 * change). The embedded client reports 0 changed rows for any statement that
 * returns rows, so a write with RETURNING counts by the rows it returned.
 */
function changesContent(stmt: unknown, touched: number | undefined) {
  const text = sqlOf(stmt);
  if (READ_ONLY.test(text) || DERIVED_WRITE.test(text)) return false;
  return touched === undefined || touched > 0 || SCHEMA_CHANGE.test(text);
}

/** Rows a result changed or returned; undefined when it says neither. */
function rowsTouchedBy(result: unknown): number | undefined {
  const r = result as { rowsAffected?: unknown; rows?: unknown } | null;
  if (typeof r?.rowsAffected !== "number") return undefined;
  return r.rowsAffected + (Array.isArray(r.rows) ? r.rows.length : 0);
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
 * Makes every completed write through a libSQL client that changed something
 * bump `counter` (the client's methods are replaced in place). The bump comes
 * after the write finishes, so a reader that cached an answer computed before
 * it sees a new generation and drops that answer. Statements that changed no
 * row (the queue's idle polls, say) leave cached answers alone.
 */
export function countWrites<C extends object>(
  client: C,
  counter: { count: number },
): C {
  /** Runs `run`; bumps the counter when `changed` says so, or when it throws. */
  const after = async <T>(
    run: () => Promise<T>,
    changed: (result: T) => boolean,
  ) => {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      counter.count++;
      throw error;
    }
    if (changed(result)) counter.count++;
    return result;
  };
  const always = () => true;
  const inner = client as unknown as ClientLike;
  const execute = inner.execute.bind(inner);
  const batch = inner.batch.bind(inner);
  const executeMultiple = inner.executeMultiple.bind(inner);
  const migrate = inner.migrate.bind(inner);
  const transaction = inner.transaction.bind(inner);
  inner.execute = (stmt: unknown, ...rest: unknown[]) =>
    after(
      () => execute(stmt, ...rest),
      (result) => changesContent(stmt, rowsTouchedBy(result)),
    );
  inner.batch = (stmts: unknown, ...rest: unknown[]) =>
    after(
      () => batch(stmts, ...rest),
      (results) =>
        (stmts as unknown[]).some((stmt, i) =>
          changesContent(stmt, rowsTouchedBy((results as unknown[])[i]))
        ),
    );
  inner.executeMultiple = (...args: unknown[]) =>
    after(() => executeMultiple(...args), always);
  inner.migrate = (...args: unknown[]) => after(() => migrate(...args), always);
  inner.transaction = async (...args: unknown[]) => {
    const tx = await transaction(...args);
    const commit = tx.commit.bind(tx);
    const rollback = tx.rollback.bind(tx);
    const close = tx.close.bind(tx);
    // Interactive transactions are rare (event writes): any end counts.
    tx.commit = () => after(commit, always);
    tx.rollback = () => after(rollback, always);
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

/** What an opener supplies; `databaseHandle` adds the rest. */
export interface DatabaseParts {
  db: Db;
  embedded: boolean;
  /** Bumped by `countWrites` on every completed write that changed something. */
  counter: { count: number };
  /** The file's change marker (`PRAGMA data_version`); null when there is none. */
  dataVersion: (() => unknown) | null;
  ping: () => Promise<unknown>;
  close: () => void;
}

/** The `Database` over an opened client. */
export function databaseHandle(parts: DatabaseParts): Database {
  const { db, counter, dataVersion } = parts;
  let marker: { count: number; version: unknown; text: string } = {
    count: -1,
    version: undefined,
    text: "",
  };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    db,
    embedded: parts.embedded,
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const run = queue.then(() => db.transaction(fn));
      queue = run.catch(() => undefined);
      return run;
    },
    changeMarker() {
      if (!dataVersion) return null;
      const before = counter.count;
      const version = dataVersion();
      // The same string while nothing changed: asked twice per cached read.
      if (before !== marker.count || version !== marker.version) {
        marker = {
          count: before,
          version,
          text: `${before}.${String(version)}`,
        };
      }
      return marker.text;
    },
    async ping() {
      await parts.ping();
    },
    close: parts.close,
  };
}

/**
 * Opens a remote database (`libsql://`, `https://`, `http://`: Turso or any
 * sqld) through the HTTP client, which runs on every runtime.
 */
export async function openRemoteDatabase(
  url: string,
  authToken?: string,
): Promise<Database> {
  const counter = { count: 0 };
  const { createClient } = await import("@libsql/client/web");
  const { drizzle } = await import("drizzle-orm/libsql/web");
  const client = countWrites(createClient({ url, authToken }), counter);
  const db = drizzle(client, { schema: fullSchema }) as unknown as Db;
  return databaseHandle({
    db,
    embedded: false,
    counter,
    // No marker of other writers' commits: this isolate's writes only.
    dataVersion: () => "local",
    ping: () => client.execute("select 1"),
    close: () => client.close(),
  });
}
