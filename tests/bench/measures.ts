/**
 * `deno task bench`: issue 33's measures in one run, each beside a bare Hono
 * route (the runtime's limit on this machine) measured in turns with it
 * (MEASURE_SLICES turns of each, MEASURE_SECONDS in all), so that every ratio
 * compares two figures of the same moments on a shared, noisy machine; rows
 * compared with each other run as a pair, in the same turns (measurePair).
 * Servers are started as `deno task start` starts them (production
 * settings: the public-read cache on unless a row says otherwise), on files
 * seeded with 1,000 and 20,000 events; wrk on loopback, 2 threads, 32
 * connections (16 for the writes).
 *
 * Prints the table with each target met or not and writes it between the
 * `measures:begin` / `measures:end` markers of BENCHMARKS.md (BENCH_WRITE=0
 * leaves the file alone). The longer scripts (`bench:run`, `bench:floor`,
 * `bench:memory`, `bench:writes`) are run on their own.
 *
 *   deno task bench
 *   MEASURE_SECONDS=6 MEASURE_SLICES=3 MEASURE_WARMUP=1 deno task bench
 *   MEASURE_PLACE=0 deno task bench   # pairs' servers left to the scheduler
 *   MEASURE_CONTROL=1 deno task bench # both distinct-id servers with the cache off (noise check; BENCHMARKS.md left alone)
 */
import { join } from "node:path";
import { createDatabase, HOT_TAG, seedEvents } from "./seed.ts";
import {
  pinMainThread,
  readRss,
  ROOT,
  sampleRss,
  type ServerProcess,
  startBare,
  startServer,
  waitIdle,
} from "./server.ts";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { ensureWrk, runWrk, type WrkOptions, type WrkResult } from "./wrk.ts";
import { geometricMean, pairedDifference, pct } from "./stats.ts";

const SECONDS = Number(Deno.env.get("MEASURE_SECONDS") ?? 12);
/** Turns of the bare route and the measured load per row. */
const SLICES = Number(Deno.env.get("MEASURE_SLICES") ?? 6);
/**
 * A pair of rows runs in blocks of PAIR_BLOCK_TURNS turns, one block per two
 * turns of a row (3 by default), each block but the first on two fresh
 * servers (measurePair): what the two rows are compared for is smaller than
 * what one pair of server processes differs by. Three at least: with two,
 * the verdict (one degree of freedom) could hardly ever say "below".
 */
const PAIR_BLOCKS = Math.max(3, Math.ceil(SLICES / 2));
/** Turns of a block: each server first and second, on either CPU. */
const PAIR_BLOCK_TURNS = 4;
const WARMUP = Number(Deno.env.get("MEASURE_WARMUP") ?? 2);
const CONNECTIONS = 32;
const WRITE_CLIENTS = 16;
const LARGE = 20_000;
const SMALL = 1_000;
const CONTROL = Deno.env.get("MEASURE_CONTROL") === "1";
const WRITE = Deno.env.get("BENCH_WRITE") !== "0" && !CONTROL;
const ADMIN_EMAIL = "bench-admin@bench.invalid";
const ADMIN_PASSWORD = "bench-admin-password";
const MB = 1024 * 1024;

const log = (line: string) => console.error(line);

/** One measured load with the bare route's figure of the same minute. */
interface Row {
  key: string;
  label: string;
  result: WrkResult;
  bare: WrkResult;
  /** The writes: every 201 one event, none lost or doubled. */
  sound?: boolean;
}

const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-measures-" });
const started = performance.now();
const rows: Row[] = [];
let rssAfter = 0;
let rssAnon = 0;
let rssFile = 0;
let rssPeak = 0;
let writeCheck = "";
/** The crawls' first passes before the distinct-id rows (see firstPass). */
const passes: { label: string; result: WrkResult }[] = [];

/** Seeds a file of `n` events; returns its path and a sample event id. */
async function seeded(n: number) {
  const path = join(dir, `events-${n}.db`);
  const database = await createDatabase(path);
  const seed = await seedEvents(database, n);
  database.close();
  log(`seeded ${seed.events} events in ${seed.seconds.toFixed(1)} s`);
  return { path, seed };
}

const bare = await startBare();

