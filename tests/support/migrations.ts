/** A database as it was before a migration: for the tests of what a migration does to existing rows. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";

/**
 * Opens a file database in `dir` migrated with every committed migration
 * before `tag` (e.g. "0020_gancio_links"), as an instance created before it
 * has them. The caller closes it.
 */
export async function openDatabaseBefore(dir: string, tag: string) {
  const source = new URL("../../db/migrations/", import.meta.url);
  const before = join(dir, "migrations");
  await Deno.mkdir(join(before, "meta"), { recursive: true });
  const journal = JSON.parse(
    await Deno.readTextFile(new URL("meta/_journal.json", source)),
  );
  const index = journal.entries.findIndex((e: { tag: string }) =>
    e.tag === tag
  );
  assert.ok(index > 0, `${tag} is in the journal`);
  journal.entries = journal.entries.slice(0, index);
  await Deno.writeTextFile(
    join(before, "meta", "_journal.json"),
    JSON.stringify(journal),
  );
  for (const e of journal.entries) {
    await Deno.copyFile(
      new URL(`${e.tag}.sql`, source),
      join(before, `${e.tag}.sql`),
    );
  }
  const url = `file:${join(dir, "old.db")}`;
  const database = await openDatabase(url);
  const { migrate } = await import("drizzle-orm/libsql/migrator");
  await migrate(database.db, { migrationsFolder: before });
  return { database, url };
}
