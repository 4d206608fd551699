/**
 * Per-request SQL trace: builds the app exactly as main.ts does over a copy of
 * a database file, sends one request several times in-process (no HTTP), and
 * prints every statement of the last one with its row count and time, plus
 * the mean time per request. For diagnosing what the benchmark shows.
 *
 *   deno run --config deno.dev.json -A tests/bench/trace.ts <db file> <path> [n=50] [METHOD] [json body]
 *
 * `{rand:N}` in the path is a random number from 1 to N at each request
 * (distinct ids); TRACE_DUMP=<file> writes the last request's statements.
 *
 * Writes go to the copy; the original file is not touched. A POST is sent
 * with a login token of the ADMIN_EMAIL/ADMIN_PASSWORD admin it creates.
 */
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
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

interface Traced {
  sql: string;
  args: unknown;
  rows: number;
  us: number;
}

/** Wraps the libSQL client so every statement is recorded. */
// deno-lint-ignore no-explicit-any
function instrument(client: any, sink: Traced[]) {
  const text = (stmt: unknown) =>
    typeof stmt === "string" ? stmt : String((stmt as { sql: string }).sql);
  const args = (stmt: unknown) =>
    typeof stmt === "string" ? [] : (stmt as { args?: unknown }).args ?? [];
  const execute = client.execute.bind(client);
  client.execute = async (stmt: unknown, ...rest: unknown[]) => {
    const t0 = performance.now();
    const rs = await execute(stmt, ...rest);
    sink.push({
      sql: text(stmt),
      args: args(stmt),
      rows: rs.rows.length,
      us: (performance.now() - t0) * 1000,
    });
    return rs;
  };
  const batch = client.batch.bind(client);
  client.batch = async (stmts: unknown[], ...rest: unknown[]) => {
    const t0 = performance.now();
    const results = await batch(stmts, ...rest);
    const us = (performance.now() - t0) * 1000;
    stmts.forEach((s, i) =>
      sink.push({
        sql: `[batch ${i + 1}/${stmts.length}] ${text(s)}`,
        args: args(s),
        rows: results[i].rows.length,
        us: i === 0 ? us : 0,
      })
    );
    return results;
  };
}

if (import.meta.main) {
  const [file, path, n = "50", method = "GET", body] = Deno.args;
  const tmp = await Deno.makeTempDir({ prefix: "quando-trace-" });
  const copy = join(tmp, "trace.db");
  await Deno.copyFile(file, copy);
  const config = loadConfig({
    DATABASE_URL: `file:${copy}`,
    // The base URL of the server that kept the file's event answers, if any.
    BASE_URL: Deno.env.get("TRACE_BASE_URL") ?? "http://127.0.0.1:8000",
    LOG_LEVEL: "warning",
    ADMIN_EMAIL: "trace-admin@bench.invalid",
    ADMIN_PASSWORD: "trace-admin-password",
    // Misses are what a trace is for: the public-read cache is off unless asked.
    PUBLIC_CACHE_MS: Deno.env.get("PUBLIC_CACHE_MS") ?? "0",
  });
  const database = await openDatabase(config.databaseUrl);
  const log = createLogger("warning");
  const hasher = await createNativeHasher();
  const { jwtSecret } = await prepareInstance(
    database,
    config,
    hasher,
    systemClock,
    log,
  );
  await configureFedifyLogging("warning");
  const federation = createFederationForDatabase(
    database,
    config,
    systemClock,
    log,
  );
  const app = createApp({
    database,
    config: { ...config, jwtSecret },
    clock: systemClock,
    hasher,
    log,
    media: createDbMediaStore(database.db, systemClock),
    federation,
    // As main.ts: anonymous event answers kept (stored at once here).
    eventBodies: createEventBodyFiller(database, { delayMs: 0 }),
  });
  let token = "";
  if (method !== "GET") {
    const res = await app.request("/api/login/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: config.adminEmail,
        password: config.adminPassword,
      }),
    });
    token = (await res.json()).access_token;
  }
  const trace: Traced[] = [];
  instrument((database.db as unknown as { $client: unknown }).$client, trace);
  const count = Number(n);
  let bytes = 0;
  let status = 0;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    trace.length = 0;
    // `{rand:N}` in the path: a random number from 1 to N at each request.
    const url = path.replace(
      /\{rand:(\d+)\}/g,
      (_, max) => String(1 + Math.floor(Math.random() * Number(max))),
    );
    const res = await app.request(url, {
      method,
      headers: method === "GET" ? {} : {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
      },
      body: body?.replaceAll("{i}", String(i)),
    });
    const buf = await res.arrayBuffer();
    bytes = buf.byteLength;
    status = res.status;
  }
  const mean = (performance.now() - t0) / count;
  console.log(
    `${method} ${path}: status ${status}, ${bytes} bytes, ${
      mean.toFixed(2)
    } ms per request (mean of ${count}, in-process)`,
  );
  let rows = 0;
  let us = 0;
  for (const t of trace) {
    rows += t.rows;
    us += t.us;
    console.log(
      `${t.us.toFixed(0).padStart(7)} µs ${String(t.rows).padStart(6)} rows  ${
        t.sql.replace(/\s+/g, " ").slice(0, 220)
      }`,
    );
  }
  // TRACE_DUMP=<file>: the last request's statements with their arguments, as JSON.
  const dump = Deno.env.get("TRACE_DUMP");
  if (dump) {
    await Deno.writeTextFile(
      dump,
      JSON.stringify(trace.map((t) => ({ sql: t.sql, args: t.args })), null, 2),
    );
  }
  if (Deno.env.get("TRACE_EXPLAIN") === "1") {
    // deno-lint-ignore no-explicit-any
    const client = (database.db as any).$client;
    for (const t of [...trace]) {
      const q = t.sql.replace(/^\[batch [^\]]*\] /, "");
      if (!/^\s*select/i.test(q)) continue;
      const plan = await client.execute({
        sql: `explain query plan ${q}`,
        args: t.args,
      });
      console.log(`\n${q.replace(/\s+/g, " ").slice(0, 300)}`);
      for (const r of plan.rows) console.log(`    ${r.detail}`);
    }
  }
  console.log(
    `last request: ${trace.length} statements, ${rows} rows, ${
      (us / 1000).toFixed(2)
    } ms in the database client`,
  );
  database.close();
  await Deno.remove(tmp, { recursive: true });
}