/**
 * Whether the two servers of a pair of rows run each turn with their main
 * threads on one CPU (measurePair). Left to the scheduler, a server's main
 * thread settles on one CPU or the other for its whole life, and on this
 * machine one CPU makes any server 2-10% slower (two identical servers
 * pinned in turns, `deno task bench:cache-pair`): two rows of two processes
 * then differed by that, one way through a whole run, whatever they
 * compared. The bare route is left to the scheduler, as before: a server
 * held to one CPU is measured against the bare route as it runs unheld.
 */
const PLACED = navigator.hardwareConcurrency >= 2 &&
  Deno.env.get("MEASURE_PLACE") !== "0" &&
  await pinMainThread(Deno.pid, null);

/** Pins that failed (the report says so: those turns ran where they ran). */
let placeFailures = 0;

/** Puts the main threads of `pids` on CPU `cpu` for a turn, or back on any CPU (null). */
async function placeTurn(pids: number[], cpu: number | null) {
  if (!PLACED) return;
  for (const pid of pids) {
    if (!await pinMainThread(pid, cpu)) placeFailures++;
  }
}

/** Several wrk runs as one: requests over time, the median p50, the worst p99. */
function combined(slices: WrkResult[]): WrkResult {
  const requests = slices.reduce((n, r) => n + r.requests, 0);
  const seconds = slices.reduce(
    (n, r) => n + (r.requestsPerSec > 0 ? r.requests / r.requestsPerSec : 0),
    0,
  );
  const p50s = slices.map((r) => r.p50).sort((a, b) => a - b);
  const sum = (key: "non2xx" | "socketErrors" | "errors") =>
    slices.reduce((n, r) => n + r[key], 0);
  return {
    requestsPerSec: seconds > 0 ? requests / seconds : 0,
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...slices.map((r) => r.p99)),
    requests,
    non2xx: sum("non2xx"),
    socketErrors: sum("socketErrors"),
    errors: sum("errors"),
    scriptLines: slices.flatMap((r) => r.scriptLines),
    raw: slices.map((r) => r.raw).join("\n"),
  };
}

/**
 * The bare route and `options` in turns (SLICES runs of each, alternating,
 * after a warm-up of each), so that both see the same moments of a shared
 * machine: one row. `scriptArgsOf(i)` gives each run's script arguments
 * (i = -1 for the warm-up).
 */
async function measure(
  server: ServerProcess,
  key: string,
  label: string,
  options: Omit<WrkOptions, "threads" | "duration">,
  scriptArgsOf?: (slice: number) => string[],
): Promise<Row> {
  await waitIdle(server.pid, 30);
  const bareOptions = {
    url: `${bare.base}/bare`,
    connections: options.connections,
    threads: 2,
  };
  const run = (slice: number, duration: number) =>
    runWrk(wrk, {
      ...options,
      threads: 2,
      duration,
      ...(scriptArgsOf ? { scriptArgs: scriptArgsOf(slice) } : {}),
    });
  await runWrk(wrk, { ...bareOptions, duration: WARMUP });
  await run(-1, WARMUP);
  const bareSlices: WrkResult[] = [];
  const slices: WrkResult[] = [];
  const sliceSeconds = Math.max(1, Math.round(SECONDS / SLICES));
  for (let i = 0; i < SLICES; i++) {
    bareSlices.push(
      await runWrk(wrk, { ...bareOptions, duration: sliceSeconds }),
    );
    slices.push(await run(i, sliceSeconds));
  }
  return recordRow(key, label, combined(slices), combined(bareSlices));
}

/** Adds a row of the table, and logs it. */
function recordRow(
  key: string,
  label: string,
  result: WrkResult,
  bareResult: WrkResult,
): Row {
  const row = { key, label, result, bare: bareResult };
  rows.push(row);
  log(
    `${label}: ${Math.round(result.requestsPerSec)} req/s (bare ${
      Math.round(bareResult.requestsPerSec)
    }, ${
      (result.requestsPerSec / bareResult.requestsPerSec).toFixed(2)
    }), p99 ${result.p99.toFixed(1)} ms, errors ${result.errors}`,
  );
  return row;
}

/** One side of a pair of rows: its server, and how to start another like it. */
interface PairSide {
  server: ServerProcess;
  key: string;
  label: string;
  /** A fresh server like `server`: the same file and settings. */
  again: () => Promise<ServerProcess>;
}

