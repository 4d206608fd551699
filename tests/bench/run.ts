/**
 * `deno task bench`: throughput, latency and memory of the real server at two
 * database sizes, the write path's integrity, and the federation fan-out.
 * Prints figures and writes them to BENCHMARKS.md; it is never a timed test.
 *
 * Environment (all optional):
 *   BENCH_DURATION     seconds of load per endpoint (default 10)
 *   BENCH_WARMUP       seconds of warm-up before each (default 3)
 *   BENCH_SIZES        event counts, comma-separated (default 1000,100000)
 *   BENCH_CONNECTIONS  wrk connections for reads (default 32)
 *   BENCH_POST_CONNECTIONS  wrk connections for POST /api/events (default 16)
 *   BENCH_ENDPOINTS    only these endpoint keys (comma-separated; default all)
 *   BENCH_FANOUT       0 to skip the fan-out part
 *   BENCH_FANOUT_ORIGINS  receiver origins per fan-out run (default 1,1000)
 *   BENCH_WRITE        0 to leave BENCHMARKS.md alone
 *   BENCH_KEEP         1 to keep the temporary databases
 *   BENCH_CPU_PROF     a folder: run the server with --cpu-prof into
 *                      <folder>/<events|fanout-N> (summarise the profiles
 *                      with tests/bench/cpuprof.ts)
 *
 * Diagnosis helpers: tests/bench/trace.ts (the SQL of one request, with
 * timings and query plans) and tests/bench/cpuprof.ts (a CPU profile's hot spots).
 */
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { createDatabase, HOT_TAG, seedEvents, seedFollowers } from "./seed.ts";
import type { SeedResult } from "./seed.ts";
import { ensureWrk, runWrk, wrkArgs, type WrkOptions } from "./wrk.ts";
import type { WrkResult } from "./wrk.ts";
import {
  readRss,
  ROOT,
  sampleRss,
  type ServerProcess,
  startServer,
  waitIdle,
} from "./server.ts";
import { startReceiver } from "./receiver.ts";

// ------------------------------------------------------------------ settings

const env = (name: string, fallback: string) => Deno.env.get(name) ?? fallback;
const seconds = (name: string, fallback: number) => {
  const v = Number(env(name, String(fallback)).replace(/s$/, ""));
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be seconds`);
  return v;
};
const DURATION = seconds("BENCH_DURATION", 10);
const WARMUP = seconds("BENCH_WARMUP", 3);
const SIZES = env("BENCH_SIZES", "1000,100000").split(",").map((s) =>
  Number(s.trim())
).filter((n) => n > 0);
const CONNECTIONS = Number(env("BENCH_CONNECTIONS", "32"));
const POST_CONNECTIONS = Number(env("BENCH_POST_CONNECTIONS", "16"));
const THREADS = 2;
const ONLY = Deno.env.get("BENCH_ENDPOINTS")?.split(",").map((s) => s.trim());
const FANOUT = env("BENCH_FANOUT", "1") !== "0";
const WRITE = env("BENCH_WRITE", "1") !== "0";
const KEEP = env("BENCH_KEEP", "0") === "1";
const CPU_PROF = Deno.env.get("BENCH_CPU_PROF");
/** Flags that make the server write a CPU profile into BENCH_CPU_PROF/<label>. */
const profFlags = (label: string) =>
  CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${join(CPU_PROF, label)}`] : [];
/** Receiver origins of each fan-out run: as specified (1), then one per inbox. */
const FANOUT_ORIGINS = env("BENCH_FANOUT_ORIGINS", "1,1000").split(",").map(
  (s) => Number(s.trim()),
);
const FOLLOWERS = 10_000;
const SHARED_INBOXES = 1_000;
const ADMIN_EMAIL = "bench-admin@bench.invalid";
const ADMIN_PASSWORD = "bench-admin-password";
const LUA = join(ROOT, "tests/bench/post_event.lua");
const PREFLIGHT_LUA = join(ROOT, "tests/bench/preflight.lua");

const log = (line: string) => console.log(line);

// ------------------------------------------------------------------ endpoints

interface Endpoint {
  key: string;
  label: string;
  /** Path (with query) built from the seed. */
  path: (seed: SeedResult) => string;
  post?: boolean;
  /** A wrk Lua script for the request (not for POST, which has its own). */
  script?: string;
  /** Measured on a second server started with PUBLIC_CACHE_MS=0. */
  cacheOff?: boolean;
}

