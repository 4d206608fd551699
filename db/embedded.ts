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
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import {
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  LibsqlBatchError,
  LibsqlError,
  type Replicated,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
} from "@libsql/client/web";

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
// Errors
// ---------------------------------------------------------------------------

/** SQLite's primary result codes (the low byte of every result code). */
export const PRIMARY_CODES: Record<number, string> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  16: "SQLITE_EMPTY",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  24: "SQLITE_FORMAT",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  27: "SQLITE_NOTICE",
  28: "SQLITE_WARNING",
};

/**
 * The extended codes the app may meet and tell apart (constraints, locks,
 * read-only files); `node:sqlite` gives only the number.
 */
const EXTENDED_CODES: Record<number, string> = {
  261: "SQLITE_BUSY_RECOVERY",
  517: "SQLITE_BUSY_SNAPSHOT",
  773: "SQLITE_BUSY_TIMEOUT",
  262: "SQLITE_LOCKED_SHAREDCACHE",
  518: "SQLITE_LOCKED_VTAB",
  264: "SQLITE_READONLY_RECOVERY",
  520: "SQLITE_READONLY_CANTLOCK",
  776: "SQLITE_READONLY_ROLLBACK",
  1032: "SQLITE_READONLY_DBMOVED",
  1288: "SQLITE_READONLY_CANTINIT",
  1544: "SQLITE_READONLY_DIRECTORY",
  516: "SQLITE_ABORT_ROLLBACK",
  270: "SQLITE_CANTOPEN_NOTEMPDIR",
  526: "SQLITE_CANTOPEN_ISDIR",
  782: "SQLITE_CANTOPEN_FULLPATH",
  267: "SQLITE_CORRUPT_VTAB",
  275: "SQLITE_CONSTRAINT_CHECK",
  531: "SQLITE_CONSTRAINT_COMMITHOOK",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  1043: "SQLITE_CONSTRAINT_FUNCTION",
  1299: "SQLITE_CONSTRAINT_NOTNULL",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  1811: "SQLITE_CONSTRAINT_TRIGGER",
  2067: "SQLITE_CONSTRAINT_UNIQUE",
  2323: "SQLITE_CONSTRAINT_VTAB",
  2579: "SQLITE_CONSTRAINT_ROWID",
  2835: "SQLITE_CONSTRAINT_PINNED",
  3091: "SQLITE_CONSTRAINT_DATATYPE",
};

/**
 * A `node:sqlite` failure as the `LibsqlError` `@libsql/client` raises
 * (`code` primary, `extendedCode` extended, the original as `cause`); other
 * errors (a RangeError for an integer beyond 2^53, say) pass unchanged.
 */
function toLibsqlError(error: unknown): unknown {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  if (e?.code !== "ERR_SQLITE_ERROR" || typeof e.errcode !== "number") {
    return error;
  }
  const raw = e.errcode;
  const code = PRIMARY_CODES[raw & 0xff] ?? `SQLITE_UNKNOWN_${raw & 0xff}`;
  const extendedCode = EXTENDED_CODES[raw] ?? code;
  return new LibsqlError(
    String(e.message),
    code,
    extendedCode,
    raw,
    error as Error,
  );
}

/** `toLibsqlError` for statement `index` of a batch. */
function toBatchError(error: unknown, index: number): unknown {
  const e = toLibsqlError(error);
  if (e instanceof LibsqlBatchError || !(e instanceof LibsqlError)) return e;
  // LibsqlError prefixed the code to the message; keep the engine's text.
  const message = e.message.slice(`${e.code}: `.length);
  return new LibsqlBatchError(
    message,
    index,
    e.code,
    e.extendedCode,
    e.rawCode,
    e.cause as Error,
  );
}

// ---------------------------------------------------------------------------
// Values and rows
// ---------------------------------------------------------------------------

type SqlValue = null | number | bigint | string | Uint8Array;

/** A value bound as `@libsql/client` binds it (intMode "number"). */
function toSql(value: InValue): SqlValue {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new RangeError(
        "Only finite numbers (not Infinity or NaN) can be passed as arguments",
      );
    }
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) {
    throw new TypeError(
      "undefined cannot be passed as argument to the database",
    );
  }
  return value;
}

/** Positional or named arguments, converted for `node:sqlite`. */
function bindArgs(
  args: InArgs | undefined,
): SqlValue[] | Record<string, SqlValue> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(toSql);
  const named: Record<string, SqlValue> = {};
  for (const [name, value] of Object.entries(args)) named[name] = toSql(value);
  return named;
}

