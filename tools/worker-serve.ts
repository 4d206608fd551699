/**
 * `deno task worker`: builds the Worker (tools/worker-build.ts) and serves it
 * under a local workerd (the binary from npm, @cloudflare/workerd-linux-64),
 * configured by the same environment variables as `deno task start`. Each
 * variable that is set becomes a binding of the same name, read by workerd
 * from its environment (`fromEnvironment`), so secrets never reach a file.
 * PORT and HOST are where workerd listens; DATABASE_URL must name a remote
 * database (`http://`, `https://`, `libsql://`): a Worker has no files.
 *
 * Cron triggers fire as in production (wrangler.toml): the queue trigger
 * `* * * * *` at the start of every minute and the hourly one `0 * * * *` at
 * the start of every hour, through a second, loopback-only worker that calls
 * the Worker's `scheduled` handler over a service binding.
 * WORKER_CRON_MS and WORKER_HOURLY_MS shorten those periods (tests).
 *
 * As a module: `startWorker(options)` does the same for tests.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_VARIABLES } from "../lib/config.ts";
import { buildWorker } from "./worker-build.ts";

/** The Worker's compatibility date and flags, as in wrangler.toml. */
export const COMPATIBILITY_DATE = "2026-06-01";
export const COMPATIBILITY_FLAGS = ["nodejs_compat"];
/** The two cron triggers of wrangler.toml. */
export const QUEUE_CRON = "* * * * *";
export const HOURLY_CRON = "0 * * * *";

/** The workerd binary shipped in the npm package. */
export function workerdPath(): string {
  let path: string;
  try {
    path = fileURLToPath(
      import.meta.resolve("@cloudflare/workerd-linux-64/bin/workerd"),
    );
  } catch (err) {
    throw new Error(
      `workerd is not installed (npm package @cloudflare/workerd-linux-64, ` +
        `Linux x64 only; run \`deno install\`): ${String(err)}`,
    );
  }
  try {
    Deno.statSync(path);
  } catch {
    throw new Error(
      `workerd is not installed at ${path}; run \`deno install\``,
    );
  }
  return path;
}

/** A Cap'n Proto text literal. */
function capnpText(value: string): string {
  return JSON.stringify(value);
}

/** The loopback-only helper that fires the Worker's `scheduled` handler. */
const CRON_WORKER = `
export default {
  async fetch(request, env) {
    // GET answers that workerd is up; POST fires the trigger.
    if (request.method !== "POST") return new Response("ready");
    const url = new URL(request.url);
    const cron = url.searchParams.get("cron") ?? "* * * * *";
    const time = Number(url.searchParams.get("time") ?? Date.now());
    const result = await env.APP.scheduled({ cron, scheduledTime: new Date(time) });
    return Response.json(result, { status: result.outcome === "ok" ? 200 : 500 });
  },
};
`;

/** The workerd configuration for a build in `dir`. */
export function workerdConfig(options: {
  address: string;
  cronAddress: string;
  /** Names of the bindings, each read from workerd's environment. */
  bindings: string[];
}): string {
  const bindings = options.bindings.map((name) =>
    `(name = ${capnpText(name)}, fromEnvironment = ${capnpText(name)})`
  );
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "quando", worker = .quando),
    (name = "cron", worker = .cron),
    # Federation and the database may be on loopback or private addresses
    # (tests, local peers); the app's own ALLOW_PRIVATE_ADDRESSES rule still
    # decides what federation may fetch.
    (name = "internet", network = (
      allow = ["public", "private", "local"],
      tlsOptions = (trustBrowserCas = true),
    )),
  ],
  sockets = [
    (name = "http", address = ${
    capnpText(options.address)
  }, http = (), service = "quando"),
    (name = "cron", address = ${
    capnpText(options.cronAddress)
  }, http = (), service = "cron"),
  ],
);

const quando :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "argon2.wasm", wasm = embed "argon2.wasm"),
  ],
  compatibilityDate = ${capnpText(COMPATIBILITY_DATE)},
  compatibilityFlags = [${COMPATIBILITY_FLAGS.map(capnpText).join(", ")}],
  bindings = [${bindings.join(",\n    ")}],
  globalOutbound = "internet",
);

