/**
 * A Gancio SQLite database for the import's tests, in Gancio's table shapes
 * (tests/fixtures/gancio/schema.sql), and a row inserter over it.
 */
import { DatabaseSync } from "node:sqlite";

const SCHEMA = new URL("../fixtures/gancio/schema.sql", import.meta.url);

/**
 * Opens a Gancio database at `path` with its tables, and a function that
 * inserts a row (objects as JSON, booleans as 0/1) stamped `at`.
 */
export async function openGancioDatabase(path: string, at: string) {
  const db = new DatabaseSync(path);
  db.exec(await Deno.readTextFile(SCHEMA));
  const insert = (table: string, row: Record<string, unknown>) => {
    const keys = Object.keys(row);
    db.prepare(
      `insert into ${table} (${
        keys.map((k) => `"${k}"`).join(", ")
      }, "createdAt", "updatedAt") values (${
        keys.map(() => "?").join(", ")
      }, ?, ?)`,
    ).run(
      ...Object.values(row).map((v) =>
        typeof v === "object" && v !== null
          ? JSON.stringify(v)
          : typeof v === "boolean"
          ? Number(v)
          : v as string | number | null
      ),
      at,
      at,
    );
  };
  return { db, insert };
}
