/**
 * A local libSQL server for tests: Hrana over HTTP (the sqld "HTTP API v2" and
 * Hrana 3 over HTTP, JSON encoding) over the embedded libSQL engine (the
 * `libsql` package), written from the protocol specifications in the libSQL
 * repository (docs/HTTP_V2_SPEC.md, docs/HRANA_3_SPEC.md). It is what
 * `@libsql/client/web` talks to for an `http://` URL, so the app can be run
 * against a "remote" database without Turso.
 *
 * What it serves:
 * - `GET /v2`, `GET /v3`: version probes (200). `GET /v3-protobuf` is 404, so
 *   clients that probe for Protobuf fall back to JSON.
 * - `POST /v2/pipeline`, `POST /v3/pipeline`: a pipeline of stream requests
 *   (`execute`, `batch`, `sequence`, `describe`, `store_sql`, `close_sql`,
 *   `get_autocommit` (v3), `close`).
 * - `POST /v3/cursor`: a batch whose results come back as lines of JSON.
 * - `GET /health` and `GET /`: 200.
 * - The same under `/ns/<name>/` when `namespacesDir` is given: one database
 *   file per name (`<namespacesDir>/<name>.db`), created on first use. Note the
 *   trailing slash in such a URL: the client resolves `v2/pipeline` against it.
 *
 * Streams, as sqld does them: a pipeline without a baton opens a stream; a
 * stream is one SQLite connection to the database file from its first
 * statement until it closes (the `close` request, an HTTP error, or 10 s
 * without a request), so an interactive transaction carried across requests
 * by the baton is isolated from other streams and atomic. Every response on
 * an open stream carries a fresh random baton; the old one is spent. Unknown,
 * spent or expired batons are an HTTP 400 with a JSON `{message, code}`
 * (`BATON_INVALID`, `STREAM_EXPIRED`; sqld answers the latter with a 500).
 * Connections that end in autocommit state, and whose stream changed no
 * per-connection state (PRAGMA, ATTACH, TEMP objects), go back to a small pool
 * for the next stream, which then sees exactly what a fresh connection would.
 *
 * Concurrency: the engine is synchronous, so a real busy timeout would block
 * this server's event loop, and with it the very COMMIT that would free the
 * lock. Instead connections have no busy timeout and a statement that fails
 * with SQLITE_BUSY is retried asynchronously for up to `busyTimeoutMs`; the
 * database is in WAL mode so readers run beside a writer.
 *
 * Fidelity choices (sqld, libsql-server/src/hrana, and libsql-ffi/build.rs):
 * - Foreign keys: libSQL's engine is compiled with
 *   SQLITE_DEFAULT_FOREIGN_KEYS=1 and sqld sets no `foreign_keys` pragma on its
 *   connections, so a remote connection enforces foreign keys. This server
 *   leaves the engine default alone (`foreignKeys: undefined`); `false` turns
 *   enforcement off on every connection, to test an engine without it.
 * - Error codes: sqld reports the primary result code (`SQLITE_CONSTRAINT`,
 *   never `SQLITE_CONSTRAINT_UNIQUE`; SQLITE_ERROR comes out as
 *   `SQLITE_UNKNOWN`), with the message `SQLite error: <sqlite message>`, and
 *   `@libsql/client/web` surfaces that code as `err.code` with no
 *   `extendedCode`. That is the default (`errorCodes: "sqld"`);
 *   `errorCodes: "extended"` sends the engine's extended code instead.
 * - Syntax errors found while preparing a statement are `SQL_PARSE_ERROR`;
 *   an `execute` of several statements is `SQL_MANY_STATEMENTS`; stored SQL is
 *   limited to 50 texts of at most 5,000 bytes per stream.
 * - `rows_read` is the number of rows returned (sqld counts rows scanned),
 *   `rows_written` the rows changed including by triggers.
 *
 * Run as a script: `deno run --config deno.dev.json -A tests/support/hrana-server.ts --db FILE
 * (or --namespaces DIR, or both) [--port N] [--host H] [--auth-token T] [--namespaces DIR]
 * [--foreign-keys off] [--error-codes extended] [--stream-idle-ms MS]
 * [--exit-with-stdin] [--remove-namespaces-on-exit]`. It prints
 * `Listening on <url>` on stdout once it accepts requests.
 */
import Database from "libsql";
import { Buffer } from "node:buffer";
import { PRIMARY_CODES } from "../../db/embedded.ts";

export interface HranaServerOptions {
  /** The database file served at the root URL. */
  path?: string;
  /** Also serve `/ns/<name>/` from `<namespacesDir>/<name>.db`. */
  namespacesDir?: string;
  /** When set, pipeline requests need `Authorization: Bearer <authToken>`. */
  authToken?: string;
  hostname?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Undefined: the engine's default (on, as sqld). False: off everywhere. */
  foreignKeys?: boolean;
  /** "sqld" (default): primary result codes as sqld; "extended": the engine's. */
  errorCodes?: "sqld" | "extended";
  /** Idle time after which a stream expires (sqld: 10 s). */
  streamIdleMs?: number;
  /** How long a statement waits for a lock held by another stream. */
  busyTimeoutMs?: number;
}

