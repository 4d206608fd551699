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
import { is, Param, Placeholder as DrizzlePlaceholder, sql } from "drizzle-orm";
import type { BatchItem, BatchRead } from "./batch.ts";
import type { Db } from "./client.ts";

/** A value filled in at each use of a statement built once. */
export type Placeholder = ReturnType<typeof sql.placeholder>;

/** What Drizzle's prepared query gives: its SQL, and how results are mapped. */
interface PreparedQuery {
  /** A select's columns (one per field), as Drizzle lists them. */
  fields?: readonly unknown[];
  getQuery(): { sql: string; params: unknown[] };
  mapResult(response: unknown, isFromBatch?: boolean): unknown;
}

/**
 * A query builder that can be prepared (selects, inserts... of Drizzle), or
 * a raw statement (`db.run(sql...)`), which is its own prepared query.
 */
export type Preparable = { prepare(): unknown } | { _prepare(): unknown };

/**
 * Where each parameter of a statement built once comes from: a placeholder
 * (its value as given, or through its column's encoder) or the statement.
 */
/** A column's encoder of values for the driver. */
interface Encoder {
  mapToDriverValue(value: unknown): unknown;
}

type Slot = { name: string; encoder?: Encoder } | { value: unknown };

interface Built {
  query: PreparedQuery;
  sql: string;
  slots: Slot[];
}

const builtByDb = new WeakMap<Db, Map<string, Built[]>>();

/** The SQL and parameter slots of a prepared query, worked out once. */
function built(query: PreparedQuery): Built {
  const { sql, params } = query.getQuery();
  const slots = params.map((p): Slot => {
    if (is(p, DrizzlePlaceholder)) return { name: p.name };
    if (is(p, Param) && is(p.value, DrizzlePlaceholder)) {
      return { name: p.value.name, encoder: p.encoder as Encoder };
    }
    return { value: p };
  });
  return { query, sql, slots };
}

/** The parameters of a statement built once, with `values` in its placeholders. */
function fill(slots: Slot[], values: Record<string, unknown>): unknown[] {
  return slots.map((slot) => {
    if ("value" in slot) return slot.value;
    if (!(slot.name in values)) {
      throw new Error(`No value for placeholder "${slot.name}" was provided`);
    }
    const value = values[slot.name];
    // As Drizzle binds a value it is given: null is NULL (a JSON column's
    // encoder would write the text "null").
    return slot.encoder && value !== null && value !== undefined
      ? slot.encoder.mapToDriverValue(value)
      : value ?? null;
  });
}

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
  let byKey = builtByDb.get(db);
  if (!byKey) builtByDb.set(db, byKey = new Map());
  let prepared = byKey.get(key);
  if (!prepared) {
    prepared = build().map((query) =>
      built(
        ("prepare" in query
          ? query.prepare()
          : query._prepare()) as PreparedQuery,
      )
    );
    byKey.set(key, prepared);
  }
  return prepared.map(({ query, sql, slots }) => {
    const filled = fill(slots, values);
    // What Drizzle's batch asks of an item: a prepared query to take the SQL
    // from, and that maps the result as the builder's would.
    const item = {
      _prepare: () => ({
        fields: query.fields,
        getQuery: () => ({ sql, params: filled }),
        mapResult: (response: unknown, isFromBatch?: boolean) =>
          query.mapResult(response, isFromBatch),
      }),
    };
    return item as unknown as BatchItem;
  });
}

/** What a batch item gives Drizzle when it runs: its SQL and its mapping. */
interface BatchPreparable {
  _prepare(): PreparedQuery;
}

/**
 * Several selects as one statement (UNION ALL of the selects, each kept whole
 * with its own order and limit in a subquery, those with fewer columns
 * padded with nulls), whose result is the list of what each select would
 * have given, in order. On a remote database each statement costs a share of
 * a round trip; on the embedded one each has its own overhead.
 */
export function unionOf(parts: readonly BatchItem[]): BatchItem {
  const prepared = parts.map((part) =>
    (part as unknown as BatchPreparable)._prepare()
  );
  const widths = prepared.map((query) => query.fields?.length);
  const widest = Math.max(...widths.map((w) => w ?? 0));
  const queries = prepared.map((query) => query.getQuery());
  // The part each row comes from, and its rank in that part's own order.
  const text = queries.map((query, i) => {
    const width = widths[i];
    if (width === undefined && widths.some((w) => w !== widths[0])) {
      throw new Error("unionOf: a select of unknown width among others");
    }
    const padding = width === undefined || width === widest
      ? ""
      : ", null".repeat(widest - width);
    return `select ${i} as "part", row_number() over () as "rank", *${padding} from (${query.sql})`;
  }).join(" union all ");
  const params = queries.flatMap((query) => query.params);
  const item = {
    _prepare: () => ({
      // Its width, should it be merged in turn (the part, the rank, the rest).
      fields: new Array(2 + widest),
      getQuery: () => ({ sql: text, params }),
      mapResult(response: unknown, isFromBatch?: boolean) {
        const rows =
          (isFromBatch
            ? (response as { rows: ArrayLike<unknown>[] }).rows
            : response) as ArrayLike<unknown>[];
        const byPart: unknown[][][] = prepared.map(() => []);
        // SQLite gives the parts in turn, each in its own order; the rank
        // checks that rather than trusting it (an ORDER BY on the whole
        // would make SQLite sort every part again).
        let ordered = true;
        for (let i = 1; i < rows.length && ordered; i++) {
          const [part, rank] = [Number(rows[i][0]), Number(rows[i][1])];
          const [before, beforeRank] = [
            Number(rows[i - 1][0]),
            Number(rows[i - 1][1]),
          ];
          ordered = before < part || (before === part && beforeRank < rank);
        }
        const sorted = ordered
          ? rows
          : [...rows].sort((a, b) =>
            Number(a[0]) - Number(b[0]) || Number(a[1]) - Number(b[1])
          );
        for (const row of sorted) {
          const part = Number(row[0]);
          const width = widths[part];
          byPart[part].push(
            Array.prototype.slice.call(
              row,
              2,
              width === undefined ? undefined : 2 + width,
            ),
          );
        }
        return prepared.map((query, i) =>
          query.mapResult({ rows: byPart[i] }, true)
        );
      },
    }),
  };
  return item as unknown as BatchItem;
}

/**
 * A read (of selects only) as one statement: its selects merged by unionOf,
 * its answer made as before.
 */
export function asOneStatement<T>(query: BatchRead<T>): BatchRead<T> {
  if (query.statements.length <= 1) return query;
  return {
    statements: [unionOf(query.statements)],
    read: (results) => query.read(results[0] as unknown[]),
  };
}

/**
 * Selects run as one statement (unionOf): what `db.batch` would give for
 * them, in one statement instead of one each.
 */
export async function selectAsOne<T extends readonly unknown[]>(
  db: Db,
  selects: readonly BatchItem[],
): Promise<T> {
  const [results] = await db.batch([unionOf(selects)]) as unknown as [T];
  return results;
}
