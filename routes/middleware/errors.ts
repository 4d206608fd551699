/** The one place errors become responses (docs/API.md). */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  ApiError,
  isForeignKeyViolation,
  isUniqueViolation,
} from "../../lib/errors.ts";
import type { Logger } from "../../lib/log.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";

const CODES: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  500: "internal",
};

/** The error code of the project's error shape for an HTTP status. */
export function errorCodeFor(status: number): string {
  return CODES[status] ?? (status < 500 ? "invalid_request" : "internal");
}

/** Builds the `onError` handler. */
export function errorHandler(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof OAuthError) {
      return c.json(
        { error: err.error, error_description: err.message },
        err.status as ContentfulStatusCode,
        { ...err.headers, "Cache-Control": "no-store", Pragma: "no-cache" },
      );
    }
    if (err instanceof ApiError) {
      return c.json(
        {
          error: err.code,
          message: err.message,
          ...(err.details ? { details: err.details } : {}),
        },
        err.status as ContentfulStatusCode,
        err.headers,
      );
    }
    if (err instanceof HTTPException) {
      // Hono's own exceptions (malformed JSON, 415 from the body gate, ...):
      // keep their status and headers, speak our error shape.
      const headers: Record<string, string> = {};
      err.res?.headers.forEach((v, k) => {
        if (k !== "content-type" && k !== "content-length") headers[k] = v;
      });
      const status = err.status;
      return c.json(
        {
          error: errorCodeFor(status),
          message: err.message || "Request failed",
        },
        status,
        headers,
      );
    }
    // A race with a concurrent write that validation could not foresee.
    if (isUniqueViolation(err) || isForeignKeyViolation(err)) {
      return c.json({
        error: "conflict",
        message: "The request conflicts with existing data",
      }, 409);
    }
    log.error("unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: err.stack ?? String(err),
    });
    return c.json({ error: "internal", message: "Internal server error" }, 500);
  };
}

/** The `notFound` handler: unknown routes answer in the error shape. */
export function notFoundHandler(c: Context): Response {
  return c.json({ error: "not_found", message: "No such route" }, 404);
}
