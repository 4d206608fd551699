/**
 * Integrity on a remote database (the local Hrana server, as Turso): the
 * rows a deletion takes with it are the same whether or not the server's
 * connections enforce foreign keys (here: they do not), and conflicts are
 * 409s with the primary result codes sqld sends (`SQLITE_CONSTRAINT`, no
 * extended code).
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import {
  apUsers,
  events,
  eventTags,
  messages,
  oauthGrants,
  oauthTokens,
  resources,
  tags,
} from "../db/schema.ts";
import { deleteEventsById, upsertRemoteEvent } from "../lib/events/remote.ts";
import {
  call,
  countRows,
  createTestUser,
  loginToken,
  oauthAccessToken,
  type TestContext,
} from "./helpers.ts";
import { type RemoteApp, startRemoteApp } from "./support/remote-app.ts";

/** Runs `fn` on the app over a Hrana server whose connections do not enforce foreign keys. */
async function withoutForeignKeys(
  fn: (ctx: TestContext, app: RemoteApp) => Promise<void>,
): Promise<void> {
  const app = await startRemoteApp({ server: { foreignKeys: false } });
  try {
    const [check] = await app.ctx.database.db.all<{ foreign_keys: number }>(
      sql`pragma foreign_keys`,
    );
    assert.equal(Number(check.foreign_keys), 0, "the server enforces nothing");
    await fn(app.ctx, app);
  } finally {
    await app.close();
  }
}

/** Rows that reference a missing row, by table (SQLite checks even with enforcement off). */
async function orphans(ctx: TestContext): Promise<string[]> {
  const rows = await ctx.database.db.all<{ table: string; parent: string }>(
    sql`pragma foreign_key_check`,
  );
  return rows.map((r) => `${r.table} -> ${r.parent}`);
}

// deno-lint-ignore no-explicit-any -- API bodies are read field by field
async function created(res: Response): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text);
}

const START = Date.parse("2026-06-03T18:00:00Z") / 1000;

Deno.test("without foreign keys: deleting an event takes its tags, messages, resources and unused tags", async () => {
  await withoutForeignKeys(async (ctx) => {
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    const event = await created(
      await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title: "Solo evento",
          start_datetime: START,
          place_name: "Sala",
          tags: ["unico", "condiviso"],
        },
      }),
    );
    const other = await created(
      await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title: "Altro evento",
          start_datetime: START,
          place_name: "Sala",
          tags: ["condiviso"],
        },
      }),
    );
    await created(
      await call(ctx, "POST", `/api/events/${event.id}/messages`, {
        token,
        json: { message: "Note" },
      }),
    );
    const stamp = ctx.clock.now();
    await ctx.database.db.insert(apUsers).values({
      ap_id: "https://remote.example/users/r",
      createdAt: stamp,
      updatedAt: stamp,
    });
    await ctx.database.db.insert(resources).values({
      activitypub_id: "https://remote.example/notes/1",
      apUserApId: "https://remote.example/users/r",
      eventId: event.id,
      createdAt: stamp,
      updatedAt: stamp,
    });

    const res = await call(ctx, "DELETE", `/api/events/${event.id}`, { token });
    assert.equal(res.status, 204, await res.text());

    const left = (table: typeof eventTags | typeof messages) =>
      ctx.database.db.select().from(table).where(eq(table.eventId, event.id));
    assert.deepEqual(await left(eventTags), []);
    assert.deepEqual(await left(messages), []);
    assert.deepEqual(
      await ctx.database.db.select().from(resources).where(
        eq(resources.eventId, event.id),
      ),
      [],
    );
    const tagNames = (await ctx.database.db.select().from(tags)).map((t) =>
      t.normalizedTag
    );
    assert.deepEqual(tagNames, ["condiviso"], "the unused tag is gone");
    const listed = await (await call(ctx, "GET", "/api/tags?search=uni"))
      .json();
    assert.deepEqual(listed, []);
    const kept = await call(ctx, "GET", `/api/events/${other.id}`);
    assert.deepEqual(
      (await kept.json()).tags.map((t: { tag: string }) => t.tag),
      ["condiviso"],
    );
    assert.deepEqual(await orphans(ctx), []);
  });
});

Deno.test("without foreign keys: a series' deletion takes its future occurrences and their tags; re-timing one does too", async () => {
  await withoutForeignKeys(async (ctx) => {
    // Created a week before "now" (2026-06-01): one occurrence is past then.
    ctx.clock.set("2026-05-25T12:00:00Z");
    const user = await createTestUser(ctx);
    let token = await loginToken(ctx, user.email, user.password);
    const first = Date.parse("2026-05-27T18:00:00Z") / 1000;
    const series = await created(
      await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title: "Settimanale",
          start_datetime: first,
          end_datetime: first + 3600,
          place_name: "Sala",
          tags: ["serie"],
          recurrent: { frequency: "1w" },
        },
      }),
    );
    const occurrences = () =>
      ctx.database.db.select().from(events).where(
        eq(events.parentId, series.id),
      );
    const before = await occurrences();
    assert.ok(before.length >= 8);
    ctx.clock.set("2026-06-01T12:00:00Z");
    token = await loginToken(ctx, user.email, user.password);
    // Re-timed: the future occurrences are laid out again.
    const retimed = await call(ctx, "PUT", `/api/events/${series.id}`, {
      token,
      json: {
        title: "Settimanale",
        start_datetime: first + 1800,
        end_datetime: first + 5400,
        place_name: "Sala",
      },
    });
    assert.equal(retimed.status, 200, await retimed.text());
    assert.deepEqual(await orphans(ctx), []);
    const after = await occurrences();
    const past = after.filter((o) => o.start_datetime === first);
    assert.equal(past.length, 1);
    assert.ok(after.length >= 8);

    const res = await call(ctx, "DELETE", `/api/events/${series.id}`, {
      token,
    });
    assert.equal(res.status, 204, await res.text());
    assert.deepEqual(await orphans(ctx), []);
    const rest = await ctx.database.db.select({ id: events.id }).from(events);
    assert.deepEqual(rest.map((r) => r.id), [past[0].id], "the past one stays");
    // It keeps its own copy of the tag, so the tag stays too.
    assert.equal(await countRows(ctx, "event_tags"), 1);
    assert.equal(await countRows(ctx, "tags"), 1);
  });
});

