/** The one error type handlers and domain code throw; `app.onError` renders it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** 400 `invalid_request` with per-field details. */
export function invalidRequest(
  message: string,
  details?: { field: string; message: string }[],
): ApiError {
  return new ApiError(400, "invalid_request", message, details);
}

/** 404 `not_found`. */
export function notFound(what = "Resource"): ApiError {
  return new ApiError(404, "not_found", `${what} not found`);
}

/** 409 `conflict`. */
export function conflict(message: string): ApiError {
  return new ApiError(409, "conflict", message);
}

/** 403 `forbidden`. */
export function forbidden(message = "You may not do this"): ApiError {
  return new ApiError(403, "forbidden", message);
}

/** True when a (Drizzle-wrapped) libSQL error is a UNIQUE constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  return sqliteCode(err)?.startsWith("SQLITE_CONSTRAINT_UNIQUE") ||
    sqliteCode(err)?.startsWith("SQLITE_CONSTRAINT_PRIMARYKEY") || false;
}

/** True when a libSQL error is a FOREIGN KEY constraint violation. */
export function isForeignKeyViolation(err: unknown): boolean {
  return sqliteCode(err) === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

/**
 * What the message of a constraint failure says, for servers that send only
 * the primary code: sqld and Turso answer `SQLITE_CONSTRAINT` with the
 * engine's message ("UNIQUE constraint failed: users.email"), never
 * `SQLITE_CONSTRAINT_UNIQUE`. SQLite writes these messages the same way for
 * every constraint of a kind (a rowid PRIMARY KEY says "UNIQUE" too).
 */
const CONSTRAINT_MESSAGES: [RegExp, string][] = [
  [/\bUNIQUE constraint failed\b/, "SQLITE_CONSTRAINT_UNIQUE"],
  [/\bFOREIGN KEY constraint failed\b/, "SQLITE_CONSTRAINT_FOREIGNKEY"],
  [/\bNOT NULL constraint failed\b/, "SQLITE_CONSTRAINT_NOTNULL"],
  [/\bCHECK constraint failed\b/, "SQLITE_CONSTRAINT_CHECK"],
];

/** The extended code a primary `SQLITE_CONSTRAINT` stands for, read from its message. */
function extendedFromMessage(message: unknown): string | undefined {
  if (typeof message !== "string") return undefined;
  return CONSTRAINT_MESSAGES.find(([re]) => re.test(message))?.[1];
}

/**
 * The SQLite result code of a (Drizzle-wrapped) libSQL error: the extended
 * code when the error carries one, else the primary code, made extended from
 * the message when it is the bare `SQLITE_CONSTRAINT` of a remote server.
 */
export function sqliteCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const rec = e as {
      extendedCode?: unknown;
      code?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    if (typeof rec.extendedCode === "string") return rec.extendedCode;
    if (typeof rec.code === "string" && rec.code.startsWith("SQLITE_")) {
      return rec.code === "SQLITE_CONSTRAINT"
        ? extendedFromMessage(rec.message) ?? rec.code
        : rec.code;
    }
    e = rec.cause;
  }
  return undefined;
}
