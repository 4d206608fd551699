/** The moderation queue: local events waiting for confirmation. */
import { and, asc, count, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events, places } from "../../db/schema.ts";
import { summaryColumns, summaryOf, type SummaryRow } from "./load.ts";
import type { EventSummary } from "./serialize.ts";

/** A hidden local event in the moderation queue: its summary, when and by whom it was submitted. */
export type UnconfirmedEvent = EventSummary & {
  createdAt: string;
  /** The submitter; null for an anonymous submission. */
  userId: number | null;
};

/** An event of the queue's page: with its description (as stored, sanitised HTML), which an editor judges it by. */
export type QueuedEvent = UnconfirmedEvent & { description: string };

/**
 * What puts an event in the moderation queue: hidden and local; a hidden
 * series by its template only, an occurrence only when hidden on its own.
 */
function unconfirmedCondition(): SQL | undefined {
  const parent = sql.identifier("parent_event");
  return and(
    eq(events.is_visible, false),
    isNull(events.apUserApId),
    or(
      isNull(events.parentId),
      sql`exists (select 1 from ${events} ${parent} where ${parent}.${
        sql.identifier("id")
      } = ${events.parentId} and ${parent}.${
        sql.identifier("is_visible")
      } = 1)`,
    ),
  );
}

/** One page of the queue, oldest submission first. */
function unconfirmedQuery(db: Db, page: number, max: number) {
  return db.select({
    ...summaryColumns,
    description: events.description,
    createdAt: events.createdAt,
    userId: events.userId,
  }).from(events)
    .leftJoin(places, eq(places.id, events.placeId))
    .where(unconfirmedCondition())
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(max).offset((page - 1) * max);
}

function unconfirmedOf(
  row: SummaryRow & {
    description: string;
    createdAt: Date;
    userId: number | null;
  },
): QueuedEvent {
  return {
    ...summaryOf(row),
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    userId: row.userId,
  };
}

/**
 * The moderation queue: local events waiting for confirmation (hidden:
 * anonymous submissions, and events their owner or a moderator hid), oldest
 * submission first. A hidden series is listed once, by its template; an
 * occurrence only when it is hidden on its own (its series visible). One
 * statement, through the partial index events_unconfirmed_idx.
 */
export async function listUnconfirmedEvents(
  db: Db,
  page: number,
  max: number,
): Promise<UnconfirmedEvent[]> {
  const rows = await unconfirmedQuery(db, page, max);
  // The API's list is of summaries: no description.
  return rows.map((row) => {
    const { description: _, ...event } = unconfirmedOf(row);
    return event;
  });
}

/** One page of the moderation queue and how many events wait in all (one round trip). */
export async function listUnconfirmedPage(
  db: Db,
  page: number,
  max: number,
): Promise<{ events: QueuedEvent[]; count: number }> {
  const [rows, [{ n }]] = await db.batch([
    unconfirmedQuery(db, page, max),
    db.select({ n: count() }).from(events).where(unconfirmedCondition()),
  ]);
  return { events: rows.map(unconfirmedOf), count: n };
}
