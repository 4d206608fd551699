/** POST /api/login/token: e-mail and password for an access token. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { authenticateWithPassword } from "../../lib/auth/login.ts";
import { issueAccessToken } from "../../lib/auth/tokens.ts";
import { clientAddress } from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  bodyOf,
  errorResponses,
  jsonOrForm,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

const LoginBody = z.object({
  email: z.string().trim().min(1).max(320).openapi({
    example: "admin@example.org",
  }),
  password: z.string().min(1).max(1024),
}).openapi("LoginRequest");

export const TokenResponse = z.object({
  access_token: z.string().openapi({ description: "A JWT (HS256)" }),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().openapi({
    description: "Seconds until it expires",
  }),
}).openapi("AccessToken");

const loginRoute = createRoute({
  method: "post",
  path: "/login/token",
  tags: ["auth"],
  summary: "Log in with e-mail and password",
  description:
    "Unknown e-mail, wrong password and disabled account all answer the same 401. " +
    "After 10 failures in 15 minutes from one address or for one e-mail, 429 with Retry-After.",
  middleware: [requireBody],
  request: { body: jsonOrForm(LoginBody) },
  responses: {
    200: {
      description: "The access token",
      content: { "application/json": { schema: TokenResponse } },
    },
    ...errorResponses(400, 401, 415, 429),
  },
});

export function loginRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(loginRoute, async (c) => {
    const { email, password } = bodyOf(
      c,
      c.req.valid("json"),
      c.req.valid("form"),
    );
    const user = await authenticateWithPassword(
      { db: deps.database.db, clock: deps.clock, hasher: deps.hasher },
      email,
      password,
      clientAddress(c, deps.config),
    );
    return await loginTokenResponse(c, deps, user);
  });
  return app;
}

/** A fresh login token for `user`, answered as the login endpoint does (200, no-store). */
export async function loginTokenResponse(
  c: Context<AppEnv>,
  deps: RouteDeps,
  user: { id: number; token_generation: number },
) {
  const { claims: _claims, ...token } = await issueAccessToken(
    deps.tokens,
    deps.clock,
    user.id,
    deps.config.accessTokenTtl,
    { gen: user.token_generation },
  );
  c.header("Cache-Control", "no-store");
  return c.json(token, 200);
}

/** The login module, as routes/mod.ts mounts it. */
export const loginModule: RouteModule = {
  name: "login",
  mount: "/api",
  routes: loginRoutes,
};
