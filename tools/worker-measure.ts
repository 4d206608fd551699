/**
 * Measures the Worker's start-up under workerd: how much longer workerd takes
 * to accept connections with the Quando bundle than with a one-line Worker,
 * which is the bundle's parse, compile and module evaluation (workerd
 * evaluates a Worker's modules before it listens). Prints the median of
 * several runs of each, and the bundle's size.
 *
 *   deno run --config deno.dev.json -A tools/worker-measure.ts [--runs N]
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWorker } from "./worker-build.ts";
import { COMPATIBILITY_DATE, workerdPath } from "./worker-serve.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function config(modules: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .main)],
  sockets = [(name = "http", address = "127.0.0.1:PORT", http = (), service = "main")],
);
const main :Workerd.Worker = (
  modules = [${modules}],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  compatibilityFlags = ["nodejs_compat"],
);
`;
}

/** Milliseconds from spawning workerd to its socket accepting a connection. */
async function timeToListen(dir: string, configText: string): Promise<number> {
  const port = freePort();
  const path = join(dir, `config-${port}.capnp`);
  writeFileSync(path, configText.replace("PORT", String(port)));
  const started = performance.now();
  const child = new Deno.Command(workerdPath(), {
    args: ["serve", path],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    for (;;) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        conn.close();
        return performance.now() - started;
      } catch {
        if (performance.now() - started > 20_000) {
          throw new Error("workerd did not listen within 20 s");
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  } finally {
    child.kill("SIGTERM");
    await child.stderr.cancel();
    await child.status;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Start-up of the bundle minus that of a trivial Worker, in ms (medians). */
export async function measureStartup(runs = 7): Promise<{
  bundleMs: number;
  trivialMs: number;
  evaluationMs: number;
  rawBytes: number;
  gzipBytes: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), "quando-measure-"));
  const build = await buildWorker({ outDir: dir });
  writeFileSync(
    join(dir, "trivial.js"),
    "export default { fetch() { return new Response('ok'); } };\n",
  );
  const ours = config(
    `(name = "worker.js", esModule = embed "worker.js"),
    (name = "argon2.wasm", wasm = embed "argon2.wasm")`,
  );
  const trivial = config(
    `(name = "trivial.js", esModule = embed "trivial.js")`,
  );
  const bundleTimes: number[] = [];
  const trivialTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    trivialTimes.push(await timeToListen(dir, trivial));
    bundleTimes.push(await timeToListen(dir, ours));
  }
  Deno.removeSync(dir, { recursive: true });
  const bundleMs = median(bundleTimes);
  const trivialMs = median(trivialTimes);
  return {
    bundleMs,
    trivialMs,
    evaluationMs: bundleMs - trivialMs,
    rawBytes: build.rawBytes,
    gzipBytes: build.gzipBytes,
  };
}

if (import.meta.main) {
  const runsAt = Deno.args.indexOf("--runs");
  const runs = runsAt >= 0 ? Number(Deno.args[runsAt + 1]) : 7;
  const m = await measureStartup(runs);
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`bundle: ${kb(m.rawBytes)} raw, ${kb(m.gzipBytes)} gzip`);
  console.log(
    `workerd start to listening (median of ${runs}): ${
      m.bundleMs.toFixed(0)
    } ms with the bundle, ${m.trivialMs.toFixed(0)} ms with a trivial Worker`,
  );
  console.log(
    `module parse + evaluation: ${m.evaluationMs.toFixed(0)} ms`,
  );
}
