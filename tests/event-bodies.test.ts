/**
 * Kept event answers (lib/events/bodies.ts, db/migrations/0023): an
 * anonymous GET /api/events/{id} is answered from the JSON text kept by an
 * earlier read, which every change it depends on deletes. Each test compares
 * the answers of an app that keeps bodies with those of an app over the same
 * database that assembles every answer.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import {
  call,
  createTestApp,
  postEvent,
  TEST_NOW,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { createEventBodyFiller } from "../lib/events/bodies.ts";

const DAY = 86400;
const NO_CACHE = { PUBLIC_CACHE_MS: "0" };

/** An app keeping bodies, and one over the same database that keeps none. */
async function pair() {
  const ctx = await createTestApp({ env: NO_CACHE });
  const plain = await createTestApp({
    database: ctx.database,
    env: NO_CACHE,
    keepEventBodies: false,
  });
  const setNow = (seconds: number) => {
    ctx.clock.set(seconds * 1000);
    plain.clock.set(seconds * 1000);
  };
  return { ctx, plain, setNow };
}

/** The anonymous answer: status, content type and body text. */
async function anonymous(ctx: TestContext, id: number) {
  const res = await call(ctx, "GET", `/api/events/${id}`);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    text: await res.text(),
  };
}

/** The kept body of event `id`, if any (after the waiting fills are stored). */
async function kept(ctx: TestContext, id: number): Promise<string | null> {
  await ctx.eventBodies!.flush();
  const [row] = await ctx.database.db.all<{ body: string }>(
    sql`select body from event_bodies where event_id = ${id}`,
  );
  return row?.body ?? null;
}

/** Reads `id` from both apps and asserts the same answer. */
async function sameAnswer(
  apps: { ctx: TestContext; plain: TestContext },
  id: number,
  label: string,
) {
  const fast = await anonymous(apps.ctx, id);
  const slow = await anonymous(apps.plain, id);
  assert.equal(fast.status, slow.status, label);
  assert.equal(fast.type, slow.type, label);
  assert.equal(fast.text, slow.text, label);
  return fast;
}

Deno.test("an anonymous read keeps its answer; the next one is answered with the same bytes and headers", async () => {
  const apps = await pair();
  const { token } = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, token, { tags: ["jazz"] });
  assert.equal(await kept(apps.ctx, event.id), null);
  const first = await call(apps.ctx, "GET", `/api/events/${event.id}`);
  const firstText = await first.text();
  assert.equal(first.status, 200);
  assert.equal(await kept(apps.ctx, event.id), firstText);
  const second = await call(apps.ctx, "GET", `/api/events/${event.id}`);
  assert.equal(await second.text(), firstText);
  assert.deepEqual([...second.headers], [...first.headers]);
  const plain = await call(apps.plain, "GET", `/api/events/${event.id}`);
  assert.equal(await plain.text(), firstText);
  assert.deepEqual([...plain.headers], [...first.headers]);
  // The kept answer is what the API documents: ap_object made for the page.
  const parsed = JSON.parse(firstText);
  assert.equal(parsed.ap_object.type, "Event");
  assert.equal(parsed.user.email, undefined);
  apps.ctx.close();
});

Deno.test("on the embedded database a kept answer is read by its own lookup alone; without one the answer is assembled after it", async () => {
  const apps = await pair();
  const { token } = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, token);
  // deno-lint-ignore no-explicit-any -- reaching the libSQL client under Drizzle to see its statements
  const client = (apps.ctx.database.db as any).$client;
  const batch = client.batch.bind(client);
  let seen: string[] = [];
  client.batch = (stmts: { sql: string }[], ...rest: unknown[]) => {
    seen.push(...stmts.map((s) => s.sql));
    return batch(stmts, ...rest);
  };
  const reads = async (id: number) => {
    seen = [];
    const res = await call(apps.ctx, "GET", `/api/events/${id}`);
    await res.body?.cancel();
    // The body's fill, stored after the answer, is not the read's.
    return {
      status: res.status,
      sql: seen.filter((s) => !/^\s*insert or replace/i.test(s)),
    };
  };
  const assembles = (text: string) => /json_object\(/.test(text);
  const first = await reads(event.id);
  assert.equal(first.status, 200);
  assert.equal(first.sql.length, 2);
  assert.ok(!assembles(first.sql[0]), "the kept body's lookup first");
  assert.ok(assembles(first.sql[1]), "then the assembly, as there was none");
  await apps.ctx.eventBodies!.flush();
  const second = await reads(event.id);
  assert.equal(second.status, 200);
  assert.equal(second.sql.length, 1);
  assert.ok(!assembles(second.sql[0]));
  const unknown = await reads(999_999);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.sql.length, 2);
  apps.ctx.close();
});