const ALL_ENDPOINTS: Endpoint[] = [
  {
    key: "floor",
    label: "OPTIONS /api/events (CORS preflight, no database)",
    path: () => "/api/events",
    script: PREFLIGHT_LUA,
  },
  {
    key: "baseline",
    label: "GET /api/health (baseline)",
    path: () => "/api/health",
  },
  {
    key: "wellknown",
    label: "GET /.well-known/oauth-authorization-server",
    path: () => "/.well-known/oauth-authorization-server",
  },
  {
    key: "event",
    label: "GET /api/events/{id}",
    path: (s) => `/api/events/${s.sampleEventId}`,
  },
  {
    key: "tag",
    label: "GET /api/events/tag/{tag}",
    path: () => `/api/events/tag/${HOT_TAG}`,
  },
  {
    key: "search",
    label: "GET /api/events?start&max=50",
    path: (s) => `/api/events?start=${s.now}&max=50`,
  },
  { key: "ics", label: "GET /feed/ics", path: () => "/feed/ics" },
  // The same reads with the public-read cache off: what every miss costs.
  {
    key: "event-nocache",
    label: "GET /api/events/{id} (cache off)",
    path: (s) => `/api/events/${s.sampleEventId}`,
    cacheOff: true,
  },
  {
    key: "tag-nocache",
    label: "GET /api/events/tag/{tag} (cache off)",
    path: () => `/api/events/tag/${HOT_TAG}`,
    cacheOff: true,
  },
  {
    key: "search-nocache",
    label: "GET /api/events?start&max=50 (cache off)",
    path: (s) => `/api/events?start=${s.now}&max=50`,
    cacheOff: true,
  },
  {
    key: "ics-nocache",
    label: "GET /feed/ics (cache off)",
    path: () => "/feed/ics",
    cacheOff: true,
  },
  {
    key: "post",
    label: "POST /api/events",
    path: () => "/api/events",
    post: true,
  },
];
const ENDPOINTS = ALL_ENDPOINTS.filter((e) => !ONLY || ONLY.includes(e.key));

interface Measure {
  endpoint: Endpoint;
  size: number;
  wrk: WrkResult;
  peakRss: number;
  /** Anonymous and file-backed RSS of the peak sample. */
  peakAnon: number;
  peakFile: number;
  /** Median of 5 requests sent one at a time before the load (ms). */
  single: number;
  bytes: number;
  command: string;
  post?: PostCheck;
}

interface PostCheck {
  statuses: Record<string, number>;
  acknowledged: number;
  unparsed: number;
  rows: number;
  lost: number;
  duplicated: number;
  /** Rows of requests cut off when wrk stopped (no answer read). */
  unacknowledgedRows: number;
}

interface SizeRun {
  size: number;
  seed: SeedResult;
  startupSeconds: number;
  idleRss: number;
  measures: Measure[];
  serverCommand: string;
  /** The second server's command, when endpoints with the cache off ran. */
  cacheOffCommand?: string;
}

// ------------------------------------------------------------------ helpers

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/api/login/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`login: ${JSON.stringify(body)}`);
  return body.access_token;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const ms = (v: number) =>
  v === Infinity
    ? `> ${DURATION} s`
    : !Number.isFinite(v)
    ? "n/a"
    : v >= 1000
    ? `${(v / 1000).toFixed(2)} s`
    : `${v.toFixed(v < 10 ? 2 : 1)} ms`;
/** Errors as counted by wrk, or "no answer" when not one request completed. */
const errorsOf = (w: WrkResult) =>
  w.requests === 0 ? "no answer" : String(w.errors);
const rps = (v: number) => v.toFixed(0);
const ratio = (a: number, b: number) => b > 0 ? (a / b).toFixed(2) : "n/a";
const sizeLabel = (n: number) => n >= 1000 ? `${n / 1000}k` : String(n);

async function sh(cmd: string): Promise<string> {
  try {
    const out = await new Deno.Command("sh", { args: ["-c", cmd] }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } catch {
    return "";
  }
}

/** One endpoint: five timed single requests (checked), a warm-up, then the measured run with RSS sampling. */
async function measure(
  wrk: string,
  server: ServerProcess,
  endpoint: Endpoint,
  run: SizeRun,
  token: string,
  tmp: string,
): Promise<Measure> {
  const url = server.base + endpoint.path(run.seed);
  const waited = await waitIdle(server.pid);
  if (waited > 2) {
    log(`  (waited ${waited.toFixed(0)} s for the server to go idle)`);
  }
  const init = (i: number): RequestInit =>
    endpoint.post
      ? {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          title: `Bench probe ${run.size} ${i}`,
          place_name: "Bench Hall",
          place_address: "1 Load Street",
          start_datetime: run.seed.now + 86_400 + i * 60,
          tags: ["bench-post"],
        }),
      }
      : endpoint.script
      ? {
        method: "OPTIONS",
        headers: {
          origin: "https://client.example",
          "access-control-request-method": "GET",
        },
      }
      : {};
  // Five requests one at a time: the latency without queueing.
  const singles: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await fetch(url, init(i));
    const body = new Uint8Array(await res.arrayBuffer());
    singles.push(performance.now() - t0);
    bytes = body.length;
    if (!res.ok) {
      throw new Error(
        `${endpoint.label}: ${res.status} ${new TextDecoder().decode(body)}`,
      );
    }
    if (endpoint.key === "tag" && i === 0) {
      const lists = JSON.parse(new TextDecoder().decode(body));
      log(
        `  tag listing: ${lists.events.length} upcoming, ${lists.pastEvents.length} past (of ${run.seed.hotPast})`,
      );
    }
  }
  const single = singles.sort((a, b) => a - b)[2];
  const options = (duration: number, runTag: string): WrkOptions => ({
    url,
    threads: THREADS,
    connections: endpoint.post ? POST_CONNECTIONS : CONNECTIONS,
    duration,
    ...(endpoint.post
      ? {
        script: LUA,
        scriptArgs: [token, runTag, String(run.seed.now + 86_400), tmp],
      }
      : endpoint.script
      ? { script: endpoint.script }
      : {}),
  });
  await runWrk(wrk, options(WARMUP, `w${run.size}`));
  const sampler = sampleRss(server.pid);
  const mainTag = `m${run.size}`;
  const result = await runWrk(wrk, options(DURATION, mainTag));
  const { peak, anon, file } = sampler.stop();
  const shown = wrkArgs(options(DURATION, mainTag)).map((a) =>
    a === token ? "$TOKEN" : a.startsWith(tmp) ? "$ACK_DIR" : a
  ).map((a) =>
    /[\s{}?&$]/.test(a) && a !== "$TOKEN" && a !== "$ACK_DIR" ? `'${a}'` : a
  );
  const m: Measure = {
    endpoint,
    size: run.size,
    wrk: result,
    peakRss: peak,
    peakAnon: anon,
    peakFile: file,
    single,
    bytes,
    command: `wrk ${shown.join(" ")}`,
  };
  log(
    `  ${endpoint.label.padEnd(52)} ${
      rps(result.requestsPerSec).padStart(6)
    } req/s  p50 ${ms(result.p50)}  p99 ${ms(result.p99)}  errors ${
      errorsOf(result)
    }  peak RSS ${mb(peak)} (anon ${mb(anon)})  one request ${ms(single)}  ${
      (bytes / 1024).toFixed(1)
    } KiB`,
  );
  return m;
}

