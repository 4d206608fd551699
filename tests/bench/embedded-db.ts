/**
 * Per-query latency and memory of the embedded engine: `@libsql/client`
 * (what embedded databases used before) against db/embedded.ts, on the same
 * database file, in one run. Each phase runs QUERIES reads (a point lookup, a
 * ten-row page and a count, in turn), first straight through the client's
 * `execute` (what Drizzle calls), then through Drizzle. RSS is read after a
 * full GC, so its growth is memory that stays (native memory, mostly).
 *
 *   deno run --config deno.dev.json -A --v8-flags=--expose-gc tests/bench/embedded-db.ts [QUERIES=200000] [ours]
 *
 * With `ours`, only db/embedded.ts runs (to check its memory over longer runs).
 *
 * A third client shows why db/embedded.ts is not built on the `libsql` addon
 * itself: its prepared statements, reused from a Map, still create a native
 * row iterator per `all()`, which leaks like `@libsql/client`'s.
 *
 * Our client runs first, so the memory the others leave behind does not land
 * in its figures. Prints a Markdown table; never a timed test.
 */
import { join } from "node:path";
import { type Client, createClient } from "@libsql/client";
import Libsql from "libsql";
import { drizzle as libsqlDrizzle } from "drizzle-orm/libsql";
import { drizzle as webDrizzle } from "drizzle-orm/libsql/web";
import { count, eq, gt } from "drizzle-orm";
import { EmbeddedClient } from "../../db/embedded.ts";
import { openDatabase } from "../../db/client.ts";
import { collections } from "../../db/schema.ts";

const QUERIES = Number(Deno.args[0] ?? 200_000);
const OURS_ONLY = Deno.args[1] === "ours";
const ROWS = 1000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn("no --v8-flags=--expose-gc: RSS includes garbage");

/** RSS in MB after a full collection (twice: finalisers free native memory). */
function rssMb(): number {
  gc?.();
  gc?.();
  return Deno.memoryUsage().rss / 1e6;
}

interface Figures {
  label: string;
  usPerQuery: number;
  rssGrowthMb: number;
  bytesPerQuery: number;
}

/** Runs `query` QUERIES times (after a warm-up) and measures it. */
async function measure(
  label: string,
  query: (i: number) => Promise<unknown>,
): Promise<Figures> {
  for (let i = 0; i < 5000; i++) await query(i);
  const before = rssMb();
  const start = performance.now();
  for (let i = 0; i < QUERIES; i++) await query(i);
  const elapsed = performance.now() - start;
  const growth = rssMb() - before;
  const figures = {
    label,
    usPerQuery: (elapsed * 1000) / QUERIES,
    rssGrowthMb: growth,
    bytesPerQuery: (growth * 1e6) / QUERIES,
  };
  console.error(
    `${label}: ${figures.usPerQuery.toFixed(1)} µs/query, RSS +${
      growth.toFixed(1)
    } MB`,
  );
  return figures;
}

/** The three statements, in turn, as raw SQL. */
function rawQuery(client: Pick<Client, "execute">) {
  const point = 'SELECT id, name, "sortIndex" FROM collections WHERE id = ?';
  const page =
    'SELECT id, name, "sortIndex" FROM collections WHERE id > ? ORDER BY id LIMIT 10';
  const total = "SELECT count(*) AS n FROM collections WHERE id > ?";
  return (i: number) => {
    const sql = i % 3 === 0 ? point : i % 3 === 1 ? page : total;
    return client.execute({ sql, args: [(i * 7) % ROWS] });
  };
}

/** Statements of the `libsql` addon reused per SQL text, rows read with `all()`. */
function libsqlReused(
  file: string,
): Pick<Client, "execute"> & { close(): void } {
  const connection = new Libsql(file);
  const statements = new Map<string, ReturnType<typeof connection.prepare>>();
  return {
    execute(stmt) {
      const { sql, args } = stmt as { sql: string; args: unknown[] };
      let statement = statements.get(sql);
      if (!statement) {
        statement = connection.prepare(sql).raw(true);
        statements.set(sql, statement);
      }
      return Promise.resolve(statement.all(args) as never);
    },
    close: () => connection.close(),
  };
}

/** The same three through Drizzle's query builder. */
function drizzleQuery(db: ReturnType<typeof webDrizzle>) {
  const columns = {
    id: collections.id,
    name: collections.name,
    sortIndex: collections.sortIndex,
  };
  return (i: number) => {
    const n = (i * 7) % ROWS;
    if (i % 3 === 0) {
      return db.select(columns).from(collections).where(eq(collections.id, n));
    }
    if (i % 3 === 1) {
      return db.select(columns).from(collections).where(gt(collections.id, n))
        .orderBy(collections.id).limit(10);
    }
    return db.select({ n: count() }).from(collections).where(
      gt(collections.id, n),
    );
  };
}

const dir = await Deno.makeTempDir({ prefix: "quando-embedded-bench-" });
const url = `file:${join(dir, "bench.db")}`;
try {
  // The app's schema, with ROWS collections.
  const setup = await openDatabase(url);
  await setup.migrate!();
  await setup.db.insert(collections).values(
    Array.from({ length: ROWS }, (_, i) => ({
      name: `collection ${i}`,
      sortIndex: i % 17,
      createdAt: new Date(0),
      updatedAt: new Date(0),
    })),
  );
  setup.close();

  const results: Figures[] = [];
  const ours = new EmbeddedClient(url);
  results.push(await measure("db/embedded.ts execute", rawQuery(ours)));
  results.push(
    await measure(
      "db/embedded.ts + Drizzle",
      drizzleQuery(webDrizzle(ours)),
    ),
  );
  ours.close();
  if (!OURS_ONLY) {
    const reused = libsqlReused(url.slice("file:".length));
    results.push(
      await measure("libsql addon, statements reused", rawQuery(reused)),
    );
    reused.close();
  }
  const theirs = OURS_ONLY ? null : createClient({ url });
  if (theirs) {
    results.push(await measure("@libsql/client execute", rawQuery(theirs)));
    results.push(
      await measure(
        "@libsql/client + Drizzle",
        drizzleQuery(libsqlDrizzle(theirs) as never),
      ),
    );
    theirs.close();
  }

  console.log(`${QUERIES} queries per row, Deno ${Deno.version.deno}\n`);
  console.log("| client | µs per query | RSS growth | bytes per query |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const r of results) {
    console.log(
      `| ${r.label} | ${r.usPerQuery.toFixed(1)} | ${
        r.rssGrowthMb.toFixed(1)
      } MB | ${Math.max(0, r.bytesPerQuery).toFixed(0)} |`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
