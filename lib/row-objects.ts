/**
 * Rows as JSON objects assembled by SQLite. A read that nests several tables
 * (an event with its owner, place, tags, occurrences...) can then be one
 * statement returning one JSON text, parsed by `JSON.parse` in one native
 * call: cheaper than mapping dozens of columns value by value, and one
 * statement (one round trip on a remote database) instead of one per part.
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

const columnsOf = new WeakMap<SQLiteTable, [string, SQLiteColumn][]>();

/** The table's columns by property name, listed once per table. */
function columnList(table: SQLiteTable): [string, SQLiteColumn][] {
  let list = columnsOf.get(table);
  if (!list) {
    list = Object.entries(getTableColumns(table));
    columnsOf.set(table, list);
  }
  return list;
}

/** Whether SQLite holds the column as JSON text (embedded as JSON, not as a string). */
function isJsonColumn(column: SQLiteColumn): boolean {
  return column.columnType === "SQLiteTextJson";
}

/**
 * A row of `table` (or of an alias of it) as a JSON object keyed by the
 * columns' property names, or JSON null when `presentWhen` (for a left join:
 * its key is not null) is false. Decode it with decodeRowObject.
 *
 * `guarded` names JSON columns that may hold documents as other servers sent
 * them: SQLite's JSON functions refuse nesting deeper than 1,000 levels (an
 * error for the whole statement), so such a column is given as null when
 * SQLite cannot read it, rather than failing the read. Each names when the
 * column is ours and needs no check (a condition; null: never), since the
 * check parses the document a second time.
 */
export function rowObject(
  table: SQLiteTable,
  presentWhen?: SQL,
  guarded: Readonly<Record<string, SQL | null>> = {},
): SQL {
  const parts = columnList(table).map(([key, column]) => {
    const name = sql.raw(`'${key}'`);
    if (!isJsonColumn(column)) return sql`${name}, ${column}`;
    if (!(key in guarded)) return sql`${name}, json(${column})`;
    const ours = guarded[key];
    const readable = ours
      ? sql`${ours} or json_valid(${column})`
      : sql`json_valid(${column})`;
    return sql`${name}, case when ${readable} then json(${column}) end`;
  });
  const object = sql`json_object(${sql.join(parts, sql`, `)})`;
  return presentWhen
    ? sql`case when ${presentWhen} then ${object} end`
    : object;
}

/**
 * The row typed as Drizzle reads it from what rowObject gave (parsed): flags
 * as booleans, times as Dates, JSON columns as they are.
 */
export function decodeRowObject<T extends SQLiteTable>(
  table: T,
  object: Record<string, unknown> | null,
): T["$inferSelect"] | null {
  if (object === null) return null;
  for (const [key, column] of columnList(table)) {
    const value = object[key];
    if (value === null || value === undefined) {
      object[key] = null;
    } else if (!isJsonColumn(column)) {
      object[key] = column.mapFromDriverValue(value);
    }
  }
  return object as T["$inferSelect"];
}