Deno.test("a signed-in reader never gets the kept answer; hidden events keep none and answer 404", async () => {
  const apps = await pair();
  const owner = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, owner.token);
  await anonymous(apps.ctx, event.id);
  assert.notEqual(await kept(apps.ctx, event.id), null);
  const mine = await call(apps.ctx, "GET", `/api/events/${event.id}`, {
    token: owner.token,
  });
  // The owner sees their own full user record, which the public never does.
  assert.equal((await mine.json()).user.email, owner.email);
  const hidden = await call(
    apps.ctx,
    "PUT",
    `/api/events/${event.id}/toggle`,
    { token: owner.token },
  );
  assert.equal(hidden.status, 200);
  assert.equal(await kept(apps.ctx, event.id), null);
  assert.equal((await sameAnswer(apps, event.id, "hidden")).status, 404);
  assert.equal(await kept(apps.ctx, event.id), null);
  assert.equal((await anonymous(apps.ctx, 999_999)).status, 404);
  apps.ctx.close();
});

Deno.test("every change an answer depends on ends its kept body", async () => {
  const apps = await pair();
  const admin = await userWithToken(apps.ctx, "admin");
  const author = await userWithToken(apps.ctx, "user");
  const single = await postEvent(apps.ctx, author.token, {
    title: "Single",
    tags: ["folk"],
    place_name: "Teatro",
    place_address: "Via Verdi 2",
  });
  const series = await postEvent(apps.ctx, author.token, {
    title: "Weekly",
    tags: ["folk"],
    start_datetime: TEST_NOW + DAY,
    recurrent: { frequency: "1w" },
    place_name: "Teatro",
    place_address: "Via Verdi 2",
  });
  const date = series.children[0].id as number;
  const ids = [single.id as number, series.id as number, date];
  /** Fills every body, then runs `change` and checks which ended, and every answer. */
  const check = async (
    label: string,
    change: () => Promise<unknown>,
    ended: number[],
  ) => {
    for (const id of ids) await anonymous(apps.ctx, id);
    for (const id of ids) {
      assert.notEqual(await kept(apps.ctx, id), null, `${label}: kept ${id}`);
    }
    await change();
    for (const id of ended) {
      assert.equal(await kept(apps.ctx, id), null, `${label}: ended ${id}`);
    }
    for (const id of ids) await sameAnswer(apps, id, `${label}: ${id}`);
  };
  const ok = async (res: Promise<Response>) => {
    const r = await res;
    assert.ok(r.status < 300, `${r.status} ${await r.text()}`);
  };

  await check(
    "event edited",
    () =>
      ok(call(apps.ctx, "PATCH", `/api/events/${single.id}`, {
        token: author.token,
        json: { title: "Single, renamed" },
      })),
    [single.id],
  );
  await check(
    "a date edited: its series lists it",
    () =>
      ok(call(apps.ctx, "PATCH", `/api/events/${date}`, {
        token: author.token,
        json: { title: "Weekly (special)" },
      })),
    [date, series.id],
  );
  await check(
    "the series edited: its dates show it",
    () =>
      ok(call(apps.ctx, "PATCH", `/api/events/${series.id}`, {
        token: author.token,
        json: { description: "Every week" },
      })),
    [series.id, date],
  );
  await check(
    "tags changed",
    () =>
      ok(call(apps.ctx, "PATCH", `/api/events/${single.id}`, {
        token: author.token,
        json: { tags: ["folk", "dance"] },
      })),
    [single.id],
  );
  await check(
    "the place edited",
    () =>
      ok(call(apps.ctx, "PUT", `/api/places/${single.placeId}`, {
        token: admin.token,
        json: { name: "Teatro Nuovo", address: "Via Verdi 4" },
      })),
    ids,
  );
  await check("the place changed by hand (no event touched)", async () => {
    await apps.ctx.database.db.run(
      sql`update places set latitude = 44.5, longitude = 11.3 where id = ${single.placeId}`,
    );
  }, ids);
  await check("the author's description", async () => {
    await apps.ctx.database.db.run(
      sql`update users set description = 'Our collective' where id = ${author.user.id}`,
    );
  }, ids);
  await check("a reply (resource) arrives", async () => {
    await apps.ctx.database.db.run(
      sql`insert into resources (activitypub_id, hidden, data, eventId, createdAt, updatedAt)
        values ('https://remote.example/notes/1', 0, '{"content":"hi"}', ${single.id}, 1, 1)`,
    );
  }, [single.id]);
  await check("the settings", () =>
    ok(call(apps.ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_timezone: "America/New_York" },
    })), ids);
  await check(
    "a date deleted: its series lists it no more",
    () =>
      ok(call(apps.ctx, "DELETE", `/api/events/${series.children[1].id}`, {
        token: author.token,
      })),
    [series.id],
  );
  apps.ctx.close();
});

