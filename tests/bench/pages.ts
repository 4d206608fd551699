/**
 * The public pages at 20,000 events: seeds a file database (seed.ts), then
 * for each page measures the uncached latency (p50/p99 of sequential
 * requests to an app whose public-read cache is off) and the cached
 * throughput (requests per second to an app whose cache is on, in-process:
 * no network), next to a baseline in the same run (GET /api/events and
 * /api/health). Also the home page's weight, raw and gzipped. Routes that
 * answer 404 here (a page not built yet) are skipped.
 *
 * Fails (exit 1) when an uncached p50 is over 10 ms or the home page is over
 * 60 KB (before images).
 *
 *   deno task bench:pages
 *   deno run --config deno.dev.json -A tests/bench/pages.ts [events=20000] [requests=200]
 */
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
import { dayOf } from "../../lib/pages/calendar.ts";
import { createTestApp, type TestContext } from "../helpers.ts";
import { createDatabase, HOT_TAG, seedEvents } from "./seed.ts";

const EVENTS = Number(Deno.args[0] ?? 20_000);
const REQUESTS = Number(Deno.args[1] ?? 200);
/** Cached requests per page for the throughput. */
const CACHED_REQUESTS = 5_000;
const P50_BUDGET_MS = 10;
const HOME_BUDGET_BYTES = 60 * 1024;

const log = (line: string) => console.error(line);

const dir = await Deno.makeTempDir({ prefix: "quando-pages-" });
const path = join(dir, "pages.db");
const seeded = await seedEvents(await createDatabase(path), EVENTS);
log(
  `seeded ${seeded.events} events (${seeded.series} series, ${seeded.occurrences} occurrences), ` +
    `${seeded.places} places, ${seeded.tags} tags in ${
      seeded.seconds.toFixed(1)
    } s`,
);

const now = new Date(seeded.now * 1000).toISOString();
/** An app over the seeded file with the public-read cache kept `cacheMs`. */
async function appWith(cacheMs: number): Promise<TestContext> {
  const url = `file:${path}`;
  return await createTestApp({
    database: await openDatabase(url),
    now,
    env: { DATABASE_URL: url, PUBLIC_CACHE_MS: String(cacheMs) },
  });
}
const uncached = await appWith(0);
const cached = await appWith(60_000);

const today = dayOf(seeded.now, "UTC");
const month = `${today.year}-${String(today.month).padStart(2, "0")}`;
const tomorrow = dayOf(seeded.now + 86_400, "UTC");
const day = `${tomorrow.year}-${String(tomorrow.month).padStart(2, "0")}-${
  String(tomorrow.day).padStart(2, "0")
}`;

const PAGES: { path: string; what: string; baseline?: boolean }[] = [
  { path: "/api/health", what: "baseline: health", baseline: true },
  { path: "/api/events", what: "baseline: API listing", baseline: true },
  { path: "/", what: "home" },
  { path: "/?page=2", what: "home, page 2" },
  { path: `/calendar/${month}`, what: "month" },
  { path: `/calendar/${day}`, what: "day" },
  { path: "/past", what: "past" },
  { path: "/past?page=50", what: "past, page 50" },
  { path: "/tags", what: "tags" },
  { path: "/places", what: "places" },
  { path: `/tag/${HOT_TAG}`, what: "tag" },
  { path: `/tag/${HOT_TAG}?page=10`, what: "tag, page 10" },
  { path: `/tag/${HOT_TAG}?past=50`, what: "tag, past page 50" },
  { path: "/place/1", what: "place" },
  { path: "/event/hot-upcoming-0", what: "event" },
  { path: "/event/weekly-series-0-" + "{occurrence}", what: "occurrence" },
  { path: "/search?q=music", what: "search" },
  // The search's other shapes: deepest page, a rare word, filters alone and
  // with words (the canonical order: q, tags, places, from, to, online).
  { path: "/search?q=music&page=50", what: "search, page 50" },
  { path: "/search?q=topic7", what: "search, rare word" },
  { path: "/search", what: "search, no filter" },
  { path: `/search?tags=${HOT_TAG}`, what: "search, tag" },
  { path: "/search?places=1", what: "search, place" },
  { path: "/search?online=true", what: "search, online" },
  { path: "/search?q=music&online=true", what: "search, words+online" },
];

