/**
 * The real server as a subprocess, started exactly as `deno task start` starts
 * it (the flags are read from deno.json), plus an RSS sampler over
 * /proc/<pid>/status.
 */
import { join } from "node:path";

/** The repository root. */
export const ROOT = new URL("../..", import.meta.url).pathname;

/** `deno run` arguments of the `start` task in deno.json. */
export async function startTaskArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const words = String(config.tasks.start).trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run") {
    throw new Error(`unexpected start task: ${config.tasks.start}`);
  }
  return words.slice(1).map((w) => w === "main.ts" ? join(ROOT, "main.ts") : w);
}

/** A port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

export interface ServerProcess {
  base: string;
  pid: number;
  /** The command line, for the report. */
  command: string;
  /** Server output (stdout and stderr) so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts main.ts with `env` on a loopback port and waits for /api/health. */
export async function startServer(
  env: Record<string, string>,
  /** Extra `deno run` flags (such as --cpu-prof), placed before the permissions. */
  denoFlags: string[] = [],
): Promise<ServerProcess> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = await startTaskArgs();
  const fullEnv: Record<string, string> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    RUST_BACKTRACE: "0",
    NO_COLOR: "1",
    ...env,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      join(ROOT, "deno.json"),
      ...denoFlags,
      ...args.slice(1),
    ],
    cwd: ROOT,
    env: fullEnv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Drain both pipes all the time, so a chatty server never blocks on them.
  let text = "";
  const dec = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      text += dec.decode(chunk, { stream: true });
      if (text.length > 200_000) text = text.slice(-100_000);
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  let up = false;
  for (let i = 0; i < 600 && !up; i++) {
    try {
      const res = await fetch(`${base}/api/health`);
      await res.body?.cancel();
      up = res.ok;
    } catch { /* not listening yet */ }
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 15_000);
    await child.status;
    clearTimeout(timer);
    await drained;
  };
  if (!up) {
    await stop();
    throw new Error(`the server did not start:\n${text}`);
  }
  const shown = Object.entries(fullEnv)
    .filter(([k]) => k !== "RUST_BACKTRACE" && k !== "NO_COLOR")
    .map(([k, v]) => `${k}=${k === "ADMIN_PASSWORD" ? "..." : v}`).join(" ");
  return {
    base,
    pid: child.pid,
    command: `${shown} deno ${
      [args[0], ...denoFlags, ...args.slice(1)].join(" ")
    }`,
    output: () => text,
    stop,
  };
}

export interface RssReading {
  /** VmRSS, bytes. */
  rss: number;
  /** VmHWM (peak RSS), bytes. */
  hwm: number;
  /** RssAnon (heaps: V8, malloc), bytes. */
  anon: number;
  /** RssFile (mapped files: the deno binary, native addons), bytes. */
  file: number;
}

/** Memory figures of a process from /proc/<pid>/status (null when it is gone). */
export function readRss(pid: number): RssReading | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return {
      rss: kb("VmRSS") * 1024,
      hwm: kb("VmHWM") * 1024,
      anon: kb("RssAnon") * 1024,
      file: kb("RssFile") * 1024,
    };
  } catch {
    return null;
  }
}

/** CPU time (user + system) of a process so far, in clock ticks (all threads); null once it is gone. */
export function cpuTicks(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may contain spaces), from field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * Waits until the process has been idle (under 10% of a core) for half a
 * second, so work queued by one load run (requests wrk gave up on) does not
 * spill into the next. Returns the seconds waited.
 */
export async function waitIdle(pid: number, maxSeconds = 180): Promise<number> {
  const started = performance.now();
  const hz = 100;
  let quiet = 0;
  let last = cpuTicks(pid);
  while ((performance.now() - started) / 1000 < maxSeconds) {
    await new Promise((r) => setTimeout(r, 250));
    const now = cpuTicks(pid);
    if (now === null || last === null) break;
    quiet = (now - last) / hz <= 0.025 ? quiet + 1 : 0;
    last = now;
    if (quiet >= 2) break;
  }
  return (performance.now() - started) / 1000;
}

/**
 * Samples the RSS of `pid` every `everyMs` until stopped, and returns the peak:
 * the highest sample, or VmHWM when it is higher (VmHWM is reset at the start
 * through /proc/<pid>/clear_refs when the kernel allows it, so it covers only
 * this window).
 */
export function sampleRss(pid: number, everyMs = 200) {
  let hwmReset = false;
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
    hwmReset = true;
  } catch { /* not allowed: the samples alone count */ }
  const first = readRss(pid);
  let peak = first?.rss ?? 0;
  let anon = first?.anon ?? 0;
  let file = first?.file ?? 0;
  const take = () => {
    const r = readRss(pid);
    if (!r) return;
    if (r.rss > peak) {
      peak = r.rss;
      anon = r.anon;
      file = r.file;
    }
    if (hwmReset) peak = Math.max(peak, r.hwm);
  };
  const timer = setInterval(take, everyMs);
  return {
    /** The peak, and the anonymous / file-backed split of the highest sample. */
    stop(): { peak: number; anon: number; file: number; hwmReset: boolean } {
      clearInterval(timer);
      take();
      return { peak, anon, file, hwmReset };
    },
  };
}

/** Runs `taskset` with `args`; false when it is missing or refused. */
async function taskset(args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command("taskset", {
      args,
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Pins the main thread of process `pid` to CPU `cpu`, or lets every thread
 * of it run on any CPU again (null): the thread that runs the JavaScript
 * and, on Deno, the server's I/O and SQLite; its other threads (the garbage
 * collector's helpers) stay free, but threads it starts while pinned
 * inherit the pin, hence every thread on release. False when `taskset` is
 * missing or refused.
 */
export function pinMainThread(
  pid: number,
  cpu: number | null,
): Promise<boolean> {
  // Without -a, taskset sets the thread whose id is `pid`: the main one.
  return cpu === null
    ? taskset([
      "-a",
      "-pc",
      `0-${Math.max(0, navigator.hardwareConcurrency - 1)}`,
      String(pid),
    ])
    : taskset(["-pc", String(cpu), String(pid)]);
}

/** Pins every thread of process `pid` to CPU `cpu`; false when taskset is missing. */
export function pinProcess(pid: number, cpu: number): Promise<boolean> {
  return taskset(["-apc", String(cpu), String(pid)]);
}

/** A bare Hono app with one JSON route, in a process of its own. */
export async function startBare(): Promise<
  { base: string; pid: number; stop(): Promise<void> }
> {
  const port = freePort();
  const code = `
    import { Hono } from "hono";
    const app = new Hono();
    app.get("/bare", (c) => c.json({ status: "ok" }));
    Deno.serve({ port: ${port}, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--config",
      join(ROOT, "deno.json"),
      // The server's V8 flags (its heap limits), so that the ratios compare
      // like with like.
      ...(await startTaskArgs()).filter((arg) => arg.startsWith("--v8-flags=")),
      code,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${base}/bare`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    base,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
