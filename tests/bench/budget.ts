/**
 * Where the server's memory goes (BENCHMARKS.md, "Memory budget"): the app
 * built as main.ts builds it, in this process (run with the V8 flags of
 * `deno task start`), over a copy of a file of BENCH_EVENTS events, loaded
 * with distinct-id reads, listings, feeds and writes; then the parts:
 * V8's heap, memory outside it, the prepared statements kept, SQLite's page
 * cache. (This process's RSS is not the server's: requests in-process
 * encode every body to bytes, which the HTTP server does not; the server's
 * RSS after its load is measured from outside by `deno task bench`.)
 *
 *   deno task bench:budget
 */
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import type { EmbeddedClient } from "../../db/embedded.ts";
import { createNativeHasher } from "../../lib/auth/password.ts";
import { systemClock } from "../../lib/clock.ts";
import { loadConfig } from "../../lib/config.ts";
import { prepareInstance } from "../../lib/instance.ts";
import { createLogger } from "../../lib/log.ts";
import { createDbMediaStore } from "../../lib/media/store.ts";
import {
  configureFedifyLogging,
  createFederationForDatabase,
} from "../../lib/federation/setup.ts";
import { createApp } from "../../routes/mod.ts";
import { createEventBodyFiller } from "../../lib/events/bodies.ts";
import { HOT_TAG } from "./seed.ts";
import { ROOT } from "./server.ts";

const EVENTS = Number(Deno.env.get("BENCH_EVENTS") ?? 20_000);
const MB = 1024 * 1024;
const log = (line: string) => console.error(line);

const dir = await Deno.makeTempDir({ prefix: "quando-budget-" });
const file = join(dir, "budget.db");
// Seeded by another process: what seeding allocates is not this one's.
const seeded = await new Deno.Command(Deno.execPath(), {
  args: [
    "eval",
    "--config",
    join(ROOT, "deno.dev.json"),
    `import { createDatabase, seedEvents } from ${
      JSON.stringify(join(ROOT, "tests/bench/seed.ts"))
    };
    const d = await createDatabase(${JSON.stringify(file)});
    await seedEvents(d, ${EVENTS});
    d.close();`,
  ],
  stdout: "null",
}).output();
if (!seeded.success) throw new Error("seeding failed");

const config = loadConfig({
  DATABASE_URL: `file:${file}`,
  BASE_URL: "http://127.0.0.1:8000",
  LOG_LEVEL: "warning",
  ADMIN_EMAIL: "budget-admin@bench.invalid",
  ADMIN_PASSWORD: "budget-admin-password",
});
const database = await openDatabase(config.databaseUrl);
const logger = createLogger("warning");
const hasher = await createNativeHasher();
const { jwtSecret } = await prepareInstance(
  database,
  config,
  hasher,
  systemClock,
  logger,
);
await configureFedifyLogging("warning");
const app = createApp({
  database,
  config: { ...config, jwtSecret },
  clock: systemClock,
  hasher,
  log: logger,
  media: createDbMediaStore(database.db, systemClock),
  federation: createFederationForDatabase(
    database,
    config,
    systemClock,
    logger,
  ),
  // As main.ts: anonymous event answers kept.
  eventBodies: createEventBodyFiller(database, { delayMs: 20 }),
});

/** Memory figures now, in MB. */
function reading() {
  const m = Deno.memoryUsage();
  return {
    heapUsed: m.heapUsed / MB,
    heapTotal: m.heapTotal / MB,
    external: m.external / MB,
  };
}
const idle = reading();

const get = async (path: string, init?: RequestInit) => {
  const res = await app.request(path, init);
  await res.arrayBuffer();
  return res.status;
};
const login = await app.request("/api/login/token", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    email: config.adminEmail,
    password: config.adminPassword,
  }),
});
const { access_token: token } = await login.json();
const started = performance.now();
// Every event once (a crawl), then hot reads, listings and feeds, then writes.
for (let id = 1; id <= EVENTS; id++) await get(`/api/events/${id}`);
for (let i = 0; i < 2_000; i++) {
  await get(`/api/events/${1 + (i % 50)}`);
  await get(`/api/events/tag/${HOT_TAG}`);
  await get(`/api/events?start=${Math.floor(Date.now() / 1000)}&max=50`);
}
for (const feed of ["ics", "rss", "atom", "json"]) await get(`/feed/${feed}`);
for (let i = 0; i < 1_000; i++) {
  await get("/api/events", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      title: `Budget concert ${i}`,
      description: "<p>An evening of live music in the courtyard.</p>",
      place_name: `Courtyard ${i % 50}`,
      place_address: `Via dei Mille ${i % 50}, Bologna`,
      start_datetime: Math.floor(Date.now() / 1000) + 86_400 + i * 60,
      tags: ["music", `Live ${i % 20}`],
    }),
  });
}
const loaded = reading();
const seconds = (performance.now() - started) / 1000;
const client = (database.db as unknown as { $client: EmbeddedClient })
  .$client;
const statementsKept = client.statements.size;
const [{ cache_size: cacheSize }] = await database.db.all<
  { cache_size: number }
>(sql`PRAGMA cache_size`);
const [{ page_size: pageSize }] = await database.db.all<{ page_size: number }>(
  sql`PRAGMA page_size`,
);
database.close();
await Deno.remove(dir, { recursive: true });

const pageCacheMb = (cacheSize < 0 ? -cacheSize * 1024 : cacheSize * pageSize) /
  MB;
const fmt = (n: number) => n.toFixed(1);
console.log(
  [
    `${EVENTS} events; ${EVENTS} distinct-id reads, 6,000 hot reads and listings, 4 feeds, 1,000 writes in ${
      seconds.toFixed(0)
    } s, in-process (\`deno task bench:budget\`)`,
    "",
    "| part | idle | after the load | bound |",
    "| --- | ---: | ---: | --- |",
    `| V8 heap in use (of it allocated) | ${fmt(idle.heapUsed)} (${
      fmt(idle.heapTotal)
    }) MB | ${fmt(loaded.heapUsed)} (${
      fmt(loaded.heapTotal)
    }) MB | --max-old-space-size=128, --max-semi-space-size=4 |`,
    `| V8 external (buffers) | ${fmt(idle.external)} MB | ${
      fmt(loaded.external)
    } MB | |`,
    `| prepared statements kept | | ${statementsKept} | ${client.statements.limit} (STATEMENT_CACHE_SIZE) |`,
    `| SQLite page cache | | | ${
      fmt(pageCacheMb)
    } MB per connection (cache_size ${cacheSize}), two connections |`,
    "",
  ].join("\n"),
);
log("done");