const cron :Workerd.Worker = (
  modules = [(name = "cron.js", esModule = embed "cron.js")],
  compatibilityDate = ${capnpText(COMPATIBILITY_DATE)},
  # Gives a service binding its scheduled() method (experimental, local only).
  compatibilityFlags = ["service_binding_extra_handlers"],
  bindings = [(name = "APP", service = "quando")],
);
`;
}

export interface WorkerOptions {
  /** The environment, as for `deno task start` (PORT, HOST, DATABASE_URL, ...). */
  env: Record<string, string>;
  /** Where the build goes (a temporary folder by default). */
  outDir?: string;
  /** Fire the cron triggers on their schedule (default true). */
  schedule?: boolean;
  /** Print workerd's output here as it comes (default: keep it for `output()`). */
  echo?: boolean;
}

export interface RunningWorker {
  /** Where the Worker answers, e.g. http://127.0.0.1:8787. */
  url: string;
  /** Fires the Worker's `scheduled` handler with this cron (waits for it). */
  scheduled(cron: string): Promise<{ outcome: string }>;
  /** What workerd printed so far (stdout and stderr). */
  output(): string;
  /** Bundle sizes of the build that runs. */
  build: { rawBytes: number; gzipBytes: number };
  /** Resolves when workerd exits. */
  finished: Promise<Deno.CommandStatus>;
  stop(): Promise<void>;
}

function freeLoopbackPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function socketAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Runs `fn` at each multiple of `periodMs` since the epoch (or every `periodMs` from now). */
function every(
  periodMs: number,
  aligned: boolean,
  fn: () => Promise<void>,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    const wait = aligned ? periodMs - (Date.now() % periodMs) : periodMs;
    timer = setTimeout(async () => {
      await fn();
      next();
    }, wait);
  };
  next();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Builds the Worker and starts workerd on it; resolves once it answers. */
export async function startWorker(
  options: WorkerOptions,
): Promise<RunningWorker> {
  const env = options.env;
  const databaseUrl = env.DATABASE_URL ?? "";
  if (!/^(https?|libsql|wss?):\/\//.test(databaseUrl)) {
    throw new Error(
      "DATABASE_URL must name a remote database (http://, https://, libsql://): " +
        "a Worker has no files. Migrate it with `deno task db:migrate`.",
    );
  }
  const dir = options.outDir ?? mkdtempSync(join(tmpdir(), "quando-worker-"));
  const build = await buildWorker({ outDir: dir });
  writeFileSync(join(dir, "cron.js"), CRON_WORKER);
  const port = Number(env.PORT ?? "8000");
  const host = env.HOST ?? "0.0.0.0";
  const cronPort = freeLoopbackPort();
  const bindings = CONFIG_VARIABLES.filter((name) =>
    env[name] !== undefined && env[name] !== ""
  );
  const configPath = join(dir, "config.capnp");
  writeFileSync(
    configPath,
    workerdConfig({
      address: socketAddress(host, port),
      cronAddress: socketAddress("127.0.0.1", cronPort),
      bindings,
    }),
  );
  const child = new Deno.Command(workerdPath(), {
    args: ["serve", "--experimental", configPath],
    cwd: dir,
    // Only the bindings (and what workerd itself needs), not the whole environment.
    clearEnv: true,
    env: {
      ...Object.fromEntries(bindings.map((name) => [name, env[name]])),
      ...(Deno.env.get("PATH") ? { PATH: Deno.env.get("PATH")! } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const pump = async (
    stream: ReadableStream<Uint8Array>,
    to: typeof Deno.stdout,
  ) => {
    for await (const chunk of stream) {
      if (options.echo) await to.write(chunk);
      else output += decoder.decode(chunk, { stream: true });
    }
  };
  const pumped = Promise.all([
    pump(child.stdout, Deno.stdout),
    pump(child.stderr, Deno.stderr),
  ]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const localUrl = `http://${
    socketAddress(
      host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host,
      port,
    )
  }`;
  const cronUrl = `http://127.0.0.1:${cronPort}`;
  const scheduled = async (cron: string) => {
    const res = await fetch(
      `${cronUrl}/?cron=${encodeURIComponent(cron)}&time=${Date.now()}`,
      { method: "POST" },
    );
    const body = await res.json() as { outcome: string };
    return body;
  };
  const stopSchedules: (() => void)[] = [];
  const stop = async () => {
    for (const stopOne of stopSchedules) stopOne();
    if (!exited) {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
    }
    await status;
    await pumped;
  };
  // workerd answers once it listens; the app itself starts on the first request.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      await pumped;
      throw new Error(`workerd exited at start:\n${output}`);
    }
    try {
      const res = await fetch(cronUrl);
      await res.body?.cancel();
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`workerd did not start within 30 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (options.schedule ?? true) {
    const fire = (cron: string) => async () => {
      try {
        const { outcome } = await scheduled(cron);
        if (outcome !== "ok") console.error(`cron ${cron}: ${outcome}`);
      } catch (err) {
        console.error(`cron ${cron} failed: ${String(err)}`);
      }
    };
    const cronMs = Number(env.WORKER_CRON_MS ?? "");
    const hourlyMs = Number(env.WORKER_HOURLY_MS ?? "");
    stopSchedules.push(
      every(cronMs > 0 ? cronMs : 60_000, !(cronMs > 0), fire(QUEUE_CRON)),
      every(
        hourlyMs > 0 ? hourlyMs : 3_600_000,
        !(hourlyMs > 0),
        fire(HOURLY_CRON),
      ),
    );
  }
  return {
    url: localUrl,
    scheduled,
    output: () => output,
    build: { rawBytes: build.rawBytes, gzipBytes: build.gzipBytes },
    finished: status,
    stop,
  };
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  const worker = await startWorker({ env, outDir: undefined, echo: true });
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `Quando Worker under workerd on ${worker.url} (bundle ${
      kb(worker.build.rawBytes)
    }, ${kb(worker.build.gzipBytes)} gzip); cron triggers on their schedule`,
  );
  let stopping = false;
  const shutdown = async () => {
    stopping = true;
    await worker.stop();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", shutdown);
  Deno.addSignalListener("SIGTERM", shutdown);
  const { code } = await worker.finished;
  if (!stopping) {
    // workerd stopped on its own (a Ctrl-C reaches it too): end with it.
    console.error(`workerd exited with code ${code}`);
    Deno.exit(code);
  }
}
