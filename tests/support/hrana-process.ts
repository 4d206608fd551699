/**
 * The Hrana test server (hrana-server.ts) as a child process, and the
 * `QUANDO_TEST_DATABASE=hrana` switch of the test helpers.
 *
 * With `QUANDO_TEST_DATABASE=hrana` in the environment, importing this module
 * starts one server per test module (`deno test` evaluates each test file's
 * module graph afresh, so each file gets its own), serving a fresh database
 * file per name under a temporary directory (`/ns/<name>/`);
 * `hranaTestDatabaseUrl()` then hands out a new, empty database per call. The server runs in a child process
 * started while the module loads, not inside a test, so Deno's per-test
 * resource and op sanitizers do not see it; it exits (and removes its
 * directory) when this process exits and its stdin closes.
 *
 * Variants: `QUANDO_TEST_HRANA_FOREIGN_KEYS=off` (connections without foreign
 * key enforcement), `QUANDO_TEST_HRANA_ERROR_CODES=extended` (extended SQLite
 * result codes instead of sqld's primary ones).
 */

export interface HranaProcess {
  /** The root URL (the `db` file's database, if one was given). */
  url: string;
  /** The URL of the database `name` (created on first use). */
  namespaceUrl(name: string): string;
  stop(): Promise<void>;
}

export interface HranaProcessOptions {
  /** The database file served at the root URL (`--db`). */
  db?: string;
  /** Directory of the namespaces' database files (`--namespaces`). */
  namespacesDir?: string;
  /** Remove `namespacesDir` when the server exits. */
  removeOnExit?: boolean;
  foreignKeys?: "on" | "off";
  errorCodes?: "sqld" | "extended";
  authToken?: string;
}

const SCRIPT = new URL("./hrana-server.ts", import.meta.url).pathname;
// The test configuration: the server runs on the native libsql addon.
const CONFIG = new URL("../../deno.dev.json", import.meta.url).pathname;

function freePort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Starts hrana-server.ts as a child process and waits until it answers. */
export async function spawnHranaServer(
  options: HranaProcessOptions,
): Promise<HranaProcess> {
  const port = freePort();
  const args = [
    "run",
    "--config",
    CONFIG,
    "--allow-all",
    SCRIPT,
    "--port",
    String(port),
    "--exit-with-stdin",
  ];
  if (options.db) args.push("--db", options.db);
  if (options.namespacesDir) args.push("--namespaces", options.namespacesDir);
  if (options.removeOnExit) args.push("--remove-namespaces-on-exit");
  if (options.foreignKeys) args.push("--foreign-keys", options.foreignKeys);
  if (options.errorCodes) args.push("--error-codes", options.errorCodes);
  if (options.authToken) args.push("--auth-token", options.authToken);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "piped",
    stdout: "null",
    stderr: "inherit",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
  const url = `http://127.0.0.1:${port}/`;
  let up = false;
  for (let i = 0; i < 1200 && !up; i++) {
    try {
      const res = await fetch(`${url}health`);
      await res.body?.cancel();
      up = res.ok;
    } catch { /* not listening yet */ }
    if (!up) await new Promise((r) => setTimeout(r, 50));
  }
  if (!up) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    if (options.removeOnExit && options.namespacesDir) {
      await Deno.remove(options.namespacesDir, { recursive: true })
        .catch(() => {});
    }
    throw new Error("the Hrana test server did not start");
  }
  // Neither the child nor its stdin keeps this process alive.
  child.unref();
  return {
    url,
    namespaceUrl: (name) => `${url}ns/${name}/`,
    async stop() {
      child.ref();
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.stdin.close().catch(() => {});
      await child.status;
    },
  };
}

const mode = Deno.env.get("QUANDO_TEST_DATABASE");

/** The per-process server when QUANDO_TEST_DATABASE=hrana, else null. */
export const sharedHranaServer: HranaProcess | null = mode === "hrana"
  ? await spawnHranaServer({
    namespacesDir: await Deno.makeTempDir({ prefix: "quando-hrana-" }),
    removeOnExit: true,
    foreignKeys: Deno.env.get("QUANDO_TEST_HRANA_FOREIGN_KEYS") === "off"
      ? "off"
      : undefined,
    errorCodes: Deno.env.get("QUANDO_TEST_HRANA_ERROR_CODES") === "extended"
      ? "extended"
      : undefined,
  })
  : null;

let databaseCounter = 0;

/**
 * A URL of a new, empty database on the shared server, or null when the
 * tests run on `:memory:` (the default).
 */
export function hranaTestDatabaseUrl(): string | null {
  if (!sharedHranaServer) return null;
  const name = `db${++databaseCounter}-${crypto.randomUUID().slice(0, 8)}`;
  return sharedHranaServer.namespaceUrl(name);
}
