/**
 * Values, rows and results of the embedded engine (db/embedded.ts) in the
 * shapes `@libsql/client` (intMode "number") gives: arguments bound as it
 * binds them, blobs back as ArrayBuffer, array-like rows with column-name
 * properties.
 */
import type { InArgs, InValue, ResultSet, Row } from "@libsql/client/web";

type SqlValue = null | number | bigint | string | Uint8Array;

/** A value bound as `@libsql/client` binds it (intMode "number"). */
function toSql(value: InValue): SqlValue {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new RangeError(
        "Only finite numbers (not Infinity or NaN) can be passed as arguments",
      );
    }
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) {
    throw new TypeError(
      "undefined cannot be passed as argument to the database",
    );
  }
  return value;
}

/** Positional or named arguments, converted for `node:sqlite`. */
export function bindArgs(
  args: InArgs | undefined,
): SqlValue[] | Record<string, SqlValue> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(toSql);
  const named: Record<string, SqlValue> = {};
  for (const [name, value] of Object.entries(args)) named[name] = toSql(value);
  return named;
}

/** A blob as `@libsql/client` returns it: an ArrayBuffer of its own. */
export function fromSql(value: unknown): unknown {
  if (value instanceof Uint8Array) {
    const { buffer, byteOffset, byteLength } = value;
    return byteOffset === 0 && byteLength === buffer.byteLength &&
        buffer instanceof ArrayBuffer
      ? buffer
      : value.slice().buffer;
  }
  return value;
}

/** Makes rows for one list of columns (see `rowClassFor`). */
type RowClass = new (values: unknown[]) => Row;

/** Row classes by column list (a list is replaced when its statement's columns are read again). */
const rowClasses = new WeakMap<string[], RowClass>();

/**
 * The class of rows shaped like `@libsql/client`'s for `columns`: values by
 * column name (own, enumerable: the first column of a name wins, as there),
 * and by index with `length` (getters on the prototype, not enumerable, so
 * Drizzle's `Object.keys` sees only names). One class per column list keeps
 * every row of a statement in one hidden class; defining each value as a
 * property of its own, as before, cost about a tenth of an uncached read.
 */
export function rowClassFor(columns: string[]): RowClass {
  const known = rowClasses.get(columns);
  if (known) return known;
  const named: [string, number][] = [];
  const seen = new Set<string>();
  columns.forEach((name, i) => {
    // Names that are an index or `length` read the index or the length, as
    // with @libsql/client (those are defined first there).
    const shadowed = name === "length" ||
      (/^(0|[1-9]\d*)$/.test(name) && Number(name) < columns.length);
    if (seen.has(name) || shadowed) return;
    seen.add(name);
    named.push([name, i]);
  });
  const EmbeddedRow = class {
    #values: unknown[];
    constructor(values: unknown[]) {
      this.#values = values;
      const self = this as unknown as Record<string, unknown>;
      for (const [name, i] of named) self[name] = values[i];
    }
    static valueAt(row: InstanceType<typeof EmbeddedRow>, i: number): unknown {
      return row.#values[i];
    }
    static lengthOf(row: InstanceType<typeof EmbeddedRow>): number {
      return row.#values.length;
    }
  };
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(EmbeddedRow.prototype, i, {
      get(this: InstanceType<typeof EmbeddedRow>) {
        return EmbeddedRow.valueAt(this, i);
      },
    });
  }
  Object.defineProperty(EmbeddedRow.prototype, "length", {
    get(this: InstanceType<typeof EmbeddedRow>) {
      return EmbeddedRow.lengthOf(this);
    },
  });
  const rowClass = EmbeddedRow as unknown as RowClass;
  rowClasses.set(columns, rowClass);
  return rowClass;
}

/** Bytes in base64 (a loop: spreading a large blob overflows the stack). */
function base64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** A result with `@libsql/client`'s fields and JSON form. */
export class Result implements ResultSet {
  constructor(
    public columns: string[],
    public columnTypes: string[],
    public rows: Row[],
    public rowsAffected: number,
    public lastInsertRowid: bigint | undefined,
  ) {}

  toJSON() {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) =>
        Array.prototype.map.call(
          row,
          (v: unknown) =>
            typeof v === "bigint"
              ? String(v)
              : v instanceof ArrayBuffer
              ? base64(new Uint8Array(v))
              : v,
        )
      ),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid === undefined
        ? null
        : String(this.lastInsertRowid),
    };
  }
}
