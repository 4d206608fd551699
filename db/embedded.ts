/**
 * The embedded engine for `file:` and `:memory:` URLs: the part of
 * `@libsql/client`'s `Client` that Drizzle's libsql driver uses, over Deno's
 * built-in SQLite (`node:sqlite`, one synchronous connection per client).
 *
 * Why not `@libsql/client` here: it prepares a new statement (and a row
 * iterator) through the native `libsql` addon for every `execute`, and under
 * Deno's Node-API layer each of those native objects leaves memory behind for
 * good. Here statements are prepared once per SQL text and kept in a bounded
 * LRU cache; `node:sqlite` is built into Deno (no addon), and a reused
 * statement of it neither leaks nor costs more than a few microseconds
 * (tests/bench/embedded-db.ts measures both).
 *
 * Results, values and errors have the shapes `@libsql/client` (intMode
 * "number") gives, so Drizzle, `countWrites` and `lib/errors.ts` see no
 * difference: rows are array-like objects with column-name properties, blobs
 * come back as ArrayBuffer, failures are `LibsqlError`s with `code` and
 * `extendedCode`.
 *
 * The parts, in db/: embedded-errors.ts (errors), embedded-rows.ts (values,
 * rows, results), statement-cache.ts, embedded-transaction.ts (interactive
 * transactions); this module has the client.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import {
  type Client,
  type InArgs,
  type InStatement,
  LibsqlBatchError,
  LibsqlError,
  type Replicated,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from "@libsql/client/web";
import { toBatchError, toLibsqlError } from "./embedded-errors.ts";
import { bindArgs, fromSql, Result, rowClassFor } from "./embedded-rows.ts";
import { EmbeddedTransaction } from "./embedded-transaction.ts";
import {
  DERIVED_WRITE,
  SCHEMA_CHANGE,
  StatementCache,
} from "./statement-cache.ts";

export { PRIMARY_CODES } from "./embedded-errors.ts";
export { StatementCache } from "./statement-cache.ts";

/** Prepared statements kept per client, by default. */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * How long a statement waits for another process's lock before failing with
 * SQLITE_BUSY. The wait blocks the event loop (the engine is synchronous), so
 * it is short; within this process nothing waits for a lock, since every
 * statement goes through the one connection (see `EmbeddedClient`).
 */
export const BUSY_TIMEOUT_MS = 1000;

export interface EmbeddedOptions {
  /** Prepared statements kept (least recently used ones are dropped). */
  statementCacheSize?: number;
  /**
   * Whether write batches that arrive together share one commit (see
   * `EmbeddedClient`); by default for files, never for `:memory:` (which has
   * no commit to wait for).
   */
  groupCommit?: boolean;
  /** Milliseconds to wait for another connection's lock. */
  busyTimeoutMs?: number;
}

/** The file path of a `file:` URL, or `:memory:`. */
export function embeddedPath(url: string): string {
  if (url === ":memory:") return url;
  if (!url.startsWith("file:")) {
    throw new LibsqlError(`Not an embedded URL: ${url}`, "URL_INVALID");
  }
  // Query parameters (`?mode=ro`...) would be taken as part of the name.
  if (url.includes("?")) {
    throw new LibsqlError(
      "URL query parameters are not supported for embedded databases",
      "URL_PARAM_NOT_SUPPORTED",
    );
  }
  // `file:///abs/x.db` and `file://localhost/abs` are URLs; `file:data/x.db` is relative.
  return url.startsWith("file://") ? fileURLToPath(url) : url.slice(5);
}

// ---------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------

/** A statement of a batch in either of the forms `Client.batch` takes. */
type BatchStatement = InStatement | [string, InArgs?];

function normalize(stmt: BatchStatement, args?: InArgs): {
  sql: string;
  args?: InArgs;
} {
  if (typeof stmt === "string") return { sql: stmt, args };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return stmt;
}

function beginFor(mode: TransactionMode): string {
  // libSQL's "BEGIN TRANSACTION READONLY" is not SQLite syntax; a deferred
  // transaction that only reads takes no write lock either.
  if (mode === "write") return "BEGIN IMMEDIATE";
  if (mode === "read" || mode === "deferred") return "BEGIN DEFERRED";
  throw new RangeError(
    'Unknown transaction mode, supported values are "write", "read" and "deferred"',
  );
}

