/**
 * How the statements of a write name the event it writes: by id, or (a
 * creation, whose id is known only once its batch has run) by the slug it
 * inserts, in a subquery. Statements that name an event either way are built
 * once per shape (db/prebuilt.ts), the id or slug filled in at each use:
 * Drizzle building a write's statements afresh was about a fifth of its time.
 */
import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import {
  type Placeholder,
  prebuiltStatements,
  type Preparable,
} from "../../db/prebuilt.ts";
import { events } from "../../db/schema.ts";

/** The slugs of the references eventBySlug made. */
const slugOfRef = new WeakMap<SQL, string>();

function bySlug(slug: string | Placeholder): SQL {
  return sql`(select ${events.id} from ${events} where ${events.slug} = ${slug})`;
}

/** The event whose slug is `slug`, in a statement (one just inserted, whose id is not known yet). */
export function eventBySlug(slug: string): SQL {
  const ref = bySlug(slug);
  slugOfRef.set(ref, slug);
  return ref;
}

/** A value of a statement built once: a placeholder, or the value itself. */
export type ValueOf = (name: string) => unknown;

/**
 * The statements `build` makes for the event `ref`, built once per `key`
 * and kind of reference (an id, or a slug from eventBySlug), with the
 * reference and `values` filled in: `build` gets the reference to use and
 * `value(name)` for each of `values` (placeholders when built once). Any
 * other SQL reference is built afresh, with the values themselves.
 */
export function prebuiltForEvent(
  db: Db,
  key: string,
  ref: SQL | number,
  build: (ref: SQL | Placeholder, value: ValueOf) => Preparable[],
  values: Record<string, unknown> = {},
): BatchItem[] {
  const placeholder: ValueOf = (name) => sql.placeholder(name);
  if (typeof ref === "number") {
    return prebuiltStatements(
      db,
      `${key}:id`,
      () => build(sql.placeholder("ref"), placeholder),
      { ...values, ref },
    );
  }
  const slug = slugOfRef.get(ref);
  if (slug !== undefined) {
    return prebuiltStatements(
      db,
      `${key}:slug`,
      () => build(bySlug(sql.placeholder("ref")), placeholder),
      { ...values, ref: slug },
    );
  }
  return build(ref, (name) => values[name]) as unknown as BatchItem[];
}
