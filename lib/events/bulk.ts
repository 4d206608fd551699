/**
 * Writes that change many events at once (a place edited or merged, a
 * user's events removed): the local event families they touch, and their
 * commit, which queues each family's federation in the write's own batch as
 * a single event write does (lib/events/commit.ts).
 */
import { and, inArray, or, type SQL, sql } from "drizzle-orm";
import { allReads, type BatchItem, type BatchRead } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import { events } from "../../db/schema.ts";
import type { EventChange, QueuedPublication, WriteDeps } from "./commit.ts";
import type { EventRow } from "./serialize.ts";

/** One event family's change by a bulk write, for federation (as a WriteResult). */
export interface FamilyChange extends EventChange {
  id: number;
  answer: undefined;
  publication: QueuedPublication | null;
}

/**
 * The local events matching `where`, with the rest of their series, by
 * family: each family's root id (the series' or the single event's) and its
 * rows before the change.
 */
export async function familiesWhere(
  db: Db,
  where: SQL,
): Promise<Map<number, EventRow[]>> {
  const held = db.select({
    root: sql<number>`coalesce(${events.parentId}, ${events.id})`,
  }).from(events).where(and(where, sql`${events.apUserApId} is null`));
  const rows = await db.select().from(events).where(
    or(
      sql`${events.id} in (${held})`,
      sql`${events.parentId} in (${held})`,
    ),
  ) as EventRow[];
  const families = new Map<number, EventRow[]>();
  for (const row of rows) {
    const root = row.parentId ?? row.id;
    families.set(root, [...families.get(root) ?? [], row]);
  }
  return families;
}

const nothing: BatchRead<null> = { statements: [], read: () => null };

/**
 * Runs `statements` (the change) and, in the same batch, a publication per
 * family touched and the families' rows after it: one round trip.
 */
export async function commitWithFamilies(
  deps: WriteDeps,
  statements: BatchItem[],
  families: Map<number, EventRow[]>,
): Promise<{ results: unknown[]; changes: FamilyChange[] }> {
  const { db } = deps;
  const roots = [...families.keys()];
  const beforeIds = [...families.values()].flat().map((e) => e.id);
  const publications = roots.map((root) =>
    deps.publication?.(root, families.get(root)!) ?? nothing
  );
  const after: BatchRead<EventRow[]> = beforeIds.length
    ? {
      statements: [
        db.select().from(events).where(inArray(events.id, beforeIds)),
      ],
      read: (results) => results[0] as EventRow[],
    }
    : { statements: [], read: () => [] };
  const reads = allReads(after, ...publications);
  const all = [...statements, ...reads.statements];
  if (all.length === 0) return { results: [], changes: [] };
  const results = await db.batch(all as [BatchItem, ...BatchItem[]]);
  const [afterRows, ...queued] = reads.read(
    results.slice(statements.length),
  ) as [EventRow[], ...(QueuedPublication | null)[]];
  const changes = roots.map((root, i) => ({
    id: root,
    answer: undefined,
    before: families.get(root)!,
    after: afterRows.filter((e) => (e.parentId ?? e.id) === root),
    publication: queued[i],
  }));
  return { results, changes };
}
