/** Moderation notes on events. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { messages } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { forbidden, notFound } from "../errors.ts";
import type { UserRow } from "../users.ts";
import { canEditEvent, canSeeEvent, isModerator } from "./access.ts";
import { findEvent } from "./load.ts";
import { type MessageRow, serializeMessage } from "./serialize.ts";

/**
 * Adds a message to an event (moderators or the owner). A note written by the
 * owner is always visible to them.
 */
export async function addMessage(
  db: Db,
  clock: Clock,
  user: UserRow,
  eventId: number,
  input: { message: string; is_author_visible?: boolean },
) {
  const event = await findEvent(db, eventId);
  if (!event || !canSeeEvent(user, event)) throw notFound("Event");
  if (!canEditEvent(user, event)) {
    throw forbidden("Only the owner, an editor or an admin may write here");
  }
  const owner = event.userId === user.id;
  const now = clock.now();
  const [row] = await db.insert(messages).values({
    message: input.message.trim(),
    author: user.email,
    is_author_visible: owner || (input.is_author_visible ?? false),
    eventId,
    createdAt: now,
    updatedAt: now,
  }).returning();
  return serializeMessage(row);
}

/** Messages of an event as the viewer may see them: all for moderators, the visible ones for the owner. */
export async function listMessages(db: Db, user: UserRow, eventId: number) {
  const event = await findEvent(db, eventId);
  if (!event || !canSeeEvent(user, event)) throw notFound("Event");
  if (!canEditEvent(user, event)) {
    throw forbidden("Only the owner, an editor or an admin may read these");
  }
  const rows: MessageRow[] = await db.select().from(messages).where(
    and(
      eq(messages.eventId, eventId),
      isModerator(user) ? undefined : eq(messages.is_author_visible, true),
    ),
  ).orderBy(asc(messages.createdAt), asc(messages.id));
  return rows.map(serializeMessage);
}

/** How many messages of each event the moderation queue shows (the latest). */
export const QUEUE_MESSAGES_LIMIT = 50;

/**
 * The messages of several events for a moderator, oldest first, the latest
 * `limit` of each: one statement whatever the number of events.
 */
export async function listMessagesOfEvents(
  db: Db,
  user: UserRow,
  eventIds: number[],
  limit = QUEUE_MESSAGES_LIMIT,
): Promise<Map<number, ReturnType<typeof serializeMessage>[]>> {
  if (!isModerator(user)) {
    throw forbidden("Only an editor or an admin may read these");
  }
  const byEvent = new Map(
    eventIds.map((id) => [id, [] as ReturnType<typeof serializeMessage>[]]),
  );
  if (eventIds.length === 0) return byEvent;
  const ranked = db.select({
    id: messages.id,
    rank: sql<
      number
    >`row_number() over (partition by ${messages.eventId} order by ${messages.createdAt} desc, ${messages.id} desc)`
      .as("rank"),
  }).from(messages).where(inArray(messages.eventId, eventIds)).as("ranked");
  const rows: MessageRow[] = await db.select({ message: messages }).from(
    messages,
  ).innerJoin(ranked, eq(ranked.id, messages.id))
    .where(sql`${ranked.rank} <= ${limit}`)
    .orderBy(asc(messages.createdAt), asc(messages.id))
    .then((r) => r.map((x) => x.message));
  for (const row of rows) byEvent.get(row.eventId)?.push(serializeMessage(row));
  return byEvent;
}
