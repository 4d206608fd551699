/**
 * Join of a local event: Quando events take no registrations, so it is
 * refused with a Reject naming the Join (Mobilizon handles Accept and Reject
 * of a Join, nothing else; its participant is marked rejected).
 */
import type { InboxListenerSetters } from "@fedify/fedify";
import { Join, Reject } from "@fedify/vocab";
import { isBlockedSender } from "../actors.ts";
import type { InboxContext } from "./common.ts";

/** Registers the Join listener on `inbox`. */
export function listenJoins(
  env: Pick<InboxContext, "storage" | "identity">,
  inbox: InboxListenerSetters<void>,
): void {
  const { db } = env.storage;
  const { activeSettings, me } = env.identity;
  inbox.on(Join, async (ctx, join) => {
    const settings = await activeSettings();
    if (!settings || !join.actorId) return;
    if (await isBlockedSender(db, join.actorId.href)) return;
    const actor = await join.getActor(ctx);
    if (!actor) return;
    // Quando events take no registrations: participation is on the event's
    // page (its `externalParticipationUrl`).
    await ctx.sendActivity(
      { identifier: settings.instance_actor },
      actor,
      new Reject({
        id: new URL(`${me(settings)}#rejects/${crypto.randomUUID()}`),
        actor: new URL(me(settings)),
        object: join,
      }),
    );
  });
}