export interface HranaServer {
  /** The root URL, with a trailing slash: `http://127.0.0.1:PORT/`. */
  url: string;
  port: number;
  /** The URL of a namespace (needs `namespacesDir`). */
  namespaceUrl(name: string): string;
  /** Pipeline and cursor HTTP requests received since start or resetCount(). */
  readonly requests: number;
  resetCount(): void;
  /** Streams currently open (for tests of expiry and cleanup). */
  readonly openStreams: number;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Protocol structures (JSON encoding)

type Value =
  | { type: "null" }
  | { type: "integer"; value: string }
  | { type: "float"; value: number }
  | { type: "text"; value: string }
  | { type: "blob"; base64: string };

interface HranaError {
  message: string;
  code: string;
}

interface Col {
  name: string | null;
  decltype: string | null;
}

interface StmtResult {
  cols: Col[];
  rows: Value[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
  rows_read: number;
  rows_written: number;
  query_duration_ms: number;
}

type Json = Record<string, unknown>;

/** A violation of the protocol: the whole HTTP request fails with a 400. */
class ProtocolError extends Error {
  constructor(message: string, readonly code = "PROTOCOL_ERROR") {
    super(message);
  }
}

/** An error of one request or batch step, reported in the response. */
class StmtError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
  toProto(): HranaError {
    return { message: this.message, code: this.code };
  }
}

// ---------------------------------------------------------------------------
// SQL scanning: statement boundaries and parameters, as SQLite numbers them

interface ScannedStatement {
  /** The statement's text, without the terminating semicolon. */
  text: string;
  /** Parameter names by index - 1 (null for `?`): `?NNN`, `:a`, `@a`, `$a`. */
  params: (string | null)[];
}

const isIdStart = (c: string) => /[A-Za-z_]/.test(c) || c >= "\u0080";
const isIdChar = (c: string) => isIdStart(c) || /[0-9$]/.test(c);

/**
 * Splits SQL text into statements at top-level semicolons (outside strings,
 * quoted identifiers, comments and trigger bodies; CASE ... END inside a
 * trigger body does not end it) and lists each statement's parameters.
 */
export function scanSql(sql: string): ScannedStatement[] {
  const out: ScannedStatement[] = [];
  interface Current {
    start: number;
    end: number;
    params: (string | null)[];
    named: Map<string, number>;
    words: string[];
    trigger: boolean;
    inBody: boolean;
    caseDepth: number;
    bodyDone: boolean;
  }
  let cur: Current | null = null;
  const token = (start: number, end: number): Current => {
    cur ??= {
      start,
      end,
      params: [],
      named: new Map(),
      words: [],
      trigger: false,
      inBody: false,
      caseDepth: 0,
      bodyDone: false,
    };
    cur.end = end;
    return cur;
  };
  const param = (c: Current, name: string | null, index?: number) => {
    if (name !== null && c.named.has(name)) return;
    const i = index ?? c.params.length + 1;
    while (c.params.length < i) c.params.push(null);
    if (name !== null) {
      c.named.set(name, i);
      c.params[i - 1] ??= name;
    }
  };
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1] ?? "";
    if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && next === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === "/" && next === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const endChar = c === "[" ? "]" : c;
      let j = i + 1;
      for (;;) {
        const k = sql.indexOf(endChar, j);
        if (k < 0) {
          j = n;
          break;
        }
        if (endChar !== "]" && sql[k + 1] === endChar) {
          j = k + 2;
          continue;
        }
        j = k + 1;
        break;
      }
      token(i, j);
      i = j;
    } else if (c === ";") {
      const open = cur as Current | null;
      if (open && open.trigger && open.inBody && !open.bodyDone) {
        token(i, i + 1);
      } else if (open) {
        out.push({
          text: sql.slice(open.start, open.end),
          params: open.params,
        });
        cur = null;
      }
      i++;
    } else if (c === "?") {
      let j = i + 1;
      while (j < n && /[0-9]/.test(sql[j])) j++;
      const t = token(i, j);
      if (j > i + 1) {
        param(t, sql.slice(i, j), Number(sql.slice(i + 1, j)));
      } else param(t, null);
      i = j;
    } else if ((c === ":" || c === "@" || c === "$") && isIdChar(next)) {
      let j = i + 1;
      while (j < n && isIdChar(sql[j])) j++;
      param(token(i, j), sql.slice(i, j));
      i = j;
    } else if (isIdStart(c)) {
      let j = i + 1;
      while (j < n && isIdChar(sql[j])) j++;
      const t = token(i, j);
      const word = sql.slice(i, j).toUpperCase();
      if (t.words.length < 3) {
        t.words.push(word);
        const [a, b, d] = t.words;
        t.trigger = a === "CREATE" &&
          (b === "TRIGGER" ||
            ((b === "TEMP" || b === "TEMPORARY") && d === "TRIGGER"));
      }
      if (t.trigger) {
        if (!t.inBody) {
          if (word === "BEGIN") t.inBody = true;
        } else if (!t.bodyDone) {
          if (word === "CASE") t.caseDepth++;
          else if (word === "END") {
            if (t.caseDepth > 0) t.caseDepth--;
            else t.bodyDone = true;
          }
        }
      }
      i = j;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(next))) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(sql[j])) j++;
      token(i, j);
      i = j;
    } else {
      token(i, i + 1);
      i++;
    }
  }
  const last = cur as Current | null;
  if (last) {
    out.push({ text: sql.slice(last.start, last.end), params: last.params });
  }
  return out;
}

