/** Moderation of resources (replies received over federation). */
import { and, count, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apUsers, events, resources } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { notFound } from "../errors.ts";
import { loadSummaries } from "../events/load.ts";
import { caseInsensitiveGlob } from "../search.ts";
import {
  serializeApUserShallow,
  serializeResourceShallow,
} from "../events/serialize.ts";

export interface ResourceQuery {
  query?: string;
  page: number;
  pageSize: number;
}

/**
 * One page of resources, newest first, each with its actor and its event
 * (summary form). `query` matches, case-insensitively, the resource's
 * content, its actor id or its event's title. Count and pages are exact.
 */
export async function listResources(db: Db, q: ResourceQuery) {
  let where: SQL | undefined;
  if (q.query) {
    const pattern = caseInsensitiveGlob(q.query);
    where = sql`(
      coalesce(json_extract(${resources.data}, '$.content'), '') glob ${pattern}
      or coalesce(${resources.apUserApId}, '') glob ${pattern}
      or coalesce(${events.title}, '') glob ${pattern}
    )`;
  }
  const [rows, [{ n }]] = await db.batch([
    db.select({ resource: resources, actor: apUsers, event: events })
      .from(resources)
      .leftJoin(apUsers, eq(apUsers.ap_id, resources.apUserApId))
      .leftJoin(events, eq(events.id, resources.eventId))
      .where(where)
      .orderBy(desc(resources.createdAt), desc(resources.id))
      .limit(q.pageSize).offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(resources)
      .leftJoin(events, eq(events.id, resources.eventId))
      .where(where),
  ]);
  return {
    data: await withActorsAndEvents(db, rows),
    count: n,
    totalPages: Math.ceil(n / q.pageSize),
  };
}

/** Resource rows as listed: each with its actor and its event's summary. */
async function withActorsAndEvents(
  db: Db,
  rows: {
    resource: typeof resources.$inferSelect;
    actor: typeof apUsers.$inferSelect | null;
    event: typeof events.$inferSelect | null;
  }[],
) {
  const summaries = await loadSummaries(
    db,
    rows.flatMap((r) => r.event ? [r.event] : []),
  );
  const summaryById = new Map(summaries.map((s) => [s.id, s]));
  return rows.map((r) => ({
    ...serializeResourceShallow(r.resource),
    APUser: r.actor ? serializeApUserShallow(r.actor) : null,
    event: r.event ? summaryById.get(r.event.id) ?? null : null,
  }));
}

/** One resource as listResources lists it (actor, event), or null when unknown. */
export async function findResource(db: Db, id: number) {
  const rows = await db.select({
    resource: resources,
    actor: apUsers,
    event: events,
  }).from(resources)
    .leftJoin(apUsers, eq(apUsers.ap_id, resources.apUserApId))
    .leftJoin(events, eq(events.id, resources.eventId))
    .where(eq(resources.id, id));
  const [found] = await withActorsAndEvents(db, rows);
  return found ?? null;
}

/** Hides or shows a resource; 404 when unknown. */
export async function setResourceHidden(
  db: Db,
  clock: Clock,
  id: number,
  hidden: boolean,
) {
  const [row] = await db.update(resources).set({
    hidden,
    updatedAt: clock.now(),
  }).where(eq(resources.id, id)).returning();
  if (!row) throw notFound("Resource");
  return serializeResourceShallow(row);
}

/** Deletes a resource; 404 when unknown. */
export async function deleteResource(db: Db, id: number): Promise<void> {
  const [row] = await db.delete(resources).where(and(eq(resources.id, id)))
    .returning({ id: resources.id });
  if (!row) throw notFound("Resource");
}
