/** Shared test helpers: build the app over an in-memory database, make users, get tokens. */
import { sql } from "drizzle-orm";
import { type Database, openDatabase } from "../db/client.ts";
import type { UserRole } from "../db/schema.ts";
import {
  createNativeHasher,
  type PasswordHasher,
} from "../lib/auth/password.ts";
import { FixedClock } from "../lib/clock.ts";
import { type Config, loadConfig } from "../lib/config.ts";
import { prepareInstance } from "../lib/instance.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { createUser, type UserRow } from "../lib/users.ts";
import { type App, createApp } from "../routes/mod.ts";

/** One hasher for the whole test process (the native addon loads once). */
export const hasher: PasswordHasher = await createNativeHasher();

export interface TestContext {
  app: App;
  database: Database;
  clock: FixedClock;
  config: Config & { jwtSecret: string };
  close(): void;
}

export interface TestAppOptions {
  /** Pinned "now"; defaults to 2026-06-01T12:00:00Z. */
  now?: string;
  /** Extra environment for loadConfig. */
  env?: Record<string, string>;
  /** An already open database (for restart tests). */
  database?: Database;
}

/** Builds the app over a fresh in-memory database, migrated, with a pinned clock. */
export async function createTestApp(
  options: TestAppOptions = {},
): Promise<TestContext> {
  const config = loadConfig({
    DATABASE_URL: ":memory:",
    BASE_URL: "http://quando.test",
    ...options.env,
  });
  const database = options.database ??
    await openDatabase(config.databaseUrl, config.databaseAuthToken);
  const clock = new FixedClock(options.now ?? "2026-06-01T12:00:00Z");
  const { jwtSecret } = await prepareInstance(
    database,
    config,
    hasher,
    clock,
    silentLogger,
  );
  const fullConfig = { ...config, jwtSecret };
  const app = createApp({
    database,
    config: fullConfig,
    clock,
    hasher,
    log: silentLogger,
    media: createDbMediaStore(database.db, clock),
  });
  return {
    app,
    database,
    clock,
    config: fullConfig,
    close: () => database.close(),
  };
}

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

export interface RequestOptions {
  token?: string;
  json?: unknown;
  form?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  body?: BodyInit;
}

/** Sends a request through `app.request()`. */
export async function call(
  ctx: TestContext,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.body;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.form)) {
      for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
    }
    body = params.toString();
  }
  return await ctx.app.request(path, { method, headers, body });
}

/** Asserts the project's error shape and returns the body. */
export async function expectError(
  res: Response,
  status: number,
  code?: string,
): Promise<{ error: string; message: string; details?: unknown[] }> {
  const text = await res.text();
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  }
  const body = JSON.parse(text);
  if (typeof body.error !== "string" || typeof body.message !== "string") {
    throw new Error(`not the error shape: ${text}`);
  }
  if (code !== undefined && body.error !== code) {
    throw new Error(`expected error ${code}, got ${body.error}: ${text}`);
  }
  return body;
}

/** Row count of a table, for "nothing was written" assertions. */
export async function countRows(
  ctx: TestContext,
  table: string,
): Promise<number> {
  const row = await ctx.database.db.get<{ n: number }>(
    sql.raw(`select count(*) as n from "${table}"`),
  );
  return Number(row.n);
}

/** The repository root, for subprocess tests. */
export const ROOT = new URL("..", import.meta.url).pathname;

/** The permissions `deno task start` runs with. */
export const PERMS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-ffi",
  "--allow-sys",
];
