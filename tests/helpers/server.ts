/** Real `main.ts` processes on loopback ports, and calls to their API over the network. */
import assert from "node:assert/strict";
import { join } from "node:path";

/** The repository root, for subprocess tests. */
export const ROOT = new URL("../..", import.meta.url).pathname;

/** The permissions `deno task start` runs with. */
export const PERMS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-ffi",
  "--allow-sys",
];

/**
 * A port nobody listens on right now. It is closed again before it is
 * returned, so another process may take it before the caller binds it:
 * startServerProcess checks who listens and starts again on another port.
 */
export function freePort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Whether process `pid` holds a TCP socket listening on `port`, read from
 * Linux's /proc (the listening sockets' inodes in /proc/net/tcp against the
 * process's descriptors); null where /proc cannot tell.
 */
export async function listensOn(
  pid: number,
  port: number,
): Promise<boolean | null> {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  try {
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      const text = await Deno.readTextFile(table).catch(() => "");
      for (const line of text.split("\n").slice(1)) {
        // sl local_address rem_address st ... inode; st 0A is LISTEN
        const f = line.trim().split(/\s+/);
        if (f.length > 9 && f[1].endsWith(suffix) && f[3] === "0A") {
          inodes.add(f[9]);
        }
      }
    }
    if (inodes.size === 0) return false;
    for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
      const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`)
        .catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) return true;
    }
    return false;
  } catch {
    return null;
  }
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
 * memory limits too. Without a `port` it picks a free one; since another
 * process may take that port before the child binds it, the server counts as
 * up only once the child itself listens on it (where /proc tells), and a child
 * that found its port taken is started again on another (up to five times).
 */
export async function startServerProcess(
  cwd: string,
  env: Record<string, string>,
  port?: number,
  options: { memoryFlags?: boolean } = {},
): Promise<ServerProcess> {
  for (let attempt = 1;; attempt++) {
    const started = await spawnServer(cwd, env, port ?? freePort(), options);
    if ("server" in started) return started.server;
    if (port !== undefined || !started.portTaken || attempt >= 5) {
      throw new Error(`the server did not start:\n${started.stderr}`);
    }
  }
}

/** One try of startServerProcess, on a given port. */
async function spawnServer(
  cwd: string,
  env: Record<string, string>,
  port: number,
  options: { memoryFlags?: boolean },
): Promise<
  { server: ServerProcess } | { portTaken: boolean; stderr: string }
> {
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
  let ours = false;
  const deadline = Date.now() + 20_000;
  while (!up && !exited && Date.now() < deadline) {
    // Until the child holds the port, an answer there would be another's.
    ours ||= await listensOn(child.pid, port) !== false;
    if (ours) {
      try {
        const res = await fetch(`${base}/api/health`);
        await res.body?.cancel();
        up = res.ok;
      } catch { /* not listening yet */ }
    }
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
    const text = await stop();
    // What Deno says when the listener cannot bind: "AddrInUse: Address already in use".
    const portTaken = /AddrInUse|address already in use/i.test(text);
    return { portTaken, stderr: text };
  }
  return {
    server: { base, port, pid: child.pid, alive: () => !exited, stop },
  };
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
