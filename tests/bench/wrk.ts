/** wrk: install when absent, run, and parse its `--latency` report. */

export interface WrkResult {
  requestsPerSec: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  requests: number;
  /** Non-2xx/3xx responses. */
  non2xx: number;
  /** connect + read + write + timeout. */
  socketErrors: number;
  errors: number;
  /** Lines the Lua script printed (`done()`), if any. */
  scriptLines: string[];
  raw: string;
}

async function run(
  cmd: string,
  args: string[],
): Promise<{ ok: boolean; out: string }> {
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "piped",
    stderr: "piped",
    env: { DEBIAN_FRONTEND: "noninteractive" },
  }).output();
  const dec = new TextDecoder();
  return {
    ok: out.success,
    out: dec.decode(out.stdout) + dec.decode(out.stderr),
  };
}

async function which(name: string): Promise<string | null> {
  try {
    const r = await run("sh", ["-c", `command -v ${name}`]);
    return r.ok ? r.out.trim() || null : null;
  } catch {
    return null;
  }
}

/**
 * Returns the path of wrk, installing Debian's package when it is missing
 * (`apt-get install -y wrk`, after `apt-get update` if the plain install
 * fails; through sudo only when not root). Says what it does.
 */
export async function ensureWrk(log: (line: string) => void): Promise<string> {
  const found = await which("wrk");
  if (found) return found;
  const root = Deno.uid() === 0;
  const sudo = !root && await which("sudo") ? ["sudo"] : [];
  const apt = async (...args: string[]) => {
    const cmd = [...sudo, "apt-get", ...args];
    log(`+ ${cmd.join(" ")}`);
    const r = await run(cmd[0], cmd.slice(1));
    if (!r.ok) log(r.out.trim().split("\n").slice(-3).join("\n"));
    return r.ok;
  };
  log("wrk is not installed: installing Debian's wrk package");
  if (!await apt("install", "-y", "wrk")) {
    await apt("update");
    if (!await apt("install", "-y", "wrk")) {
      throw new Error("could not install wrk (apt-get install -y wrk)");
    }
  }
  const path = await which("wrk");
  if (!path) throw new Error("wrk was installed but is not on PATH");
  return path;
}

/** wrk's durations ("812.00us", "1.20ms", "2.01s", "1.00m") in milliseconds. */
export function parseDuration(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us"
    ? v / 1000
    : m[2] === "ms"
    ? v
    : m[2] === "s"
    ? v * 1000
    : v * 60_000;
}

/** Parses a `wrk --latency` report. */
export function parseWrk(raw: string): WrkResult {
  const num = (re: RegExp) => {
    const m = re.exec(raw);
    return m ? Number(m[1]) : 0;
  };
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(raw);
    return m ? parseDuration(m[1]) : NaN;
  };
  const sock =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(raw);
  const socketErrors = sock
    ? sock.slice(1).reduce((a, b) => a + Number(b), 0)
    : 0;
  const non2xx = num(/Non-2xx or 3xx responses: (\d+)/);
  const requests = num(/(\d+) requests in/);
  return {
    requestsPerSec: num(/Requests\/sec:\s+([\d.]+)/),
    // No request completed: every latency exceeded the run.
    p50: requests === 0 ? Infinity : pct("50"),
    p99: requests === 0 ? Infinity : pct("99"),
    requests,
    non2xx,
    socketErrors,
    errors: non2xx + socketErrors,
    scriptLines: raw.split("\n").filter((l) => l.startsWith("BENCH ")),
    raw,
  };
}

export interface WrkOptions {
  url: string;
  connections: number;
  threads: number;
  /** Seconds. */
  duration: number;
  script?: string;
  scriptArgs?: string[];
  headers?: Record<string, string>;
}

/** wrk's command line for these options. */
export function wrkArgs(o: WrkOptions): string[] {
  const args = [
    "-t",
    String(o.threads),
    "-c",
    String(o.connections),
    "-d",
    `${o.duration}s`,
    "--timeout",
    "10s",
    "--latency",
  ];
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    args.push("-H", `${k}: ${v}`);
  }
  if (o.script) args.push("-s", o.script);
  args.push(o.url);
  if (o.scriptArgs?.length) args.push("--", ...o.scriptArgs);
  return args;
}

/** Runs wrk and parses its report; throws when wrk fails. */
export async function runWrk(wrk: string, o: WrkOptions): Promise<WrkResult> {
  const r = await run(wrk, wrkArgs(o));
  if (!r.ok) throw new Error(`wrk failed:\n${r.out}`);
  return parseWrk(r.out);
}