/** Matches the answers wrk read to rows: one row per 2xx title, none twice. */
async function checkPosts(
  dbPath: string,
  runTag: string,
  ackDir: string,
  wrk: WrkResult,
): Promise<PostCheck> {
  const titles: string[] = [];
  for await (const entry of Deno.readDir(ackDir)) {
    if (!entry.name.startsWith(`ack-${runTag}-`)) continue;
    const text = await Deno.readTextFile(join(ackDir, entry.name));
    titles.push(...text.split("\n").filter(Boolean));
  }
  const statuses: Record<string, number> = {};
  for (const line of wrk.scriptLines) {
    const m = /^BENCH status (\d+) (\d+)$/.exec(line);
    if (m) statuses[m[1]] = Number(m[2]);
  }
  const database = await openDatabase(`file:${dbPath}`);
  try {
    const rows = await database.db.all<{ title: string; n: number }>(
      sql`select title, count(*) as n from events where title like ${`Bench post ${runTag} %`} group by title`,
    );
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(String(r.title), Number(r.n));
    const acked = new Set(titles.filter((t) => t !== "?"));
    let lost = 0;
    for (const t of acked) if (!counts.has(t)) lost++;
    let duplicated = 0;
    let total = 0;
    let unacknowledgedRows = 0;
    for (const [t, n] of counts) {
      total += n;
      if (n > 1) duplicated += n - 1;
      if (!acked.has(t)) unacknowledgedRows += n;
    }
    return {
      statuses,
      acknowledged: titles.length,
      unparsed: titles.filter((t) => t === "?").length,
      rows: total,
      lost,
      duplicated: duplicated + (titles.length - acked.size),
      unacknowledgedRows,
    };
  } finally {
    database.close();
  }
}

// ------------------------------------------------------------------ sizes

