/**
 * The embedded client (db/embedded.ts): the same results and errors as
 * `@libsql/client` on the same file, atomic batches, transactions that hold
 * the connection, a bounded statement cache, and a file the other client
 * reads afterwards. Then the app over it: constraint errors are still 409s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type Client, createClient } from "@libsql/client";
import { EmbeddedClient } from "../db/embedded.ts";
import { openDatabase } from "../db/client.ts";
import { isUniqueViolation, sqliteCode } from "../lib/errors.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  userWithToken,
} from "./helpers.ts";

/** Runs `fn` with both clients open on one fresh database file. */
async function withBoth(
  fn: (ours: EmbeddedClient, theirs: Client, file: string) => Promise<void>,
  options: { statementCacheSize?: number } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "embedded-db-" });
  const file = join(dir, "test.db");
  const ours = new EmbeddedClient(`file:${file}`, options);
  const theirs = createClient({ url: `file:${file}` });
  try {
    await ours.execute("PRAGMA journal_mode = WAL");
    await fn(ours, theirs, file);
  } finally {
    ours.close();
    theirs.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A result set as plain data, for comparing the two clients. */
function plain(result: {
  columns: string[];
  columnTypes: string[];
  rows: ArrayLike<unknown>[];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}) {
  return {
    columns: result.columns,
    columnTypes: result.columnTypes,
    // Both views of a row: by index (array) and by name (enumerable keys).
    rows: result.rows.map((row) => ({
      values: Array.from(row),
      named: { ...row },
      length: row.length,
      keys: Object.keys(row),
    })),
    rowsAffected: result.rowsAffected,
    // The connection's last insert, whatever the statement: only its type compares.
    lastInsertRowid: typeof result.lastInsertRowid,
  };
}

const SCHEMA = `
  CREATE TABLE t (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    n INTEGER,
    r REAL,
    b BLOB,
    parent INTEGER REFERENCES t(id)
  );
  CREATE VIRTUAL TABLE f USING fts5(body);
`;

Deno.test("embedded client: the same results as @libsql/client on the same file", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.executeMultiple(SCHEMA);
    const blob = new Uint8Array([0, 1, 2, 254, 255]);
    const writes: { sql: string; args: unknown[] }[] = [
      {
        sql: "INSERT INTO t (email, n, r, b) VALUES (?, ?, ?, ?)",
        args: ["a@x", 42, 1.5, blob],
      },
      {
        sql: "INSERT INTO t (email, n, r, b) VALUES (?, ?, ?, ?)",
        args: ["b@x", -(2 ** 53 - 1), 0.1, blob.buffer],
      },
      {
        sql: "INSERT INTO t (email, n, r, b) VALUES (?, ?, ?, ?)",
        args: ["c@x", true, null, new Uint8Array(0)],
      },
      { sql: "INSERT INTO f (body) VALUES (?)", args: ["the quick brown fox"] },
    ];
    // Writes through each client: the same rowsAffected and lastInsertRowid.
    for (const w of writes) {
      const a = await ours.execute(w as never);
      const b = await theirs.execute({
        sql: w.sql.replace("?,", "? || '2',"),
        args: w.args as never,
      });
      assert.equal(a.rowsAffected, b.rowsAffected);
      assert.equal(typeof a.lastInsertRowid, "bigint");
      assert.equal(a.lastInsertRowid! + 1n, b.lastInsertRowid);
    }
    const reads = [
      "SELECT id, email, n, r, b, parent FROM t ORDER BY id",
      "SELECT * FROM t WHERE n > ?",
      "SELECT count(*) AS c, sum(r) AS s, typeof(b) AS tb FROM t",
      "SELECT 1 AS x, 2 AS x, 'y' AS \"0\"",
      'SELECT 3 AS length, 4 AS y, 5 AS "1", 6 AS "7"',
      "SELECT json_group_array(email ORDER BY email DESC) AS j FROM t",
      "SELECT body FROM f WHERE f MATCH 'quick' ORDER BY rank",
      "SELECT * FROM t WHERE id = -1",
      "PRAGMA foreign_keys",
      "UPDATE t SET n = n WHERE email = 'a@x' RETURNING id, n",
      "DELETE FROM t WHERE email = 'nobody'",
      "UPDATE t SET r = r WHERE email LIKE '%2'",
    ];
    for (const sql of reads) {
      const args = sql.includes("?") ? [0] : [];
      const a = plain(await ours.execute({ sql, args }));
      const b = plain(await theirs.execute({ sql, args }));
      assert.deepEqual(a, b, sql);
    }
    // The JSON form too (blobs in base64).
    const listing = "SELECT id, email, n, r, b FROM t ORDER BY id";
    assert.equal(
      JSON.stringify(await ours.execute(listing)),
      JSON.stringify(await theirs.execute(listing)),
    );
    // Blobs come back as ArrayBuffers with the bytes written.
    const row = (await ours.execute("SELECT b FROM t WHERE email = 'a@x'"))
      .rows[0];
    assert.ok(row.b instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(row.b), blob);
    // A view into a larger buffer (what the media store binds) stores its bytes only.
    const whole = new Uint8Array([9, 9, 1, 2, 3, 9]);
    await ours.execute({
      sql: "INSERT INTO t (email, b) VALUES ('view', ?)",
      args: [whole.subarray(2, 5)],
    });
    const view = await theirs.execute("SELECT b FROM t WHERE email = 'view'");
    assert.deepEqual(
      new Uint8Array(view.rows[0].b as ArrayBuffer),
      new Uint8Array([1, 2, 3]),
    );
    // Bigints bind as 64-bit integers.
    await ours.execute({
      sql: "INSERT INTO t (email, n) VALUES ('bigint', ?)",
      args: [2n ** 40n],
    });
    const big = await theirs.execute("SELECT n FROM t WHERE email = 'bigint'");
    assert.equal(big.rows[0].n, 2 ** 40);
    // Integers beyond 2^53 fail the same way (intMode "number").
    await ours.execute(
      "INSERT INTO t (email, n) VALUES ('big', 9007199254740993)",
    );
    await assert.rejects(
      ours.execute("SELECT n FROM t WHERE email = 'big'"),
      RangeError,
    );
    await assert.rejects(
      theirs.execute("SELECT n FROM t WHERE email = 'big'"),
      RangeError,
    );
  });
});

