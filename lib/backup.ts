/**
 * Backup and restore: the whole instance as JSON Lines (one record per line,
 * streamed both ways), and back into an empty instance.
 *
 * Format (version 1):
 *   {"format":"quando-backup","version":1,"schema":<migration stamp>,...}
 *   {"table":"users","row":{"id":1,...}}            every row of every table
 *   {"media":"<name>","data":"<base64>"}            S3-stored files only
 *   {"end":true,"rows":<n>,"media":<n>}             so a cut file is refused
 * BLOB values are written as {"$base64": "..."}. Rows keep their ids, so
 * slugs, URLs, ActivityPub ids and the actor's keys (in `settings`) are the
 * same after a restore; password hashes and token hashes stay hashes.
 */
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import * as schema from "../db/schema.ts";
import type { MediaStore } from "./media/store.ts";

export const BACKUP_FORMAT = "quando-backup";
export const BACKUP_VERSION = 1;

/**
 * Every table in the order rows go back in, parents before children (the
 * database checks foreign keys, and the triggers that fill derived tables
 * run as rows arrive).
 */
const TABLE_ORDER = [
  "users",
  "sessions",
  "invitations",
  "account_links",
  "mail_messages",
  "settings",
  "instances",
  "ap_users",
  "places",
  "sources",
  "media_files",
  "media_chunks",
  "media_trash",
  "events",
  "imported_events",
  "gancio_links",
  "tags",
  "event_tags",
  "messages",
  "resources",
  "reports",
  "collections",
  "filters",
  "rate_limit_hits",
  "oauth_clients",
  "oauth_grants",
  "oauth_codes",
  "oauth_tokens",
  "fedify_kv",
  "fedify_queue",
] as const;

/**
 * Tables whose rows the database derives itself from others (by triggers):
 * `event_media` from events' media, `event_search_stale` from tag changes;
 * and the kept event answers (`event_bodies`, made again by reads; their
 * `event_body_state` is one row the migration made).
 */
const DERIVED_TABLES = [
  "event_media",
  "event_search_stale",
  "event_bodies",
  "event_body_state",
] as const;

/** A problem with a backup file or the instance it goes into (the CLI prints it). */
export class BackupError extends Error {}

interface TableInfo {
  name: string;
  columns: Set<string>;
  /** Parents first where a table refers to itself (a series before its occurrences). */
  passes: string[];
}

/** The schema's tables, checked against TABLE_ORDER and DERIVED_TABLES. */
export function backupTables(): TableInfo[] {
  const byName = new Map<string, SQLiteTable>();
  for (const value of Object.values(schema)) {
    if (
      value && typeof value === "object" && Symbol.for("drizzle:Name") in value
    ) {
      const table = value as SQLiteTable;
      byName.set(getTableConfig(table).name, table);
    }
  }
  const known = new Set<string>([...TABLE_ORDER, ...DERIVED_TABLES]);
  const forgotten = [...byName.keys()].filter((name) => !known.has(name));
  if (forgotten.length > 0) {
    // A new table must be placed in TABLE_ORDER (or DERIVED_TABLES) to be backed up.
    throw new Error(`tables missing from the backup order: ${forgotten}`);
  }
  return TABLE_ORDER.map((name) => {
    const table = byName.get(name);
    if (!table) throw new Error(`no table ${name} in the schema`);
    return {
      name,
      columns: new Set(getTableConfig(table).columns.map((c) => c.name)),
      passes: name === "events"
        ? ['"parentId" IS NULL', '"parentId" IS NOT NULL']
        : ["1"],
    };
  });
}

/** The last migration applied (its creation stamp), which a backup must match. */
async function schemaStamp(db: Db): Promise<number> {
  const [row] = await db.all<{ stamp: number | null }>(
    sql`SELECT max(created_at) AS stamp FROM __drizzle_migrations`,
  );
  return Number(row?.stamp ?? 0);
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A column value as JSON: BLOBs as base64, big integers as strings. */
function encodeValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $base64: toBase64(value) };
  if (value instanceof ArrayBuffer) {
    return { $base64: toBase64(new Uint8Array(value)) };
  }
  if (typeof value === "bigint") return { $bigint: value.toString() };
  return value;
}