const scanCache = new Map<string, ScannedStatement[]>();
function scanCached(sql: string): ScannedStatement[] {
  let scanned = scanCache.get(sql);
  if (!scanned) {
    if (scanCache.size >= 2000) scanCache.clear();
    scanned = scanSql(sql);
    scanCache.set(sql, scanned);
  }
  return scanned;
}

// ---------------------------------------------------------------------------
// Values

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function decodeValue(v: unknown): unknown {
  const value = v as Json | null;
  switch (value?.type) {
    case "null":
      return null;
    case "integer": {
      const text = value.value;
      if (typeof text !== "string" || !/^-?[0-9]+$/.test(text)) {
        throw new ProtocolError("An integer value must be a decimal string");
      }
      const n = BigInt(text);
      if (n < I64_MIN || n > I64_MAX) {
        throw new ProtocolError("An integer value is out of the 64-bit range");
      }
      return n;
    }
    case "float":
      if (typeof value.value !== "number") {
        throw new ProtocolError("A float value must be a number");
      }
      return value.value;
    case "text":
      if (typeof value.value !== "string") {
        throw new ProtocolError("A text value must be a string");
      }
      return value.value;
    case "blob":
      if (typeof value.base64 !== "string") {
        throw new ProtocolError("A blob value needs base64");
      }
      return Buffer.from(value.base64, "base64");
    default:
      throw new ProtocolError("Unknown type of Value");
  }
}

function encodeValue(v: unknown): Value {
  if (v === null || v === undefined) return { type: "null" };
  if (typeof v === "bigint") return { type: "integer", value: v.toString() };
  if (typeof v === "number") {
    // Integers come as bigint (safeIntegers); a number is a REAL.
    return { type: "float", value: v };
  }
  if (typeof v === "string") return { type: "text", value: v };
  if (v instanceof Uint8Array) {
    return {
      type: "blob",
      base64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString(
        "base64",
      ),
    };
  }
  return { type: "text", value: String(v) };
}

/** Stands for an infinite float while encoding (no text value can be it). */
const INFINITY_MARK = `hrana-infinity-${crypto.randomUUID()}`;

/** JSON with ±Infinity as ±1e999 (JSON has no literal for it; SQLite does). */
function toJson(body: unknown): string {
  let infinite = false;
  const text = JSON.stringify(body, (_k, v) => {
    if (typeof v === "number" && (v === Infinity || v === -Infinity)) {
      infinite = true;
      return `${v > 0 ? "+" : "-"}${INFINITY_MARK}`;
    }
    return v;
  });
  return infinite
    ? text.replaceAll(`"+${INFINITY_MARK}"`, "1e999")
      .replaceAll(`"-${INFINITY_MARK}"`, "-1e999")
    : text;
}

// ---------------------------------------------------------------------------
// Engine errors

/** Primary codes that sqld names (through rusqlite); the rest are SQLITE_UNKNOWN. */
const SQLD_NAMED = new Set([
  2,
  3,
  4,
  5,
  6,
  7,
  8,
  9,
  10,
  11,
  12,
  13,
  14,
  15,
  17,
  18,
  19,
  20,
  21,
  22,
  23,
  25,
  26,
]);

interface EngineError {
  message: string;
  code?: string;
  rawCode?: number;
}

function isEngineError(e: unknown): e is EngineError {
  return e instanceof Error &&
    typeof (e as EngineError).rawCode === "number";
}

function isBusy(e: unknown): boolean {
  return isEngineError(e) && e.rawCode === 5;
}

const PARSE_ERROR = /syntax error|incomplete input|unrecognized token/;

function stmtErrorFrom(
  e: unknown,
  mode: "sqld" | "extended",
  duringPrepare: boolean,
): StmtError {
  if (!isEngineError(e)) {
    return new StmtError(
      e instanceof Error ? e.message : String(e),
      "SQLITE_UNKNOWN",
    );
  }
  const raw = e.rawCode ?? 1;
  if (mode === "extended") {
    return new StmtError(
      e.message,
      e.code ?? PRIMARY_CODES[raw & 0xff] ?? "SQLITE_UNKNOWN",
    );
  }
  if (duringPrepare && PARSE_ERROR.test(e.message)) {
    return new StmtError(
      `SQL string could not be parsed: ${e.message}`,
      "SQL_PARSE_ERROR",
    );
  }
  const primary = raw & 0xff;
  return new StmtError(
    `SQLite error: ${e.message}`,
    SQLD_NAMED.has(primary) ? PRIMARY_CODES[primary] : "SQLITE_UNKNOWN",
  );
}

// ---------------------------------------------------------------------------
// Connections and database files

type Statement = Database.Statement;

/** Per-connection state that a later stream must not inherit. */
const CONNECTION_STATE = /\b(pragma|attach|detach|temp|temporary)\b/i;

class Connection {
  readonly db: Database.Database;
  #statements = new Map<string, Statement>();
  #info: Statement;
  /** Set once a statement may have changed per-connection state. */
  dirty = false;

