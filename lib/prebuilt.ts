/**
 * Statements built once. Drizzle turns a query builder into SQL on every
 * call, and for the hot reads that costs more than running them on the
 * embedded database (profiled: about half the CPU of an uncached
 * GET /api/events/{id} went to building its eight statements). A statement
 * whose shape is fixed is built once per database, with placeholders
 * (`sql.placeholder("id")`), and each use fills in the values: the SQL text is
 * then the same every time, which also lets the engine reuse its prepared
 * statement.
 */
import { fillPlaceholders, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import type { BatchItem } from "./events/load.ts";

/** A value filled in at each use of a statement built once. */
export type Placeholder = ReturnType<typeof sql.placeholder>;

/** What Drizzle's prepared query gives: its SQL, and how results are mapped. */
interface PreparedQuery {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(response: unknown, isFromBatch?: boolean): unknown;
}

/** A query builder that can be prepared (selects, inserts... of Drizzle). */
export interface Preparable {
  prepare(): unknown;
}

const builtByDb = new WeakMap<Db, Map<string, PreparedQuery[]>>();

/**
 * The statements `build` makes, built once per database and `key` (name
 * every variation of their shape in it), as batch items with `values` in
 * their placeholders. They go into `db.batch` like the builders would.
 */
export function prebuiltStatements(
  db: Db,
  key: string,
  build: () => Preparable[],
  values: Record<string, unknown>,
): BatchItem[] {
  let built = builtByDb.get(db);
  if (!built) builtByDb.set(db, built = new Map());
  let prepared = built.get(key);
  if (!prepared) {
    prepared = build().map((query) => query.prepare() as PreparedQuery);
    built.set(key, prepared);
  }
  return prepared.map((query) => {
    const { sql, params } = query.getQuery();
    const filled = fillPlaceholders(params, values);
    // What Drizzle's batch asks of an item: a prepared query to take the SQL
    // from, and that maps the result as the builder's would.
    const item = {
      _prepare: () => ({
        getQuery: () => ({ sql, params: filled }),
        mapResult: (response: unknown, isFromBatch?: boolean) =>
          query.mapResult(response, isFromBatch),
      }),
    };
    return item as unknown as BatchItem;
  });
}