function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const tagged = value as { $base64?: unknown; $bigint?: unknown };
  if (typeof tagged.$base64 === "string") return fromBase64(tagged.$base64);
  if (typeof tagged.$bigint === "string") return BigInt(tagged.$bigint);
  throw new BackupError("a value is neither plain nor tagged");
}

const PAGE_ROWS = 500;

/**
 * The instance as backup lines (without newlines), read page by page so
 * memory stays flat whatever the size. Files in an S3 store come after the
 * tables; files of the default store are rows of `media_chunks`.
 */
export async function* exportBackup(
  db: Db,
  media: MediaStore,
  now: Date,
): AsyncGenerator<string> {
  const tables = backupTables();
  yield JSON.stringify({
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    schema: await schemaStamp(db),
    exported_at: now.toISOString(),
    media_store: media.kind,
    tables: tables.map((t) => t.name),
  });
  let rows = 0;
  for (const table of tables) {
    for (const pass of table.passes) {
      let after = Number.MIN_SAFE_INTEGER;
      while (true) {
        const page = await db.all<Record<string, unknown>>(sql.raw(
          `SELECT rowid AS "__rowid", * FROM "${table.name}" ` +
            `WHERE rowid > ${after} AND ${pass} ORDER BY rowid LIMIT ${PAGE_ROWS}`,
        ));
        for (const { __rowid, ...row } of page) {
          after = Number(__rowid);
          const encoded: Record<string, unknown> = {};
          for (const [column, value] of Object.entries(row)) {
            encoded[column] = encodeValue(value);
          }
          rows++;
          yield JSON.stringify({ table: table.name, row: encoded });
        }
        if (page.length < PAGE_ROWS) break;
      }
    }
  }
  let files = 0;
  if (media.kind === "s3") {
    const names = await db.all<{ name: string }>(
      sql`SELECT name FROM media_files ORDER BY name`,
    );
    for (const { name } of names) {
      const file = await media.get(name);
      if (!file || !("body" in file)) continue;
      const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
      files++;
      yield JSON.stringify({ media: name, data: toBase64(bytes) });
    }
  }
  yield JSON.stringify({ end: true, rows, media: files });
}

/** What an import brought in. */
export interface ImportSummary {
  rows: Record<string, number>;
  media: number;
}

/** Rows are written this many at a time (one atomic batch), or fewer when large. */
const BATCH_ROWS = 200;
const BATCH_BYTES = 4 * 1024 * 1024;

/** The tables that must be empty for an instance to count as empty. */
const CONTENT_TABLES = [
  "users",
  "events",
  "places",
  "ap_users",
  "oauth_clients",
  "collections",
];

/** Removes every row of the backed-up tables, children first, atomically. */
async function clearTables(db: Db, tables: TableInfo[]): Promise<void> {
  const [first, ...rest] = [...tables].reverse().map((t) =>
    db.run(sql.raw(`DELETE FROM "${t.name}"`))
  );
  // Deleting media_files queues its names in media_trash (a trigger).
  await db.batch([first, ...rest, db.run(sql`DELETE FROM media_trash`)]);
}

/**
 * Reads a backup into an empty instance (no users, events, places, actors,
 * clients or collections; what a first start writes, such as the keys and
 * the JWT secret, is replaced). Anything wrong with the file, including a
 * missing end line, leaves the instance empty again and throws BackupError.
 */