Deno.test("embedded client: errors carry the codes @libsql/client gives", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.executeMultiple(SCHEMA);
    await ours.execute("INSERT INTO t (id, email) VALUES (1, 'a@x')");
    const cases = [
      "INSERT INTO t (email) VALUES ('a@x')",
      "INSERT INTO t (id, email) VALUES (1, 'z@x')",
      "INSERT INTO t (email) VALUES (NULL)",
      "INSERT INTO t (email, parent) VALUES ('p@x', 999)",
      "SELECT nope FROM t",
      "SELEC 1",
    ];
    await theirs.execute("PRAGMA foreign_keys = ON");
    await ours.execute("PRAGMA foreign_keys = ON");
    for (const sql of cases) {
      const a = await ours.execute(sql).then(() => null, (e) => e);
      const b = await theirs.execute(sql).then(() => null, (e) => e);
      assert.ok(a && b, sql);
      assert.equal(a.name, b.name, sql);
      assert.equal(a.code, b.code, sql);
      assert.equal(a.extendedCode, b.extendedCode, sql);
      assert.equal(a.rawCode, b.rawCode, sql);
      assert.equal(a.message, b.message, sql);
      assert.equal(sqliteCode(a), sqliteCode(b), sql);
    }
    const dup = await ours.execute(cases[0]).catch((e) => e);
    assert.ok(isUniqueViolation(dup));
  });
});

Deno.test("embedded client: a batch is atomic; a failing statement leaves nothing written", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.executeMultiple(SCHEMA);
    const results = await ours.batch([
      { sql: "INSERT INTO t (email) VALUES (?)", args: ["a@x"] },
      ["INSERT INTO t (email) VALUES (?) RETURNING id", ["b@x"]],
      "SELECT count(*) AS c FROM t",
    ]);
    assert.equal(results.length, 3);
    assert.equal(results[0].rowsAffected, 1);
    assert.equal(results[1].rows[0].id, 2);
    assert.equal(results[2].rows[0].c, 2);
    const error = await ours.batch([
      "INSERT INTO t (email) VALUES ('c@x')",
      "INSERT INTO t (email) VALUES ('a@x')",
      "INSERT INTO t (email) VALUES ('d@x')",
    ]).catch((e) => e);
    assert.equal(error.name, "LibsqlBatchError");
    assert.equal(error.statementIndex, 1);
    assert.equal(error.extendedCode, "SQLITE_CONSTRAINT_UNIQUE");
    assert.ok(isUniqueViolation(error));
    assert.equal(ours.inTransaction, false);
    const count = "SELECT count(*) AS c FROM t";
    assert.equal((await ours.execute(count)).rows[0].c, 2);
    assert.equal((await theirs.execute(count)).rows[0].c, 2);
  });
});

