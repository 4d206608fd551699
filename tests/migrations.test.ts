import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { openDatabaseBefore } from "./support/migrations.ts";
import { createTestApp } from "./helpers.ts";

async function names(
  database: Awaited<ReturnType<typeof openDatabase>>,
  type: string,
) {
  const rows = await database.db.all<{ name: string }>(
    `select name from sqlite_master where type = '${type}' and name not like 'sqlite_%'`,
  );
  return new Set(rows.map((r) => r.name));
}

Deno.test("migrations apply to an empty file database, once, with every table and index", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${join(dir, "fresh.db")}`;
  const database = await openDatabase(url);
  assert.equal((await names(database, "table")).size, 0);
  await createTestApp({ database, env: { DATABASE_URL: url } });

  const tables = await names(database, "table");
  for (
    const t of [
      "users",
      "settings",
      "events",
      "places",
      "tags",
      "event_tags",
      "messages",
      "ap_users",
      "instances",
      "resources",
      "collections",
      "filters",
      "sessions",
      "invitations",
      "sources",
      "imported_events",
      "gancio_links",
      "reports",
      "__drizzle_migrations",
    ]
  ) assert.ok(tables.has(t), `table ${t}`);

  const indexes = await names(database, "index");
  for (
    const i of [
      "events_start_idx",
      "events_end_idx",
      "events_slug_unique",
      "events_parent_idx",
      "events_user_idx",
      "events_place_idx",
      "tags_normalizedTag_unique",
      "event_tags_tag_idx",
      "resources_event_idx",
      "resources_created_idx",
      "ap_users_instance_idx",
      "filters_collection_idx",
      "reports_status_created_idx",
      "events_last_idx",
      "events_long_last_idx",
      "events_series_idx",
      "events_unconfirmed_idx",
      "sessions_user_idx",
      "invitations_email_unique",
      "sources_user_idx",
      "imported_events_event_idx",
      "event_tags_tag_start_idx",
      "event_tags_tag_last_idx",
      "events_parent_start_idx",
      "events_listed_last_place_idx",
      "events_online_last_idx",
      "gancio_links_slug_idx",
    ]
  ) assert.ok(indexes.has(i), `index ${i}`);
  const triggers = await names(database, "trigger");
  for (const t of ["event_tags_times_insert", "events_times_update"]) {
    assert.ok(triggers.has(t), `trigger ${t}`);
  }

  // Column names are the interface's field names.
  const cols = await database.db.all<{ name: string }>(
    "pragma table_info(events)",
  );
  const colNames = cols.map((c) => c.name);
  for (
    const c of [
      "start_datetime",
      "end_datetime",
      "is_visible",
      "userId",
      "parentId",
      "placeId",
      "apUserApId",
      "createdAt",
    ]
  ) {
    assert.ok(colNames.includes(c), c);
  }

  // Foreign keys are enforced.
  await assert.rejects(() =>
    database.db.run(
      `insert into events (title, slug, start_datetime, userId, createdAt, updatedAt) values ('x', 'x', 1, 999, 0, 0)`,
    )
  );

  // A second start applies nothing new and keeps the data.
  const before = await database.db.all("select * from __drizzle_migrations");
  await createTestApp({ database, env: { DATABASE_URL: url } });
  assert.deepEqual(
    await database.db.all("select * from __drizzle_migrations"),
    before,
  );
  database.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("0005 copies the events' times into event_tags, and the triggers keep them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The migrations up to 0004, as a database created before 0005 has them.
    const { database } = await openDatabaseBefore(dir, "0005_listing_indexes");
    const db = database.db;
    await db.run(
      `insert into events (id, title, slug, start_datetime, end_datetime, createdAt, updatedAt)
       values (1, 'a', 'a', 1000, 5000, 0, 0), (2, 'b', 'b', 2000, null, 0, 0)`,
    );
    await db.run(
      `insert into tags (id, tag, normalizedTag) values (1, 'x', 'x'), (2, 'y', 'y')`,
    );
    await db.run(
      `insert into event_tags (eventId, tagId) values (1, 1), (1, 2), (2, 1)`,
    );

    await createTestApp({
      database,
      env: { DATABASE_URL: `file:${join(dir, "old.db")}` },
    });
    const times = async () =>
      (await db.all<{
        eventId: number;
        tagId: number;
        start_datetime: number | null;
        last_moment: number | null;
      }>(
        `select eventId, tagId, start_datetime, last_moment from event_tags order by eventId, tagId`,
      )).map((r) => [r.eventId, r.tagId, r.start_datetime, r.last_moment]);
    assert.deepEqual(await times(), [
      [1, 1, 1000, 5000],
      [1, 2, 1000, 5000],
      [2, 1, 2000, 2000],
    ]);
    // Moving an event moves its copies; a new link gets the times at once.
    await db.run(`update events set start_datetime = 3000 where id = 2`);
    await db.run(`update events set end_datetime = 9000 where id = 1`);
    await db.run(`insert into event_tags (eventId, tagId) values (2, 2)`);
    // Other columns leave them alone.
    await db.run(`update events set title = 'c' where id = 1`);
    assert.deepEqual(await times(), [
      [1, 1, 1000, 9000],
      [1, 2, 1000, 9000],
      [2, 1, 3000, 3000],
      [2, 2, 3000, 3000],
    ]);
    await db.run(`update events set end_datetime = null where id = 1`);
    assert.deepEqual((await times()).slice(0, 2), [
      [1, 1, 1000, 1000],
      [1, 2, 1000, 1000],
    ]);
    database.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("0020 enters the events of earlier Gancio imports into gancio_links, so their Gancio ids redirect at once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The migrations before 0020, as a database created before it has them.
    const { database, url } = await openDatabaseBefore(
      dir,
      "0020_gancio_links",
    );
    const db = database.db;
    await db.run(
      `insert into events (id, title, slug, start_datetime, createdAt, updatedAt, online_locations)
       values (1, 'a', 'a', 1000, 0, 0, '["https://x.example/"]'),
              (2, 'b', 'b', 2000, 0, 0, '["https://x.example/"]'),
              (3, 'c', 'c', 3000, 0, 0, '["https://x.example/"]')`,
    );
    await db.run(
      `insert into imported_events (origin, uid, recurrence_id, eventId, digest, updatedAt)
       values ('gancio:https://gancio.example', '41', 0, 1, 'd', 5),
              ('gancio:https://gancio.example', '40', 1700000000, 2, 'd', 5),
              ('source:3', '42', 0, 3, 'd', 5)`,
    );
    const ctx = await createTestApp({ database, env: { DATABASE_URL: url } });
    assert.deepEqual(
      await db.all(
        `select origin, gancio_id, slug, eventId from gancio_links`,
      ),
      [{
        origin: "https://gancio.example",
        gancio_id: 41,
        slug: null,
        eventId: 1,
      }],
    );
    const res = await ctx.app.request("/event/41");
    assert.equal(res.status, 301);
    assert.equal(res.headers.get("location"), "/event/a");
    assert.equal((await ctx.app.request("/event/42")).status, 404);
    database.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
