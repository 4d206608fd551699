/** Moderation notes on events. */
import { and, asc, eq } from "drizzle-orm";
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