Deno.test("embedded client: concurrent batches each commit or roll back whole", async () => {
  await withBoth(async (ours) => {
    await ours.executeMultiple(SCHEMA);
    // Every odd batch fails on its second statement (a duplicate of its first).
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        ours.batch([
          { sql: "INSERT INTO t (email) VALUES (?)", args: [`${i}@x`] },
          {
            sql: "INSERT INTO t (email) VALUES (?)",
            args: [i % 2 ? `${i}@x` : `${i}b@x`],
          },
        ])),
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      Array.from({ length: 20 }, (_, i) => i % 2 ? "rejected" : "fulfilled"),
    );
    const rows = await ours.execute("SELECT count(*) AS c FROM t");
    assert.equal(rows.rows[0].c, 20);
  });
});

Deno.test("embedded client: transactions commit and roll back, and hold the connection while open", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.executeMultiple(SCHEMA);
    const count = async (client: Client | EmbeddedClient) =>
      (await client.execute("SELECT count(*) AS c FROM t")).rows[0].c;

    const tx = await ours.transaction("write");
    await tx.execute({
      sql: "INSERT INTO t (email) VALUES (?)",
      args: ["a@x"],
    });
    // A statement outside the transaction waits for its end rather than joining it.
    let outside: unknown = "pending";
    const waiting = ours.execute("SELECT count(*) AS c FROM t").then((r) =>
      outside = r.rows[0].c
    );
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(outside, "pending");
    assert.equal(await count(theirs), 0, "not visible before commit");
    await tx.commit();
    await waiting;
    assert.equal(outside, 1);
    assert.equal(tx.closed, true);
    await assert.rejects(tx.execute("SELECT 1"), /TRANSACTION_CLOSED/);

    const rolled = await ours.transaction();
    await rolled.batch([
      "INSERT INTO t (email) VALUES ('b@x')",
      "INSERT INTO t (email) VALUES ('c@x')",
    ]);
    await rolled.rollback();
    assert.equal(await count(ours), 1);

    // close() rolls back, and a second transaction waits for the first.
    const first = await ours.transaction();
    await first.execute("INSERT INTO t (email) VALUES ('d@x')");
    let secondStarted = false;
    const second = ours.transaction().then((t) => {
      secondStarted = true;
      return t;
    });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(secondStarted, false);
    first.close();
    const next = await second;
    await next.execute("INSERT INTO t (email) VALUES ('e@x')");
    await next.commit();
    const emails = await ours.execute("SELECT email FROM t ORDER BY email");
    assert.deepEqual(emails.rows.map((r) => r.email), ["a@x", "e@x"]);
  });
});

Deno.test("embedded client: the statement cache is bounded and evicts the least recently used", async () => {
  await withBoth(async (ours) => {
    const cache = ours.statements;
    assert.equal(cache.limit, 3);
    for (const n of [1, 2, 3]) await ours.execute(`SELECT ${n}`);
    assert.equal(cache.size, 3);
    await ours.execute("SELECT 1"); // now the most recently used
    await ours.execute("SELECT 4"); // evicts SELECT 2
    assert.equal(cache.size, 3);
    assert.ok(cache.has("SELECT 1"));
    assert.ok(!cache.has("SELECT 2"));
    assert.ok(cache.has("SELECT 4"));
    // Many distinct statements never grow it past its limit.
    for (let i = 0; i < 50; i++) await ours.execute(`SELECT ${i} AS v`);
    assert.equal(cache.size, 3);
    // An evicted statement is prepared again and still answers.
    assert.equal((await ours.execute("SELECT 2 AS v")).rows[0].v, 2);
  }, { statementCacheSize: 3 });
});

