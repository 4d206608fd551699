/** A small leveled logger writing one line per record to the console. */
import type { LogLevel } from "./config.ts";

const ORDER: Record<LogLevel, number> = {
  debug: 0,
  info: 1,
  warning: 2,
  error: 3,
};

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warning(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger printing records at `level` and above. Callers never pass secrets in `fields`. */
export function createLogger(level: LogLevel): Logger {
  const emit =
    (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
      if (ORDER[at] < ORDER[level]) return;
      const line = fields && Object.keys(fields).length > 0
        ? `${at.toUpperCase()} ${message} ${JSON.stringify(fields)}`
        : `${at.toUpperCase()} ${message}`;
      if (at === "error") console.error(line);
      else if (at === "warning") console.warn(line);
      else console.log(line);
    };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warning: emit("warning"),
    error: emit("error"),
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warning() {},
  error() {},
};