/** A write batch waiting for its group's commit. */
interface PendingBatch {
  stmts: BatchStatement[];
  resolve(results: ResultSet[]): void;
  reject(error: unknown): void;
}

/** Whether every statement of a batch only reads (it then needs no commit). */
function readsOnly(stmts: BatchStatement[]): boolean {
  return stmts.every((stmt) => /^\s*select\b/i.test(normalize(stmt).sql));
}

/**
 * `@libsql/client`'s `Client` for one embedded database over one
 * `node:sqlite` connection.
 *
 * Group commit (files): a commit waits for the disk (`synchronous = FULL`,
 * an fsync of the log), and the wait blocks the process, since the engine
 * is synchronous. Write batches of several statements are therefore not run
 * at once but on the next turn of the event loop, together with those other
 * requests sent meanwhile, in one transaction: each batch in a savepoint of
 * its own (a batch that fails is rolled back alone, and only its caller sees
 * the error), then one COMMIT for all. Each batch is answered once that
 * commit is on disk, so what is acknowledged is as durable as before, and
 * nothing reads what a pending batch wrote before it commits.
 *
 * Concurrency: `execute`, `batch`, `migrate` and `executeMultiple` each run to
 * completion synchronously once they start, so they never interleave (a batch
 * is atomic: BEGIN, its statements, COMMIT, or ROLLBACK on failure). An
 * interactive transaction spans awaits on the same connection, where any
 * other statement would join it: while one is open, every other call (and
 * any other transaction) waits for it to end. So code inside a transaction
 * must use the transaction, never the client (or `db`): such a call would
 * wait for the transaction it runs in, for ever.
 */
export class EmbeddedClient implements Client {
  readonly #db: DatabaseSync;
  readonly statements: StatementCache;
  /** Settles when the open interactive transaction ends; null when none is. */
  #held: Promise<void> | null = null;
  /** Ends the open interactive transaction's hold (wakes those waiting). */
  #release: () => void = () => {};
  readonly #groupCommit: boolean;
  /** Write batches waiting for the next group commit. */
  #pending: PendingBatch[] = [];
  closed = false;
  readonly protocol = "file";