Deno.test("embedded client: a schema change is seen by cached statements", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.execute("CREATE TABLE s (a INTEGER)");
    await ours.execute("INSERT INTO s VALUES (1)");
    assert.deepEqual((await ours.execute("SELECT * FROM s")).columns, ["a"]);
    // Changed by the other connection: the cached statement re-prepares.
    await theirs.execute("ALTER TABLE s ADD COLUMN b TEXT DEFAULT 'x'");
    const after = await ours.execute("SELECT * FROM s");
    assert.deepEqual(after.columns, ["a", "b"]);
    assert.equal(after.rows[0].b, "x");
  });
});

Deno.test("embedded database: the app's file stays readable by @libsql/client", async () => {
  const dir = await Deno.makeTempDir({ prefix: "embedded-db-" });
  const url = `file:${join(dir, "app.db")}`;
  try {
    const ctx = await createTestApp({ env: { DATABASE_URL: url } });
    const admin = await userWithToken(ctx, "admin");
    const res = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Concerts" },
    });
    assert.equal(res.status, 201, await res.text());
    ctx.close();
    const other = createClient({ url });
    try {
      const users = await other.execute("SELECT email FROM users");
      assert.deepEqual(users.rows.map((r) => r.email), [admin.email]);
      const names = await other.execute("SELECT name FROM collections");
      assert.deepEqual(names.rows.map((r) => r.name), ["Concerts"]);
      const check = await other.execute("PRAGMA integrity_check");
      assert.equal(check.rows[0][0], "ok");
    } finally {
      other.close();
    }
    // And back: opened again by our layer, migrations already applied.
    const again = await openDatabase(url);
    await again.migrate!();
    const count = await again.db.get<{ c: number }>(
      sql`SELECT count(*) AS c FROM users`,
    );
    assert.equal(count.c, 1);
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("embedded database: constraint errors are still 409s through the API", async () => {
  for (const url of [":memory:", "file"]) {
    const dir = await Deno.makeTempDir({ prefix: "embedded-db-" });
    const databaseUrl = url === "file" ? `file:${join(dir, "app.db")}` : url;
    const ctx = await createTestApp({ env: { DATABASE_URL: databaseUrl } });
    try {
      const admin = await userWithToken(ctx, "admin");
      const dup = await call(ctx, "POST", "/api/users", {
        token: admin.token,
        json: { email: admin.email, password: "long enough" },
      });
      await expectError(dup, 409, "conflict");
      assert.equal(await countRows(ctx, "users"), 1);
      const create = () =>
        call(ctx, "POST", "/api/collections", {
          token: admin.token,
          json: { name: "Same" },
        });
      assert.equal((await create()).status, 201);
      await expectError(await create(), 409, "conflict");
      assert.equal(await countRows(ctx, "collections"), 1);
    } finally {
      ctx.close();
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("write batches sent together share one commit; one that fails is rolled back alone and only its caller hears of it", async () => {
  await withBoth(async (ours, theirs) => {
    await ours.execute("create table t (k text primary key, n integer)");
    await ours.execute("insert into t values ('taken', 0)");
    let commits = 0;
    const run = ours.run.bind(ours);
    ours.run = (stmt, args) => {
      if (stmt === "COMMIT") commits++;
      return run(stmt, args);
    };
    const write = (k: string) =>
      ours.batch([
        { sql: "insert into t values (?, 1)", args: [`${k}-a`] },
        { sql: "insert into t values (?, 2)", args: [k] },
        { sql: "select count(*) as n from t where k like ?", args: [`${k}%`] },
      ]);
    const settled = await Promise.allSettled(
      ["one", "two", "taken", "three"].map(write),
    );
    assert.equal(commits, 1, "one commit for the four batches");
    assert.deepEqual(settled.map((s) => s.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const refused = (settled[2] as PromiseRejectedResult).reason;
    assert.ok(isUniqueViolation(refused), String(refused));
    // Each batch read its own writes.
    const first = (settled[0] as PromiseFulfilledResult<
      Awaited<ReturnType<typeof write>>
    >).value;
    assert.equal(first[2].rows[0][0], 2);
    // The failed batch left nothing (its first insert is rolled back too);
    // the others are on disk, as another connection sees.
    const rows = await theirs.execute("select k from t order by k");
    assert.deepEqual(rows.rows.map((r) => r[0]), [
      "one",
      "one-a",
      "taken",
      "three",
      "three-a",
      "two",
      "two-a",
    ]);
  });
});
