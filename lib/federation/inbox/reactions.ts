/**
 * Reactions to local events: Like and Announce (a boost) add the sender to
 * the event's `likes` or `boost`; an Announce of a Create or Update is
 * handled as its author's, and one of a remote Event as a relay's
 * (lib/federation/inbox/events.ts). Their Undo is
 * handled with Undo Follow (lib/federation/inbox/follow.ts).
 */
import type { InboxListenerSetters } from "@fedify/fedify";
import { Announce, Like } from "@fedify/vocab";
import { and, eq, sql } from "drizzle-orm";
import { events } from "../../../db/schema.ts";
import { isBlockedSender } from "../actors.ts";
import { asRecord } from "../core.ts";
import { idOf } from "../parse/read.ts";
import { type InboxContext, localEventFor, rawOf, typeOf } from "./common.ts";
import { handleAnnouncedEvent, handleCreateOrUpdate } from "./events.ts";

/** Adds `actorId` to an event's likes or boosts (once). */
export async function addReaction(
  env: Pick<InboxContext, "storage">,
  column: "likes" | "boost",
  eventId: number,
  actorId: string,
): Promise<void> {
  const { db } = env.storage;
  const col = events[column];
  await db.update(events).set({
    [column]: sql`json_insert(${col}, '$[#]', ${actorId})`,
  }).where(
    and(
      eq(events.id, eventId),
      sql`not exists (select 1 from json_each(${col}) where value = ${actorId})`,
    ),
  );
}

/** Removes `actorId` from an event's likes or boosts. */
export async function removeReaction(
  env: Pick<InboxContext, "storage">,
  column: "likes" | "boost",
  eventId: number,
  actorId: string,
): Promise<void> {
  const { db } = env.storage;
  const col = events[column];
  await db.update(events).set({
    [column]:
      sql`(select json_group_array(value) from json_each(${col}) where value != ${actorId})`,
  }).where(eq(events.id, eventId));
}

/** Registers the Like and Announce listeners on `inbox`. */
export function listenReactions(
  env: InboxContext,
  inbox: InboxListenerSetters<void>,
): void {
  const { db } = env.storage;
  inbox
    .on(Like, async (_ctx, like) => {
      if (!like.actorId) return;
      if (await isBlockedSender(db, like.actorId.href)) return;
      const event = await localEventFor(env, like.objectId?.href ?? null);
      if (event) await addReaction(env, "likes", event.id, like.actorId.href);
    })
    .on(Announce, async (ctx, announce) => {
      if (!announce.actorId) return;
      const actorId = announce.actorId.href;
      if (await isBlockedSender(db, actorId)) return;
      const raw = await rawOf(env, announce);
      const inner = raw.object;
      if (typeOf(inner) === "Create" || typeOf(inner) === "Update") {
        const innerRaw = asRecord(inner);
        const author = idOf(innerRaw.actor);
        if (!author || await isBlockedSender(db, author)) return;
        await handleCreateOrUpdate(
          env,
          ctx,
          announce,
          author,
          innerRaw,
          typeOf(inner) === "Update",
          true,
        );
        return;
      }
      const event = await localEventFor(env, idOf(inner));
      if (event) {
        await addReaction(env, "boost", event.id, actorId);
        return;
      }
      // A relay's Announce of an Event (Mobilizon's), embedded or by id.
      if (typeOf(inner) === "Event" || typeof inner === "string") {
        await handleAnnouncedEvent(env, actorId, inner);
      }
    });
}