export async function importBackup(
  db: Db,
  media: MediaStore,
  lines: AsyncIterable<string>,
): Promise<ImportSummary> {
  const tables = backupTables();
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const name of CONTENT_TABLES) {
    const [row] = await db.all<{ n: number }>(
      sql.raw(`SELECT count(*) AS n FROM "${name}"`),
    );
    if (Number(row?.n) > 0) {
      throw new BackupError(
        `the instance is not empty (${name} has rows): import into a new database`,
      );
    }
  }
  const summary: ImportSummary = { rows: {}, media: 0 };
  let header: Record<string, unknown> | null = null;
  let ended = false;
  let lineNumber = 0;
  let pending:
    | { table: string; columns: string[]; values: unknown[][] }
    | null = null;
  let pendingBytes = 0;
  let started = false;

  const flush = async () => {
    if (!pending || pending.values.length === 0) return;
    const { table, columns, values } = pending;
    const columnList = columns.map((c) => `"${c}"`).join(", ");
    const tuples = sql.join(
      values.map((row) =>
        sql`(${sql.join(row.map((v) => sql`${v}`), sql`, `)})`
      ),
      sql`, `,
    );
    await db.run(
      sql`INSERT INTO ${sql.raw(`"${table}"`)} (${
        sql.raw(columnList)
      }) VALUES ${tuples}`,
    );
    pending = null;
    pendingBytes = 0;
  };

  try {
    let order = -1;
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === "") continue;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line);
      } catch {
        throw new BackupError(`line ${lineNumber} is not JSON`);
      }
      if (ended) throw new BackupError(`line ${lineNumber} follows the end`);
      if (!header) {
        if (record.format !== BACKUP_FORMAT) {
          throw new BackupError("this is not a Quando backup");
        }
        if (record.version !== BACKUP_VERSION) {
          throw new BackupError(
            `backup format version ${record.version} is not supported (${BACKUP_VERSION} is)`,
          );
        }
        const stamp = await schemaStamp(db);
        if (record.schema !== stamp) {
          throw new BackupError(
            "the backup was made with another database schema: restore it with the Quando version that made it, then upgrade",
          );
        }
        header = record;
        continue;
      }
      if (typeof record.table === "string") {
        const table = byName.get(record.table);
        const row = record.row;
        if (!table || !row || typeof row !== "object" || Array.isArray(row)) {
          throw new BackupError(`line ${lineNumber}: unknown table or no row`);
        }
        const position = TABLE_ORDER.indexOf(
          table.name as typeof TABLE_ORDER[number],
        );
        if (position < order) {
          throw new BackupError(`line ${lineNumber}: tables out of order`);
        }
        order = position;
        if (!started) {
          // What a first start wrote (keys, JWT secret) gives way to the backup's.
          await clearTables(db, tables);
          started = true;
        }
        const columns = Object.keys(row).sort();
        for (const column of columns) {
          if (!table.columns.has(column)) {
            throw new BackupError(
              `line ${lineNumber}: ${table.name} has no column ${column}`,
            );
          }
        }
        const values = columns.map((c) =>
          decodeValue((row as Record<string, unknown>)[c])
        );
        if (
          pending &&
          (pending.table !== table.name ||
            pending.columns.join() !== columns.join() ||
            pending.values.length >= BATCH_ROWS ||
            pendingBytes >= BATCH_BYTES ||
            pending.values.length * columns.length >= 30_000)
        ) {
          await flush();
        }
        pending ??= { table: table.name, columns, values: [] };
        pending.values.push(values);
        pendingBytes += line.length;
        summary.rows[table.name] = (summary.rows[table.name] ?? 0) + 1;
        continue;
      }
      if (typeof record.media === "string") {
        await flush();
        if (typeof record.data !== "string") {
          throw new BackupError(`line ${lineNumber}: a file without data`);
        }
        const [info] = await db.all<
          { content_type: string; width: number | null; height: number | null }
        >(
          sql`SELECT content_type, width, height FROM media_files WHERE name = ${record.media}`,
        );
        if (!info) {
          throw new BackupError(`line ${lineNumber}: a file no row describes`);
        }
        await media.put(record.media, fromBase64(record.data), {
          contentType: info.content_type,
          width: info.width,
          height: info.height,
        });
        summary.media++;
        continue;
      }
      if (record.end === true) {
        await flush();
        const total = Object.values(summary.rows).reduce((a, b) => a + b, 0);
        if (record.rows !== total || record.media !== summary.media) {
          throw new BackupError(
            `the end line counts ${record.rows} rows and ${record.media} files; the file holds ${total} and ${summary.media}`,
          );
        }
        ended = true;
        continue;
      }
      throw new BackupError(`line ${lineNumber} is not a backup record`);
    }
    if (!header) throw new BackupError("the file is empty");
    if (!ended) {
      throw new BackupError("the file ends before its end line: it was cut");
    }
    return summary;
  } catch (error) {
    if (started) await clearTables(db, tables);
    if (error instanceof BackupError) throw error;
    throw new BackupError(
      `line ${lineNumber}: ${error instanceof Error ? error.message : error}`,
    );
  }
}
