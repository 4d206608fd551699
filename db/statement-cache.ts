/**
 * The embedded engine's (db/embedded.ts) prepared statements: one per SQL
 * text, in a bounded LRU cache, prepared again when a schema change makes
 * their column lists stale.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

export interface Prepared {
  statement: StatementSync;
  /** Whether it returns rows (SELECT, PRAGMA, RETURNING...). */
  reader: boolean;
  /** Column names and declared types, read once: `columns()` costs ~4 µs. */
  names: string[];
  types: string[];
  /**
   * For statements with a `*`, whose columns depend on the schema: the
   * schema version they were prepared under, else 0.
   */
  schema: number;
}

/** Reads the column names and declared types of `prepared` again. */
function readColumns(prepared: Prepared): void {
  const columns = prepared.statement.columns();
  prepared.names = columns.map((c) => c.name);
  prepared.types = columns.map((c) => c.type ?? "");
}

/**
 * Prepared statements by SQL text, least recently used first (a Map keeps
 * insertion order; a hit moves its entry to the end). `node:sqlite` has no
 * way to finalise a statement: an evicted one is finalised when collected.
 */
export class StatementCache {
  readonly #db: DatabaseSync;
  readonly #map = new Map<string, Prepared>();
  #version: StatementSync | null = null;
  #touch: StatementSync | null = null;
  readonly limit: number;

  constructor(db: DatabaseSync, limit: number) {
    this.#db = db;
    this.limit = Math.max(1, limit);
  }

  /** The prepared statement for `sql`, prepared now when not cached. */
  get(sql: string): Prepared {
    const hit = this.#map.get(sql);
    if (hit) this.#map.delete(sql);
    if (hit && (hit.schema === 0 || hit.schema === this.#schemaVersion())) {
      this.#map.set(sql, hit);
      return hit;
    }
    // SQLite re-prepares a statement after a schema change by itself, but
    // node:sqlite then answers `SELECT *` with the old columns (values too)
    // once: statements with a `*` are prepared again when the schema changed,
    // after a read that makes the connection load the current schema.
    const wide = sql.includes("*");
    if (wide) this.#loadSchema();
    const statement = this.#db.prepare(sql);
    statement.setReturnArrays(true);
    const prepared: Prepared = {
      statement,
      reader: false,
      names: [],
      types: [],
      schema: wide ? this.#schemaVersion() : 0,
    };
    readColumns(prepared);
    prepared.reader = prepared.names.length > 0;
    this.#map.set(sql, prepared);
    if (this.#map.size > this.limit) {
      this.#map.delete(this.#map.keys().next().value!);
    }
    return prepared;
  }

  /** Makes the connection read the schema again if another one changed it. */
  #loadSchema(): void {
    this.#touch ??= this.#db.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
    this.#touch.get();
  }

  /** The database's schema version (any connection's change bumps it). */
  #schemaVersion(): number {
    if (!this.#version) {
      this.#version = this.#db.prepare("PRAGMA schema_version");
      this.#version.setReturnArrays(true);
    }
    const row = this.#version.get() as unknown as [number];
    // Never 0, which marks statements that need no check.
    return row[0] + 1;
  }

  /** Statements cached now. */
  get size(): number {
    return this.#map.size;
  }

  /** Whether `sql` has a cached statement. */
  has(sql: string): boolean {
    return this.#map.has(sql);
  }

  clear(): void {
    this.#map.clear();
  }
}

/** Statements that change the schema, after which cached column lists may be stale. */
export const SCHEMA_CHANGE = /^\s*(create|drop|alter)\b/i;

/**
 * Fills of event_bodies (lib/events/bodies.ts): they store what a read
 * computed, derived data that the next read makes again if it is lost. They
 * change nothing a read sees (no cached answer ends, db/remote.ts), and the
 * embedded engine commits them without waiting for the disk (db/embedded.ts).
 */
export const DERIVED_WRITE =
  /^\s*insert\s+or\s+replace\s+into\s+"event_bodies"/i;
