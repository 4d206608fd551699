/**
 * The local Hrana-over-HTTP server (tests/support/hrana-server.ts), checked
 * through `@libsql/client/web` (what the app uses for remote URLs) and, for
 * the parts that client does not exercise (Hrana 3 requests, batch
 * conditions, cursors, batons), through raw requests as the specification
 * writes them. Then the app itself over it.
 */
import assert from "node:assert/strict";
import { type Client, createClient, LibsqlError } from "@libsql/client/web";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import {
  isForeignKeyViolation,
  isUniqueViolation,
  sqliteCode,
} from "../lib/errors.ts";
import {
  type HranaServer,
  type HranaServerOptions,
  scanSql,
  startHranaServer,
} from "./support/hrana-server.ts";
import { spawnHranaServer } from "./support/hrana-process.ts";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  loginToken,
  type TestContext,
} from "./helpers.ts";

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` against a fresh server over a temporary database file. */
async function withServer(
  options: HranaServerOptions,
  fn: (
    server: HranaServer,
    client: (config?: { intMode?: "number" | "bigint" | "string" }) => Client,
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "hrana-test-" });
  const server = await startHranaServer({ path: `${dir}/test.db`, ...options });
  const clients: Client[] = [];
  try {
    await fn(server, (config = {}) => {
      const client = createClient({
        url: server.url,
        authToken: options.authToken,
        ...config,
      });
      clients.push(client);
      return client;
    });
  } finally {
    for (const client of clients) client.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** POSTs a JSON body to an endpoint; returns the status and parsed body. */
async function post(
  server: HranaServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  // deno-lint-ignore no-explicit-any -- protocol bodies are read field by field
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const exec = (sql: string, args?: unknown[]) => ({
  type: "execute",
  stmt: { sql, ...(args ? { args } : {}) },
});

async function count(client: Client, table: string): Promise<number> {
  const rs = await client.execute(`select count(*) as n from ${table}`);
  return Number(rs.rows[0].n);
}

/** The error a promise rejects with (and fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<LibsqlError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof LibsqlError, `not a LibsqlError: ${e}`);
    return e;
  }
  assert.fail("expected a rejection");
}

Deno.test("version probes: /v2 and /v3 answer 200, /v3-protobuf and unknown paths 404", async () => {
  await withServer({}, async (server) => {
    for (const path of ["v2", "v3", "health", ""]) {
      const res = await fetch(`${server.url}${path}`);
      await res.body?.cancel();
      assert.equal(res.status, 200, path);
    }
    for (const path of ["v3-protobuf", "v4"]) {
      const res = await fetch(`${server.url}${path}`);
      await res.body?.cancel();
      assert.equal(res.status, 404, path);
    }
    const proto = await post(server, "v3-protobuf/pipeline", {});
    assert.equal(proto.status, 404);
  });
});

Deno.test("values on the wire: integer as a string, float, text, blob as base64, null; result fields", async () => {
  await withServer({}, async (server) => {
    const { status, body } = await post(server, "v3/pipeline", {
      baton: null,
      requests: [
        exec("create table w(i integer, r real, t text, b blob, n)"),
        exec("insert into w values (?, ?, ?, ?, ?)", [
          { type: "integer", value: "-9223372036854775808" },
          { type: "float", value: 2 },
          { type: "text", value: "é✓" },
          { type: "blob", base64: "AP8=" },
          { type: "null" },
        ]),
        exec("select i, r, t, b, n, typeof(r) as tr, 1.5 * 2 as e from w"),
        { type: "close" },
      ],
    });
    assert.equal(status, 200);
    assert.equal(body.baton, null);
    assert.equal(body.base_url, null);
    assert.deepEqual(body.results.map((r: { type: string }) => r.type), [
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
    const insert = body.results[1].response.result;
    assert.equal(insert.affected_row_count, 1);
    assert.equal(insert.last_insert_rowid, "1");
    const select = body.results[2].response;
    assert.equal(select.type, "execute");
    assert.deepEqual(select.result.cols, [
      { name: "i", decltype: "INTEGER" },
      { name: "r", decltype: "REAL" },
      { name: "t", decltype: "TEXT" },
      { name: "b", decltype: "BLOB" },
      { name: "n", decltype: null },
      { name: "tr", decltype: null },
      { name: "e", decltype: null },
    ]);
    assert.deepEqual(select.result.rows, [[
      { type: "integer", value: "-9223372036854775808" },
      { type: "float", value: 2 },
      { type: "text", value: "é✓" },
      { type: "blob", base64: "AP8=" },
      { type: "null" },
      { type: "text", value: "real" },
      { type: "float", value: 3 },
    ]]);
    assert.equal(select.result.affected_row_count, 0);
    assert.equal(typeof select.result.query_duration_ms, "number");
    assert.equal(select.result.rows_read, 1);
    // want_rows: false keeps the columns and drops the rows.
    const noRows = await post(server, "v2/pipeline", {
      baton: null,
      requests: [{
        type: "execute",
        stmt: { sql: "select * from w", want_rows: false },
      }],
    });
    assert.deepEqual(noRows.body.results[0].response.result.rows, []);
    assert.equal(noRows.body.results[0].response.result.cols.length, 5);
  });
});

Deno.test("execute: every value type round-trips through @libsql/client/web, per intMode", async () => {
  await withServer({}, async (_server, client) => {
    const big = client({ intMode: "bigint" });
    await big.execute(
      "create table v(id integer primary key, i integer, r real, t text, b blob, n, x)",
    );
    const bytes = new Uint8Array(256).map((_, i) => i);
    const inserted = await big.execute({
      sql: "insert into v(i, r, t, b, n, x) values (?, ?, ?, ?, ?, ?)",
      args: [9223372036854775807n, 1.5, "héllo ✓ 'quoted'", bytes, null, 2],
    });
    assert.equal(inserted.rowsAffected, 1);
    assert.equal(inserted.lastInsertRowid, 1n);
    await big.execute({
      sql: "insert into v(i, r, t, b, n, x) values (?, ?, ?, ?, ?, ?)",
      args: [-9223372036854775808n, -0.25, "", new Uint8Array(0), null, 3n],
    });
    const rs = await big.execute(
      "select i, r, t, b, n, x, typeof(b) as tb, typeof(x) as tx from v order by id",
    );
    assert.deepEqual(rs.columns, ["i", "r", "t", "b", "n", "x", "tb", "tx"]);
    assert.deepEqual(rs.columnTypes, [
      "INTEGER",
      "REAL",
      "TEXT",
      "BLOB",
      "",
      "",
      "",
      "",
    ]);
    const [first, second] = rs.rows;
    assert.equal(first.i, 9223372036854775807n);
    assert.equal(first.r, 1.5);
    assert.equal(first.t, "héllo ✓ 'quoted'");
    assert.deepEqual(new Uint8Array(first.b as ArrayBuffer), bytes);
    assert.equal(first.n, null);
    // A JS number is sent as a float: 2 is stored as REAL in an untyped column.
    assert.equal(first.x, 2);
    assert.equal(first.tx, "real");
    assert.equal(second.i, -9223372036854775808n);
    assert.equal(second.r, -0.25);
    assert.equal(second.t, "");
    assert.equal((second.b as ArrayBuffer).byteLength, 0);
    assert.equal(second.tb, "blob");
    assert.equal(second.x, 3n);
    assert.equal(second.tx, "integer");
    const inf = await big.execute("select 1e999 as p, -1e999 as m");
    assert.equal(inf.rows[0].p, Infinity);
    assert.equal(inf.rows[0].m, -Infinity);

    const num = client({ intMode: "number" });
    const small = await num.execute("select x, 42 as n from v where id = 2");
    assert.equal(small.rows[0].x, 3);
    assert.equal(small.rows[0].n, 42);
    await assert.rejects(
      num.execute("select i from v where id = 1"),
      RangeError,
    );
    const str = client({ intMode: "string" });
    const asText = await str.execute("select i from v where id = 1");
    assert.equal(asText.rows[0].i, "9223372036854775807");

    const updated = await big.execute("update v set n = 1");
    assert.equal(updated.rowsAffected, 2);
    const read = await big.execute("select * from v");
    assert.equal(read.rowsAffected, 0);
    const deleted = await big.execute({
      sql: "delete from v where id = ?",
      args: [2],
    });
    assert.equal(deleted.rowsAffected, 1);
  });
});

Deno.test("named arguments bind with or without their prefix; unknown names and extra arguments fail", async () => {
  await withServer({}, async (_server, client) => {
    const c = client();
    const rs = await c.execute({
      sql: "select :a as a, @b as b, $c as c, :a || 'x' as again",
      args: { a: "one", "@b": 2n, c: null },
    });
    assert.deepEqual(
      { ...rs.rows[0] },
      { a: "one", b: 2, c: null, again: "onex" },
    );
    const numbered = await c.execute({
      sql: "select ?2 as second, ?1 as first, ? as third",
      args: ["a", "b", "c"],
    });
    assert.deepEqual({ ...numbered.rows[0] }, {
      second: "b",
      first: "a",
      third: "c",
    });
    const unknown = await rejection(
      c.execute({ sql: "select :a", args: { b: 1 } }),
    );
    assert.equal(unknown.code, "ARGS_INVALID");
    const extra = await rejection(c.execute({ sql: "select ?", args: [1, 2] }));
    assert.equal(extra.code, "ARGS_INVALID");
  });
});

Deno.test("batch: atomic in write mode; a failing statement rolls back the earlier ones", async () => {
  await withServer({}, async (_server, client) => {
    const c = client();
    await c.execute(
      "create table u(id integer primary key, email text unique)",
    );
    const ok = await c.batch([
      { sql: "insert into u(email) values (?)", args: ["a@x"] },
      { sql: "insert into u(email) values (?)", args: ["b@x"] },
      "select email from u order by id",
    ], "write");
    assert.equal(ok.length, 3);
    assert.equal(ok[1].lastInsertRowid, 2n);
    assert.deepEqual(ok[2].rows.map((r) => r.email), ["a@x", "b@x"]);
    const error = await rejection(c.batch([
      { sql: "insert into u(email) values (?)", args: ["c@x"] },
      { sql: "update u set email = 'changed' where id = 1", args: [] },
      { sql: "insert into u(email) values (?)", args: ["b@x"] },
    ], "write"));
    assert.equal(error.code, "SQLITE_CONSTRAINT");
    assert.match(error.message, /UNIQUE constraint failed: u\.email/);
    const rows = await c.execute("select email from u order by id");
    assert.deepEqual(rows.rows.map((r) => r.email), ["a@x", "b@x"]);
    assert.equal(error.code, "SQLITE_CONSTRAINT");
  });
});

Deno.test("interactive transactions: commit, rollback, isolation from a concurrent stream", async () => {
  await withServer({}, async (server, client) => {
    const a = client();
    const b = client();
    await a.execute("create table t(x integer)");

    const tx = await a.transaction("write");
    await tx.execute("insert into t values (1)");
    await tx.execute("insert into t values (2)");
    const inside = await tx.execute("select count(*) as n from t");
    assert.equal(inside.rows[0].n, 2);
    // Another stream sees nothing uncommitted ...
    assert.equal(await count(b, "t"), 0);
    // ... and its write waits for the lock without blocking the server.
    let written = false;
    const concurrent = b.execute("insert into t values (3)").then(() => {
      written = true;
    });
    await delay(150);
    assert.equal(written, false);
    assert.equal(await count(b, "t"), 0);
    await tx.execute("insert into t values (4)");
    await tx.commit();
    await concurrent;
    assert.equal(await count(b, "t"), 4);

    const rolledBack = await a.transaction("write");
    await rolledBack.execute("insert into t values (5)");
    await rolledBack.execute("delete from t where x = 1");
    await rolledBack.rollback();
    assert.equal(await count(b, "t"), 4);
    assert.equal(server.openStreams, 0);
  });
});

Deno.test("a stream that expires mid-transaction is rolled back and its baton refused", async () => {
  await withServer({ streamIdleMs: 150 }, async (server, client) => {
    const a = client();
    await a.execute("create table t(x integer)");
    const tx = await a.transaction("write");
    await tx.execute("insert into t values (1)");
    await delay(600);
    assert.equal(server.openStreams, 0);
    const error = await rejection(tx.execute("insert into t values (2)"));
    assert.equal(error.code, "STREAM_EXPIRED");
    tx.close();
    assert.equal(await count(a, "t"), 0);
    // The lock went with it: another write goes through at once.
    await a.execute("insert into t values (3)");
    assert.equal(await count(a, "t"), 1);
  });
});

Deno.test("batons: fresh on every response, single use, unknown or forged refused with 400", async () => {
  await withServer({ streamIdleMs: 200 }, async (server) => {
    const first = await post(server, "v2/pipeline", {
      baton: null,
      requests: [exec("create table t(x)")],
    });
    assert.equal(first.status, 200);
    const b1 = first.body.baton;
    assert.equal(typeof b1, "string");
    const second = await post(server, "v2/pipeline", {
      baton: b1,
      requests: [exec("insert into t values (1)")],
    });
    assert.equal(second.status, 200);
    const b2 = second.body.baton;
    assert.notEqual(b2, b1);
    const reused = await post(server, "v2/pipeline", {
      baton: b1,
      requests: [exec("select 1")],
    });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.code, "BATON_INVALID");
    assert.equal(typeof reused.body.message, "string");
    const forged = await post(server, "v2/pipeline", {
      baton: "AAAA",
      requests: [],
    });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.code, "BATON_INVALID");
    const closed = await post(server, "v2/pipeline", {
      baton: b2,
      requests: [{ type: "close" }],
    });
    assert.equal(closed.status, 200);
    assert.equal(closed.body.baton, null);
    const afterClose = await post(server, "v2/pipeline", {
      baton: b2,
      requests: [],
    });
    assert.equal(afterClose.status, 400);
    // A stream left open expires after its idle time.
    const open = await post(server, "v2/pipeline", {
      baton: null,
      requests: [exec("select 1")],
    });
    assert.equal(server.openStreams, 1);
    await delay(700);
    assert.equal(server.openStreams, 0);
    const expired = await post(server, "v2/pipeline", {
      baton: open.body.baton,
      requests: [exec("select 1")],
    });
    assert.equal(expired.status, 400);
    assert.equal(expired.body.code, "STREAM_EXPIRED");
    // Malformed bodies are refused as a whole.
    const notJson = await fetch(`${server.url}v2/pipeline`, {
      method: "POST",
      body: "{",
    });
    assert.equal(notJson.status, 400);
    await notJson.body?.cancel();
    const unknownType = await post(server, "v2/pipeline", {
      baton: null,
      requests: [{ type: "open_cursor" }],
    });
    assert.equal(unknownType.status, 400);
  });
});

Deno.test("batch conditions: ok, error, not, and, or, is_autocommit (Hrana 3)", async () => {
  await withServer({}, async (server) => {
    const step = (sql: string, condition?: unknown) => ({
      stmt: { sql },
      ...(condition ? { condition } : {}),
    });
    const steps = [
      step("select 1"), // 0 ok
      step("selec"), // 1 error
      step("select 2", { type: "ok", step: 0 }), // 2 runs
      step("select 3", { type: "ok", step: 1 }), // 3 skipped
      step("select 4", { type: "error", step: 1 }), // 4 runs
      step("select 5", { type: "not", cond: { type: "ok", step: 1 } }), // 5 runs
      step("select 6", {
        type: "and",
        conds: [{ type: "ok", step: 0 }, { type: "error", step: 1 }],
      }), // 6 runs
      step("select 7", {
        type: "or",
        conds: [{ type: "ok", step: 1 }, { type: "ok", step: 3 }],
      }), // 7 skipped
      step("select 8", { type: "is_autocommit" }), // 8 runs
      step("begin"), // 9 runs
      step("select 10", { type: "is_autocommit" }), // 10 skipped
      step("rollback", { type: "not", cond: { type: "is_autocommit" } }), // 11 runs
    ];
    const { status, body } = await post(server, "v3/pipeline", {
      baton: null,
      requests: [{ type: "batch", batch: { steps } }, { type: "close" }],
    });
    assert.equal(status, 200);
    const result = body.results[0].response.result;
    const ran = result.step_results.map((r: unknown, i: number) =>
      r !== null ? i : -1
    ).filter((i: number) => i >= 0);
    const failed = result.step_errors.map((r: unknown, i: number) =>
      r !== null ? i : -1
    ).filter((i: number) => i >= 0);
    assert.deepEqual(ran, [0, 2, 4, 5, 6, 8, 9, 11]);
    assert.deepEqual(failed, [1]);
    assert.equal(result.step_errors[1].code, "SQL_PARSE_ERROR");
    assert.deepEqual(result.step_results[2].rows, [[{
      type: "integer",
      value: "2",
    }]]);

    const forward = await post(server, "v3/pipeline", {
      baton: null,
      requests: [{
        type: "batch",
        batch: { steps: [step("select 1", { type: "ok", step: 0 })] },
      }],
    });
    assert.equal(forward.status, 400);
    const v2 = await post(server, "v2/pipeline", {
      baton: null,
      requests: [{
        type: "batch",
        batch: { steps: [step("select 1", { type: "is_autocommit" })] },
      }],
    });
    assert.equal(v2.status, 400);
    assert.equal(v2.body.code, "NOT_SUPPORTED");
  });
});

Deno.test("get_autocommit, store_sql/close_sql, sequence, describe, and the v3 cursor", async () => {
  await withServer({}, async (server) => {
    const auto = await post(server, "v3/pipeline", {
      baton: null,
      requests: [
        { type: "get_autocommit" },
        exec("begin"),
        { type: "get_autocommit" },
        exec("rollback"),
        { type: "get_autocommit" },
        { type: "close" },
      ],
    });
    assert.deepEqual(
      [0, 2, 4].map((i) => auto.body.results[i].response.is_autocommit),
      [true, false, true],
    );
    const autoV2 = await post(server, "v2/pipeline", {
      baton: null,
      requests: [{ type: "get_autocommit" }],
    });
    assert.equal(autoV2.status, 400);

    const stored = await post(server, "v2/pipeline", {
      baton: null,
      requests: [
        { type: "store_sql", sql_id: 1, sql: "select ? + 1 as n" },
        {
          type: "execute",
          stmt: { sql_id: 1, args: [{ type: "integer", value: "41" }] },
        },
        {
          type: "batch",
          batch: { steps: [{ stmt: { sql_id: 1, args: [{ type: "null" }] } }] },
        },
        { type: "close_sql", sql_id: 1 },
        { type: "store_sql", sql_id: 2, sql: `select '${"x".repeat(5001)}'` },
      ],
    });
    assert.equal(stored.status, 200);
    const r = stored.body.results;
    assert.deepEqual(r[1].response.result.rows, [[{
      type: "integer",
      value: "42",
    }]]);
    assert.deepEqual(r[2].response.result.step_results[0].rows, [[{
      type: "null",
    }]]);
    assert.equal(r[3].type, "ok");
    assert.equal(r[4].type, "error");
    assert.equal(r[4].error.code, "SQL_STORE_TOO_LARGE");
    const gone = await post(server, "v2/pipeline", {
      baton: stored.body.baton,
      requests: [{ type: "execute", stmt: { sql_id: 1 } }],
    });
    assert.equal(gone.status, 400);

    const seq = await post(server, "v2/pipeline", {
      baton: null,
      requests: [
        {
          type: "sequence",
          sql: "create table s(x integer, y); insert into s values (1, 'a;b');",
        },
        exec("select x, y from s"),
        {
          type: "sequence",
          sql:
            "insert into s values (2, 0); selec; insert into s values (3, 0)",
        },
        exec("select count(*) from s"),
        { type: "close" },
      ],
    });
    assert.equal(seq.body.results[0].response.type, "sequence");
    assert.deepEqual(seq.body.results[1].response.result.rows, [[
      { type: "integer", value: "1" },
      { type: "text", value: "a;b" },
    ]]);
    assert.equal(seq.body.results[2].type, "error");
    assert.deepEqual(seq.body.results[3].response.result.rows, [[
      { type: "integer", value: "2" },
    ]]);

    const described = await post(server, "v2/pipeline", {
      baton: null,
      requests: [
        {
          type: "describe",
          sql: "select x, ? as p, :name as q from s where x = ?",
        },
        { type: "describe", sql: "insert into s values (1, 2)" },
        { type: "describe", sql: "explain select 1" },
        { type: "describe", sql: "select * from missing" },
        { type: "close" },
      ],
    });
    const [select, insert, explain, missing] = described.body.results;
    assert.deepEqual(select.response.result, {
      params: [{ name: null }, { name: ":name" }, { name: null }],
      cols: [
        { name: "x", decltype: "INTEGER" },
        { name: "p", decltype: null },
        { name: "q", decltype: null },
      ],
      is_explain: false,
      is_readonly: true,
    });
    assert.equal(insert.response.result.is_readonly, false);
    assert.equal(explain.response.result.is_explain, true);
    assert.equal(missing.type, "error");
    assert.match(missing.error.message, /no such table: missing/);

    const res = await fetch(`${server.url}v3/cursor`, {
      method: "POST",
      body: JSON.stringify({
        baton: null,
        batch: {
          steps: [
            { stmt: { sql: "select 1 as a union all select 2" } },
            { stmt: { sql: "selec" } },
          ],
        },
      }),
    });
    const lines = (await res.text()).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(typeof lines[0].baton, "string");
    assert.deepEqual(lines.slice(1).map((l) => l.type), [
      "step_begin",
      "row",
      "row",
      "step_end",
      "step_error",
    ]);
    assert.deepEqual(lines[1].cols, [{ name: "a", decltype: null }]);
    assert.deepEqual(lines[3].row, [{ type: "integer", value: "2" }]);
    assert.equal(lines[5].step, 1);
    const closed = await post(server, "v3/pipeline", {
      baton: lines[0].baton,
      requests: [{ type: "close" }],
    });
    assert.equal(closed.body.baton, null);
  });
});

Deno.test("executeMultiple: statements split outside strings, comments and trigger bodies", async () => {
  await withServer({}, async (_server, client) => {
    const c = client();
    await c.executeMultiple(`
      create table a(x integer, label text);
      create table log(msg text); -- a comment; with a semicolon
      /* another; one */
      create trigger a_ins after insert on a begin
        insert into log values (case when new.x > 0 then 'pos;itive' else 'neg' end);
        insert into log values ('done');
      end;
      insert into a values (1, 'semi;colon'); insert into a values (-1, [odd;name]);
    `.replace("[odd;name]", "'x'"));
    const log = await c.execute("select msg from log order by rowid");
    assert.deepEqual(log.rows.map((r) => r.msg), [
      "pos;itive",
      "done",
      "neg",
      "done",
    ]);
    const a = await c.execute("select label from a order by rowid");
    assert.deepEqual(a.rows.map((r) => r.label), ["semi;colon", "x"]);
    // A failing statement stops the sequence.
    const error = await rejection(
      c.executeMultiple(
        "insert into a values (2, 'y'); selec; insert into a values (3, 'z')",
      ),
    );
    assert.equal(error.code, "SQL_PARSE_ERROR");
    assert.equal(await count(c, "a"), 3);
  });
});

Deno.test("scanSql: statement boundaries and parameter numbering as SQLite does it", () => {
  const scanned = scanSql(
    "select ?, :a, ?5, :a, ?, @b; -- x;\n" +
      "create temp trigger t after insert on x begin select case when 1 then 2 end; select 'end;'; end; " +
      'select "a;b", `c;d`, [e;f] /* ; */',
  );
  assert.equal(scanned.length, 3);
  assert.deepEqual(scanned[0].params, [
    null,
    ":a",
    null,
    null,
    "?5",
    null,
    "@b",
  ]);
  assert.match(scanned[1].text, /^create temp trigger .* end$/);
  assert.deepEqual(scanned[2].params, []);
  assert.deepEqual(scanSql("  ; -- nothing\n ;"), []);
});

Deno.test("errors: parse errors, many statements, and constraint codes as sqld sends them (or extended)", async () => {
  await withServer({}, async (_server, client) => {
    const c = client();
    await c.execute(
      "create table u(id integer primary key, email text unique)",
    );
    await c.execute("insert into u(email) values ('a@x')");
    const syntax = await rejection(c.execute("selec 1"));
    assert.equal(syntax.code, "SQL_PARSE_ERROR");
    assert.match(syntax.message, /syntax error/);
    const missing = await rejection(c.execute("select * from nope"));
    assert.equal(missing.code, "SQLITE_UNKNOWN");
    assert.match(missing.message, /no such table: nope/);
    const many = await rejection(c.execute("select 1; select 2"));
    assert.equal(many.code, "SQL_MANY_STATEMENTS");
    const none = await rejection(c.execute(" -- nothing"));
    assert.equal(none.code, "SQL_NO_STATEMENT");
    // sqld reports the primary result code and no extended code.
    const unique = await rejection(
      c.execute("insert into u(email) values ('a@x')"),
    );
    assert.equal(unique.code, "SQLITE_CONSTRAINT");
    assert.equal(unique.extendedCode, undefined);
    assert.match(unique.message, /UNIQUE constraint failed: u\.email/);
    // What the app reads to answer 409 (lib/errors.ts): the message then.
    assert.equal(isUniqueViolation(unique), true);
    assert.equal(sqliteCode(unique), "SQLITE_CONSTRAINT_UNIQUE");
    const pk = await rejection(
      c.execute("insert into u(id, email) values (1, 'b@x')"),
    );
    assert.equal(pk.code, "SQLITE_CONSTRAINT");
    assert.equal(isUniqueViolation(pk), true);
    await c.execute("create table p(id integer primary key)");
    await c.execute(
      "create table r(p integer references p(id), n text not null)",
    );
    const fk = await rejection(c.execute("insert into r values (9, 'x')"));
    assert.equal(fk.code, "SQLITE_CONSTRAINT");
    assert.equal(isForeignKeyViolation(fk), true);
    assert.equal(isUniqueViolation(fk), false);
    const notNull = await rejection(
      c.execute("insert into r values (null, null)"),
    );
    assert.equal(sqliteCode(notNull), "SQLITE_CONSTRAINT_NOTNULL");
    assert.equal(isUniqueViolation(notNull), false);
  });
  await withServer({ errorCodes: "extended" }, async (_server, client) => {
    const c = client();
    await c.execute(
      "create table u(id integer primary key, email text unique)",
    );
    await c.execute("insert into u(email) values ('a@x')");
    const unique = await rejection(
      c.execute("insert into u(email) values ('a@x')"),
    );
    assert.equal(unique.code, "SQLITE_CONSTRAINT_UNIQUE");
    // What the app reads to answer 409 (lib/errors.ts).
    assert.equal(isUniqueViolation(unique), true);
    const pk = await rejection(
      c.execute("insert into u(id, email) values (1, 'b@x')"),
    );
    assert.equal(pk.code, "SQLITE_CONSTRAINT_PRIMARYKEY");
  });
});

Deno.test("foreign keys: enforced by default as on sqld, off on request; a stream's PRAGMA does not leak", async () => {
  const schema = [
    "create table p(id integer primary key)",
    "create table ch(id integer primary key, p integer references p(id))",
  ];
  await withServer({}, async (server, client) => {
    const c = client();
    for (const sql of schema) await c.execute(sql);
    const fk = await rejection(c.execute("insert into ch(p) values (7)"));
    assert.equal(fk.code, "SQLITE_CONSTRAINT");
    assert.match(fk.message, /FOREIGN KEY constraint failed/);
    // A PRAGMA changes that stream's connection only.
    await c.execute("pragma foreign_keys = off");
    const next = await c.execute("pragma foreign_keys");
    assert.equal(next.rows[0].foreign_keys, 1);
    // A batch runs inside BEGIN ... COMMIT, where SQLite ignores a change of
    // foreign_keys: the insert is still checked.
    const inBatch = await rejection(c.batch([
      "pragma foreign_keys = off",
      "insert into ch(p) values (8)",
    ], "deferred"));
    assert.match(inBatch.message, /FOREIGN KEY constraint failed/);
    // Within one stream, outside a transaction, the PRAGMA holds.
    const raw = await post(server, "v2/pipeline", {
      baton: null,
      requests: [
        exec("pragma foreign_keys = off"),
        exec("insert into ch(p) values (9)"),
        { type: "close" },
      ],
    });
    assert.equal(raw.body.results[1].type, "ok");
    assert.equal(await count(c, "ch"), 1);
    const fresh = await c.execute("pragma foreign_keys");
    assert.equal(fresh.rows[0].foreign_keys, 1);
  });
  await withServer({ foreignKeys: false }, async (_server, client) => {
    const c = client();
    for (const sql of schema) await c.execute(sql);
    await c.execute("insert into ch(p) values (7)");
    assert.equal(await count(c, "ch"), 1);
  });
});

Deno.test("auth token: pipelines need the bearer token; version probes do not", async () => {
  await withServer({ authToken: "s3cret" }, async (server) => {
    const probe = await fetch(`${server.url}v2`);
    await probe.body?.cancel();
    assert.equal(probe.status, 200);
    const good = createClient({ url: server.url, authToken: "s3cret" });
    const none = createClient({ url: server.url });
    const wrong = createClient({ url: server.url, authToken: "nope" });
    try {
      const rs = await good.execute("select 1 as one");
      assert.equal(rs.rows[0].one, 1);
      for (const client of [none, wrong]) {
        const error = await rejection(client.execute("select 1"));
        assert.equal(error.code, "SERVER_ERROR");
        assert.match(error.message, /401/);
      }
      const raw = await post(server, "v2/pipeline", {
        baton: null,
        requests: [],
      }, { authorization: "Bearer nope" });
      assert.equal(raw.status, 401);
    } finally {
      good.close();
      none.close();
      wrong.close();
    }
  });
});

Deno.test("the request counter counts pipeline round trips", async () => {
  await withServer({}, async (server, client) => {
    const c = client();
    await c.execute("create table t(x)");
    server.resetCount();
    assert.equal(server.requests, 0);
    await c.execute("insert into t values (1)");
    assert.equal(server.requests, 1);
    await c.batch(
      ["insert into t values (2)", "insert into t values (3)"],
      "write",
    );
    assert.equal(server.requests, 2);
    const tx = await c.transaction("write");
    await tx.execute("insert into t values (4)"); // BEGIN + statement
    await tx.execute("insert into t values (5)");
    await tx.commit(); // COMMIT + close
    assert.equal(server.requests, 5);
    server.resetCount();
    assert.equal(server.requests, 0);
  });
});

Deno.test("as a process: the script serves a database file given by --db, and namespaces", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hrana-proc-" });
  const proc = await spawnHranaServer({
    db: `${dir}/root.db`,
    namespacesDir: `${dir}/ns`,
  });
  const root = createClient({ url: proc.url });
  const one = createClient({ url: proc.namespaceUrl("one") });
  const two = createClient({ url: proc.namespaceUrl("two") });
  try {
    await root.execute("create table r(x)");
    await one.execute("create table t(x)");
    await one.execute("insert into t values ('in one')");
    await assert.rejects(two.execute("select * from t"), /no such table/);
    await assert.rejects(one.execute("select * from r"), /no such table/);
    const rs = await one.execute("select x from t");
    assert.equal(rs.rows[0].x, "in one");
    assert.ok((await Deno.stat(`${dir}/root.db`)).isFile);
    assert.ok((await Deno.stat(`${dir}/ns/one.db`)).isFile);
  } finally {
    root.close();
    one.close();
    two.close();
    await proc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("QUANDO_TEST_DATABASE=hrana gives each test app a fresh remote database (default :memory:)", async () => {
  const remote = Deno.env.get("QUANDO_TEST_DATABASE") === "hrana";
  const a = await createTestApp();
  const b = await createTestApp();
  try {
    assert.equal(a.database.embedded, !remote);
    assert.equal(b.database.embedded, !remote);
    const before = await countRows(b, "users");
    await createTestUser(a);
    assert.equal(await countRows(b, "users"), before);
    assert.equal(await countRows(a, "users"), before + 1);
  } finally {
    a.close();
    b.close();
  }
});

/** The app over a database on the Hrana server, as on Turso. */
async function withRemoteApp(
  options: HranaServerOptions,
  fn: (ctx: TestContext, server: HranaServer) => Promise<void>,
): Promise<void> {
  await withServer(options, async (server) => {
    const database = await openDatabase(server.url);
    assert.equal(database.embedded, false);
    await migrateDatabase(database);
    const ctx = await createTestApp({ database });
    try {
      await fn(ctx, server);
    } finally {
      ctx.close();
    }
  });
}

Deno.test("the app over Hrana: migrations, login, create, read, list and delete an event", async () => {
  await withRemoteApp({}, async (ctx, server) => {
    const tables = await ctx.database.db.all<{ name: string }>(
      "select name from sqlite_master where type = 'table' and name = 'events'",
    );
    assert.equal(tables.length, 1);
    const { email, password } = await createTestUser(ctx);
    const token = await loginToken(ctx, email, password);
    const start = Date.parse("2026-06-02T18:00:00Z") / 1000;
    server.resetCount();
    const created = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Concerto remoto",
        start_datetime: start,
        end_datetime: start + 7200,
        place_name: "Circolo",
        place_address: "Via Roma 1",
        tags: ["musica"],
      },
    });
    const createdText = await created.text();
    assert.equal(created.status, 201, createdText);
    assert.ok(server.requests > 0);
    const event = JSON.parse(createdText);

    const read = await call(ctx, "GET", `/api/events/${event.id}`);
    assert.equal(read.status, 200);
    const full = await read.json();
    assert.equal(full.title, "Concerto remoto");
    assert.equal(full.place.name, "Circolo");
    assert.deepEqual(full.tags.map((t: { tag: string }) => t.tag), ["musica"]);

    const list = await call(ctx, "GET", "/api/events");
    assert.equal(list.status, 200);
    const listed = await list.json();
    const items = Array.isArray(listed) ? listed : listed.events ?? listed.data;
    assert.ok(
      JSON.stringify(items).includes("Concerto remoto"),
      JSON.stringify(listed).slice(0, 300),
    );

    const removed = await call(ctx, "DELETE", `/api/events/${event.id}`, {
      token,
    });
    assert.ok(
      removed.status === 200 || removed.status === 204,
      await removed.text(),
    );
    const after = await call(ctx, "GET", `/api/events/${event.id}`);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  });
});

Deno.test("the app over Hrana with extended codes: a duplicate e-mail is a 409", async () => {
  await withRemoteApp({ errorCodes: "extended" }, async (ctx) => {
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    const body = {
      email: "twice@example.org",
      password: "correct horse battery",
    };
    const first = await call(ctx, "POST", "/api/users", { token, json: body });
    assert.equal(first.status, 201, await first.text());
    const second = await call(ctx, "POST", "/api/users", { token, json: body });
    assert.equal(second.status, 409, await second.text());
  });
});

Deno.test({
  name:
    "the app over Hrana as sqld answers (SQLITE_CONSTRAINT, no extended code): a duplicate e-mail is a 409",
  fn: async () => {
    await withRemoteApp({}, async (ctx) => {
      const admin = await createTestUser(ctx, { role: "admin" });
      const token = await loginToken(ctx, admin.email, admin.password);
      const body = {
        email: "twice@example.org",
        password: "correct horse battery",
      };
      const first = await call(ctx, "POST", "/api/users", {
        token,
        json: body,
      });
      assert.equal(first.status, 201, await first.text());
      const second = await call(ctx, "POST", "/api/users", {
        token,
        json: body,
      });
      assert.equal(second.status, 409, await second.text());
    });
  },
});
