import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
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
    ]
  ) assert.ok(indexes.has(i), `index ${i}`);

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