/**
 * Two rows measured in the same turns: the bare route, then `a` and `b`, so
 * that rows compared with each other see the same moments of a shared
 * machine (measured one after the other, minutes apart, they differed by
 * more than what they are compared for). Which of the two goes first
 * alternates every turn, the CPU of their main threads every second turn
 * (placeTurn): over a block of four turns each server runs first and second
 * on either CPU. The first block runs on the servers given, each further
 * one on two fresh servers (`again`, stopped after their block; the given
 * ones wait, idle): two server processes of one code differed by up to 10%
 * for their whole lives (the turns of one run all one way: BENCHMARKS.md),
 * so the blocks are what the two rows are compared over (pairStats).
 */
async function measurePair(
  a: PairSide,
  b: PairSide,
  options: (server: ServerProcess) => Omit<WrkOptions, "threads" | "duration">,
): Promise<[Row, Row]> {
  const bareOptions = {
    url: `${bare.base}/bare`,
    connections: options(a.server).connections,
    threads: 2,
  };
  const run = (server: ServerProcess, duration: number) =>
    runWrk(wrk, { ...options(server), threads: 2, duration });
  const bareSlices: WrkResult[] = [];
  const aSlices: WrkResult[] = [];
  const bSlices: WrkResult[] = [];
  const ratios: number[] = [];
  const blockRatios: number[] = [];
  const sliceSeconds = Math.max(1, Math.round(SECONDS / SLICES));
  for (let block = 0; block < PAIR_BLOCKS; block++) {
    // Every other block the other way round: which server starts, warms up
    // and runs first, and on which CPU the block begins.
    const aLeads = block % 2 === 0;
    const fresh: ServerProcess[] = [];
    let pids: number[] = [];
    try {
      let aServer = a.server;
      let bServer = b.server;
      if (block > 0 && aLeads) {
        aServer = await again(a, fresh);
        bServer = await again(b, fresh);
      } else if (block > 0) {
        bServer = await again(b, fresh);
        aServer = await again(a, fresh);
      }
      pids = [aServer.pid, bServer.pid];
      await waitIdle(aServer.pid, 30);
      await waitIdle(bServer.pid, 30);
      await runWrk(wrk, { ...bareOptions, duration: WARMUP });
      for (const server of aLeads ? [aServer, bServer] : [bServer, aServer]) {
        await run(server, WARMUP);
      }
      const blockStart = ratios.length;
      for (let t = 0; t < PAIR_BLOCK_TURNS; t++) {
        await placeTurn(pids, (Math.floor(t / 2) + block) % 2);
        bareSlices.push(
          await runWrk(wrk, { ...bareOptions, duration: sliceSeconds }),
        );
        // Which goes first alternates: neither always follows the bare route.
        const aFirst = (t % 2 === 0) === aLeads;
        const first = await run(aFirst ? aServer : bServer, sliceSeconds);
        const second = await run(aFirst ? bServer : aServer, sliceSeconds);
        const [aResult, bResult] = aFirst ? [first, second] : [second, first];
        aSlices.push(aResult);
        bSlices.push(bResult);
        ratios.push(bResult.requestsPerSec / aResult.requestsPerSec);
        log(
          `block ${block + 1}, turn ${t + 1}: ${a.key} ${
            Math.round(aResult.requestsPerSec)
          }, ${b.key} ${Math.round(bResult.requestsPerSec)} req/s (${
            pct(ratios[ratios.length - 1] - 1)
          })`,
        );
      }
      blockRatios.push(geometricMean(ratios.slice(blockStart)));
    } finally {
      await placeTurn(pids, null);
      await Promise.allSettled(fresh.map((server) => server.stop()));
    }
  }
  pairStats.set(b.key, { turns: ratios, blocks: blockRatios });
  const bareRow = combined(bareSlices);
  return [
    recordRow(a.key, a.label, combined(aSlices), bareRow),
    recordRow(b.key, b.label, combined(bSlices), bareRow),
  ];
}

/**
 * A fresh server of `side`, noted in `fresh` as soon as it runs, so that it
 * is stopped whatever happens next.
 */
async function again(
  side: PairSide,
  fresh: ServerProcess[],
): Promise<ServerProcess> {
  const server = await side.again();
  fresh.push(server);
  return server;
}