/** A blob as `@libsql/client` returns it: an ArrayBuffer of its own. */
function fromSql(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    const { buffer, byteOffset, byteLength } = value;
    return byteOffset === 0 && byteLength === buffer.byteLength &&
        buffer instanceof ArrayBuffer
      ? buffer
      : value.slice().buffer;
  }
  return value;
}

/** Makes rows for one list of columns (see `rowClassFor`). */
type RowClass = new (values: unknown[]) => Row;

/** Row classes by column list (a list is replaced when its statement's columns are read again). */
const rowClasses = new WeakMap<string[], RowClass>();

/**
 * The class of rows shaped like `@libsql/client`'s for `columns`: values by
 * column name (own, enumerable: the first column of a name wins, as there),
 * and by index with `length` (getters on the prototype, not enumerable, so
 * Drizzle's `Object.keys` sees only names). One class per column list keeps
 * every row of a statement in one hidden class; defining each value as a
 * property of its own, as before, cost about a tenth of an uncached read.
 */
function rowClassFor(columns: string[]): RowClass {
  const known = rowClasses.get(columns);
  if (known) return known;
  const named: [string, number][] = [];
  const seen = new Set<string>();
  columns.forEach((name, i) => {
    // Names that are an index or `length` read the index or the length, as
    // with @libsql/client (those are defined first there).
    const shadowed = name === "length" ||
      (/^(0|[1-9]\d*)$/.test(name) && Number(name) < columns.length);
    if (seen.has(name) || shadowed) return;
    seen.add(name);
    named.push([name, i]);
  });
  const EmbeddedRow = class {
    #values: unknown[];
    constructor(values: unknown[]) {
      this.#values = values;
      const self = this as unknown as Record<string, unknown>;
      for (const [name, i] of named) self[name] = values[i];
    }
    static valueAt(row: InstanceType<typeof EmbeddedRow>, i: number): unknown {
      return row.#values[i];
    }
    static lengthOf(row: InstanceType<typeof EmbeddedRow>): number {
      return row.#values.length;
    }
  };
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(EmbeddedRow.prototype, i, {
      get(this: InstanceType<typeof EmbeddedRow>) {
        return EmbeddedRow.valueAt(this, i);
      },
    });
  }
  Object.defineProperty(EmbeddedRow.prototype, "length", {
    get(this: InstanceType<typeof EmbeddedRow>) {
      return EmbeddedRow.lengthOf(this);
    },
  });
  const rowClass = EmbeddedRow as unknown as RowClass;
  rowClasses.set(columns, rowClass);
  return rowClass;
}

/** Bytes in base64 (a loop: spreading a large blob overflows the stack). */
function base64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** A result with `@libsql/client`'s fields and JSON form. */
class Result implements ResultSet {
  constructor(
    public columns: string[],
    public columnTypes: string[],
    public rows: Row[],
    public rowsAffected: number,
    public lastInsertRowid: bigint | undefined,
  ) {}

  toJSON() {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) =>
        Array.prototype.map.call(
          row,
          (v: unknown) =>
            typeof v === "bigint"
              ? String(v)
              : v instanceof ArrayBuffer
              ? base64(new Uint8Array(v))
              : v,
        )
      ),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid === undefined
        ? null
        : String(this.lastInsertRowid),
    };
  }
}

// ---------------------------------------------------------------------------
// The statement cache
// ---------------------------------------------------------------------------

interface Prepared {
  statement: StatementSync;
  /** Whether it returns rows (SELECT, PRAGMA, RETURNING...). */
  reader: boolean;
  /** Column names and declared types, read once: `columns()` costs ~4 µs. */
  names: string[];
  types: string[];
  /**
   * For statements with a `*`, whose columns depend on the schema: the
   * schema version they were prepared under, else 0.
   */
  schema: number;
}

/** Reads the column names and declared types of `prepared` again. */
function readColumns(prepared: Prepared): void {
  const columns = prepared.statement.columns();
  prepared.names = columns.map((c) => c.name);
  prepared.types = columns.map((c) => c.type ?? "");
}

/**
 * Prepared statements by SQL text, least recently used first (a Map keeps
 * insertion order; a hit moves its entry to the end). `node:sqlite` has no
 * way to finalise a statement: an evicted one is finalised when collected.
 */
export class StatementCache {
  readonly #db: DatabaseSync;
  readonly #map = new Map<string, Prepared>();
  #version: StatementSync | null = null;
  #touch: StatementSync | null = null;
  readonly limit: number;

  constructor(db: DatabaseSync, limit: number) {
    this.#db = db;
    this.limit = Math.max(1, limit);
  }

