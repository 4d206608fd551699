/**
 * The cost of GET /api/events?query: seeds a file database with realistic
 * events plus events titled with 200 × "a" (the worst case of a substring
 * search), then times searches and an /api/health sent while each runs (the
 * embedded engine runs on the main thread: a slow query delays everything).
 *
 *   deno run --config deno.dev.json -A tests/bench/search.ts [aEvents=20000] [realistic=20000] [runs=3]
 */
import { join } from "node:path";
import { events } from "../../db/schema.ts";
import { createTestApp } from "../helpers.ts";
import { createDatabase, seedEvents } from "./seed.ts";

const aEvents = Number(Deno.args[0] ?? 20_000);
const realistic = Number(Deno.args[1] ?? 20_000);
const runs = Number(Deno.args[2] ?? 3);

const dir = await Deno.makeTempDir({ prefix: "quando-search-" });
const path = join(dir, "search.db");
const database = await createDatabase(path);
const seeded = await seedEvents(database, realistic);
const now = Math.floor(Date.now() / 1000);
const stamp = new Date();
const rows = Array.from({ length: aEvents }, (_, i) => ({
  id: seeded.events + 1 + i,
  title: "a".repeat(200),
  slug: `a-${i}`,
  start_datetime: now + 60 * (i + 1),
  end_datetime: now + 60 * (i + 1) + 3600,
  description: "<p>" + "a".repeat(200) + "</p>",
  userId: 1000,
  placeId: 1,
  createdAt: stamp,
  updatedAt: stamp,
}));
const seedStart = performance.now();
for (let i = 0; i < rows.length; i += 500) {
  await database.db.insert(events).values(rows.slice(i, i + 500));
}
console.log(
  `seeded ${seeded.events} realistic events in ${
    seeded.seconds.toFixed(1)
  } s, ` +
    `${aEvents} × "a"*200 in ${
      ((performance.now() - seedStart) / 1000).toFixed(1)
    } s; file ${((await Deno.stat(path)).size / 1e6).toFixed(1)} MB`,
);

const ctx = await createTestApp({
  database,
  env: { DATABASE_URL: `file:${path}`, PUBLIC_CACHE_MS: "0" },
});

/** Times one search and an /api/health sent just after it. */
async function measure(query: string, from: string) {
  const url = `/api/events?${from}max=50&query=${encodeURIComponent(query)}`;
  const t0 = performance.now();
  const search = Promise.resolve(ctx.app.request(url)).then(async (r) => {
    const body = await r.json();
    return {
      status: r.status,
      count: Array.isArray(body) ? body.length : -1,
      ms: performance.now() - t0,
    };
  });
  const health = Promise.resolve(ctx.app.request("/api/health")).then(() =>
    performance.now() - t0
  );
  const [s, h] = await Promise.all([search, health]);
  return { ...s, healthMs: h };
}

const queries = [
  "a".repeat(99) + "b",
  "a",
  "a".repeat(200),
  "aa aa aa aa aa aa aa aa",
  "a b c d e f g h",
  "music",
  "event number",
  "place 1",
  "topic1",
  "volunteers kitchen",
  "nothing-like-this",
];
// start=0: everything from the epoch (the report's request); no start: from
// now, which also reads the events still running (the listing's other half).
for (const from of ["start=0&", ""]) {
  console.log(from ? "\nfrom start=0" : "\nfrom now (no start)");
  for (const query of queries) {
    await measure(query, from); // warm-up
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await measure(query, from));
    all.sort((x, y) => x.ms - y.ms);
    const mid = all[Math.floor(all.length / 2)];
    const label = query.length > 24
      ? `${query.slice(0, 12)}…${query.slice(-6)} (${query.length})`
      : query;
    console.log(
      `${label.padEnd(30)} ${String(mid.status).padEnd(4)} ${
        String(mid.count).padStart(3)
      } results  median ${mid.ms.toFixed(1).padStart(8)} ms  health after ${
        mid.healthMs.toFixed(1).padStart(8)
      } ms`,
    );
  }
}
ctx.close();
await Deno.remove(dir, { recursive: true });