  constructor(path: string, foreignKeys: boolean | undefined) {
    this.db = new Database(path, { timeout: 0 });
    if (foreignKeys === false) this.db.exec("PRAGMA foreign_keys = OFF");
    if (foreignKeys === true) this.db.exec("PRAGMA foreign_keys = ON");
    this.#info = this.db.prepare(
      "SELECT total_changes(), changes(), last_insert_rowid()",
    ).raw(true).safeIntegers(true);
  }

  get autocommit(): boolean {
    return !this.db.inTransaction;
  }

  /** A prepared statement, reused per SQL text (each prepare costs native memory). */
  prepare(sql: string): Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      stmt.safeIntegers(true);
      if (this.#statements.size >= 100) {
        const oldest = this.#statements.keys().next().value as string;
        this.#statements.delete(oldest);
      }
      this.#statements.set(sql, stmt);
    } else {
      // Most recently used last.
      this.#statements.delete(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** [total_changes, changes, last_insert_rowid]. */
  info(): [bigint, bigint, bigint] {
    return this.#info.get() as [bigint, bigint, bigint];
  }

  close(): void {
    // Roll back first: closing leaves the connection (and its locks) open
    // while prepared statements are still alive, until they are collected.
    if (this.db.open && this.db.inTransaction) {
      try {
        this.db.exec("ROLLBACK");
      } catch { /* rolled back already */ }
    }
    this.#statements.clear();
    try {
      this.db.close();
    } catch { /* already closed */ }
  }
}

class DatabaseFile {
  #pool: Connection[] = [];
  #prepared = false;
  lastUsed = Date.now();

  constructor(
    readonly path: string,
    readonly foreignKeys: boolean | undefined,
  ) {}

  acquire(): Connection {
    this.lastUsed = Date.now();
    const pooled = this.#pool.pop();
    if (pooled) return pooled;
    const conn = new Connection(this.path, this.foreignKeys);
    if (!this.#prepared) {
      // WAL is a property of the file: readers then run beside a writer.
      conn.db.exec("PRAGMA journal_mode = WAL");
      this.#prepared = true;
    }
    return conn;
  }

  release(conn: Connection): void {
    this.lastUsed = Date.now();
    if (!conn.autocommit || conn.dirty || this.#pool.length >= 4) {
      // A stream that ends inside a transaction rolls it back.
      conn.close();
    } else {
      this.#pool.push(conn);
    }
  }