async function benchSize(wrk: string, size: number): Promise<SizeRun> {
  const tmp = await Deno.makeTempDir({ prefix: `quando-bench-${size}-` });
  const dbPath = join(tmp, "bench.db");
  log(`\n== ${size} events (${tmp})`);
  const database = await createDatabase(dbPath);
  const seed = await seedEvents(database, size);
  database.close();
  log(
    `  seeded in ${
      seed.seconds.toFixed(1)
    } s: ${seed.events} events (${seed.series} series, ${seed.occurrences} occurrences, ` +
      `${seed.hotPast} past + 50 upcoming on "${HOT_TAG}"), ${seed.places} places, ${seed.tags} tags, ` +
      `${seed.eventTags} event tags, ${seed.resources} resources, ${seed.apUsers} remote actors`,
  );
  const serverEnv = {
    DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: "warning",
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
  };
  /** Runs `endpoints` against one server; returns its command. */
  const against = async (
    server: ServerProcess,
    endpoints: Endpoint[],
  ): Promise<Measure | undefined> => {
    let post: Measure | undefined;
    try {
      const token = await login(server.base);
      for (const endpoint of endpoints) {
        const m = await measure(wrk, server, endpoint, run, token, tmp);
        run.measures.push(m);
        if (endpoint.post) post = m;
      }
    } finally {
      await server.stop();
      const out = server.output().trim();
      if (out) {
        log(
          `  server output (last lines):\n${
            out.split("\n").slice(-10).map((l) => `    ${l}`).join("\n")
          }`,
        );
      }
    }
    return post;
  };
  const t0 = performance.now();
  const server = await startServer(serverEnv, profFlags(String(size)));
  const run: SizeRun = {
    size,
    seed,
    startupSeconds: (performance.now() - t0) / 1000,
    idleRss: readRss(server.pid)?.rss ?? 0,
    measures: [],
    serverCommand: server.command,
  };
  log(
    `  server up in ${
      run.startupSeconds.toFixed(1)
    } s (pid ${server.pid}, RSS ${mb(run.idleRss)})`,
  );
  // Three servers on the same file, one after the other: the reads, the reads
  // with the public-read cache off, then the writes (which add rows), so every
  // read sees the seeded data.
  await against(server, ENDPOINTS.filter((e) => !e.cacheOff && !e.post));
  const uncached = ENDPOINTS.filter((e) => e.cacheOff);
  if (uncached.length) {
    const second = await startServer(
      { ...serverEnv, PUBLIC_CACHE_MS: "0" },
      profFlags(`${size}-nocache`),
    );
    run.cacheOffCommand = second.command;
    log(`  server with PUBLIC_CACHE_MS=0 (pid ${second.pid})`);
    await against(second, uncached);
  }
  let post: Measure | undefined;
  const writes = ENDPOINTS.filter((e) => e.post);
  if (writes.length) {
    const third = await startServer(serverEnv, profFlags(`${size}-post`));
    log(`  server for the writes (pid ${third.pid})`);
    post = await against(third, writes);
  }
  if (post) {
    post.post = await checkPosts(dbPath, `m${size}`, tmp, post.wrk);
    const p = post.post;
    log(
      `  POST check: ${p.acknowledged} answers 2xx, ${p.rows} rows, lost ${p.lost}, duplicated ${p.duplicated}, ` +
        `rows of requests cut off at the end ${p.unacknowledgedRows}, statuses ${
          JSON.stringify(p.statuses)
        }`,
    );
  }
  if (!KEEP) await Deno.remove(tmp, { recursive: true });
  return run;
}

// ------------------------------------------------------------------ fan-out

interface FanoutResult {
  /** Receiver origins (ports) the shared inboxes are spread over. */
  origins: number;
  followers: number;
  inboxes: number;
  enqueueMs: number;
  firstDeliveryMs: number;
  allReceivedMs: number | null;
  inboxesServed: number;
  deliveries: number;
  duplicates: number;
  stray: number;
  /** Inboxes served per second, from the POST to the last delivery. */
  deliveriesPerSec: number;
  /** Per second between the first and the last delivery. */
  deliveryPhasePerSec: number;
  peakRss: number;
  queueLeft: number;
  rsaBits: number;
  serverCommand: string;
}

/** Modulus length of a base64url RSA `n`. */
function rsaBitsOf(n: string): number {
  const bytes = atob(n.replace(/-/g, "+").replace(/_/g, "/"));
  let lead = 0;
  while (lead < bytes.length && bytes.charCodeAt(lead) === 0) lead++;
  return (bytes.length - lead) * 8;
}

/**
 * Publishes one event to FOLLOWERS followers spread over SHARED_INBOXES shared
 * inboxes of a counting receiver listening on `origins` loopback ports.
 */
