/**
 * Cloudflare Workers entry: the same `createApp(deps)` as main.ts, over a
 * remote database (Turso over HTTP), the WebAssembly argon2id and the media
 * store of the configuration, with no long-lived loop:
 *
 * - `fetch` answers the request; when it enqueued deliveries or inbox work
 *   (a write that federates, an activity received), the queue is drained
 *   after the response with `ctx.waitUntil`, within a budget.
 * - `scheduled` (wrangler.toml's cron triggers): every minute it drains what
 *   is left (retries, work of isolates that died: their leases run out), and
 *   on the hourly trigger it runs the hourly jobs (lib/jobs.ts).
 *
 * Configuration comes from the Worker's bindings (wrangler.toml `[vars]` and
 * `wrangler secret put`), read as the same environment variables as main.ts.
 * Built by `deno task worker:build` (tools/worker-build.ts) into
 * dist/worker/, which is what wrangler uploads and `deno task worker` serves
 * under workerd.
 */
import { Temporal as TemporalPolyfill } from "@js-temporal/polyfill";
import { openRemoteDatabase } from "./db/remote.ts";
import { wasmHasher } from "./lib/auth/hasher.ts";
import { systemClock } from "./lib/clock.ts";
import {
  type Config,
  ConfigError,
  describeDatabase,
  loadConfig,
} from "./lib/config.ts";
import type { DrainBudget } from "./lib/federation/store/queue.ts";
import type { FederationService } from "./lib/federation/service.ts";
import { createQueueDrainer } from "./lib/federation/drainer.ts";
import { assembleInstance } from "./lib/assemble.ts";
import { runScheduledJobs } from "./lib/jobs.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { createApp } from "./routes/mod.ts";

// workerd has no global Temporal, which our federation code uses (Fedify's
// npm build imports this polyfill itself, so the global is the same class).
if (!("Temporal" in globalThis)) {
  Object.defineProperty(globalThis, "Temporal", {
    value: TemporalPolyfill,
    writable: true,
    configurable: true,
  });
}

/** The cron trigger that runs the hourly jobs; any other one drains the queue. */
const HOURLY_CRON = "0 * * * *";

/**
 * After a response: claims stop after 20 s, so deliveries in hand finish
 * within the 30 s Workers gives `waitUntil` work.
 */
const AFTER_REQUEST_BUDGET: DrainBudget = { maxMs: 20_000, maxMessages: 200 };
/** From the cron trigger (every minute): most of the minute. */
const SCHEDULED_BUDGET: DrainBudget = { maxMs: 45_000, maxMessages: 1_000 };

/** The Worker's bindings: configuration variables and secrets, as strings. */
export type WorkerEnv = Record<string, unknown>;

/** The parts of Workers' `ExecutionContext` used here. */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** The parts of Workers' `ScheduledController` used here. */
export interface WorkerScheduledController {
  readonly cron: string;
  readonly scheduledTime: number;
}

interface Runtime {
  config: Config;
  log: Logger;
  app: { fetch(request: Request, env?: unknown, ctx?: unknown): unknown };
  federation: FederationService;
  jobs(): Promise<unknown>;
  /** Drains the queue; one drain at a time per isolate. */
  drain(budget: DrainBudget): Promise<void>;
}

/** The bindings that are strings: what loadConfig reads. */
function stringBindings(env: WorkerEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === "string") out[key] = value;
  }
  return out;
}

/** The argon2 module: wrangler and workerd compile the `.wasm` beside the bundle. */
async function argon2Module(): Promise<WebAssembly.Module> {
  // A computed specifier: the bundler leaves it to the runtime, which loads
  // the module declared beside the bundle (a compiled WebAssembly.Module;
  // workerd refuses to compile WebAssembly from bytes).
  const specifier = ["./argon2", "wasm"].join(".");
  const mod = await import(specifier) as { default: WebAssembly.Module };
  return mod.default;
}

async function createRuntime(env: WorkerEnv): Promise<Runtime> {
  const config = loadConfig(stringBindings(env));
  const log = createLogger(config.logLevel);
  if (
    config.databaseUrl === ":memory:" || config.databaseUrl.startsWith("file:")
  ) {
    throw new ConfigError([
      "DATABASE_URL: a Worker needs a remote database (libsql://, https://), not a file",
    ]);
  }
  const database = await openRemoteDatabase(
    config.databaseUrl,
    config.databaseAuthToken,
  );
  // Native addons do not load on Workers: the WASM hasher whatever
  // PASSWORD_HASHER says (both read each other's hashes).
  const hasher = await wasmHasher(await argon2Module());
  const { config: appConfig, media, federation, mailer } =
    await assembleInstance(
      database,
      config,
      hasher,
      systemClock,
      log,
      { manualQueue: true },
    );
  // Registers Fedify's handler with the queue; in drain mode it never polls,
  // and the isolate's end ends it.
  federation.startQueue(new AbortController().signal).catch((err) =>
    log.error("the delivery queue stopped", { error: String(err) })
  );
  const app = createApp({
    database,
    config: appConfig,
    clock: systemClock,
    hasher,
    log,
    media,
    federation,
    mailer,
  });
  const drainer = createQueueDrainer(federation, log);
  log.info(
    `Quando on Workers: database ${describeDatabase(config.databaseUrl)}; ` +
      `password hasher: ${hasher.name}; media: ${media.kind}; ` +
      `e-mail: ${mailer.transportKind ?? "off"}`,
  );
  return {
    config,
    log,
    app,
    federation,
    drain: drainer.drain,
    jobs: () =>
      runScheduledJobs({
        db: database.db,
        clock: systemClock,
        log,
        media,
        federation,
        fetching: {
          allowPrivateAddresses: config.allowPrivateAddresses,
          baseUrl: config.baseUrl,
          mediaMaxBytes: config.mediaMaxBytes,
          mediaQuotaBytes: config.mediaQuotaBytes,
        },
      }),
  };
}

/** One runtime per isolate, built on its first request or trigger. */
let runtime: Promise<Runtime> | null = null;

function runtimeFor(env: WorkerEnv): Promise<Runtime> {
  runtime ??= createRuntime(env).catch((err) => {
    // Retry on the next request: the database may have been unreachable.
    runtime = null;
    throw err;
  });
  return runtime;
}

/** The error shape, for a Worker that could not start. */
function startFailure(err: unknown): Response {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error("Quando could not start:", err);
  return Response.json(
    {
      error: "internal",
      message: "The server could not start; its log says why",
    },
    { status: 500 },
  );
}

export default {
  async fetch(
    request: Request,
    env: WorkerEnv,
    ctx: WorkerContext,
  ): Promise<Response> {
    let rt: Runtime;
    try {
      rt = await runtimeFor(env);
    } catch (err) {
      return startFailure(err);
    }
    // Cloudflare sets CF-Connecting-IP to the client's address (a client
    // cannot choose it): the address rate limits count by.
    const address = request.headers.get("cf-connecting-ip")?.trim();
    const response = await rt.app.fetch(
      request,
      { remoteAddr: address ? { hostname: address } : undefined },
      ctx,
    ) as Response;
    if (rt.federation.hasQueuedWork()) {
      ctx.waitUntil(rt.drain(AFTER_REQUEST_BUDGET));
    }
    return response;
  },

  async scheduled(
    controller: WorkerScheduledController,
    env: WorkerEnv,
    _ctx: WorkerContext,
  ): Promise<void> {
    const rt = await runtimeFor(env);
    // Awaited, so the trigger's outcome says when the work is done.
    if (controller.cron === HOURLY_CRON) await rt.jobs();
    else await rt.drain(SCHEDULED_BUDGET);
  },
};