  constructor(url: string, options: EmbeddedOptions = {}) {
    try {
      this.#db = new DatabaseSync(embeddedPath(url));
      this.#db.exec(
        `PRAGMA busy_timeout = ${options.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`,
      );
    } catch (error) {
      throw toLibsqlError(error);
    }
    this.statements = new StatementCache(
      this.#db,
      options.statementCacheSize ?? STATEMENT_CACHE_SIZE,
    );
    this.#groupCommit = options.groupCommit ?? url !== ":memory:";
  }

  /** Waits until no interactive transaction holds the connection. */
  async #idle(): Promise<void> {
    while (this.#held) await this.#held;
    this.#checkOpen();
  }

  #checkOpen(): void {
    if (this.closed) {
      throw new LibsqlError("The client is closed", "CLIENT_CLOSED");
    }
  }

  /** Runs one statement on the connection, synchronously. */
  run(stmt: InStatement, args?: InArgs): Result {
    const { sql, args: stmtArgs } = normalize(stmt, args);
    try {
      const prepared = this.statements.get(sql);
      const bound = bindArgs(stmtArgs);
      if (prepared.reader) {
        const raw = (Array.isArray(bound)
          ? prepared.statement.all(...bound)
          : prepared.statement.all(bound)) as unknown as unknown[][];
        const Row = rowClassFor(prepared.names);
        const rows = raw.map((values) => {
          for (let i = 0; i < values.length; i++) {
            values[i] = fromSql(values[i]);
          }
          return new Row(values);
        });
        // @libsql/client reports neither changes nor rowid for statements
        // returning rows (countWrites counts those by the rows returned).
        return new Result(prepared.names, prepared.types, rows, 0, undefined);
      }
      const info = Array.isArray(bound)
        ? prepared.statement.run(...bound)
        : prepared.statement.run(bound);
      if (SCHEMA_CHANGE.test(sql)) this.statements.clear();
      return new Result(
        [],
        [],
        [],
        Number(info.changes),
        BigInt(info.lastInsertRowid),
      );
    } catch (error) {
      throw toLibsqlError(error);
    }
  }

  #dataVersion: StatementSync | null = null;

  /**
   * `PRAGMA data_version` on this connection: it changes when another
   * connection commits, never for this one's own commits.
   */
  dataVersion(): unknown {
    this.#checkOpen();
    this.#dataVersion ??= this.#db.prepare("PRAGMA data_version");
    return (this.#dataVersion.get() as Record<string, unknown> | undefined)
      ?.data_version;
  }

  /** Whether the connection is inside a transaction. */
  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  /** Runs `stmts` in one transaction begun with `begin`; rolls back on failure. */
  #atomic(stmts: BatchStatement[], begin: string): Result[] {
    this.run(begin);
    try {
      const results: Result[] = [];
      for (let i = 0; i < stmts.length; i++) {
        // A failure such as SQLITE_FULL can end the transaction by itself.
        if (!this.#db.isTransaction) {
          throw new LibsqlBatchError(
            "The transaction has been rolled back",
            i,
            "TRANSACTION_CLOSED",
          );
        }
        try {
          results.push(this.run(normalize(stmts[i])));
        } catch (error) {
          throw toBatchError(error, i);
        }
      }
      this.run("COMMIT");
      return results;
    } finally {
      if (this.#db.isTransaction) this.run("ROLLBACK");
    }
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  /** Runs one statement. */
  async execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    await this.#idle();
    return this.run(stmt, args);
  }

  /** The connection's `synchronous` level, read once. */
  #synchronous: unknown = null;

  /**
   * Runs a batch of derived data (DERIVED_WRITE) in a commit that does not
   * wait for the disk (`synchronous = NORMAL`, safe in WAL mode: a crash may
   * only lose the last such commits, which reads make again), then puts the
   * level back. All of it runs synchronously, so no other statement commits
   * under the lower level; the next ordinary commit syncs the log, these
   * pages included.
   */
  #derived<T>(write: () => T): T {
    this.#synchronous ??= (this.#db.prepare("PRAGMA synchronous").get() as
      | Record<string, unknown>
      | undefined)?.synchronous ?? 2;
    this.#db.exec("PRAGMA synchronous = NORMAL");
    try {
      return write();
    } finally {
      this.#db.exec(`PRAGMA synchronous = ${Number(this.#synchronous)}`);
    }
  }

  /** Runs statements atomically, in one transaction. */
  async batch(
    stmts: BatchStatement[],
    mode: TransactionMode = "deferred",
  ): Promise<ResultSet[]> {
    await this.#idle();
    const begin = beginFor(mode);
    // Derived data only (DERIVED_WRITE): one transaction now, without
    // waiting for the disk, and outside the group commit.
    if (
      !this.#db.isTransaction &&
      stmts.every((stmt) => DERIVED_WRITE.test(normalize(stmt).sql))
    ) {
      return this.#derived(() => this.#atomic(stmts, "BEGIN IMMEDIATE"));
    }
    // One statement is atomic by itself: no BEGIN/COMMIT around it (most
    // reads are one statement). A "read" batch keeps its read-only transaction.
    if (stmts.length === 1 && mode !== "read") {
      try {
        return [this.run(normalize(stmts[0]))];
      } catch (error) {
        throw toBatchError(error, 0);
      }
    }
    if (this.#groupCommit && mode !== "read" && !readsOnly(stmts)) {
      return await new Promise<ResultSet[]>((resolve, reject) => {
        if (this.#pending.length === 0) setTimeout(() => this.#commitGroup());
        this.#pending.push({ stmts, resolve, reject });
      });
    }
    return this.#atomic(stmts, begin);
  }

  /** Runs the pending write batches in one transaction (see the class). */
  async #commitGroup(): Promise<void> {
    try {
      await this.#idle();
    } catch (error) {
      // Closed meanwhile.
      for (const batch of this.#pending.splice(0)) batch.reject(error);
      return;
    }
    const group = this.#pending.splice(0);
    if (group.length === 1) {
      const [batch] = group;
      try {
        batch.resolve(this.#atomic(batch.stmts, "BEGIN IMMEDIATE"));
      } catch (error) {
        batch.reject(error);
      }
      return;
    }
    const done: { batch: PendingBatch; results: Result[] }[] = [];
    try {
      this.run("BEGIN IMMEDIATE");
    } catch (error) {
      for (const batch of group) batch.reject(error);
      return;
    }
    let next = 0;
    try {
      for (; next < group.length; next++) {
        const results = this.#inSavepoint(group[next]);
        if (results) done.push({ batch: group[next], results });
      }
      this.run("COMMIT");
    } catch (error) {
      // The transaction itself failed (the disk is full, say): none of it
      // is written, and every batch not already refused hears so.
      if (this.#db.isTransaction) this.run("ROLLBACK");
      for (const { batch } of done) batch.reject(error);
      for (const batch of group.slice(next + 1)) batch.reject(error);
      return;
    }
    for (const { batch, results } of done) batch.resolve(results);
  }

  /**
   * Runs one batch of a group in a savepoint: its results, or null when it
   * failed (then rolled back alone and refused). Throws when the failure
   * ended the whole transaction.
   */
  #inSavepoint(batch: PendingBatch): Result[] | null {
    this.run("SAVEPOINT quando_batch");
    const results: Result[] = [];
    for (let i = 0; i < batch.stmts.length; i++) {
      try {
        results.push(this.run(normalize(batch.stmts[i])));
      } catch (error) {
        const refused = toBatchError(error, i);
        // A failure such as SQLITE_FULL can end the transaction by itself.
        if (!this.#db.isTransaction) {
          batch.reject(refused);
          throw refused;
        }
        this.run("ROLLBACK TO quando_batch");
        this.run("RELEASE quando_batch");
        batch.reject(refused);
        return null;
      }
    }
    this.run("RELEASE quando_batch");
    return results;
  }

  /** Runs migration statements atomically with foreign keys off, as `@libsql/client` does. */
  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    await this.#idle();
    // The pragma is a no-op inside a transaction, so it goes before BEGIN.
    this.run("PRAGMA foreign_keys = OFF");
    try {
      return this.#atomic(stmts, "BEGIN DEFERRED");
    } finally {
      this.run("PRAGMA foreign_keys = ON");
      this.statements.clear();
    }
  }

  /** Runs a script of several statements (no arguments, no results). */
  async executeMultiple(sql: string): Promise<void> {
    await this.#idle();
    try {
      this.exec(sql);
    } finally {
      // A script must not leave a transaction open for the next caller.
      if (this.#db.isTransaction) this.run("ROLLBACK");
    }
  }

  /** Runs a script of several statements on the connection, synchronously. */
  exec(sql: string): void {
    try {
      this.#db.exec(sql);
    } catch (error) {
      throw toLibsqlError(error);
    } finally {
      // The script may have changed the schema.
      this.statements.clear();
    }
  }

  /** Begins an interactive transaction, which holds the connection until it ends. */
  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    await this.#idle();
    let wake!: () => void;
    this.#held = new Promise((resolve) => wake = resolve);
    const end = () => {
      if (this.#release !== end) return;
      this.#held = null;
      this.#release = () => {};
      try {
        // Whatever the transaction left open (a failed COMMIT) must not be
        // inherited by the next caller.
        if (!this.closed && this.#db.isTransaction) this.run("ROLLBACK");
      } finally {
        wake();
      }
    };
    this.#release = end;
    try {
      this.run(beginFor(mode));
    } catch (error) {
      end();
      throw error;
    }
    return new EmbeddedTransaction(this, end);
  }

  sync(): Promise<Replicated> {
    return Promise.resolve(undefined);
  }

  reconnect(): void {
    throw new LibsqlError(
      "An embedded client cannot reconnect",
      "NOT_SUPPORTED",
    );
  }

  /** Closes the connection; a transaction still open is rolled back. */
  close(): void {
    if (this.closed) return;
    // Those waiting for a transaction wake up to find the client closed.
    this.#release();
    this.closed = true;
    this.statements.clear();
    this.#dataVersion = null;
    this.#db.close();
  }
}