/**
 * Each measured pair's ratios of its second row to its first: turn by turn,
 * and each block's mean.
 */
const pairStats = new Map<string, { turns: number[]; blocks: number[] }>();

/** A copy of the database file at `path` (and its WAL), for a server of its own. */
async function copyOf(path: string, suffix: string): Promise<string> {
  const copy = path.replace(/\.db$/, `-${suffix}.db`);
  await Deno.copyFile(path, copy);
  try {
    await Deno.copyFile(`${path}-wal`, `${copy}-wal`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return copy;
}

const crawlScript = join(ROOT, "tests/bench/crawl_events.lua");

/**
 * What is kept for the file at `path` (lib/events/bodies.ts), read beside
 * the server that has it open: visible events without a kept body, kept
 * bodies no longer valid (a series' date passed: made again at every read
 * until then), and how many variants the bodies are of (one: every server
 * of the run shares its base URL and settings).
 */
async function keptBodies(path: string) {
  const database = await openDatabase(`file:${path}`);
  try {
    const [row] = await database.db.all<
      { missing: number; stale: number; variants: number }
    >(
      sql`select
        (select count(*) from events e where e.is_visible = 1
          and not exists (select 1 from event_bodies b where b.event_id = e.id)) as missing,
        (select count(*) from event_bodies
          where valid_until is not null and valid_until <= unixepoch()) as stale,
        (select count(distinct variant) from event_bodies) as variants`,
    );
    return row;
  } finally {
    database.close();
  }
}

/**
 * A crawler's first pass over every event of a fresh server, each asked for
 * once in order (each answer is made, and kept: lib/events/bodies.ts):
 * measured over its first 2 s, then finished unmeasured, so that the
 * distinct-id row after it measures reads of events read before (the state
 * of a running instance), and this one what a first read costs. Then passes
 * again until every visible event's body is kept: a body waits to be stored
 * after its answer went out and is dropped when too many wait, and a body
 * left to make would be made in the measured turns, by one server and not
 * the other (the row would measure first reads there).
 */
async function firstPass(
  server: ServerProcess,
  label: string,
  events: number,
  path: string,
) {
  const options = {
    url: server.base,
    connections: CONNECTIONS,
    threads: 2,
    script: crawlScript,
  };
  const first = await runWrk(wrk, {
    ...options,
    duration: 2,
    scriptArgs: ["1", String(events), "2"],
  });
  passes.push({ label, result: first });
  log(
    `${label}: first pass ${
      Math.round(first.requestsPerSec)
    } req/s over ${first.requests} events`,
  );
  const left = events - first.requests;
  if (left > 0) {
    await runWrk(wrk, {
      ...options,
      duration: Math.ceil(left / Math.max(1, first.requestsPerSec)) + 1,
      scriptArgs: [String(first.requests + 1), String(events), "2"],
    });
  }
  for (let pass = 2; pass <= 6; pass++) {
    await waitIdle(server.pid, 30);
    const kept = await keptBodies(path);
    log(
      `${label}: ${kept.missing} visible events without a kept body, ${kept.stale} no longer valid, ${kept.variants} variant(s)`,
    );
    if (kept.missing === 0 && kept.variants <= 1) return;
    await runWrk(wrk, {
      ...options,
      duration: Math.ceil(events / Math.max(1, first.requestsPerSec)) + 1,
      scriptArgs: ["1", String(events), "2"],
    });
  }
  throw new Error(`${label}: bodies still missing after 6 passes`);
}

/** Writes the machine's dirty pages out, so no load waits on what the last wrote. */
async function syncDisks() {
  try {
    await new Deno.Command("sync", { stdout: "null", stderr: "null" })
      .output();
  } catch { /* no sync: the kernel writes them out in its own time */ }
}

const serverEnv = (path: string, extra: Record<string, string> = {}) => ({
  // One base URL for every server of the run, whatever its port: the kept
  // bodies name it (bodyVariant), and a server of a block after the first,
  // on another port, would otherwise make every body again.
  BASE_URL: "http://quando.bench.test",
  DATABASE_URL: `file:${path}`,
  LOG_LEVEL: "warning",
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  ...extra,
});

const distinctScript = join(ROOT, "tests/bench/distinct_events.lua");
const writeScript = join(ROOT, "tests/bench/post_realistic.lua");

try {
  const large = await seeded(LARGE);
  const small = await seeded(SMALL);

  // Rows compared with each other run on fresh servers (what an earlier
  // load left in a server's heap would weigh on one side only), in the same
  // turns: the tag listing at both sizes.
  {
    const startSmall = () => startServer(serverEnv(small.path));
    const startLarge = () => startServer(serverEnv(large.path));
    const smallServer = await startSmall();
    const largeServer = await startLarge();
    try {
      await measurePair(
        {
          server: smallServer,
          key: "tag-small",
          label: "tag listing, 1,000 events",
          again: startSmall,
        },
        {
          server: largeServer,
          key: "tag-large",
          label: "tag listing, 20,000 events",
          again: startLarge,
        },
        (target) => ({
          url: `${target.base}/api/events/tag/${HOT_TAG}`,
          connections: CONNECTIONS,
        }),
      );
    } finally {
      await smallServer.stop();
      await largeServer.stop();
    }
  }

  // The reads with the public-read cache off, what every miss costs, on a
  // server of their own over a copy of the file (its kept answers are its
  // own), idle until it is measured in the same turns as the default cache.
  const offPath = await copyOf(large.path, "off");
  const startOff = () =>
    startServer(serverEnv(offPath, { PUBLIC_CACHE_MS: "0" }));
  // MEASURE_CONTROL=1: this server's cache off too, so that the distinct-id
  // pair compares two identical servers (what the bench's noise alone makes
  // of them); the rows after it are then not the product's.
  const startDefault = () =>
    startServer(
      serverEnv(large.path, CONTROL ? { PUBLIC_CACHE_MS: "0" } : {}),
    );
  const off = await startOff();
  const server = await startDefault();
  const sampler = sampleRss(server.pid);
  // The same reads of the other side's status, whatever they cost it.
  const offSampler = sampleRss(off.pid);
  try {
    await firstPass(off, "cache off", large.seed.events, offPath);
    await firstPass(server, "default cache", large.seed.events, large.path);
    await syncDisks();
    try {
      await measurePair(
        {
          server: off,
          key: "distinct-off",
          label: "event by id, distinct ids, `PUBLIC_CACHE_MS=0`",
          again: startOff,
        },
        {
          server,
          key: "distinct",
          label: "event by id, distinct ids, default cache",
          again: startDefault,
        },
        (target) => ({
          url: target.base,
          connections: CONNECTIONS,
          script: distinctScript,
          scriptArgs: [String(large.seed.events)],
        }),
      );
    } finally {
      offSampler.stop();
      await off.stop();
    }
    // After the distinct-id rows: the two servers they compare have done
    // the same before them (a first pass), and nothing else.
    await measure(server, "404", "404 on an unknown path", {
      url: `${server.base}/nope`,
      connections: CONNECTIONS,
    });
    await measure(server, "hit", "event by id, same id (cache hit)", {
      url: `${server.base}/api/events/${large.seed.sampleEventId}`,
      connections: CONNECTIONS,
    });
    const login = await fetch(`${server.base}/api/login/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    const { access_token: token } = await login.json();
    if (!token) throw new Error(`login failed: ${login.status}`);
    const first = String(Math.floor(Date.now() / 1000) + 86_400);
    const writes = await measure(
      server,
      "writes",
      "event writes, realistic body, 16 clients",
      {
        url: server.base,
        connections: WRITE_CLIENTS,
        script: writeScript,
      },
      (slice) => [token, slice < 0 ? "w" : `m${slice}`, first],
    );
    const byStatus = new Map<string, number>();
    for (const line of writes.result.scriptLines) {
      const m = /^BENCH status (\d+) (\d+)$/.exec(line);
      if (m) byStatus.set(m[1], (byStatus.get(m[1]) ?? 0) + Number(m[2]));
    }
    const statuses = [...byStatus].map(([status, n]) => `${n} x ${status}`);
    await waitIdle(server.pid, 30);
    const after = readRss(server.pid);
    rssAfter = after?.rss ?? 0;
    rssAnon = after?.anon ?? 0;
    rssFile = after?.file ?? 0;
    rssPeak = sampler.stop().peak;
    // Every 201 is one event; at most one more per client and run (in
    // flight when wrk stopped).
    const database = await openDatabase(`file:${large.path}`);
    const [{ n: created }] = await database.db.all<{ n: number }>(
      sql`select count(*) as n from events where title glob 'Courtyard concert m[0-9]* *'`,
    );
    database.close();
    const ok = writes.result.scriptLines.reduce(
      (n, line) => n + Number(/^BENCH status 201 (\d+)$/.exec(line)?.[1] ?? 0),
      0,
    );
    const sound = created >= ok && created - ok <= WRITE_CLIENTS * SLICES;
    writes.sound = sound;
    writeCheck = `${
      statuses.join(", ")
    }; ${created} events created for ${ok} 201s${
      sound ? ", none lost or doubled" : " (MISMATCH)"
    }`;
  } finally {
    await server.stop();
  }
} finally {
  await bare.stop();
  await Deno.remove(dir, { recursive: true });
}

// ------------------------------------------------------------------ report

const byKey = (key: string) => rows.find((r) => r.key === key);
const ratioOf = (row: Row | undefined) =>
  row ? row.result.requestsPerSec / row.bare.requestsPerSec : NaN;
const fmt = (n: number, digits = 2) =>
  Number.isFinite(n) ? n.toFixed(digits) : "n/a";
const rps = (n: number) => Math.round(n).toLocaleString("en");

interface Target {
  measure: string;
  figure: string;
  target: string;
  met: boolean;
}
const targets: Target[] = [];
const writes = byKey("writes");
if (writes) {
  targets.push({
    measure: writes.label,
    figure: `${rps(writes.result.requestsPerSec)}/s, p99 ${
      fmt(writes.result.p99, 1)
    } ms, ${writes.result.errors} errors (${writeCheck})`,
    target: "≥ 400/s",
    met: writes.result.requestsPerSec >= 400 && writes.result.errors === 0 &&
      writes.sound === true,
  });
}
const ratioTarget = (key: string, min: number) => {
  const row = byKey(key);
  if (!row) return;
  const ratio = ratioOf(row);
  targets.push({
    measure: row.label,
    figure: `${rps(row.result.requestsPerSec)} req/s, ${
      fmt(ratio)
    } of the bare route${
      key === "distinct-off" ? `, p99 ${fmt(row.result.p99, 1)} ms` : ""
    }`,
    target: `≥ ${min} of the bare route`,
    met: ratio >= min,
  });
};
ratioTarget("hit", 0.45);
ratioTarget("404", 0.55);
ratioTarget("distinct-off", 0.2);
const distinct = byKey("distinct");
const distinctOff = byKey("distinct-off");
const distinctStats = pairStats.get("distinct");
if (distinct && distinctOff && distinctStats) {
  // Two servers of one code answer the same load alike only within how much
  // two server processes differ: what is judged is whether the blocks (each
  // on its own pair of processes) show the default cache below the cache
  // off (one-sided 95%), not which of two equal figures came out ahead this
  // time (either, as often; BENCHMARKS.md).
  const byBlock = pairedDifference(distinctStats.blocks);
  const byTurn = pairedDifference(distinctStats.turns);
  targets.push({
    measure: distinct.label,
    figure: `${rps(distinct.result.requestsPerSec)} req/s, ${
      fmt(ratioOf(distinct))
    } of the bare route (cache off: ${
      fmt(ratioOf(distinctOff))
    }); against the cache off, by block (pair of servers): ${
      distinctStats.blocks.map((r) => pct(r - 1)).join(", ")
    }, geometric mean ${pct(byBlock.mean)}, at most ${
      pct(byBlock.highest)
    } (95%; a mean cost beyond ${
      pct(byBlock.detectable)
    } would show below in this run); by turn ${pct(byTurn.mean)} ± ${
      (byTurn.se * 100).toFixed(1)
    }% (standard error, ${byTurn.n} turns)`,
    target:
      "not below the cache-off figure (the blocks do not show it below, 95%)",
    met: byBlock.highest >= 0,
  });
}
const tagSmall = byKey("tag-small");
const tagLarge = byKey("tag-large");
if (tagSmall && tagLarge) {
  const flat = ratioOf(tagLarge) / ratioOf(tagSmall);
  targets.push({
    measure: "tag listing 1k → 20k events",
    figure: `${rps(tagSmall.result.requestsPerSec)} → ${
      rps(tagLarge.result.requestsPerSec)
    } req/s; of the bare route ${fmt(ratioOf(tagSmall))} → ${
      fmt(ratioOf(tagLarge))
    }: ${fmt(flat)} kept`,
    target: "≥ 0.9 kept",
    met: flat >= 0.9,
  });
}
if (rssAfter > 0) {
  targets.push({
    measure: "RSS at 20k events after the load",
    figure: `${fmt(rssAfter / MB, 0)} MB: ${fmt(rssAnon / MB, 0)} anonymous, ${
      fmt(rssFile / MB, 0)
    } file-backed (peak during the load ${fmt(rssPeak / MB, 0)} MB)`,
    target: "< 200 MB",
    met: rssAfter < 200 * MB,
  });
}

const lines = [
  `Run of ${new Date().toISOString()} (${
    ((performance.now() - started) / 60_000).toFixed(1)
  } min), \`deno task bench\`: wrk -t2, ${CONNECTIONS} connections (${WRITE_CLIENTS} for the writes), ` +
  `${WARMUP} s warm-up each, then ${SLICES} turns of ${
    Math.max(1, Math.round(SECONDS / SLICES))
  } s of the bare route and of the measured load (so both see the same moments of the shared machine); ` +
  "p50 is the median of the turns', p99 the worst. The ids of the distinct-id rows are random among all 20,000, " +
  "the few of hidden events (about 2%) answer 404, counted as non-2xx. " +
  "Rows compared with each other are measured as a pair, in the same turns (bare route, one, the other), " +
  `in ${PAIR_BLOCKS} blocks of ${PAIR_BLOCK_TURNS} turns, each block after the first on two fresh servers ` +
  `(${WARMUP} s warm-up each; every other block starts, warms up and runs the other first): their order alternates every turn${
    PLACED
      ? ", and the CPU their servers' main threads are held to every second turn (the bare route is left to the scheduler)" +
        (placeFailures > 0 ? `; ${placeFailures} of those holds failed` : "")
      : ""
  }. ` +
  "The tag listing at both sizes runs on fresh servers. The two distinct-id rows run " +
  "on servers over copies of one file: the cache off " +
  "on servers of its own; the default cache's first block on the server the 404, the cache hit and the writes then run " +
  "on (the first block's two servers have done the same before: the crawl below, and nothing else), whose RSS is read " +
  "after them all. " +
  "Before each distinct-id row, a crawl asks for every event once, in order (a first read makes the " +
  "answer and keeps it, lib/events/bodies.ts); the distinct-id rows then measure reads of events read " +
  "before, as on a running instance. What a first read costs is the crawl's first 2 s: " +
  passes.map((p) =>
    `${rps(p.result.requestsPerSec)} req/s with the ${p.label} (p99 ${
      fmt(p.result.p99, 1)
    } ms)`
  ).join(", ") + ".",
  "",
  "| measure | req/s | p50 | p99 | non-2xx | socket errors | bare route req/s | ratio to the bare route |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((r) =>
    `| ${r.label} | ${rps(r.result.requestsPerSec)} | ${
      fmt(r.result.p50)
    } ms | ${
      fmt(r.result.p99)
    } ms | ${r.result.non2xx} | ${r.result.socketErrors} | ${
      rps(r.bare.requestsPerSec)
    } | ${fmt(ratioOf(r))} |`
  ),
  "",
  "| measure | figure | target | met |",
  "| --- | --- | --- | --- |",
  ...targets.map((t) =>
    `| ${t.measure} | ${t.figure} | ${t.target} | ${
      t.met ? "met" : "NOT MET"
    } |`
  ),
  "",
];
const text = lines.join("\n");
console.log(text);

const BEGIN = "<!-- measures:begin (generated by deno task bench) -->";
const END = "<!-- measures:end -->";
if (WRITE) {
  const path = join(ROOT, "BENCHMARKS.md");
  const current = await Deno.readTextFile(path);
  const a = current.indexOf(BEGIN);
  const b = current.indexOf(END);
  if (a < 0 || b < a) throw new Error("BENCHMARKS.md has no measures markers");
  await Deno.writeTextFile(
    path,
    current.slice(0, a) + `${BEGIN}\n\n${text}\n${END}` +
      current.slice(b + END.length),
  );
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", path],
    cwd: ROOT,
  }).output();
  log("written to BENCHMARKS.md");
}