  /** Closes pooled connections (streams keep theirs). */
  closeIdle(): void {
    for (const conn of this.#pool.splice(0)) conn.close();
  }
}

// ---------------------------------------------------------------------------
// Streams

interface Stream {
  file: DatabaseFile;
  conn: Connection | null;
  sqls: Map<number, string>;
  lastUsed: number;
  /** A request is being handled (the stream cannot expire meanwhile). */
  active: boolean;
  closed: boolean;
  baton: string | null;
}

function randomBaton(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Buffer.from(bytes).toString("base64url");
}

// ---------------------------------------------------------------------------
// Statement execution

interface PreparedStmt {
  sql: string;
  bind: unknown[];
  /** An argument error, reported when the statement runs (as sqld binds late). */
  bindError?: StmtError;
  wantRows: boolean;
}

const MAX_STORED_SQL = 50;
const MAX_STORED_SQL_BYTES = 5000;

function sqlText(
  stream: Stream,
  sql: unknown,
  sqlId: unknown,
): string {
  const hasSql = sql !== undefined && sql !== null;
  const hasId = sqlId !== undefined && sqlId !== null;
  if (hasSql && hasId) {
    throw new ProtocolError("Both sql and sql_id were given");
  }
  if (hasSql) {
    if (typeof sql !== "string") {
      throw new ProtocolError("sql must be a string");
    }
    return sql;
  }
  if (hasId) {
    const text = stream.sqls.get(Number(sqlId));
    if (text === undefined) {
      throw new ProtocolError(`SQL text ${sqlId} was not found`);
    }
    return text;
  }
  throw new ProtocolError("Neither sql nor sql_id was given");
}

function prepareStmt(stream: Stream, stmt: unknown): PreparedStmt {
  if (typeof stmt !== "object" || stmt === null) {
    throw new ProtocolError("A statement must be an object");
  }
  const s = stmt as Json;
  const sql = sqlText(stream, s.sql, s.sql_id);
  const statements = scanCached(sql);
  if (statements.length === 0) {
    throw new StmtError(
      "SQL string does not contain any statement",
      "SQL_NO_STATEMENT",
    );
  }
  if (statements.length > 1) {
    throw new StmtError(
      "SQL string contains more than one statement",
      "SQL_MANY_STATEMENTS",
    );
  }
  const [scanned] = statements;
  const args = Array.isArray(s.args) ? s.args.map(decodeValue) : [];
  const namedArgs = Array.isArray(s.named_args) ? s.named_args : [];
  if (args.length > 0 && namedArgs.length > 0) {
    throw new StmtError(
      "Specifying both positional and named arguments is not supported",
      "ARGS_BOTH_POSITIONAL_AND_NAMED",
    );
  }
  const count = scanned.params.length;
  const bind: unknown[] = new Array(count).fill(null);
  let bindError: StmtError | undefined;
  if (args.length > count) {
    bindError = new StmtError(
      `Arguments do not match SQL parameters: ${args.length} given, the statement has ${count}`,
      "ARGS_INVALID",
    );
  }
  args.forEach((v, i) => {
    if (i < count) bind[i] = v;
  });
  for (const arg of namedArgs) {
    const a = arg as Json | null;
    if (typeof a?.name !== "string") {
      throw new ProtocolError("A named argument needs a name");
    }
    const value = decodeValue(a.value);
    const name = a.name;
    const candidates = /^[:@$]/.test(name)
      ? [name]
      : [`:${name}`, `@${name}`, `$${name}`];
    const index = scanned.params.findIndex((p) =>
      p !== null && candidates.includes(p)
    );
    if (index < 0) {
      bindError ??= new StmtError(
        `Arguments do not match SQL parameters: no parameter named ${name}`,
        "ARGS_INVALID",
      );
    } else {
      bind[index] = value;
    }
  }
  return {
    sql: scanned.text,
    bind,
    bindError,
    wantRows: s.want_rows !== false,
  };
}

// ---------------------------------------------------------------------------
// The server

/** Starts a server on 127.0.0.1 (a free port unless `port` is given). */
export function startHranaServer(
  options: HranaServerOptions = {},
): Promise<HranaServer> {
  return Promise.resolve(createHranaServer(options));
}

function createHranaServer(options: HranaServerOptions): HranaServer {
  if (options.namespacesDir) {
    Deno.mkdirSync(options.namespacesDir, { recursive: true });
  }
  const errorCodes = options.errorCodes ?? "sqld";
  const idleMs = options.streamIdleMs ?? 10_000;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  const files = new Map<string, DatabaseFile>();
  const batons = new Map<string, Stream>();
  /** Batons of expired streams, kept a while to say "expired" rather than "invalid". */
  const expired = new Map<string, number>();
  const streams = new Set<Stream>();
  let requestCount = 0;

  const fileAt = (path: string) => {
    let file = files.get(path);
    if (!file) {
      file = new DatabaseFile(path, options.foreignKeys);
      files.set(path, file);
    }
    return file;
  };

  const releaseConnection = (stream: Stream) => {
    if (stream.conn) {
      stream.file.release(stream.conn);
      stream.conn = null;
    }
  };

  const closeStream = (stream: Stream) => {
    stream.closed = true;
    if (stream.baton) batons.delete(stream.baton);
    stream.baton = null;
    releaseConnection(stream);
    streams.delete(stream);
  };

  const connectionOf = (stream: Stream): Connection => {
    if (stream.closed) {
      throw new ProtocolError("The stream has been closed", "STREAM_CLOSED");
    }
    stream.conn ??= stream.file.acquire();
    return stream.conn;
  };

  const sweep = () => {
    const now = Date.now();
    for (const stream of streams) {
      if (!stream.active && now - stream.lastUsed >= idleMs) {
        if (stream.baton) expired.set(stream.baton, now);
        closeStream(stream);
      }
    }
    for (const [baton, at] of expired) {
      if (now - at > 300_000) expired.delete(baton);
    }
    for (const file of files.values()) {
      if (now - file.lastUsed > 30_000) file.closeIdle();
    }
  };
  const sweeper = setInterval(sweep, Math.min(1000, Math.max(50, idleMs / 4)));

  /** Runs one statement on the stream's connection, retrying while busy. */
  const execute = async (
    conn: Connection,
    stmt: PreparedStmt,
  ): Promise<StmtResult> => {
    if (stmt.bindError) throw stmt.bindError;
    if (CONNECTION_STATE.test(stmt.sql)) conn.dirty = true;
    const deadline = Date.now() + busyTimeoutMs;
    let wait = 2;
    for (;;) {
      let prepared = false;
      try {
        const started = performance.now();
        const statement = conn.prepare(stmt.sql);
        prepared = true;
        const [totalBefore] = conn.info();
        let rows: unknown[][] = [];
        let cols: Col[] = [];
        if (statement.reader) {
          cols = statement.columns().map((c: Database.ColumnDefinition) => ({
            name: c.name,
            decltype: c.type ?? null,
          }));
          rows = statement.raw(true).all(stmt.bind) as unknown[][];
        } else {
          statement.run(stmt.bind);
        }
        const [totalAfter, changes, lastRowid] = conn.info();
        const written = Number(totalAfter - totalBefore);
        return {
          cols,
          rows: stmt.wantRows ? rows.map((row) => row.map(encodeValue)) : [],
          affected_row_count: written > 0 ? Number(changes) : 0,
          last_insert_rowid: lastRowid.toString(),
          rows_read: rows.length,
          rows_written: written,
          query_duration_ms: performance.now() - started,
        };
      } catch (e) {
        if (isBusy(e) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(wait * 2, 50);
          continue;
        }
        throw stmtErrorFrom(e, errorCodes, !prepared);
      }
    }
  };

  type Cond = Json;
  const checkCond = (cond: unknown, step: number, version: number): void => {
    const c = cond as Cond | null;
    switch (c?.type) {
      case "ok":
      case "error":
        if (
          typeof c.step !== "number" || !Number.isInteger(c.step) ||
          c.step < 0 || c.step >= step
        ) {
          throw new ProtocolError(
            "A batch condition refers to a step that does not precede it",
          );
        }
        return;
      case "not":
        return checkCond(c.cond, step, version);
      case "and":
      case "or":
        if (!Array.isArray(c.conds)) {
          throw new ProtocolError("A batch condition needs conds");
        }
        for (const inner of c.conds) checkCond(inner, step, version);
        return;
      case "is_autocommit":
        if (version < 3) {
          throw new ProtocolError(
            "The is_autocommit condition needs Hrana 3 (/v3)",
            "NOT_SUPPORTED",
          );
        }
        return;
      default:
        throw new ProtocolError("Unknown type of batch condition");
    }
  };
  const evalCond = (
    cond: unknown,
    outcomes: ("ok" | "error" | "skipped")[],
    conn: Connection,
  ): boolean => {
    const c = cond as Cond;
    switch (c.type) {
      case "ok":
        return outcomes[c.step as number] === "ok";
      case "error":
        return outcomes[c.step as number] === "error";
      case "not":
        return !evalCond(c.cond, outcomes, conn);
      case "and":
        return (c.conds as unknown[]).every((x) => evalCond(x, outcomes, conn));
      case "or":
        return (c.conds as unknown[]).some((x) => evalCond(x, outcomes, conn));
      default:
        return conn.autocommit;
    }
  };

  /** Validates a batch and runs its steps; calls `onStep` after each one run. */
  const runBatch = async (
    stream: Stream,
    batch: unknown,
    version: number,
    onStep: (
      step: number,
      result: StmtResult | null,
      error: HranaError | null,
    ) => void,
  ) => {
    const steps = (batch as Json | null)?.steps;
    if (!Array.isArray(steps)) throw new ProtocolError("A batch needs steps");
    const prepared = steps.map((step, i) => {
      const s = step as Json | null;
      if (s?.condition !== undefined && s?.condition !== null) {
        checkCond(s.condition, i, version);
      }
      return prepareStmt(stream, s?.stmt);
    });
    const conn = connectionOf(stream);
    const outcomes: ("ok" | "error" | "skipped")[] = [];
    for (let i = 0; i < prepared.length; i++) {
      const condition = (steps[i] as Json).condition;
      if (
        condition !== undefined && condition !== null &&
        !evalCond(condition, outcomes, conn)
      ) {
        outcomes.push("skipped");
        continue;
      }
      try {
        const result = await execute(conn, prepared[i]);
        outcomes.push("ok");
        onStep(i, result, null);
      } catch (e) {
        if (!(e instanceof StmtError)) throw e;
        outcomes.push("error");
        onStep(i, null, e.toProto());
      }
    }
  };

  const handleRequest = async (
    stream: Stream,
    request: unknown,
    version: number,
  ): Promise<Json> => {
    const req = request as Json | null;
    const ok = (response: Json) => ({ type: "ok", response });
    try {
      switch (req?.type) {
        case "close":
          closeStream(stream);
          return ok({ type: "close" });
        case "execute": {
          const stmt = prepareStmt(stream, req.stmt);
          const result = await execute(connectionOf(stream), stmt);
          return ok({ type: "execute", result });
        }
        case "batch": {
          const stepCount = Array.isArray((req.batch as Json | null)?.steps)
            ? ((req.batch as Json).steps as unknown[]).length
            : 0;
          const stepResults: (StmtResult | null)[] = new Array(stepCount)
            .fill(null);
          const stepErrors: (HranaError | null)[] = new Array(stepCount).fill(
            null,
          );
          await runBatch(stream, req.batch, version, (i, result, error) => {
            stepResults[i] = result;
            stepErrors[i] = error;
          });
          return ok({
            type: "batch",
            result: { step_results: stepResults, step_errors: stepErrors },
          });
        }
        case "sequence": {
          const sql = sqlText(stream, req.sql, req.sql_id);
          const conn = connectionOf(stream);
          for (const statement of scanCached(sql)) {
            await execute(conn, {
              sql: statement.text,
              bind: new Array(statement.params.length).fill(null),
              wantRows: false,
            });
          }
          return ok({ type: "sequence" });
        }
        case "describe": {
          const sql = sqlText(stream, req.sql, req.sql_id);
          return ok({
            type: "describe",
            result: describe(connectionOf(stream), sql),
          });
        }
        case "store_sql": {
          const id = req.sql_id;
          if (typeof id !== "number" || typeof req.sql !== "string") {
            throw new ProtocolError("store_sql needs sql_id and sql");
          }
          if (stream.sqls.has(id)) {
            throw new ProtocolError(`SQL text ${id} is already stored`);
          }
          if (stream.sqls.size >= MAX_STORED_SQL) {
            throw new StmtError(
              `The server already stores ${stream.sqls.size} SQL texts, it cannot store more`,
              "SQL_STORE_TOO_MANY",
            );
          }
          const bytes = new TextEncoder().encode(req.sql).length;
          if (bytes > MAX_STORED_SQL_BYTES) {
            throw new StmtError(
              `The statement is too large to be stored: ${bytes}/${MAX_STORED_SQL_BYTES} bytes`,
              "SQL_STORE_TOO_LARGE",
            );
          }
          stream.sqls.set(id, req.sql);
          return ok({ type: "store_sql" });
        }
        case "close_sql":
          stream.sqls.delete(Number(req.sql_id));
          return ok({ type: "close_sql" });
        case "get_autocommit": {
          if (version < 3) {
            throw new ProtocolError(
              "The get_autocommit request needs Hrana 3 (/v3)",
              "NOT_SUPPORTED",
            );
          }
          const conn = connectionOf(stream);
          return ok({ type: "get_autocommit", is_autocommit: conn.autocommit });
        }
        default:
          throw new ProtocolError(`Unknown request type ${String(req?.type)}`);
      }
    } catch (e) {
      if (e instanceof StmtError) return { type: "error", error: e.toProto() };
      throw e;
    }
  };

  const describe = (conn: Connection, sql: string): Json => {
    const statements = scanCached(sql);
    if (statements.length !== 1) {
      throw statements.length === 0
        ? new StmtError(
          "SQL string does not contain any statement",
          "SQL_NO_STATEMENT",
        )
        : new StmtError(
          "SQL string contains more than one statement",
          "SQL_MANY_STATEMENTS",
        );
    }
    const [scanned] = statements;
    let statement: Statement;
    try {
      statement = conn.prepare(scanned.text);
    } catch (e) {
      throw stmtErrorFrom(e, errorCodes, true);
    }
    const isExplain = /^\s*explain\b/i.test(scanned.text);
    let isReadonly = true;
    if (!isExplain) {
      // A statement writes when its program opens a write transaction.
      const program = conn.db.prepare(`EXPLAIN ${scanned.text}`).raw(true)
        .all(new Array(scanned.params.length).fill(null)) as unknown[][];
      isReadonly = !program.some((op) =>
        op[1] === "Transaction" && Number(op[3]) !== 0
      );
    }
    return {
      params: scanned.params.map((name) => ({ name })),
      cols: statement.reader
        ? statement.columns().map((c: Database.ColumnDefinition) => ({
          name: c.name,
          decltype: c.type ?? null,
        }))
        : [],
      is_explain: isExplain,
      is_readonly: isReadonly,
    };
  };

  const json = (status: number, body: unknown, headers: HeadersInit = {}) =>
    new Response(toJson(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const httpError = (status: number, message: string, code: string) =>
    json(status, { message, code });

  /** Finds the stream a request names (or opens one) and marks it active. */
  const acquire = (file: DatabaseFile, baton: unknown): Stream => {
    if (baton === null || baton === undefined) {
      const stream: Stream = {
        file,
        conn: null,
        sqls: new Map(),
        lastUsed: Date.now(),
        active: true,
        closed: false,
        baton: null,
      };
      streams.add(stream);
      return stream;
    }
    if (typeof baton !== "string") {
      throw new ProtocolError("The baton must be a string", "BATON_INVALID");
    }
    const stream = batons.get(baton);
    if (!stream || stream.file !== file) {
      if (expired.has(baton)) {
        throw new ProtocolError(
          "The stream has expired due to inactivity",
          "STREAM_EXPIRED",
        );
      }
      throw new ProtocolError(
        "The baton is invalid (unknown, already used or closed)",
        "BATON_INVALID",
      );
    }
    batons.delete(baton);
    stream.baton = null;
    stream.active = true;
    return stream;
  };

  /** Hands the stream back after a request: a new baton, or null when closed. */
  const release = (stream: Stream): string | null => {
    stream.active = false;
    stream.lastUsed = Date.now();
    if (stream.closed) return null;
    const baton = randomBaton();
    stream.baton = baton;
    batons.set(baton, stream);
    return baton;
  };

  const readBody = async (req: Request): Promise<Json> => {
    try {
      const body = await req.json();
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new Error("not an object");
      }
      return body as Json;
    } catch {
      throw new ProtocolError("The request body is not a JSON object");
    }
  };

  const pipeline = async (
    req: Request,
    file: DatabaseFile,
    version: number,
  ): Promise<Response> => {
    const body = await readBody(req);
    if (!Array.isArray(body.requests)) {
      throw new ProtocolError("A pipeline needs requests");
    }
    const stream = acquire(file, body.baton);
    const results: Json[] = [];
    try {
      for (const request of body.requests) {
        results.push(await handleRequest(stream, request, version));
      }
    } catch (e) {
      // The stream is no longer valid after an HTTP error.
      closeStream(stream);
      throw e;
    }
    return json(200, { baton: release(stream), base_url: null, results });
  };

  const cursor = async (
    req: Request,
    file: DatabaseFile,
  ): Promise<Response> => {
    const body = await readBody(req);
    const stream = acquire(file, body.baton);
    const lines: Json[] = [];
    try {
      await runBatch(stream, body.batch, 3, (step, result, error) => {
        if (error) {
          lines.push({ type: "step_error", step, error });
          return;
        }
        const r = result!;
        lines.push({ type: "step_begin", step, cols: r.cols });
        for (const row of r.rows) lines.push({ type: "row", row });
        lines.push({
          type: "step_end",
          affected_row_count: r.affected_row_count,
          last_insert_rowid: r.last_insert_rowid,
        });
      });
    } catch (e) {
      if (e instanceof StmtError) {
        lines.push({ type: "error", error: e.toProto() });
      } else {
        closeStream(stream);
        throw e;
      }
    }
    const head = { baton: release(stream), base_url: null };
    return new Response(
      [head, ...lines].map((line) => toJson(line) + "\n").join(""),
      { headers: { "content-type": "text/plain" } },
    );
  };

  const authorized = (req: Request) =>
    options.authToken === undefined ||
    req.headers.get("authorization") === `Bearer ${options.authToken}`;

  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    let path = url.pathname;
    let file: DatabaseFile | undefined;
    const ns = /^\/ns\/([A-Za-z0-9_-]{1,100})(\/.*)?$/.exec(path);
    if (ns) {
      if (!options.namespacesDir) {
        return httpError(404, "Namespaces are not enabled", "NOT_FOUND");
      }
      file = fileAt(`${options.namespacesDir}/${ns[1]}.db`);
      path = ns[2] ?? "/";
    } else if (options.path) {
      file = fileAt(options.path);
    }
    if (req.method === "GET") {
      if (path === "/" || path === "") {
        return new Response("Hello, this is a Hrana over HTTP test server\n");
      }
      if (path === "/health" || path === "/v2" || path === "/v3") {
        return new Response("ok\n");
      }
      return httpError(404, `No route for GET ${path}`, "NOT_FOUND");
    }
    const route = /^\/(v2|v3)\/(pipeline|cursor)$/.exec(path);
    if (req.method !== "POST" || !route) {
      return httpError(404, `No route for ${req.method} ${path}`, "NOT_FOUND");
    }
    requestCount++;
    if (!authorized(req)) {
      return json(401, {
        error: "Authentication failed: a valid bearer token is required",
      }, { "www-authenticate": "Bearer" });
    }
    if (!file) {
      return httpError(404, "No database is served here", "NOT_FOUND");
    }
    try {
      if (route[2] === "cursor") {
        if (route[1] !== "v3") {
          return httpError(404, "Cursors need /v3", "NOT_FOUND");
        }
        return await cursor(req, file);
      }
      return await pipeline(req, file, route[1] === "v3" ? 3 : 2);
    } catch (e) {
      if (e instanceof ProtocolError) return httpError(400, e.message, e.code);
      return httpError(
        500,
        e instanceof Error ? e.message : String(e),
        "INTERNAL",
      );
    }
  };

  const http = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    onListen: () => {},
  }, handle);
  const addr = http.addr as Deno.NetAddr;
  const host = addr.hostname.includes(":")
    ? `[${addr.hostname}]`
    : addr.hostname;
  const url = `http://${host}:${addr.port}/`;
  let stopped: Promise<void> | null = null;
  const server: HranaServer = {
    url,
    port: addr.port,
    namespaceUrl: (name) => `${url}ns/${name}/`,
    get requests() {
      return requestCount;
    },
    resetCount() {
      requestCount = 0;
    },
    get openStreams() {
      return streams.size;
    },
    stop() {
      stopped ??= (async () => {
        clearInterval(sweeper);
        await http.shutdown();
        for (const stream of [...streams]) closeStream(stream);
        for (const file of files.values()) file.closeIdle();
      })();
      return stopped;
    },
  };
  return server;
}