  /** The prepared statement for `sql`, prepared now when not cached. */
  get(sql: string): Prepared {
    const hit = this.#map.get(sql);
    if (hit) this.#map.delete(sql);
    if (hit && (hit.schema === 0 || hit.schema === this.#schemaVersion())) {
      this.#map.set(sql, hit);
      return hit;
    }
    // SQLite re-prepares a statement after a schema change by itself, but
    // node:sqlite then answers `SELECT *` with the old columns (values too)
    // once: statements with a `*` are prepared again when the schema changed,
    // after a read that makes the connection load the current schema.
    const wide = sql.includes("*");
    if (wide) this.#loadSchema();
    const statement = this.#db.prepare(sql);
    statement.setReturnArrays(true);
    const prepared: Prepared = {
      statement,
      reader: false,
      names: [],
      types: [],
      schema: wide ? this.#schemaVersion() : 0,
    };
    readColumns(prepared);
    prepared.reader = prepared.names.length > 0;
    this.#map.set(sql, prepared);
    if (this.#map.size > this.limit) {
      this.#map.delete(this.#map.keys().next().value!);
    }
    return prepared;
  }

  /** Makes the connection read the schema again if another one changed it. */
  #loadSchema(): void {
    this.#touch ??= this.#db.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
    this.#touch.get();
  }

  /** The database's schema version (any connection's change bumps it). */
  #schemaVersion(): number {
    if (!this.#version) {
      this.#version = this.#db.prepare("PRAGMA schema_version");
      this.#version.setReturnArrays(true);
    }
    const row = this.#version.get() as unknown as [number];
    // Never 0, which marks statements that need no check.
    return row[0] + 1;
  }

  /** Statements cached now. */
  get size(): number {
    return this.#map.size;
  }

  /** Whether `sql` has a cached statement. */
  has(sql: string): boolean {
    return this.#map.has(sql);
  }

  clear(): void {
    this.#map.clear();
  }
}

/** Statements that change the schema, after which cached column lists may be stale. */
const SCHEMA_CHANGE = /^\s*(create|drop|alter)\b/i;

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

/**
 * `@libsql/client`'s `Client` for one embedded database over one
 * `node:sqlite` connection.
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

  /** Runs statements atomically, in one transaction. */
  async batch(
    stmts: BatchStatement[],
    mode: TransactionMode = "deferred",
  ): Promise<ResultSet[]> {
    await this.#idle();
    const begin = beginFor(mode);
    // One statement is atomic by itself: no BEGIN/COMMIT around it (most
    // reads are one statement). A "read" batch keeps its read-only transaction.
    if (stmts.length === 1 && mode !== "read") {
      try {
        return [this.run(normalize(stmts[0]))];
      } catch (error) {
        throw toBatchError(error, 0);
      }
    }
    return this.#atomic(stmts, begin);
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
    this.#db.close();
  }
}

/** An interactive transaction of an `EmbeddedClient`. */
class EmbeddedTransaction implements Transaction {
  #client: EmbeddedClient | null;
  readonly #end: () => void;

  constructor(client: EmbeddedClient, end: () => void) {
    this.#client = client;
    this.#end = end;
  }

  /** The client while the transaction is open. */
  #open(): EmbeddedClient {
    const client = this.#client;
    if (!client || client.closed || !client.inTransaction) {
      throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
    }
    return client;
  }

  /** Gives the connection back (once). */
  #settle(): void {
    if (!this.#client) return;
    this.#client = null;
    this.#end();
  }

  get closed(): boolean {
    const client = this.#client;
    return !client || client.closed || !client.inTransaction;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    try {
      return Promise.resolve(this.#open().run(stmt));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs statements in order inside the transaction (not atomic by themselves, as in `@libsql/client`). */
  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    const results: ResultSet[] = [];
    for (let i = 0; i < stmts.length; i++) {
      try {
        results.push(this.#open().run(stmts[i]));
      } catch (error) {
        return Promise.reject(toBatchError(error, i));
      }
    }
    return Promise.resolve(results);
  }

  executeMultiple(sql: string): Promise<void> {
    try {
      return Promise.resolve(this.#open().exec(sql));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  commit(): Promise<void> {
    try {
      this.#open().run("COMMIT");
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.#settle();
    }
  }

  rollback(): Promise<void> {
    try {
      const client = this.#client;
      if (client && !client.closed && client.inTransaction) {
        client.run("ROLLBACK");
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.#settle();
    }
  }

  close(): void {
    try {
      const client = this.#client;
      if (client && !client.closed && client.inTransaction) {
        client.run("ROLLBACK");
      }
    } finally {
      this.#settle();
    }
  }
}
