/**
 * Memory under uncached reads (the soak): a server started as `deno task
 * start` does, on a file of BENCH_EVENTS events, answers GET /api/events/{id}
 * over random ids (the public-read cache cannot hold them) in rounds of
 * BENCH_ROUND_REQUESTS requests; RSS after each round, and its growth per
 * 1,000 requests after the first (warm-up) rounds. A server that leaks grows
 * round after round; one that does not levels off. By default 10 rounds of
 * 50,000: 500,000 requests.
 *
 *   deno task bench:memory
 *   BENCH_EVENTS=20000 BENCH_ROUNDS=4 BENCH_ROUND_REQUESTS=20000 deno task bench:memory
 */
import { join } from "node:path";
import { createDatabase, seedEvents } from "./seed.ts";
import { readRss, startServer } from "./server.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const EVENTS = Number(Deno.env.get("BENCH_EVENTS") ?? 20_000);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 10);
const ROUND_REQUESTS = Number(
  Deno.env.get("BENCH_ROUND_REQUESTS") ?? 50_000,
);
/** Seconds of one wrk run; a round is as many as its requests take. */
const SLICE_SECONDS = 3;
const WARMUP_ROUNDS = 2;

const log = (line: string) => console.error(line);
const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-memory-" });
const path = join(dir, "memory.db");
const database = await createDatabase(path);
const seeded = await seedEvents(database, EVENTS);
database.close();
log(`seeded ${seeded.events} events`);

const server = await startServer({
  DATABASE_URL: `file:${path}`,
  LOG_LEVEL: "warning",
});
const rows: {
  round: number;
  requests: number;
  reqPerSec: number;
  rssMb: number;
}[] = [];
try {
  // wrk runs in short slices (its threads cannot end a run early); RSS is
  // read each time another BENCH_ROUND_REQUESTS requests have been answered.
  let requests = 0;
  let roundStarted = performance.now();
  let roundRequests = 0;
  while (rows.length < ROUNDS) {
    const result = await runWrk(wrk, {
      url: server.base,
      connections: 16,
      threads: 2,
      duration: SLICE_SECONDS,
      script: new URL("./distinct_events.lua", import.meta.url).pathname,
      scriptArgs: [String(seeded.events)],
    });
    requests += result.requests;
    roundRequests += result.requests;
    if (requests < (rows.length + 1) * ROUND_REQUESTS) continue;
    const rss = readRss(server.pid);
    const seconds = (performance.now() - roundStarted) / 1000;
    rows.push({
      round: rows.length + 1,
      requests,
      reqPerSec: roundRequests / seconds,
      rssMb: (rss?.rss ?? 0) / 1e6,
    });
    log(
      `round ${rows.length}: ${requests} requests, ${
        Math.round(roundRequests / seconds)
      } req/s, RSS ${((rss?.rss ?? 0) / 1e6).toFixed(1)} MB`,
    );
    roundStarted = performance.now();
    roundRequests = 0;
  }
} finally {
  await server.stop();
  await Deno.remove(dir, { recursive: true });
}

console.log("| round | requests so far | req/s | RSS |");
console.log("|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(
    `| ${r.round} | ${r.requests} | ${Math.round(r.reqPerSec)} | ${
      r.rssMb.toFixed(1)
    } MB |`,
  );
}
const from = rows[WARMUP_ROUNDS - 1];
const to = rows.at(-1)!;
console.log(
  `\nafter warm-up (round ${from.round} -> ${to.round}): ${
    (to.rssMb - from.rssMb).toFixed(1)
  } MB over ${to.requests - from.requests} requests = ${
    ((to.rssMb - from.rssMb) / (to.requests - from.requests) * 1000).toFixed(3)
  } MB per 1,000 requests`,
);
