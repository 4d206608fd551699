/**
 * Body limits: BODY_LIMIT for every request with a body, unless a route
 * module declares another for its paths (RouteModule.bodyLimits in
 * routes/module.ts: inboxes, the calendar import, uploads). The first
 * module in routes/mod.ts's order whose rule matches decides.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Config } from "../../lib/config.ts";
import { ApiError } from "../../lib/errors.ts";
import type { AppEnv } from "../env.ts";
import type { BodyLimitRule } from "../module.ts";

/** Multipart bodies of the routes that take a file may be as large as an upload. */
export function uploadMaxBytes(config: Config): number {
  return config.mediaMaxBytes + 64 * 1024;
}

function limitTo(maxSize: number): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(
        413,
        "payload_too_large",
        `The body is larger than ${maxSize} bytes`,
      );
    },
  });
}

/** The middleware that limits bodies: `rules` first, in their order, else BODY_LIMIT. */
export function bodyLimits(
  config: Config,
  rules: readonly BodyLimitRule[],
): MiddlewareHandler<AppEnv> {
  const defaultLimit = limitTo(config.bodyLimit);
  const limits = rules.map((rule) => ({
    rule,
    limit: limitTo(rule.maxBytes(config)),
  }));
  return (c, next) => {
    const path = c.req.path;
    let multipart: boolean | undefined;
    for (const { rule, limit } of limits) {
      if (!rule.matches(path)) continue;
      if (rule.multipartOnly) {
        multipart ??= /^multipart\/form-data/i.test(
          c.req.header("content-type") ?? "",
        );
        if (!multipart) continue;
      }
      return limit(c, next);
    }
    return defaultLimit(c, next);
  };
}
