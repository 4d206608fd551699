/**
 * How an event write commits, and the contract it keeps with federation:
 * what a write needs (its publication among it), what it gives back (the
 * change, the answer, the publication it queued), and its batch, which runs
 * the write's statements and then, in the same batch, the reads after them.
 */
import { or, type SQL, sql } from "drizzle-orm";
import {
  allReads,
  type BatchItem,
  type BatchRead,
  runRead,
} from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import { events, type MediaItem } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import type { Settings } from "../settings.ts";
import type { EventRow } from "./serialize.ts";
import { prebuiltForEvent } from "./refs.ts";
import { eventBySlug, nameByIdStatement } from "./statements.ts";

/** What an event write needs. */
export interface WriteDeps {
  db: Db;
  clock: Clock;
  settings: Settings;
  /**
   * Queues the change's federation in the write's own batch (absent: not
   * federated), so that a write and its publication commit together.
   */
  publication?: PublicationWrite;
}

/** A publication queued by a write's batch: its queue row and the write's time (ms). */
export interface QueuedPublication {
  id: number;
  stamp: number;
}

/**
 * The statements that queue the federation of a change to the event `ref`
 * (and its occurrences), given the family before it; they read back the
 * queued row (null when nothing of the change is on the fediverse).
 */
export type PublicationWrite = (
  ref: SQL | number,
  before: EventRow[],
) => BatchRead<QueuedPublication | null>;

/**
 * What a change did to an event and its occurrences, for federation: the
 * rows before (empty for a creation) and after it (deleted ones missing,
 * occurrences it detached from their series included).
 */
export interface EventChange {
  before: EventRow[];
  after: EventRow[];
}

/**
 * The result of a write: the event's id, the change, the answer read after
 * it, and the publication its batch queued (null: none).
 */
export interface WriteResult<T> extends EventChange {
  id: number;
  answer: T;
  publication: QueuedPublication | null;
}

/**
 * What a write reads back in its own batch, after its statements (so it sees
 * them): given the event (its id, or an SQL expression giving it), the reads
 * of the answer to the request. One round trip for the write and its answer.
 */
export type Respond<T> = (ref: SQL | number) => BatchRead<T>;

/** What a write may do besides the change itself. */
export interface WriteOptions<T> {
  /** An attached image, stored once everything else is known to be valid. */
  saveImage?: () => Promise<MediaItem>;
  respond?: Respond<T>;
  /**
   * Statements committed in the write's own batch, given the event (its id,
   * or an SQL expression giving it): a record of where an import came from.
   */
  alsoWrite?: (ref: SQL | number) => BatchItem[];
}

/** An event and its occurrences (by id or SQL ref), plus `alsoIds`. */
export function familyQuery(
  db: Db,
  ref: SQL | number,
  alsoIds: number[] = [],
): BatchRead<EventRow[]> {
  // Built once per number of other ids (lib/events/refs.ts).
  const names = alsoIds.map((_, i) => `also${i}`);
  return {
    statements: prebuiltForEvent(
      db,
      `family:${alsoIds.length}`,
      ref,
      (ref, value) => [
        db.select().from(events).where(
          or(
            sql`${events.id} = ${ref}`,
            sql`${events.parentId} = ${ref}`,
            names.length
              ? sql`${events.id} in (${
                sql.join(names.map((name) => sql`${value(name)}`), sql`, `)
              })`
              : undefined,
          ),
        ),
      ],
      Object.fromEntries(names.map((name, i) => [name, alsoIds[i]])),
    ),
    read: (results) => results[0] as EventRow[],
  };
}

/** A read of nothing: no statements, and no answer. */
export const noAnswer: BatchRead<undefined> = {
  statements: [],
  read: () => undefined,
};

/**
 * Runs a write's statements and, in the same batch, the reads of the family
 * after it and of the answer: one round trip.
 */
export async function writeAndRead<T>(
  deps: WriteDeps,
  statements: BatchItem[],
  ref: SQL | number,
  before: EventRow[],
  respond: Respond<T> | undefined,
): Promise<{
  results: unknown[];
  after: EventRow[];
  answer: T;
  publication: QueuedPublication | null;
}> {
  const { db } = deps;
  const reads = allReads(
    familyQuery(db, ref, before.map((e) => e.id)),
    respond ? respond(ref) : noAnswer as BatchRead<T>,
    deps.publication?.(ref, before) ?? noPublication,
  );
  const results = await db.batch(
    [...statements, ...reads.statements] as [BatchItem, ...BatchItem[]],
  );
  const [after, answer, publication] = reads.read(
    results.slice(statements.length),
  );
  return { results, after, answer, publication };
}

const noPublication: BatchRead<QueuedPublication | null> = {
  statements: [],
  read: () => null,
};

/**
 * Runs the statements of a creation whose event holds the temporary slug
 * `slug` (its title gives none) and, last in the same batch, names it
 * `event-<id>`. Its publication is queued before that, while the temporary
 * slug still names the event. Once it is renamed no statement can find the
 * event (its id is known only from the batch's results), so the family after
 * it and the answer are read in a round trip of their own, by the id that
 * the insert at `insertAt` returned: one round trip more than writeAndRead
 * (4 rather than 3 for such a write, BENCHMARKS.md).
 */
export async function writeRenameAndRead<T>(
  deps: WriteDeps,
  statements: BatchItem[],
  slug: string,
  insertAt: number,
  respond: Respond<T> | undefined,
): Promise<{
  results: unknown[];
  after: EventRow[];
  answer: T;
  publication: QueuedPublication | null;
}> {
  const { db } = deps;
  const queue = deps.publication?.(eventBySlug(slug), []) ?? noPublication;
  const all: BatchItem[] = [
    ...statements,
    ...queue.statements,
    nameByIdStatement(db, slug),
  ];
  const results = await db.batch(all as [BatchItem, ...BatchItem[]]);
  const id = (results[insertAt] as { id: number }[])[0].id;
  const publication = queue.read(
    results.slice(
      statements.length,
      statements.length + queue.statements.length,
    ),
  );
  const [after, answer] = await runRead(
    db,
    allReads(
      familyQuery(db, id),
      respond ? respond(id) : noAnswer as BatchRead<T>,
    ),
  );
  return { results, after, answer, publication };
}
