/**
 * Kept event answers under attack (lib/events/bodies.ts, db/migrations/0023
 * and 0024): changes that reach an answer by a foreign key's action, by
 * another process, by the clock; requests of other methods and odd ids.
 * Each test compares the app keeping bodies with an app over the same
 * database that assembles every answer (tests/event-bodies.test.ts).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import {
  call,
  createTestApp,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { apUsers } from "../db/schema.ts";

const NO_CACHE = { PUBLIC_CACHE_MS: "0" };

/**
 * An app keeping bodies, and one over the same database that keeps none
 * (keeping asked for, so that the remote tier, QUANDO_TEST_DATABASE=hrana,
 * runs these too: main.ts keeps bodies on a remote database as well).
 */
async function pair() {
  const ctx = await createTestApp({ env: NO_CACHE, keepEventBodies: true });
  const plain = await createTestApp({
    database: ctx.database,
    env: NO_CACHE,
    keepEventBodies: false,
  });
  return { ctx, plain };
}

/** The anonymous answer: status, content type and body text. */
async function anonymous(ctx: TestContext, id: number | string) {
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

/** Fills the body of `id` and checks it is kept. */
async function fill(ctx: TestContext, id: number) {
  assert.equal((await anonymous(ctx, id)).status, 200);
  assert.notEqual(await kept(ctx, id), null, `kept ${id}`);
}

/** Reads `id` from both apps and asserts the same answer. */
async function sameAnswer(
  apps: { ctx: TestContext; plain: TestContext },
  id: number | string,
  label: string,
) {
  const fast = await anonymous(apps.ctx, id);
  const slow = await anonymous(apps.plain, id);
  assert.equal(fast.status, slow.status, label);
  assert.equal(fast.type, slow.type, label);
  assert.equal(fast.text, slow.text, label);
  return fast;
}

async function insertActor(ctx: TestContext, ap_id: string, domain?: string) {
  const at = new Date(ctx.clock.now());
  if (domain) {
    await ctx.database.db.run(
      sql`insert into instances (domain, name, blocked, createdAt, updatedAt)
        values (${domain}, 'Remote', 0, ${at.getTime()}, ${at.getTime()})`,
    );
  }
  await ctx.database.db.insert(apUsers).values({
    ap_id,
    trusted: true,
    following: true,
    blocked: false,
    instanceDomain: domain ?? null,
    createdAt: at,
    updatedAt: at,
  });
}

Deno.test("bodies: a deleted owner (events kept, userId set null by the foreign key) shows in the kept answer", async () => {
  const apps = await pair();
  const admin = await userWithToken(apps.ctx, "admin");
  const author = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, author.token);
  await fill(apps.ctx, event.id);
  const res = await call(
    apps.ctx,
    "DELETE",
    `/api/users/${author.user.id}?events=keep`,
    { token: admin.token },
  );
  assert.ok(res.status < 300, `${res.status} ${await res.text()}`);
  const answer = await sameAnswer(apps, event.id, "owner deleted");
  assert.equal(JSON.parse(answer.text).user, null);
  apps.ctx.close();
});

Deno.test("bodies: a reply removed with its actor (resources cascade) leaves the kept answer", async () => {
  const apps = await pair();
  const author = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, author.token);
  const actor = "https://remote.example/u/alice";
  await insertActor(apps.ctx, actor);
  await apps.ctx.database.db.run(
    sql`insert into resources (activitypub_id, hidden, data, apUserApId, eventId, createdAt, updatedAt)
      values ('https://remote.example/notes/1', 0, '{"content":"hi"}', ${actor}, ${event.id}, 1, 1)`,
  );
  await fill(apps.ctx, event.id);
  assert.equal(
    JSON.parse((await kept(apps.ctx, event.id))!).resources.length,
    1,
  );
  await apps.ctx.database.db.run(
    sql`delete from ap_users where ap_id = ${actor}`,
  );
  const answer = await sameAnswer(apps, event.id, "actor removed");
  assert.equal(JSON.parse(answer.text).resources.length, 0);
  apps.ctx.close();
});

Deno.test("bodies: a tag removed (event_tags cascade) leaves the kept answer", async () => {
  const apps = await pair();
  const author = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, author.token, {
    tags: ["jazz", "folk"],
  });
  await fill(apps.ctx, event.id);
  await apps.ctx.database.db.run(
    sql`delete from tags where normalizedTag = 'jazz'`,
  );
  const answer = await sameAnswer(apps, event.id, "tag removed");
  assert.deepEqual(
    JSON.parse(answer.text).tags.map((t: { tag: string }) => t.tag),
    ["folk"],
  );
  apps.ctx.close();
});

