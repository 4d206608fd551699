/** Shared test helpers: build the app over an in-memory database, make users, get tokens. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseHtml5 } from "parse5";
import { sql } from "drizzle-orm";
import { type Database, migrateDatabase, openDatabase } from "../db/client.ts";
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
import type { EgressFetch } from "../lib/net/egress.ts";
import { createUser, type UserRow } from "../lib/users.ts";
import { type App, createApp } from "../routes/mod.ts";
import type { FederationService } from "../lib/federation/service.ts";
import { generateActorKeyPairs } from "../lib/federation/keys.ts";
import {
  configureFedifyLogging,
  createFederationForDatabase,
  type FederationSetupOptions,
} from "../lib/federation/setup.ts";
import { hranaTestDatabaseUrl } from "./support/hrana-process.ts";

/** One pair of actor keys for every test app of the process (RSA generation is slow). */
const testKeyPairs = generateActorKeyPairs();

/** One hasher for the whole test process (the native addon loads once). */
export const hasher: PasswordHasher = await createNativeHasher();

export interface TestContext {
  app: App;
  database: Database;
  clock: FixedClock;
  config: Config & { jwtSecret: string };
  federation: FederationService;
  close(): void;
}

export interface TestAppOptions {
  /** Pinned "now"; defaults to 2026-06-01T12:00:00Z. */
  now?: string;
  /** Extra environment for loadConfig. */
  env?: Record<string, string>;
  /** An already open database (for restart tests). */
  database?: Database;
  /** Queue options of the federation service (drain mode, concurrency, retries). */
  federation?: Pick<
    FederationSetupOptions,
    "manualQueue" | "concurrency" | "deferPublication" | "outboxRetryPolicy"
  >;
  /** The egress guard of the app's and the federation's fetches (portable by default). */
  egress?: EgressFetch;
}

/**
 * Builds the app over a fresh in-memory database, migrated, with a pinned clock.
 * With QUANDO_TEST_DATABASE=hrana the fresh database is a remote one instead,
 * on the local Hrana server (tests/support/hrana-process.ts), unless the test
 * passes its own database or DATABASE_URL.
 */
export async function createTestApp(
  options: TestAppOptions = {},
): Promise<TestContext> {
  const remoteUrl = options.database || options.env?.DATABASE_URL
    ? null
    : hranaTestDatabaseUrl();
  const config = loadConfig({
    DATABASE_URL: remoteUrl ?? ":memory:",
    BASE_URL: "http://quando.test",
    ...options.env,
  });
  const database = options.database ??
    await openDatabase(config.databaseUrl, config.databaseAuthToken);
  // prepareInstance migrates embedded databases only (remote ones are
  // migrated by `deno task db:migrate`).
  if (remoteUrl) await migrateDatabase(database);
  const clock = new FixedClock(options.now ?? "2026-06-01T12:00:00Z");
  const { jwtSecret } = await prepareInstance(
    database,
    config,
    hasher,
    clock,
    silentLogger,
  );
  const fullConfig = { ...config, jwtSecret };
  await configureFedifyLogging("fatal");
  const federation = createFederationForDatabase(
    database,
    config,
    clock,
    silentLogger,
    {
      // Writes publish before they answer, as on an embedded database,
      // unless a test asks for the deferred publication of remote ones.
      deferPublication: false,
      ...options.federation,
      egress: options.egress,
      keyPairs: await testKeyPairs,
    },
  );
  const app = createApp({
    database,
    config: fullConfig,
    clock,
    hasher,
    log: silentLogger,
    media: createDbMediaStore(database.db, clock),
    federation,
    egress: options.egress,
  });
  return {
    app,
    database,
    clock,
    config: fullConfig,
    federation,
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

/** A port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The `--v8-flags=...` of `deno task start` (its memory limits), as deno.json says them. */
export function startTaskV8Flags(): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  return String(config.tasks.start).split(/\s+/).filter((arg) =>
    arg.startsWith("--v8-flags=")
  );
}

/** A `main.ts` process started by startServerProcess. */
export interface ServerProcess {
  base: string;
  port: number;
  pid: number;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Stops it (SIGTERM); resolves with what it wrote to stderr. */
  stop(): Promise<string>;
}

/**
 * Starts `main.ts` as `deno task start` would, in `cwd`, and waits until it
 * answers (at most 20 s). With `memoryFlags`, under the start task's V8
 * memory limits too.
 */
export async function startServerProcess(
  cwd: string,
  env: Record<string, string>,
  port = freePort(),
  options: { memoryFlags?: boolean } = {},
): Promise<ServerProcess> {
  const base = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      join(ROOT, "deno.json"),
      ...(options.memoryFlags ? startTaskV8Flags() : []),
      ...PERMS,
      join(ROOT, "main.ts"),
    ],
    cwd,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      RUST_BACKTRACE: "0",
      ...env,
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let exited = false;
  child.status.then(() => exited = true);
  let up = false;
  for (let i = 0; i < 200 && !up && !exited; i++) {
    try {
      const res = await fetch(`${base}/api/health`);
      await res.body?.cancel();
      up = res.ok;
    } catch { /* not listening yet */ }
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  let stderr: Promise<string> | null = null;
  const stop = () => {
    stderr ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const text = await new Response(child.stderr).text();
      await child.status;
      return text;
    })();
    return stderr;
  };
  if (!up) {
    throw new Error(`the server did not start:\n${await stop()}`);
  }
  return { base, port, pid: child.pid, alive: () => !exited, stop };
}

