/** User management: admin CRUD and the caller's own account. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { USER_ROLES } from "../../db/schema.ts";
import {
  approveUser,
  createUser,
  findUserById,
  listUsers,
  serializeUser,
  updateUser,
} from "../../lib/users.ts";
import { notFound } from "../../lib/errors.ts";
import { EVENT_FATES, removeUser } from "../../lib/user-removal.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { eventWriteDeps, federateChange } from "./event-writes.ts";
import { changeOwnPassword } from "../../lib/auth/password-change.ts";
import {
  bearerSecurity,
  clientAddress,
  requireAuth,
  requireRole,
} from "../middleware/auth.ts";
import { loginTokenResponse, TokenResponse } from "./login.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrForm,
  pagingQuery,
  requireBody,
  validationHook,
} from "../middleware/validation.ts";

export const UserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  description: z.string(),
  is_active: z.boolean(),
  to_notify: z.boolean(),
  role: z.enum(USER_ROLES),
  pending: z.boolean().openapi({
    description:
      "A registration waiting for an admin's approval (inactive until approved)",
  }),
  createdAt: z.string().openapi({ format: "date-time" }),
  updatedAt: z.string().openapi({ format: "date-time" }),
}).openapi("User");

const UserList = z.object({
  data: z.array(UserSchema),
  count: z.number().int(),
  totalPages: z.number().int(),
}).openapi("UserList");

const password = z.string().min(8, "must be at least 8 characters").max(1024);

const NewUserBody = z.object({
  email: z.email().max(320),
  password,
  role: z.enum(USER_ROLES).optional(),
  description: z.string().max(2000).optional(),
  is_active: z.boolean().optional(),
  to_notify: z.boolean().optional(),
}).openapi("NewUser");

const UserPatchBody = z.strictObject({
  role: z.enum(USER_ROLES).optional(),
  is_active: z.boolean().optional(),
  description: z.string().max(2000).optional(),
  to_notify: z.boolean().optional(),
  password: password.optional(),
}).openapi("UserPatch");

const PasswordChangeBody = z.strictObject({
  current_password: z.string().min(1).max(1024),
  new_password: password,
}).openapi("PasswordChange");

const userJson = {
  content: { "application/json": { schema: UserSchema } },
};

const meRoute = createRoute({
  method: "get",
  path: "/users/me",
  tags: ["users"],
  summary: "The signed-in user",
  security: bearerSecurity,
  responses: {
    200: { description: "The user", ...userJson },
    ...errorResponses(401, 403),
  },
});

const changePasswordRoute = createRoute({
  method: "put",
  path: "/users/me/password",
  tags: ["users"],
  summary: "Change your own password (login tokens only)",
  description:
    "Needs the current password. Every login token issued before the change " +
    "stops working (this one included) and every application you authorised " +
    "is revoked; the answer carries a new token. A wrong current password is " +
    "403 `invalid_credentials` and counts toward the login limit " +
    "(10 failures in 15 minutes, then 429 with Retry-After).",
  security: bearerSecurity,
  request: { body: jsonOrForm(PasswordChangeBody) },
  responses: {
    200: {
      description: "A new access token",
      content: { "application/json": { schema: TokenResponse } },
    },
    ...errorResponses(400, 401, 403, 415, 429),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/users",
  tags: ["users"],
  summary: "List users (admin)",
  security: bearerSecurity,
  request: { query: pagingQuery(20, 100) },
  responses: {
    200: {
      description: "One page of users, oldest first",
      content: { "application/json": { schema: UserList } },
    },
    ...errorResponses(400, 401, 403),
  },
});

const createUserRoute = createRoute({
  method: "post",
  path: "/users",
  tags: ["users"],
  summary: "Create a user (admin)",
  security: bearerSecurity,
  request: { body: jsonOrForm(NewUserBody) },
  responses: {
    201: { description: "The new user", ...userJson },
    ...errorResponses(400, 401, 403, 409, 415),
  },
});

const approveUserRoute = createRoute({
  method: "post",
  path: "/users/{id}/approve",
  tags: ["users"],
  summary:
    "Approve a registration waiting for it (admin); refuse one with DELETE",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: { description: "The user, now active", ...userJson },
    ...errorResponses(400, 401, 403, 404),
  },
});

const getUserRoute = createRoute({
  method: "get",
  path: "/users/{id}",
  tags: ["users"],
  summary: "One user (admin)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: { description: "The user", ...userJson },
    ...errorResponses(400, 401, 403, 404),
  },
});

const patchUserRoute = createRoute({
  method: "patch",
  path: "/users/{id}",
  tags: ["users"],
  summary: "Change a user's role, state, description or password (admin)",
  description: "The last active admin cannot be demoted or deactivated (409).",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrForm(UserPatchBody) },
  responses: {
    200: { description: "The updated user", ...userJson },
    ...errorResponses(400, 401, 403, 404, 409, 415),
  },
});

const deleteUserRoute = createRoute({
  method: "delete",
  path: "/users/{id}",
  tags: ["users"],
  summary: "Delete a user (admin)",
  description:
    "Their sessions, OAuth grants and tokens end with the account. Their events stay without an owner (`events=keep`, the default), go to another active account (`events=reassign&reassign_to=ID`, with their calendar subscriptions) or are deleted (`events=remove`; followers get a Delete). The last active admin cannot be deleted (409); nothing is written on a refusal.",
  security: bearerSecurity,
  request: {
    params: IdParam,
    query: z.object({
      events: z.enum(EVENT_FATES).optional().default("keep"),
      reassign_to: z.string().regex(/^[1-9][0-9]{0,14}$/, "must be a user id")
        .transform(Number).optional().openapi({ type: "integer" }),
    }),
  },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function userRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const admin = [requireAuth(deps), requireRole("admin")];

  app.openapi(
    { ...meRoute, middleware: [requireAuth(deps)] },
    (c) => c.json(serializeUser(c.get("auth").user), 200),
  );

  app.openapi(
    { ...changePasswordRoute, middleware: [requireAuth(deps), requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const user = await changeOwnPassword(
        { db, clock: deps.clock, hasher: deps.hasher },
        c.get("auth").user,
        { current: body.current_password, next: body.new_password },
        clientAddress(c, deps.config),
      );
      return await loginTokenResponse(c, deps, user);
    },
  );

  app.openapi({ ...listRoute, middleware: admin }, async (c) => {
    const { page, pageSize } = c.req.valid("query");
    const result = await listUsers(db, page, pageSize);
    return c.json({ ...result, data: result.data.map(serializeUser) }, 200);
  });

  app.openapi(
    { ...createUserRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const user = await createUser(db, deps.hasher, deps.clock, body);
      return c.json(serializeUser(user), 201);
    },
  );

  app.openapi({ ...approveUserRoute, middleware: admin }, async (c) => {
    const user = await approveUser(db, deps.clock, c.req.valid("param").id);
    return c.json(serializeUser(user), 200);
  });

  app.openapi({ ...getUserRoute, middleware: admin }, async (c) => {
    const user = await findUserById(db, c.req.valid("param").id);
    if (!user) throw notFound("User");
    return c.json(serializeUser(user), 200);
  });

  app.openapi(
    { ...patchUserRoute, middleware: [...admin, requireBody] },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const user = await updateUser(
        db,
        deps.hasher,
        deps.clock,
        c.req.valid("param").id,
        body,
      );
      return c.json(serializeUser(user), 200);
    },
  );

  app.openapi({ ...deleteUserRoute, middleware: admin }, async (c) => {
    const query = c.req.valid("query");
    const { changes } = await removeUser(
      eventWriteDeps(deps, await settingsOf(c, db)),
      c.req.valid("param").id,
      {
        events: query.events,
        reassignTo: query.reassign_to,
        actingAdminId: c.get("auth").user.id,
      },
    );
    for (const change of changes) await federateChange(deps, change);
    return c.body(null, 204);
  });
  return app;
}

/** The users module, as routes/mod.ts mounts it. */
export const usersModule: RouteModule = {
  name: "users",
  mount: "/api",
  routes: userRoutes,
};