/** The slug of a series' occurrence still to come (for its page). */
async function occurrencePath(): Promise<string> {
  const res = await uncached.app.request("/");
  const html = await res.text();
  const slug = /href="\/event\/(weekly-series-[^"#]+)"/.exec(html)?.[1];
  return slug ? `/event/${slug}` : "/event/none";
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function gzipSize(body: string): Promise<number> {
  const stream = new Blob([body]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return (await new Response(stream).arrayBuffer()).byteLength;
}

interface Row {
  what: string;
  path: string;
  status: number;
  bytes: number;
  p50: number;
  p99: number;
  perSecond: number;
  baseline: boolean;
}

const rows: Row[] = [];
for (const page of PAGES) {
  const target = page.path.includes("{occurrence}")
    ? await occurrencePath()
    : page.path;
  const first = await uncached.app.request(target);
  const body = await first.text();
  if (first.status === 404) {
    log(`${target}: 404, skipped`);
    continue;
  }
  // Warm up: the statements' first preparation, the formatters.
  for (let i = 0; i < 20; i++) {
    await (await uncached.app.request(target)).arrayBuffer();
  }
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await uncached.app.request(target);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  await (await cached.app.request(target)).arrayBuffer();
  const t0 = performance.now();
  for (let i = 0; i < CACHED_REQUESTS; i++) {
    await (await cached.app.request(target)).arrayBuffer();
  }
  const perSecond = CACHED_REQUESTS / ((performance.now() - t0) / 1000);
  rows.push({
    what: page.what,
    path: target,
    status: first.status,
    bytes: new TextEncoder().encode(body).byteLength,
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    perSecond,
    baseline: page.baseline ?? false,
  });
}

const home = await (await uncached.app.request("/")).text();
const homeRaw = new TextEncoder().encode(home).byteLength;
const homeGzip = await gzipSize(home);

const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number, d = 2) => n.toFixed(d).padStart(8);
console.log(
  `\nPublic pages at ${seeded.events} events: uncached (cache off, ${REQUESTS} sequential requests) ` +
    `and cached (cache on, ${CACHED_REQUESTS} requests), in-process\n`,
);
console.log(
  `${pad("page", 22)}${
    pad("path", 34)
  }status    bytes   p50 ms   p99 ms  cached req/s`,
);
for (const r of rows) {
  console.log(
    `${pad(r.what, 22)}${pad(r.path.slice(0, 33), 34)}${
      String(r.status).padStart(6)
    }${String(r.bytes).padStart(9)}${num(r.p50)} ${num(r.p99)} ${
      num(r.perSecond, 0).padStart(13)
    }`,
  );
}
console.log(
  `\nhome page weight: ${homeRaw} bytes raw, ${homeGzip} bytes gzip (budget ${HOME_BUDGET_BYTES} raw)`,
);

const over = rows.filter((r) => !r.baseline && r.p50 > P50_BUDGET_MS);
const failures = [
  ...over.map((r) =>
    `${r.path}: uncached p50 ${r.p50.toFixed(2)} ms > ${P50_BUDGET_MS} ms`
  ),
  ...(homeRaw > HOME_BUDGET_BYTES
    ? [`home: ${homeRaw} bytes > ${HOME_BUDGET_BYTES}`]
    : []),
  ...rows.filter((r) => r.status >= 500).map((r) =>
    `${r.path}: status ${r.status}`
  ),
];

uncached.close();
cached.close();
await Deno.remove(dir, { recursive: true });
if (failures.length > 0) {
  console.log(`\nFAILED:\n  ${failures.join("\n  ")}`);
  Deno.exit(1);
}
console.log("\nok: every uncached p50 within budget, the home page too");