/** A registered OAuth client as returned by POST /api/client. */
export interface TestClient {
  client_id: string;
  client_secret: string | null;
  redirect_uri: string;
}

/** Registers an OAuth client through the API (one redirect URI unless given). */
export async function registerTestClient(
  ctx: TestContext,
  body: Record<string, unknown> = {},
): Promise<TestClient> {
  const redirect = "https://app.example/callback";
  const res = await call(ctx, "POST", "/api/client", {
    json: { client_name: "Test app", redirect_uris: redirect, ...body },
  });
  if (res.status !== 201) {
    throw new Error(
      `client registration failed: ${res.status} ${await res.text()}`,
    );
  }
  const client = await res.json();
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uri: client.redirect_uris.split(" ")[0],
  };
}

/** base64url SHA-256 of a PKCE verifier. */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The hidden inputs of an HTML form, by name. */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of html.match(/<input[^>]*>/g) ?? []) {
    if (!/type="hidden"/.test(tag)) continue;
    const name = /name="([^"]*)"/.exec(tag)?.[1];
    const value = /value="([^"]*)"/.exec(tag)?.[1] ?? "";
    if (name) {
      out[name] = value.replace(/&quot;/g, '"').replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    }
  }
  return out;
}

/** GET /authorize: the consent page, its hidden fields and the CSRF cookie. */
export async function openConsent(
  ctx: TestContext,
  params: Record<string, string>,
): Promise<
  {
    res: Response;
    html: string;
    fields: Record<string, string>;
    cookie: string;
  }
> {
  const res = await ctx.app.request(
    `/authorize?${new URLSearchParams(params)}`,
  );
  const html = await res.text();
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  return { res, html, fields: hiddenFields(html), cookie };
}

/** POSTs the consent form as a browser would (cookie + hidden fields + choices). */
export function submitConsent(
  ctx: TestContext,
  consent: { fields: Record<string, string>; cookie: string },
  choices: Record<string, string>,
): Promise<Response> {
  return Promise.resolve(ctx.app.request("/authorize", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(consent.cookie ? { cookie: consent.cookie } : {}),
    },
    body: new URLSearchParams({ ...consent.fields, ...choices }),
  }));
}

/** Runs the whole consent flow for a user and returns the code from the redirect. */
export async function authorizeCode(
  ctx: TestContext,
  client: TestClient,
  user: TestUser,
  options: { verifier?: string; state?: string; scope?: string } = {},
): Promise<string> {
  const params: Record<string, string> = {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope: options.scope ?? "event:write",
    state: options.state ?? "state-1",
  };
  if (options.verifier) {
    params.code_challenge = await s256(options.verifier);
    params.code_challenge_method = "S256";
  }
  const consent = await openConsent(ctx, params);
  if (consent.res.status !== 200) {
    throw new Error(`consent page: ${consent.res.status} ${consent.html}`);
  }
  const res = await submitConsent(ctx, consent, {
    email: user.email,
    password: user.password,
    decision: "approve",
  });
  const location = res.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (res.status !== 302 || !code) {
    throw new Error(`approval failed: ${res.status} ${location}`);
  }
  return code;
}

/** POST /oauth/token with form parameters (and HTTP Basic when `basic` is given). */
export function tokenRequest(
  ctx: TestContext,
  params: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
  };
  if (basic) {
    headers.authorization = `Basic ${
      btoa(
        `${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`,
      )
    }`;
  }
  return Promise.resolve(ctx.app.request("/oauth/token", {
    method: "POST",
    headers,
    body: new URLSearchParams(params),
  }));
}