async function benchFanout(origins: number): Promise<FanoutResult> {
  const tmp = await Deno.makeTempDir({ prefix: "quando-bench-fanout-" });
  const dbPath = join(tmp, "bench.db");
  log(
    `\n== fan-out: ${FOLLOWERS} followers over ${SHARED_INBOXES} shared inboxes on ${origins} origin(s)`,
  );
  const receiver = startReceiver(origins);
  const database = await createDatabase(dbPath);
  const seeded = await seedFollowers(
    database,
    receiver.inboxUrl,
    FOLLOWERS,
    SHARED_INBOXES,
  );
  database.close();
  log(
    `  followers seeded in ${seeded.seconds.toFixed(1)} s; receiver at ${
      receiver.bases.length === 1
        ? receiver.base
        : `${receiver.base} and ${receiver.bases.length - 1} more ports`
    }`,
  );
  const server = await startServer({
    DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: "warning",
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    ALLOW_PRIVATE_ADDRESSES: "true",
  }, profFlags(`fanout-${origins}`));
  let result: FanoutResult;
  try {
    const token = await login(server.base);
    await waitIdle(server.pid);
    const sampler = sampleRss(server.pid);
    const start = Math.floor(Date.now() / 1000) + 7 * 86_400;
    const t0 = performance.now();
    const res = await fetch(`${server.base}/api/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        title: "Fan-out benchmark event",
        description: "<p>One event to ten thousand followers.</p>",
        place_name: "Bench Hall",
        place_address: "1 Load Street",
        start_datetime: start,
        end_datetime: start + 7200,
        tags: ["bench", "fanout"],
      }),
    });
    const t1 = performance.now();
    const created = await res.json();
    if (res.status !== 201) throw new Error(`POST: ${JSON.stringify(created)}`);
    const prefix = `${server.base}/federation/m/${created.id}#create-`;
    const all = await receiver.whenAllReceived(prefix, SHARED_INBOXES, 600_000);
    const t2 = performance.now();
    // Late duplicates would show up here.
    await new Promise((r) => setTimeout(r, 3000));
    const { peak } = sampler.stop();
    let deliveries = 0;
    let duplicates = 0;
    const served = new Set<number>();
    for (const [key, n] of receiver.perDelivery) {
      const [inbox, id] = key.split(" ");
      if (!id.startsWith(prefix)) continue;
      served.add(Number(inbox));
      deliveries += n;
      duplicates += n - 1;
    }
    const allMs = all ? t2 - t0 : null;
    const first = (receiver.first ?? NaN) - t0;
    const last = (receiver.last ?? NaN) - t0;
    result = {
      origins,
      followers: FOLLOWERS,
      inboxes: SHARED_INBOXES,
      enqueueMs: t1 - t0,
      firstDeliveryMs: first,
      allReceivedMs: allMs,
      inboxesServed: served.size,
      deliveries,
      duplicates,
      stray: receiver.stray,
      deliveriesPerSec: served.size / ((allMs ?? (t2 - t0)) / 1000),
      deliveryPhasePerSec: (served.size - 1) / ((last - first) / 1000),
      peakRss: peak,
      queueLeft: -1,
      rsaBits: 0,
      serverCommand: server.command,
    };
  } finally {
    await server.stop();
    await receiver.close();
  }
  const check = await openDatabase(`file:${dbPath}`);
  try {
    const [q] = await check.db.all<{ n: number }>(
      sql`select count(*) as n from fedify_queue`,
    );
    result.queueLeft = Number(q.n);
    const [k] = await check.db.all<{ value: string }>(
      sql`select value from settings where key = 'internal:federation_keys'`,
    );
    const n = JSON.parse(String(k?.value ?? "{}"))?.rsa?.publicKey?.n;
    if (typeof n === "string") result.rsaBits = rsaBitsOf(n);
  } finally {
    check.close();
  }
  if (!KEEP) await Deno.remove(tmp, { recursive: true });
  log(
    `  POST (enqueue) ${result.enqueueMs.toFixed(0)} ms; first delivery after ${
      result.firstDeliveryMs.toFixed(0)
    } ms; all ${result.inboxesServed}/${SHARED_INBOXES} inboxes after ${
      result.allReceivedMs === null
        ? "TIMEOUT"
        : `${(result.allReceivedMs / 1000).toFixed(1)} s`
    }; ${result.deliveriesPerSec.toFixed(0)} deliveries/s (${
      result.deliveryPhasePerSec.toFixed(0)
    }/s between first and last); duplicates ${result.duplicates}; stray requests ${result.stray}; ` +
      `queue rows left ${result.queueLeft}; peak RSS ${
        mb(result.peakRss)
      }; actor key RSA-${result.rsaBits}`,
  );
  return result;
}

interface SignTiming {
  bits: number;
  n: number;
  meanMs: number;
  perSec: number;
}

/** crypto.subtle RSASSA-PKCS1-v1_5 SHA-256 signatures of a 1 KiB payload. */
async function signTimings(n = 200): Promise<SignTiming[]> {
  const payload = new TextEncoder().encode("x".repeat(1024));
  const out: SignTiming[] = [];
  for (const bits of [2048, 4096]) {
    const { privateKey } = await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: bits,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      false,
      ["sign", "verify"],
    ) as CryptoKeyPair;
    for (let i = 0; i < 10; i++) {
      await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, payload);
    }
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, payload);
    }
    const meanMs = (performance.now() - t0) / n;
    out.push({ bits, n, meanMs, perSec: 1000 / meanMs });
  }
  log(
    `\n== RSA signing (1 KiB, N=${n}): ` +
      out.map((s) =>
        `RSA-${s.bits} ${s.meanMs.toFixed(2)} ms (${s.perSec.toFixed(0)}/s)`
      ).join(", ") +
      `; 4096/2048 = ${(out[1].meanMs / out[0].meanMs).toFixed(1)}x`,
  );
  return out;
}

// ------------------------------------------------------------------ report

interface Target {
  name: string;
  pass: boolean;
  detail: string;
}

function find(runs: SizeRun[], key: string, size: number): Measure | undefined {
  return runs.find((r) => r.size === size)?.measures.find((m) =>
    m.endpoint.key === key
  );
}