Deno.test("bodies: an instance removed (ap_users.instanceDomain set null) shows in a remote event's kept answer", async () => {
  const apps = await pair();
  const actor = "https://remote.example/u/bob";
  await insertActor(apps.ctx, actor, "remote.example");
  const at = Number(apps.ctx.clock.now());
  await apps.ctx.database.db.run(
    sql`insert into events (title, slug, start_datetime, is_visible, apUserApId, ap_id, ap_object, createdAt, updatedAt)
      values ('Remote', 'remote', ${
      Math.floor(at / 1000) + 86400
    }, 1, ${actor}, 'https://remote.example/e/1', '{"type":"Event"}', ${at}, ${at})`,
  );
  const [{ id }] = await apps.ctx.database.db.all<{ id: number }>(
    sql`select id from events where slug = 'remote'`,
  );
  await fill(apps.ctx, id);
  assert.equal(
    JSON.parse((await kept(apps.ctx, id))!).apUser.instanceDomain,
    "remote.example",
  );
  await apps.ctx.database.db.run(
    sql`delete from instances where domain = 'remote.example'`,
  );
  const answer = await sameAnswer(apps, id, "instance removed");
  assert.equal(JSON.parse(answer.text).apUser.instanceDomain, null);
  apps.ctx.close();
});

Deno.test("bodies: settings changed by another process are in the next kept answer (its settings read is not a reused one)", async () => {
  const dir = await Deno.makeTempDir();
  const env = { ...NO_CACHE, DATABASE_URL: `file:${dir}/bodies.db` };
  // The app keeping bodies, and another process (its own connection and
  // settings) that changes the settings; `plain` assembles every answer.
  const ctx = await createTestApp({ env });
  const other = await createTestApp({ env, keepEventBodies: false });
  const plain = await createTestApp({ env, keepEventBodies: false });
  try {
    const author = await userWithToken(ctx, "user");
    const admin = await userWithToken(other, "admin");
    const event = await postEvent(ctx, author.token);
    await fill(ctx, event.id);
    const before = JSON.parse((await kept(ctx, event.id))!);
    const res = await call(other, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_timezone: "America/New_York" },
    });
    assert.equal(res.status, 200);
    assert.equal(await kept(ctx, event.id), null);
    // Read at once (within the settings' reuse), then after it: the answer
    // is the new settings' either way, once the reuse is over.
    await anonymous(ctx, event.id);
    await ctx.eventBodies!.flush();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const fast = await anonymous(ctx, event.id);
    const slow = await anonymous(plain, event.id);
    assert.equal(JSON.parse(slow.text).ap_object.timezone, "America/New_York");
    assert.notEqual(before.ap_object.timezone, "America/New_York");
    assert.equal(fast.text, slow.text);
  } finally {
    ctx.close();
    other.close();
    plain.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bodies: HEAD answers as GET does, kept or not, with no body", async () => {
  const apps = await pair();
  const author = await userWithToken(apps.ctx, "user");
  const event = await postEvent(apps.ctx, author.token);
  const heads = async (ctx: TestContext) => {
    const res = await call(ctx, "HEAD", `/api/events/${event.id}`);
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      text: await res.text(),
    };
  };
  const cold = await heads(apps.ctx);
  await apps.ctx.eventBodies!.flush();
  const warm = await heads(apps.ctx);
  const plain = await heads(apps.plain);
  assert.equal(cold.status, 200);
  assert.deepEqual(warm, cold);
  assert.deepEqual(plain, cold);
  assert.equal(cold.text, "");
  // A HEAD of a missing event is a 404, as its GET.
  const missing = await call(apps.ctx, "HEAD", "/api/events/999999");
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  apps.ctx.close();
});

Deno.test("bodies: odd ids answer 404 or 400, never 500, and keep nothing", async () => {
  const apps = await pair();
  for (
    const id of [
      "9999999999999999",
      "9007199254740993",
      "9223372036854775807",
      "1e3",
      "0",
      "-1",
      "01",
    ]
  ) {
    const answer = await sameAnswer(apps, id, id);
    assert.ok(
      answer.status === 404 || answer.status === 400,
      `${id}: ${answer.status}`,
    );
  }
  await apps.ctx.eventBodies!.flush();
  const row = await apps.ctx.database.db.get<{ n: number }>(
    sql`select count(*) as n from event_bodies`,
  );
  assert.equal(row.n, 0);
  apps.ctx.close();
});

