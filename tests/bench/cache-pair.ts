/**
 * What the public-read cache costs a miss, measured steadily: two servers at
 * the same moments, the cache on and off, each pinned to a CPU of its own
 * (`taskset`, when there is one and two CPUs), over copies of one file of
 * 20,000 events; both crawled (every answer kept, lib/events/bodies.ts), then
 * read at random ids by a wrk each, at once, in turns. Prints each turn's
 * requests a second and the server CPU per request (user + system, from
 * /proc/<pid>/stat), then the medians. Sequential runs on a shared machine
 * swing more than the few microseconds this compares; this is how the causes
 * in BENCHMARKS.md's issue 33 section were found.
 *
 *   deno task bench:cache-pair [TURNS=6] [SECONDS=5]
 *
 * Any extra environment for the cache-on server: CACHE_PAIR_ENV='A=1 B=2'.
 */
import { join } from "node:path";
import { createDatabase, seedEvents } from "./seed.ts";
import {
  cpuTicks,
  pinProcess,
  ROOT,
  type ServerProcess,
  startServer,
} from "./server.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const TURNS = Number(Deno.args[0] ?? 6);
const SECONDS = Number(Deno.args[1] ?? 5);
const EVENTS = 20_000;
const CONNECTIONS = 32;
const log = (line: string) => console.error(line);

/** A server's CPU so far (NaN once it is gone: the turn's figure shows it). */
const ticks = (pid: number) => cpuTicks(pid) ?? Number.NaN;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-cache-pair-" });
const servers: ServerProcess[] = [];
try {
  const path = join(dir, "events.db");
  const database = await createDatabase(path);
  const seed = await seedEvents(database, EVENTS);
  database.close();
  log(`seeded ${seed.events} events in ${seed.seconds.toFixed(1)} s`);
  await Deno.copyFile(path, join(dir, "off.db"));

  const extra = Object.fromEntries(
    (Deno.env.get("CACHE_PAIR_ENV") ?? "").split(/\s+/).filter(Boolean)
      .map((pair) => pair.split("=", 2) as [string, string]),
  );
  const common = {
    LOG_LEVEL: "warning",
    ADMIN_EMAIL: "bench-admin@bench.invalid",
    ADMIN_PASSWORD: "bench-admin-password",
  };
  const on = await startServer({
    ...common,
    ...extra,
    DATABASE_URL: `file:${path}`,
  });
  servers.push(on);
  const off = await startServer({
    ...common,
    DATABASE_URL: `file:${join(dir, "off.db")}`,
    PUBLIC_CACHE_MS: "0",
  });
  servers.push(off);
  const pinned = navigator.hardwareConcurrency >= 2 &&
    await pinProcess(on.pid, 0) && await pinProcess(off.pid, 1);
  log(
    pinned
      ? "servers pinned to CPU 0 and 1, swapped each turn"
      : "servers not pinned",
  );

  const crawl = join(ROOT, "tests/bench/crawl_events.lua");
  const distinct = join(ROOT, "tests/bench/distinct_events.lua");
  const load = (server: ServerProcess, script: string, args: string[]) =>
    runWrk(wrk, {
      url: server.base,
      connections: CONNECTIONS,
      threads: 1,
      duration: script === crawl ? 8 : SECONDS,
      script,
      scriptArgs: args,
    });
  // Every answer made and kept once, on both.
  await Promise.all(
    [on, off].map((s) => load(s, crawl, ["1", String(seed.events), "1"])),
  );

  const figures = { on: [] as number[][], off: [] as number[][] };
  for (let turn = 1; turn <= TURNS; turn++) {
    // Each server on either CPU in turn: one CPU may serve more of the
    // machine's interrupts, or run wrk more often.
    if (pinned) {
      await pinProcess(on.pid, (turn + 1) % 2);
      await pinProcess(off.pid, turn % 2);
    }
    const before = [ticks(on.pid), ticks(off.pid)];
    const [a, b]: WrkResult[] = await Promise.all(
      [on, off].map((s) => load(s, distinct, [String(seed.events)])),
    );
    const after = [ticks(on.pid), ticks(off.pid)];
    // Clock ticks are 10 ms: µs per request = ticks * 10,000 / requests.
    const perRequest = (i: number, r: WrkResult) =>
      (after[i] - before[i]) * 10_000 / r.requests;
    figures.on.push([a.requestsPerSec, perRequest(0, a)]);
    figures.off.push([b.requestsPerSec, perRequest(1, b)]);
    console.log(
      `turn ${turn}: cache on ${Math.round(a.requestsPerSec)} req/s, ${
        perRequest(0, a).toFixed(1)
      } µs a request | cache off ${Math.round(b.requestsPerSec)} req/s, ${
        perRequest(1, b).toFixed(1)
      } µs a request`,
    );
  }
  const onCpu = median(figures.on.map((f) => f[1]));
  const offCpu = median(figures.off.map((f) => f[1]));
  // Each server had the other's CPU the turn before: the mean of the turns'
  // ratios cancels what one CPU adds (an even number of turns).
  const ratios = figures.on.map((f, i) => f[1] / figures.off[i][1]);
  const meanRatio = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  console.log(
    `median: cache on ${onCpu.toFixed(1)} µs a request, cache off ${
      offCpu.toFixed(1)
    } µs; mean of the turns' ratios ${meanRatio.toFixed(3)} (${
      ((meanRatio - 1) * 100).toFixed(1)
    }%)`,
  );
} finally {
  for (const server of servers) await server.stop();
  await Deno.remove(dir, { recursive: true });
}