function table(runs: SizeRun[]): string {
  const sizes = runs.map((r) => r.size);
  const small = Math.min(...sizes);
  const lines = [
    `| endpoint | events | req/s | p50 | p99 | errors | peak RSS (anon) | / baseline | ${
      sizes.length > 1
        ? `${sizeLabel(Math.max(...sizes))} / ${sizeLabel(small)}`
        : "-"
    } | one request | body |`,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const endpoint of ENDPOINTS) {
    for (const run of runs) {
      const m = find(runs, endpoint.key, run.size);
      if (!m) continue;
      const base = find(runs, "baseline", run.size);
      const smallM = find(runs, endpoint.key, small);
      lines.push(
        `| ${endpoint.label} | ${run.size.toLocaleString("en")} | ${
          rps(m.wrk.requestsPerSec)
        } | ${ms(m.wrk.p50)} | ${ms(m.wrk.p99)} | ${errorsOf(m.wrk)} | ${
          mb(m.peakRss)
        } (${(m.peakAnon / 1048576).toFixed(0)}) | ${
          base ? ratio(m.wrk.requestsPerSec, base.wrk.requestsPerSec) : "n/a"
        } | ${
          run.size !== small && smallM
            ? ratio(m.wrk.requestsPerSec, smallM.wrk.requestsPerSec)
            : ""
        } | ${ms(m.single)} | ${(m.bytes / 1024).toFixed(1)} KiB |`,
      );
    }
  }
  return lines.join("\n");
}

function targets(
  runs: SizeRun[],
  fanout: FanoutResult | null,
): Target[] {
  const out: Target[] = [];
  const sizes = runs.map((r) => r.size);
  const small = Math.min(...sizes);
  const large = Math.max(...sizes);
  const each = (
    key: string,
    fn: (m: Measure, size: number) => [boolean, string],
  ) => {
    const parts: string[] = [];
    let pass = true;
    let any = false;
    for (const size of sizes) {
      const m = find(runs, key, size);
      if (!m) continue;
      any = true;
      const [ok, text] = fn(m, size);
      pass &&= ok;
      parts.push(`${sizeLabel(size)}: ${text}`);
    }
    return { pass: any && pass, detail: parts.join("; ") };
  };
  if (find(runs, "event", small) && find(runs, "baseline", small)) {
    const r = each("event", (m, size) => {
      const base = find(runs, "baseline", size)!.wrk.requestsPerSec;
      const share = m.wrk.requestsPerSec / base;
      const off = find(runs, "event-nocache", size);
      return [
        share >= 0.35 && m.wrk.p99 < 20,
        `${(share * 100).toFixed(0)}% of baseline, p99 ${ms(m.wrk.p99)}${
          off
            ? ` (cache off: ${
              (off.wrk.requestsPerSec / base * 100).toFixed(0)
            }%, p99 ${ms(off.wrk.p99)})`
            : ""
        }`,
      ];
    });
    out.push({
      name: "GET /api/events/{id}: >= 35% of the baseline's req/s, p99 < 20 ms",
      ...r,
    });
  }
  const tagSmall = find(runs, "tag", small);
  const tagLarge = find(runs, "tag", large);
  if (tagSmall && tagLarge && small !== large) {
    const keep = tagLarge.wrk.requestsPerSec / tagSmall.wrk.requestsPerSec;
    const p99 = Math.max(tagSmall.wrk.p99, tagLarge.wrk.p99);
    // The growth rule is about the query's cost: it must hold for every miss
    // too, so the cache-off figures count when they were measured.
    const offSmall = find(runs, "tag-nocache", small);
    const offLarge = find(runs, "tag-nocache", large);
    const offKeep = offSmall && offLarge
      ? offLarge.wrk.requestsPerSec / offSmall.wrk.requestsPerSec
      : null;
    out.push({
      name: `GET /api/events/tag/{tag}: at ${sizeLabel(large)} >= 80% of its ${
        sizeLabel(small)
      } req/s, p99 < 30 ms`,
      pass: keep >= 0.8 && p99 < 30 && (offKeep === null || offKeep >= 0.8),
      detail: `${(keep * 100).toFixed(0)}% kept; p99 ${ms(tagSmall.wrk.p99)} (${
        sizeLabel(small)
      }), ${ms(tagLarge.wrk.p99)} (${sizeLabel(large)})${
        offKeep === null
          ? ""
          : `; cache off: ${(offKeep * 100).toFixed(0)}% kept, p99 ${
            ms(offSmall!.wrk.p99)
          } / ${ms(offLarge!.wrk.p99)}`
      }`,
    });
  }
  if (find(runs, "post", small)) {
    const r = each("post", (m) => {
      const p = m.post!;
      const ok = m.wrk.requestsPerSec >= 200 && m.wrk.errors === 0 &&
        p.lost === 0 && p.duplicated === 0 && p.unparsed === 0;
      return [
        ok,
        `${
          rps(m.wrk.requestsPerSec)
        }/s, ${m.wrk.errors} errors, ${p.lost} lost, ${p.duplicated} duplicated`,
      ];
    });
    out.push({
      name:
        `POST /api/events: >= 200 events/s with ${POST_CONNECTIONS} clients, 0 errors, 0 lost or duplicated rows`,
      ...r,
    });
  }
  const largeRun = runs.find((r) => r.size === large);
  // The target is for the server as shipped (production settings, so the
  // public-read cache on); the cache-off server's peak is reported beside it.
  const shipped = largeRun?.measures.filter((m) => !m.endpoint.cacheOff) ?? [];
  if (largeRun && shipped.length) {
    const peak = Math.max(...shipped.map((m) => m.peakRss));
    const off = largeRun.measures.filter((m) => m.endpoint.cacheOff);
    const offPeak = off.length
      ? `; with the cache off (every read a miss): ${
        mb(Math.max(...off.map((m) => m.peakRss)))
      }`
      : "";
    out.push({
      name: `Server RSS under load < 200 MB at ${sizeLabel(large)} events`,
      pass: peak < 200 * 1048576,
      detail: `peak ${mb(peak)} (highest over all endpoints${offPeak})`,
    });
  }
  if (fanout) {
    out.push({
      name: "Fan-out: every inbox served, no duplicates, >= 150 deliveries/s",
      pass: fanout.allReceivedMs !== null &&
        fanout.inboxesServed === fanout.inboxes && fanout.duplicates === 0 &&
        fanout.deliveriesPerSec >= 150,
      detail:
        `${fanout.inboxesServed}/${fanout.inboxes} inboxes, ${fanout.duplicates} duplicates, ${
          fanout.deliveriesPerSec.toFixed(0)
        } deliveries/s`,
    });
  }
  return out;
}