Deno.test("a series' kept body ends when its first listed date is over", async () => {
  const apps = await pair();
  const { token } = await userWithToken(apps.ctx, "user");
  const series = await postEvent(apps.ctx, token, {
    title: "Weekly",
    start_datetime: TEST_NOW + DAY,
    recurrent: { frequency: "1w" },
  });
  const before = await sameAnswer(apps, series.id, "now");
  assert.notEqual(await kept(apps.ctx, series.id), null);
  const first = series.children[0];
  // A second after the first date ends, the series lists it no more.
  apps.setNow(first.end_datetime + 1);
  const after = await sameAnswer(apps, series.id, "after the first date");
  assert.notEqual(after.text, before.text);
  assert.notEqual(
    JSON.parse(after.text).children[0].id,
    first.id,
  );
  apps.ctx.close();
});

Deno.test("a body made before a change is never kept after it; a body of another variant is never served", async () => {
  const apps = await pair();
  const { token } = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, token);
  const db = apps.ctx.database.db;
  const generation = async () =>
    (await db.get<{ generation: number }>(
      sql`select generation from event_body_state`,
    )).generation;
  const seen = await generation();
  const stale = JSON.stringify({ stale: true });
  assert.equal(
    (await call(apps.ctx, "PATCH", `/api/events/${event.id}`, {
      token,
      json: { title: "Changed" },
    })).status,
    200,
  );
  assert.ok(await generation() > seen);
  const filler = createEventBodyFiller(apps.ctx.database, { delayMs: 0 });
  filler.offer({
    id: event.id,
    variant: "any",
    until: null,
    body: stale,
    generation: seen,
  });
  await filler.flush();
  assert.equal(await kept(apps.ctx, event.id), null);
  // An event deleted since is not given a body either.
  filler.offer({
    id: 999_999,
    variant: "any",
    until: null,
    body: stale,
    generation: await generation(),
  });
  await filler.flush();
  assert.equal(await kept(apps.ctx, 999_999), null);

  const answer = await sameAnswer(apps, event.id, "first read");
  assert.equal(await kept(apps.ctx, event.id), answer.text);
  await db.run(
    sql`update event_bodies set variant = 'another server', body = ${stale}`,
  );
  assert.equal(
    (await sameAnswer(apps, event.id, "other variant")).text,
    answer.text,
  );
  filler.close();
  apps.ctx.close();
});

Deno.test("keeping a body ends no cached answer: the change marker stays", async () => {
  const dir = await Deno.makeTempDir();
  const ctx = await createTestApp({
    env: { DATABASE_URL: `file:${dir}/bodies.db` },
  });
  const { token } = await userWithToken(ctx, "user");
  const event = await postEvent(ctx, token);
  const marker = ctx.database.changeMarker();
  assert.notEqual(marker, null);
  await call(ctx, "GET", `/api/events/${event.id}`);
  await ctx.eventBodies!.flush();
  const row = await ctx.database.db.get<{ n: number }>(
    sql`select count(*) as n from event_bodies`,
  );
  assert.equal(row.n, 1);
  assert.equal(ctx.database.changeMarker(), marker);
  // Fills commit without waiting for the disk; every other write still does.
  const [level] = await ctx.database.db.all<{ synchronous: number }>(
    sql`pragma synchronous`,
  );
  assert.equal(level.synchronous, 2, "synchronous = FULL after a fill");
  // A write is still seen.
  await call(ctx, "PATCH", `/api/events/${event.id}`, {
    token,
    json: { title: "Changed" },
  });
  assert.notEqual(ctx.database.changeMarker(), marker);
  ctx.close();
  await Deno.remove(dir, { recursive: true });
});