// ---------------------------------------------------------------------------
// Script mode

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

if (import.meta.main) {
  const args = Deno.args;
  const db = argValue(args, "--db");
  const namespacesDir = argValue(args, "--namespaces");
  if (!db && !namespacesDir) {
    console.error(
      "usage: hrana-server.ts --db FILE [--port N] [--host H] [--auth-token T] " +
        "[--namespaces DIR] [--foreign-keys on|off] [--error-codes sqld|extended] " +
        "[--stream-idle-ms MS] [--exit-with-stdin] [--remove-namespaces-on-exit]",
    );
    Deno.exit(2);
  }
  const fk = argValue(args, "--foreign-keys");
  const server = await startHranaServer({
    path: db,
    namespacesDir,
    port: Number(argValue(args, "--port") ?? 0),
    hostname: argValue(args, "--host") ?? "127.0.0.1",
    authToken: argValue(args, "--auth-token") ??
      Deno.env.get("HRANA_AUTH_TOKEN"),
    foreignKeys: fk === "off" ? false : fk === "on" ? true : undefined,
    errorCodes: argValue(args, "--error-codes") === "extended"
      ? "extended"
      : "sqld",
    streamIdleMs: argValue(args, "--stream-idle-ms")
      ? Number(argValue(args, "--stream-idle-ms"))
      : undefined,
  });
  const shutdown = async () => {
    await server.stop();
    if (namespacesDir && args.includes("--remove-namespaces-on-exit")) {
      await Deno.remove(namespacesDir, { recursive: true }).catch(() => {});
    }
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", shutdown);
  Deno.addSignalListener("SIGINT", shutdown);
  console.log(`Listening on ${server.url}`);
  if (args.includes("--exit-with-stdin")) {
    // The parent holds our stdin: when it exits, the pipe closes and so do we.
    (async () => {
      const buf = new Uint8Array(64);
      while ((await Deno.stdin.read(buf)) !== null) { /* ignore input */ }
      await shutdown();
    })();
  }
}