async function machine(): Promise<string[]> {
  const meminfo = await Deno.readTextFile("/proc/meminfo").catch(() => "");
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(meminfo)?.[1] ?? 0);
  const cpu = /model name\s*:\s*(.+)/.exec(
    await Deno.readTextFile("/proc/cpuinfo").catch(() => ""),
  )?.[1];
  return [
    `- cores (\`nproc\`): ${await sh("nproc")}`,
    `- memory: ${(memKb / 1048576).toFixed(1)} GiB (MemTotal ${memKb} kB)`,
    `- CPU: ${cpu ?? "unknown"}`,
    `- kernel: ${await sh("uname -sr")}`,
    `- Deno ${Deno.version.deno} (V8 ${Deno.version.v8}), ${await sh(
      "wrk -v 2>&1 | head -n 1",
    )}`,
    "- the load generator (wrk, 2 threads) runs on the same machine as the server",
  ];
}

async function report(
  runs: SizeRun[],
  fanouts: FanoutResult[],
  signs: SignTiming[] | null,
  wall: number,
): Promise<string> {
  const ts = targets(runs, fanouts[0] ?? null);
  const fanout = fanouts[0];
  const out: string[] = [];
  out.push(
    `Run of ${new Date().toISOString()} (${(wall / 60).toFixed(1)} min).`,
    "",
  );
  out.push("### Machine", "", ...await machine(), "");
  out.push(
    "### How it was run",
    "",
    "```sh",
    "deno task bench:run   # = deno run --config deno.dev.json -A tests/bench/run.ts",
    "```",
    "",
    `Durations: ${WARMUP} s warm-up, then ${DURATION} s measured per endpoint ` +
      `(BENCH_WARMUP, BENCH_DURATION); ${CONNECTIONS} connections for reads, ${POST_CONNECTIONS} for ` +
      `POST, ${THREADS} wrk threads. Peak RSS: /proc/<pid>/status of the server, VmRSS every 200 ms ` +
      "and VmHWM (reset through clear_refs before each run).",
    "",
  );
  for (const run of runs) {
    const s = run.seed;
    out.push(
      `**${
        run.size.toLocaleString("en")
      } events**: ${s.events} events (${s.series} weekly series with ` +
        `${s.occurrences} occurrences; tag \`${HOT_TAG}\` on 50 upcoming and ${s.hotPast} past events), ` +
        `${s.places} places, ${s.tags} tags, ${s.eventTags} event tags, ${s.resources} resources, ` +
        `${s.apUsers} remote actors; seeded in ${
          s.seconds.toFixed(1)
        } s; server up in ` +
        `${run.startupSeconds.toFixed(1)} s, idle RSS ${mb(run.idleRss)}.`,
      "",
      "```sh",
      `${run.serverCommand}`,
      ...run.measures.filter((m) => !m.endpoint.cacheOff && !m.endpoint.post)
        .map((m) => m.command),
      ...(run.cacheOffCommand
        ? [
          "# the same reads with the public-read cache off, on a second server",
          run.cacheOffCommand,
          ...run.measures.filter((m) => m.endpoint.cacheOff).map((m) =>
            m.command
          ),
        ]
        : []),
      ...(run.measures.some((m) => m.endpoint.post)
        ? [
          "# the writes, on a third server started as the first",
          ...run.measures.filter((m) => m.endpoint.post).map((m) => m.command),
        ]
        : []),
      "```",
      "",
    );
  }
  if (runs.length) out.push("### Results", "", table(runs), "");
  const posts = runs.flatMap((r) => r.measures.filter((m) => m.post));
  if (posts.length) {
    out.push(
      "POST /api/events integrity (every 2xx answer matched to rows by its unique title):",
      "",
    );
    for (const m of posts) {
      const p = m.post!;
      out.push(
        `- ${m.size.toLocaleString("en")} events: ${m.wrk.requests} answers (${
          Object.entries(p.statuses).map(([k, v]) => `${v} x ${k}`).join(", ")
        }); ${p.acknowledged} titles acknowledged, ${p.rows} rows created, ${p.lost} lost, ` +
          `${p.duplicated} duplicated; ${p.unacknowledgedRows} rows belong to requests still in flight ` +
          "when wrk stopped (no answer read, so not counted as 2xx).",
      );
    }
    out.push("");
  }
  if (fanouts.length) {
    const f0 = fanouts[0];
    out.push(
      "### Federation fan-out",
      "",
      `${f0.followers.toLocaleString("en")} followers spread evenly over ${
        f0.inboxes.toLocaleString("en")
      } shared inboxes of a counting receiver on loopback (202 to POST /inbox/{n}, ` +
        "nothing else; no signature checks); the server runs with ALLOW_PRIVATE_ADDRESSES=true; " +
        "one event is published through POST /api/events. The first row is the specified setup " +
        "(one receiver, so every inbox has the same origin); the second spreads the same inboxes " +
        "over one origin per inbox (one receiver port each), as 1,000 separate instances would be.",
      "",
      "```sh",
      f0.serverCommand,
      "```",
      "",
      "| origins | POST (enqueue) | first delivery | every inbox served | inboxes | deliveries/s (from the POST) | between first and last | duplicates | stray requests | queue rows left | peak RSS |",
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...fanouts.map((f) =>
        `| ${f.origins.toLocaleString("en")} | ${f.enqueueMs.toFixed(0)} ms | ${
          f.firstDeliveryMs.toFixed(0)
        } ms | ${
          f.allReceivedMs === null
            ? "NO (timeout)"
            : `${(f.allReceivedMs / 1000).toFixed(2)} s`
        } | ${f.inboxesServed}/${f.inboxes} | ${
          f.deliveriesPerSec.toFixed(0)
        } | ${
          f.deliveryPhasePerSec.toFixed(0)
        } | ${f.duplicates} | ${f.stray} | ${f.queueLeft} | ${mb(f.peakRss)} |`
      ),
      "",
      `Actor key: RSA-${f0.rsaBits}, read from the key the instance generated and stored.`,
      "",
    );
  }
  if (signs) {
    out.push(
      "### RSA key size",
      "",
      "crypto.subtle RSASSA-PKCS1-v1_5 / SHA-256 over 1 KiB, same run:",
      "",
      "| key | N | mean | signatures/s |",
      "| --- | ---: | ---: | ---: |",
      ...signs.map((s) =>
        `| RSA-${s.bits} | ${s.n} | ${s.meanMs.toFixed(2)} ms | ${
          s.perSec.toFixed(0)
        } |`
      ),
      "",
      `RSA-4096 costs ${
        (signs[1].meanMs / signs[0].meanMs).toFixed(1)
      }x RSA-2048 per signature ` +
        `(${
          ((signs[1].meanMs - signs[0].meanMs) *
            (fanout?.inboxes ?? SHARED_INBOXES) / 1000).toFixed(1)
        } s more CPU ` +
        `for one activity to ${
          (fanout?.inboxes ?? SHARED_INBOXES).toLocaleString("en")
        } inboxes).`,
      "",
    );
  }
  out.push(
    "### Targets",
    "",
    "| target | result | figures |",
    "| --- | --- | --- |",
  );
  for (const t of ts) {
    out.push(`| ${t.name} | ${t.pass ? "PASS" : "FAIL"} | ${t.detail} |`);
  }
  out.push("");
  return out.join("\n");
}

