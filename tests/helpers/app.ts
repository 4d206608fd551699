/** Building a test app over a fresh database and talking to it in-process. */
import { sql } from "drizzle-orm";
import {
  type Database,
  migrateDatabase,
  openDatabase,
} from "../../db/client.ts";
import {
  createNativeHasher,
  type PasswordHasher,
} from "../../lib/auth/password.ts";
import { FixedClock } from "../../lib/clock.ts";
import { type Config, loadConfig } from "../../lib/config.ts";
import { prepareInstance } from "../../lib/instance.ts";
import { silentLogger } from "../../lib/log.ts";
import { createDbMediaStore } from "../../lib/media/store.ts";
import {
  createEventBodyFiller,
  type EventBodyFiller,
} from "../../lib/events/bodies.ts";
import { createMailer, type Mailer } from "../../lib/mail/outbox.ts";
import { mailQueueWork } from "../../lib/mail/notices.ts";
import type { MailTransport } from "../../lib/mail/transport.ts";
import type { EgressFetch } from "../../lib/net/egress.ts";
import { type App, createApp } from "../../routes/mod.ts";
import type { FederationService } from "../../lib/federation/service.ts";
import { generateActorKeyPairs } from "../../lib/federation/keys.ts";
import {
  configureFedifyLogging,
  createFederationForDatabase,
  type FederationSetupOptions,
} from "../../lib/federation/setup.ts";
import { hranaTestDatabaseUrl } from "../support/hrana-process.ts";

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
  mailer: Mailer;
  /** Keeps anonymous event answers (absent when the test turned it off). */
  eventBodies?: EventBodyFiller;
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
  /** The mail transport (none: e-mail is off, as without SMTP_URL). */
  mailTransport?: MailTransport;
  /** Attempts before a mail is given up on (MAIL_MAX_ATTEMPTS by default). */
  mailMaxAttempts?: number;
  /**
   * Keep anonymous event answers (lib/events/bodies.ts), as main.ts does;
   * by default on an embedded database (their fills run at the end of the
   * request's task, so no test leaks them), off on a remote one.
   */
  keepEventBodies?: boolean;
  /** AppDeps.reusableResponses; true (Deno's, as main.ts) by default. */
  reusableResponses?: boolean;
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
  const mailer = createMailer({
    db: database.db,
    clock,
    log: silentLogger,
    baseUrl: config.baseUrl,
    from: "Quando <noreply@quando.test>",
    transport: options.mailTransport,
    maxAttempts: options.mailMaxAttempts,
  });
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
      queueWork: mailQueueWork({
        database,
        clock,
        log: silentLogger,
        config,
        mailer,
      }),
    },
  );
  const eventBodies = options.keepEventBodies ?? !remoteUrl
    ? createEventBodyFiller(database, { delayMs: 0 })
    : undefined;
  const app = createApp({
    database,
    config: fullConfig,
    clock,
    hasher,
    log: silentLogger,
    media: createDbMediaStore(database.db, clock),
    federation,
    egress: options.egress,
    mailer,
    eventBodies,
    // As main.ts has it: the tests run on Deno.
    reusableResponses: options.reusableResponses ?? true,
  });
  return {
    app,
    database,
    clock,
    config: fullConfig,
    federation,
    mailer,
    eventBodies,
    close: () => {
      eventBodies?.close();
      database.close();
    },
  };
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
