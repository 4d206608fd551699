/**
 * `node:sqlite` failures as the `LibsqlError`s `@libsql/client` raises, for
 * the embedded engine (db/embedded.ts).
 */
import { LibsqlBatchError, LibsqlError } from "@libsql/client/web";

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
export function toLibsqlError(error: unknown): unknown {
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
export function toBatchError(error: unknown, index: number): unknown {
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