const BEGIN = "<!-- bench:begin (generated by deno task bench) -->";
const END = "<!-- bench:end -->";

/** Replaces the generated part of BENCHMARKS.md, keeping the notes around it. */
async function writeBenchmarks(text: string): Promise<void> {
  const path = join(ROOT, "BENCHMARKS.md");
  let current = "";
  try {
    current = await Deno.readTextFile(path);
  } catch { /* first run */ }
  const block = `${BEGIN}\n\n${text}\n${END}`;
  const a = current.indexOf(BEGIN);
  const b = current.indexOf(END);
  const next = a >= 0 && b > a
    ? current.slice(0, a) + block + current.slice(b + END.length)
    : `# Benchmarks\n\n${block}\n${current ? `\n${current}` : ""}`;
  await Deno.writeTextFile(path, next);
  // Keep `deno fmt --check` (deno task check) happy with the generated table.
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", path],
    cwd: ROOT,
  }).output();
}

// ------------------------------------------------------------------ main

if (import.meta.main) {
  const started = performance.now();
  const wrk = await ensureWrk(log);
  log(`wrk: ${wrk}; ${DURATION} s per endpoint after ${WARMUP} s of warm-up`);
  const runs: SizeRun[] = [];
  for (const size of SIZES) runs.push(await benchSize(wrk, size));
  const fanouts: FanoutResult[] = [];
  if (FANOUT) {
    for (const origins of FANOUT_ORIGINS) {
      fanouts.push(await benchFanout(origins));
    }
  }
  const signs = FANOUT ? await signTimings() : null;
  const text = await report(
    runs,
    fanouts,
    signs,
    (performance.now() - started) / 1000,
  );
  log(`\n${text}`);
  if (WRITE) {
    await writeBenchmarks(text);
    log("written to BENCHMARKS.md");
  }
}
