/**
 * Event writes: POST /api/events at 16 clients with a realistic body (a
 * ~300-character description with a link, a place with an address, two
 * tags; tests/bench/post_realistic.lua) against a server started as
 * `deno task start` does, on a file seeded with BENCH_EVENTS events. Then the
 * rows are counted: every 201 must be one event, and at most one more per
 * client may exist (its answer was in flight when wrk stopped).
 * The same run measures GET /api/health as the floor to compare against.
 *
 *   deno task bench:writes
 */
import { join } from "node:path";
import { createDatabase, seedEvents } from "./seed.ts";
import { startServer } from "./server.ts";
import { ensureWrk, runWrk } from "./wrk.ts";
import { openDatabase } from "../../db/client.ts";
import { sql } from "drizzle-orm";

const EVENTS = Number(Deno.env.get("BENCH_EVENTS") ?? 1000);
const SECONDS = Number(Deno.env.get("BENCH_WRITE_SECONDS") ?? 10);
const CLIENTS = 16;

const log = (line: string) => console.error(line);
const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-writes-" });
const path = join(dir, "writes.db");
const database = await createDatabase(path);
await seedEvents(database, EVENTS);
database.close();

const email = "bench-admin@example.org";
const password = "bench-password-123";
const server = await startServer({
  DATABASE_URL: `file:${path}`,
  LOG_LEVEL: "warning",
  ADMIN_EMAIL: email,
  ADMIN_PASSWORD: password,
});
let report = "";
try {
  const login = await fetch(`${server.base}/api/login/token`, {
    method: "POST",
    body: new URLSearchParams({ email, password }),
  });
  const { access_token: token } = await login.json();
  if (!token) throw new Error(`login failed: ${login.status}`);
  const floor = await runWrk(wrk, {
    url: `${server.base}/api/health`,
    connections: CLIENTS,
    threads: 2,
    duration: 3,
  });
  const count = async () => {
    const db = await openDatabase(`file:${path}`);
    const [row] = await db.db.all<{ n: number }>(
      sql`select count(*) as n from events where title like 'Courtyard concert %'`,
    );
    db.close();
    return row.n;
  };
  const before = await count();
  const result = await runWrk(wrk, {
    url: server.base,
    connections: CLIENTS,
    threads: 2,
    duration: SECONDS,
    script: new URL("./post_realistic.lua", import.meta.url).pathname,
    scriptArgs: [token, "w", String(Math.floor(Date.now() / 1000) + 86_400)],
  });
  const created = (await count()) - before;
  const statuses = Object.fromEntries(
    result.scriptLines.flatMap((line) => {
      const m = /^BENCH status (\d+) (\d+)$/.exec(line);
      return m ? [[m[1], Number(m[2])]] : [];
    }),
  );
  const ok = (statuses["201"] ?? 0) as number;
  report = [
    `| measure (${CLIENTS} clients) | req/s | p50 | p99 | answers |`,
    "|---|---:|---:|---:|---|",
    `| GET /api/health (floor) | ${Math.round(floor.requestsPerSec)} | ${
      floor.p50.toFixed(1)
    } ms | ${floor.p99.toFixed(1)} ms | |`,
    `| POST /api/events, realistic body | ${
      Math.round(result.requestsPerSec)
    } | ${result.p50.toFixed(1)} ms | ${result.p99.toFixed(1)} ms | ${
      JSON.stringify(statuses)
    }; ${created} events created for ${ok} 201s${
      created >= ok && created - ok <= CLIENTS
        ? " (none lost or doubled; the rest were in flight when wrk stopped)"
        : " (MISMATCH)"
    } |`,
  ].join("\n");
} finally {
  await server.stop();
  await Deno.remove(dir, { recursive: true });
}
console.log(report);