/** An OAuth access token (scope event:write) for the user, through the real flow. */
export async function oauthAccessToken(
  ctx: TestContext,
  user: TestUser,
): Promise<string> {
  const client = await registerTestClient(ctx);
  const verifier = "helper-verifier-0123456789-abcdefghijklmnopq";
  const code = await authorizeCode(ctx, client, user, { verifier });
  const res = await tokenRequest(ctx, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
  }, { id: client.client_id, secret: client.client_secret! });
  if (res.status !== 200) {
    throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  }
  return (await res.json()).access_token;
}

/** Calls a running server's API; the body is parsed JSON (or null when empty). */
export async function apiAt(
  base: string,
  method: string,
  path: string,
  token?: string,
  json?: unknown,
  // deno-lint-ignore no-explicit-any -- tests read arbitrary response fields
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: json !== undefined ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Calls a running server's API, asserting a 2xx answer; returns its body. */
export async function apiOk(
  base: string,
  method: string,
  path: string,
  token?: string,
  json?: unknown,
  // deno-lint-ignore no-explicit-any -- tests read arbitrary response fields
): Promise<any> {
  const { status, body } = await apiAt(base, method, path, token, json);
  assert.ok(status < 300, `${method} ${path}: ${JSON.stringify(body)}`);
  return body;
}

/** Logs in on a running server and returns the access token. */
export async function loginAt(
  base: string,
  credentials: { email: string; password: string },
): Promise<string> {
  const { status, body } = await apiAt(
    base,
    "POST",
    "/api/login/token",
    undefined,
    credentials,
  );
  if (status !== 200) throw new Error(`login failed: ${status}`);
  return body.access_token;
}

/** Counts the statements the app sends to libSQL while `fn` runs. */
export async function statementsDuring(
  ctx: TestContext,
  fn: () => Promise<void>,
): Promise<number> {
  // deno-lint-ignore no-explicit-any -- reaching the libSQL client under Drizzle to count calls
  const client = (ctx.database.db as any).$client;
  let calls = 0;
  const saved: Record<string, unknown> = {};
  for (const method of ["execute", "batch"]) {
    const original = client[method];
    saved[method] = original;
    client[method] = (...args: unknown[]) => {
      calls++;
      return original.apply(client, args);
    };
  }
  try {
    await fn();
  } finally {
    Object.assign(client, saved);
  }
  return calls;
}

/** The SQL of every statement the app sends while `fn` runs (a batch's one by one). */
export async function sqlDuring(
  ctx: TestContext,
  fn: () => Promise<unknown>,
): Promise<string[]> {
  // deno-lint-ignore no-explicit-any -- reaching the libSQL client under Drizzle to see its statements
  const client = (ctx.database.db as any).$client;
  const seen: string[] = [];
  const text = (s: unknown) =>
    typeof s === "string" ? s : String((s as { sql: string }).sql);
  const { execute, batch } = client;
  client.execute = (s: unknown, ...rest: unknown[]) => {
    seen.push(text(s));
    return execute.call(client, s, ...rest);
  };
  client.batch = (stmts: unknown[], ...rest: unknown[]) => {
    seen.push(...stmts.map(text));
    return batch.call(client, stmts, ...rest);
  };
  try {
    await fn();
  } finally {
    Object.assign(client, { execute, batch });
  }
  return seen;
}

/** Polls until `check` returns a value (not undefined) or the time runs out. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for: ${what}`);
}

/** The parts of a linkedom element the page tests use (the type check has no DOM library). */
export interface El {
  id: string;
  nodeType: number;
  childNodes: Iterable<El>;
  textContent: string | null;
  innerHTML: string;
  className: string;
  classList: { contains(name: string): boolean };
  tagName: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
}

/**
 * An instance as the public-page tests know it: "Bologna Events" in
 * Europe/Rome, locale en-GB, with an admin and its token.
 */
export async function bolognaInstance(
  timezone = "Europe/Rome",
): Promise<{ ctx: TestContext; admin: TestUser & { token: string } }> {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Bologna Events",
      instance_description: "What happens in town",
      instance_timezone: timezone,
      instance_locale: "en-GB",
    },
  });
  if (res.status !== 200) {
    throw new Error(`settings: ${res.status} ${await res.text()}`);
  }
  return { ctx, admin };
}

/** An element's text with its whitespace collapsed, as a reader sees it ("" for none). */
export function text(el: { textContent: string | null } | null): string {
  return (el?.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** parse5's parser errors for a whole document (none for valid HTML). */
export function parseErrors(html: string): string[] {
  const errors: string[] = [];
  parseHtml5(html, {
    onParseError: (e) => errors.push(`${e.code} at ${e.startLine}`),
  });
  return errors;
}
