/** Request validation shared by every route: error shape, hooks, common params, bodies. */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, invalidRequest } from "../../lib/errors.ts";

/** The project's error body (docs/API.md). */
export const ErrorSchema = z.object({
  error: z.string().openapi({ example: "invalid_request" }),
  message: z.string(),
  details: z.array(z.object({ field: z.string(), message: z.string() }))
    .optional(),
}).openapi("Error");

type Issue = { path: PropertyKey[]; message: string };

/** Turns zod issues into the `details` list of a 400. */
export function issuesToDetails(issues: readonly Issue[]) {
  return issues.map((i) => ({
    field: i.path.map(String).join(".") || "(body)",
    message: i.message,
  }));
}

/** The zod-openapi hook: every failed validation becomes one 400 in our shape. */
export function validationHook(
  result: { success: boolean; error?: { issues: readonly Issue[] } },
): void {
  if (!result.success) {
    throw invalidRequest(
      "The request is not valid",
      issuesToDetails(result.error?.issues ?? []),
    );
  }
}

/** A numeric path id; anything else is a 400. */
export const IdParam = z.object({
  id: z.string().regex(/^[1-9]\d{0,15}$/, "must be a positive integer")
    .transform(Number)
    .openapi({
      param: { name: "id", in: "path" },
      example: "1",
      type: "string",
    }),
});

/**
 * The page number of an HTML page's query or form (`?page=`, `?past=`): a
 * whole number from 1 to `max` written plainly (no sign, no leading zero, at
 * most six digits), else null. Each page decides what an absent or bad value
 * means (the first page, or a 400 page).
 */
export function pageNumber(
  raw: string | undefined,
  max = 999_999,
): number | null {
  return raw !== undefined && /^[1-9]\d{0,5}$/.test(raw) &&
      Number(raw) <= max
    ? Number(raw)
    : null;
}

/** Query `page` (1-based) and `pageSize` with a default and a maximum. */
export function pagingQuery(defaultSize: number, maxSize: number) {
  return z.object({
    page: z.string().regex(/^\d+$/, "must be an integer").transform(Number)
      .pipe(z.number().int().min(1).max(1_000_000)).optional().default(1)
      .openapi({ type: "integer", example: 1 }),
    pageSize: z.string().regex(/^\d+$/, "must be an integer").transform(Number)
      .pipe(z.number().int().min(1).max(maxSize)).optional().default(
        defaultSize,
      ).openapi({ type: "integer", example: defaultSize }),
  });
}

function baseType(schema: z.ZodType): string {
  // deno-lint-ignore no-explicit-any -- walking zod's internal definition tree
  let def: any = (schema as any)._zod?.def;
  for (let i = 0; def && i < 10; i++) {
    if (
      ["optional", "default", "nullable", "prefault", "readonly"].includes(
        def.type,
      )
    ) {
      def = def.innerType?._zod?.def;
    } else if (def.type === "pipe") {
      def = def.in?._zod?.def;
    } else {
      return def.type;
    }
  }
  return "unknown";
}

function coerceFormValue(type: string, value: unknown): unknown {
  if (typeof value !== "string") return value;
  // Structured fields (recurrent, media, ...) may be sent as JSON text.
  if ((type === "object" || type === "array") && /^\s*[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (type === "boolean") {
    if (["true", "on", "1", "yes"].includes(value)) return true;
    if (["false", "off", "0", "no", ""].includes(value)) return false;
  }
  if (type === "number" && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === "array") return [value];
  if (type === "null" && value === "") return null;
  return value;
}

/**
 * The form-body twin of a JSON object schema: form fields arrive as strings, so
 * booleans ("true"/"false"/"on"), numbers and one-element arrays are converted
 * before the same rules apply. `name[]` keys count as `name`.
 */
export function formSchema<T extends z.ZodObject>(schema: T) {
  const types = Object.fromEntries(
    Object.entries(schema.shape).map(([k, v]) => [k, baseType(v as z.ZodType)]),
  );
  return z.preprocess((input) => {
    if (!input || typeof input !== "object") return input;
    const out: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(input)) {
      const key = rawKey.endsWith("[]") ? rawKey.slice(0, -2) : rawKey;
      out[key] = coerceFormValue(types[key] ?? "unknown", value);
    }
    return out;
  }, schema);
}

/** Request body declaration accepting JSON and url-encoded forms with one schema. */
export function jsonOrForm<T extends z.ZodObject>(
  schema: T,
  description?: string,
) {
  return {
    description,
    content: {
      "application/json": { schema },
      "application/x-www-form-urlencoded": { schema: formSchema(schema) },
    },
  };
}

const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)/i;

/**
 * Refuses a write without a body type (415) before validation runs; zod-openapi
 * would otherwise hand the handler an unvalidated empty object.
 */
export const requireBody: MiddlewareHandler = async (c, next) => {
  const type = c.req.header("content-type");
  if (!type) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Send a body as application/json or application/x-www-form-urlencoded",
    );
  }
  await next();
};

/** The validated body, whichever of JSON or form it came as. */
export function bodyOf<T>(c: Context, json: T, form: T): T {
  return FORM_TYPE.test(c.req.header("content-type") ?? "") ? form : json;
}

/** Standard error responses for the OpenAPI document. */
export function errorResponses(...statuses: number[]) {
  const text: Record<number, string> = {
    400: "Invalid request",
    401: "Missing, invalid or expired token",
    403: "Wrong role, not the owner, or insufficient OAuth scope",
    404: "Not found",
    409: "Conflict",
    413: "Body too large",
    415: "Unsupported media type",
    429: "Too many requests",
  };
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: text[s] ?? "Error",
        content: { "application/json": { schema: ErrorSchema } },
      },
    ]),
  );
}

/** Like jsonOrForm, plus multipart/form-data for bodies that may carry a file. */
export function jsonOrFormOrMultipart<T extends z.ZodObject>(
  schema: T,
  description?: string,
) {
  const form = formSchema(schema);
  return {
    description,
    content: {
      "application/json": { schema },
      "application/x-www-form-urlencoded": { schema: form },
      "multipart/form-data": { schema: form },
    },
  };
}