Deno.test("bodies: every trigger that ends kept bodies is in the migrated schema (a later table rebuild must make them again)", async () => {
  const ctx = await createTestApp({ env: NO_CACHE });
  const text = await Deno.readTextFile(
    new URL("../db/migrations/0023_event_bodies.sql", import.meta.url),
  );
  const wanted = [...text.matchAll(/CREATE TRIGGER `([^`]+)`/g)].map((m) =>
    m[1]
  );
  assert.ok(wanted.length >= 17, `triggers of 0023: ${wanted.length}`);
  const rows = await ctx.database.db.all<{ name: string; tbl_name: string }>(
    sql`select name, tbl_name from sqlite_master where type = 'trigger'`,
  );
  const present = new Set(rows.map((r) => r.name));
  for (const name of wanted) assert.ok(present.has(name), `trigger ${name}`);
  ctx.close();
});

Deno.test("bodies: merges, a date's own place, a hidden series and a hidden reply end the bodies that show them", async () => {
  const apps = await pair();
  const admin = await userWithToken(apps.ctx, "admin");
  const author = await userWithToken(apps.ctx, "user");
  const DAY = 86400;
  const now = Math.floor(Number(apps.ctx.clock.now()) / 1000);
  const series = await postEvent(apps.ctx, author.token, {
    title: "Weekly",
    start_datetime: now + DAY,
    recurrent: { frequency: "1w" },
    place_name: "Teatro",
    place_address: "Via Verdi 2",
  });
  const date = series.children[0].id as number;
  const other = await postEvent(apps.ctx, author.token, {
    title: "Elsewhere",
    place_name: "Cantina",
    place_address: "Via Po 9",
  });
  const ok = async (res: Promise<Response>) => {
    const r = await res;
    assert.ok(r.status < 300, `${r.status} ${await r.text()}`);
  };
  const ids = [series.id as number, date, other.id as number];
  const check = async (label: string, change: () => Promise<unknown>) => {
    for (const id of ids) await fill(apps.ctx, id);
    await change();
    for (const id of ids) await sameAnswer(apps, id, `${label}: ${id}`);
  };
  // The date moves to its own place, then that place is edited: the
  // series lists the date with its place.
  await check(
    "a date's own place",
    () =>
      ok(call(apps.ctx, "PATCH", `/api/events/${date}`, {
        token: author.token,
        json: { place_name: "Cantina", place_address: "Via Po 9" },
      })),
  );
  await check(
    "that place edited",
    () =>
      ok(call(apps.ctx, "PUT", `/api/places/${other.placeId}`, {
        token: admin.token,
        json: { name: "Cantina Nuova", address: "Via Po 11" },
      })),
  );
  await check(
    "places merged",
    () =>
      ok(call(apps.ctx, "POST", `/api/places/${series.placeId}/merge`, {
        token: admin.token,
        json: { places: [other.placeId] },
      })),
  );
  const actor = "https://remote.example/u/carol";
  await insertActor(apps.ctx, actor);
  await apps.ctx.database.db.run(
    sql`insert into resources (activitypub_id, hidden, data, apUserApId, eventId, createdAt, updatedAt)
      values ('https://remote.example/notes/2', 0, '{"content":"hi"}', ${actor}, ${other.id}, 1, 1)`,
  );
  const [{ id: resource }] = await apps.ctx.database.db.all<{ id: number }>(
    sql`select id from resources where activitypub_id = 'https://remote.example/notes/2'`,
  );
  await check(
    "a reply hidden",
    () =>
      ok(call(apps.ctx, "PUT", `/api/resources/${resource}`, {
        token: admin.token,
        json: { hidden: true },
      })),
  );
  await check("the actor blocked by hand", () =>
    apps.ctx.database.db.run(
      sql`update ap_users set blocked = 1 where ap_id = ${actor}`,
    ));
  // The series hidden: its date shows no series any more.
  for (const id of ids) await fill(apps.ctx, id);
  await ok(call(apps.ctx, "PUT", `/api/events/${series.id}/toggle`, {
    token: author.token,
  }));
  for (const id of ids) await sameAnswer(apps, id, `series hidden: ${id}`);
  assert.equal(
    JSON.parse((await anonymous(apps.ctx, date)).text).parent,
    null,
  );
  apps.ctx.close();
});
