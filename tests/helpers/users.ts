/** Test users: made directly in the database, or with a login token from the API. */
import type { UserRole } from "../../db/schema.ts";
import { createUser, type UserRow } from "../../lib/users.ts";
import { hasher, type TestContext } from "./app.ts";

let userCounter = 0;

export interface TestUser {
  user: UserRow;
  email: string;
  password: string;
}

/** Creates a user directly in the database. */
export async function createTestUser(
  ctx: TestContext,
  options: {
    role?: UserRole;
    email?: string;
    password?: string;
    is_active?: boolean;
  } = {},
): Promise<TestUser> {
  const email = options.email ??
    `${options.role ?? "user"}${++userCounter}@example.org`;
  const password = options.password ?? "correct horse battery";
  const user = await createUser(ctx.database.db, hasher, ctx.clock, {
    email,
    password,
    role: options.role ?? "user",
    is_active: options.is_active ?? true,
  });
  return { user, email, password };
}

/** Logs in through the API and returns the access token. */
export async function loginToken(
  ctx: TestContext,
  email: string,
  password: string,
): Promise<string> {
  const res = await ctx.app.request("/api/login/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) {
    throw new Error(`login failed: ${res.status} ${await res.text()}`);
  }
  const body = await res.json();
  return body.access_token;
}

/** Creates a user with the role and returns it with a login token. */
export async function userWithToken(
  ctx: TestContext,
  role: UserRole = "user",
): Promise<TestUser & { token: string }> {
  const u = await createTestUser(ctx, { role });
  return { ...u, token: await loginToken(ctx, u.email, u.password) };
}
