/**
 * The request floor: what the app's middleware costs before and around a
 * route, against a bare Hono app on the same Deno in the same run (the
 * runtime's limit on this machine). Measures a bare route, the app's 404,
 * /api/health, a cached public read, the home and an event's page (cached,
 * in French) and the uncached read of one event, with
 * wrk on loopback.
 *
 *   deno task bench:floor
 *   FLOOR_SECONDS=5 FLOOR_CONNECTIONS=32 deno run --config deno.dev.json -A tests/bench/floor.ts
 */
import { join } from "node:path";
import { createDatabase, seedEvents } from "./seed.ts";
import { startBare, startServer } from "./server.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const SECONDS = Number(Deno.env.get("FLOOR_SECONDS") ?? 5);
const CONNECTIONS = Number(Deno.env.get("FLOOR_CONNECTIONS") ?? 32);

const log = (line: string) => console.error(line);

const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-floor-" });
const path = join(dir, "floor.db");
const database = await createDatabase(path);
const seeded = await seedEvents(database, 1000);
database.close();
const eventId = seeded.sampleEventId;

const bare = await startBare();
const server = await startServer({
  DATABASE_URL: `file:${path}`,
  LOG_LEVEL: "warning",
});
const rows: { name: string; result: WrkResult }[] = [];
try {
  const measure = async (
    name: string,
    url: string,
    headers?: Record<string, string>,
  ) => {
    // Warm-up, then the measured run.
    await runWrk(wrk, {
      url,
      connections: CONNECTIONS,
      threads: 2,
      duration: 1,
      headers,
    });
    const result = await runWrk(wrk, {
      url,
      connections: CONNECTIONS,
      threads: 2,
      duration: SECONDS,
      headers,
    });
    rows.push({ name, result });
    log(`${name}: ${Math.round(result.requestsPerSec)} req/s`);
  };
  await measure("bare Hono route (runtime limit)", `${bare.base}/bare`);
  await measure("app: unknown path (404)", `${server.base}/nope`);
  await measure("app: unknown API path (404, CORS)", `${server.base}/api/nope`);
  await measure("app: GET /api/health", `${server.base}/api/health`);
  await measure(
    "app: GET /api/events/{id} (cached)",
    `${server.base}/api/events/${eventId}`,
  );
  // The public pages as a browser asks for them, in a language of its own.
  const browser = {
    accept: "text/html,application/xhtml+xml,*/*;q=0.8",
    "accept-language": "fr-FR,fr;q=0.9,en;q=0.7",
  };
  await measure(
    "app: GET / (home page, cached, fr)",
    `${server.base}/`,
    browser,
  );
  const slug = (await (await fetch(`${server.base}/api/events/${eventId}`))
    .json()).slug;
  await measure(
    "app: GET /event/{slug} (page, cached, fr)",
    `${server.base}/event/${slug}`,
    browser,
  );
  await server.stop();
  const uncached = await startServer({
    DATABASE_URL: `file:${path}`,
    LOG_LEVEL: "warning",
    PUBLIC_CACHE_MS: "0",
  });
  try {
    await measure(
      "app, cache off: GET /api/events/{id}",
      `${uncached.base}/api/events/${eventId}`,
    );
  } finally {
    await uncached.stop();
  }
} finally {
  await server.stop();
  await bare.stop();
  await Deno.remove(dir, { recursive: true });
}

const limit = rows[0].result.requestsPerSec;
console.log(
  `| request (${CONNECTIONS} connections, ${SECONDS} s) | req/s | p50 | p99 | of the runtime's limit |`,
);
console.log("|---|---:|---:|---:|---:|");
for (const { name, result } of rows) {
  console.log(
    `| ${name} | ${Math.round(result.requestsPerSec)} | ${
      result.p50.toFixed(2)
    } ms | ${result.p99.toFixed(2)} ms | ${
      Math.round(result.requestsPerSec / limit * 100)
    }% |`,
  );
}