Deno.test("without foreign keys: deleting a user unlinks their events and ends their OAuth grants and tokens", async () => {
  await withoutForeignKeys(async (ctx) => {
    const admin = await createTestUser(ctx, { role: "admin" });
    const adminToken = await loginToken(ctx, admin.email, admin.password);
    const user = await createTestUser(ctx);
    const token = await oauthAccessToken(ctx, user);
    const event = await created(
      await call(ctx, "POST", "/api/events", {
        token,
        json: { title: "Di un utente", start_datetime: START, place_name: "X" },
      }),
    );
    assert.ok(await countRows(ctx, "oauth_grants") > 0);
    const res = await call(ctx, "DELETE", `/api/users/${user.user.id}`, {
      token: adminToken,
    });
    assert.equal(res.status, 204, await res.text());
    const [row] = await ctx.database.db.select().from(events).where(
      eq(events.id, event.id),
    );
    assert.equal(row.userId, null);
    assert.deepEqual(await ctx.database.db.select().from(oauthGrants), []);
    assert.deepEqual(await ctx.database.db.select().from(oauthTokens), []);
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
    assert.deepEqual(await orphans(ctx), []);
  });
});

Deno.test("without foreign keys: purging remote events takes their tags and replies", async () => {
  await withoutForeignKeys(async (ctx) => {
    const stamp = ctx.clock.now();
    const actor = "https://remote.example/users/r";
    await ctx.database.db.insert(apUsers).values({
      ap_id: actor,
      createdAt: stamp,
      updatedAt: stamp,
    });
    const { id } = await upsertRemoteEvent({
      db: ctx.database.db,
      clock: ctx.clock,
    }, {
      ap_id: "https://remote.example/events/1",
      apUserApId: actor,
      title: "Remoto",
      description: "",
      start_datetime: START,
      end_datetime: null,
      status: "EventScheduled",
      place: null,
      online_locations: ["https://remote.example/live"],
      tags: ["lontano"],
      media: [],
      ap_object: {},
      ld_signature: null,
    });
    await ctx.database.db.insert(resources).values({
      activitypub_id: "https://remote.example/notes/2",
      apUserApId: actor,
      eventId: id,
      createdAt: stamp,
      updatedAt: stamp,
    });
    await deleteEventsById(ctx.database.db, [id]);
    assert.equal(await countRows(ctx, "event_tags"), 0);
    assert.equal(await countRows(ctx, "tags"), 0);
    assert.equal(await countRows(ctx, "resources"), 0);
    assert.deepEqual(await orphans(ctx), []);
  });
});

// ---------------------------------------------------------------- conflicts

/** Runs `fn` on the app over a Hrana server answering as sqld does (primary codes). */
async function withSqldCodes(
  fn: (ctx: TestContext) => Promise<void>,
): Promise<void> {
  const app = await startRemoteApp();
  try {
    await fn(app.ctx);
  } finally {
    await app.close();
  }
}

Deno.test("sqld error codes: concurrent events with one title all get a slug of their own", async () => {
  await withSqldCodes(async (ctx) => {
    const user = await createTestUser(ctx);
    const token = await loginToken(ctx, user.email, user.password);
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        call(ctx, "POST", "/api/events", {
          token,
          json: {
            title: "Stesso titolo",
            start_datetime: START,
            place_name: "S",
          },
        })),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    assert.deepEqual(
      responses.map((r) => r.status),
      [201, 201, 201, 201],
      JSON.stringify(bodies),
    );
    assert.deepEqual(
      bodies.map((b) => b.slug).sort(),
      [
        "stesso-titolo",
        "stesso-titolo-2",
        "stesso-titolo-3",
        "stesso-titolo-4",
      ],
    );
  });
});

Deno.test("sqld error codes: a collection name taken twice is a 409", async () => {
  await withSqldCodes(async (ctx) => {
    const admin = await createTestUser(ctx, { role: "admin" });
    const token = await loginToken(ctx, admin.email, admin.password);
    const first = await call(ctx, "POST", "/api/collections", {
      token,
      json: { name: "Doppia" },
    });
    assert.equal(first.status, 201, await first.text());
    const second = await call(ctx, "POST", "/api/collections", {
      token,
      json: { name: "Doppia" },
    });
    const body = await second.json();
    assert.equal(second.status, 409, JSON.stringify(body));
    assert.equal(body.error, "conflict");
  });
});
