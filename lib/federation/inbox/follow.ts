/**
 * Follows in both directions: a Follow of the instance actor is accepted;
 * Accept and Reject answer the Follows we sent; Undo withdraws a Follow (or
 * a Like or Announce of a local event).
 */
import type { InboxListenerSetters } from "@fedify/fedify";
import { Accept, type Activity, Follow, Reject, Undo } from "@fedify/vocab";
import type { Settings } from "../../settings.ts";
import { isBlockedSender, setActorFlags, upsertActor } from "../actors.ts";
import { asRecord, decodeURIComponentSafe } from "../core.ts";
import { idOf } from "../parse/read.ts";
import { forgetProcessedActivity } from "../trust.ts";
import { type InboxContext, localEventFor, rawOf, typeOf } from "./common.ts";
import { removeReaction } from "./reactions.ts";

/**
 * Whether an Accept or Reject answers a Follow we sent to its sender: the
 * Follow (embedded, or by the id we gave it) is ours and targets the sender.
 */
async function answersOurFollow(
  env: Pick<InboxContext, "identity" | "inboxWork">,
  settings: Settings,
  answer: Activity,
): Promise<boolean> {
  const { me } = env.identity;
  const sender = answer.actorId?.href;
  if (!sender) return false;
  const raw = await rawOf(env, answer);
  const follow = raw.object;
  const prefix = `${me(settings)}#follows/`;
  const id = idOf(follow) ?? "";
  if (typeof follow === "object" && follow !== null) {
    const f = asRecord(follow);
    if (idOf(f.actor) === me(settings) && idOf(f.object) === sender) {
      return true;
    }
  }
  if (!id.startsWith(prefix)) return false;
  // `#follows/{target}` (older) or `#follows/{target}/{attempt}`.
  const target = decodeURIComponentSafe(
    id.slice(prefix.length).split("/")[0],
  );
  return target === sender;
}

/** Registers the Follow, Undo, Accept and Reject listeners on `inbox`. */
export function listenFollows(
  env: InboxContext,
  inbox: InboxListenerSetters<void>,
): void {
  const { db, clock } = env.storage;
  const { activeSettings, me } = env.identity;
  inbox
    .on(Follow, async (ctx, follow) => {
      const settings = await activeSettings();
      if (!settings || !follow.actorId || !follow.objectId) return;
      if (follow.objectId.href !== me(settings)) return;
      if (await isBlockedSender(db, follow.actorId.href)) return;
      const actor = await follow.getActor(ctx);
      if (!actor?.id) return;
      await upsertActor(db, clock, actor.id.href, await actor.toJsonLd(), {
        follower: true,
      });
      await ctx.sendActivity(
        { identifier: settings.instance_actor },
        actor,
        new Accept({
          id: new URL(`${me(settings)}#accepts/${crypto.randomUUID()}`),
          actor: new URL(me(settings)),
          object: follow,
        }),
      );
    })
    .on(Undo, async (ctx, undo) => {
      if (!undo.actorId) return;
      const actorId = undo.actorId.href;
      const raw = await rawOf(env, undo);
      const inner = asRecord(raw.object);
      const innerType = typeOf(inner) ??
        (await undo.getObject(ctx).catch(() => null))?.constructor.name;
      const innerActor = idOf(inner.actor);
      if (innerActor && innerActor !== actorId) return;
      if (innerType === "Follow") {
        await setActorFlags(db, clock, actorId, { follower: false });
        // Peers that reuse one Follow id (Gancio) must be able to follow again.
        const followId = idOf(raw.object);
        if (followId) await forgetProcessedActivity(env, followId);
      } else if (innerType === "Like" || innerType === "Announce") {
        const event = await localEventFor(env, idOf(inner.object));
        if (event) {
          await removeReaction(
            env,
            innerType === "Like" ? "likes" : "boost",
            event.id,
            actorId,
          );
        }
      }
    })
    .on(Accept, async (_ctx, accept) => {
      const settings = await activeSettings();
      if (!settings || !accept.actorId) return;
      if (await answersOurFollow(env, settings, accept)) {
        await setActorFlags(db, clock, accept.actorId.href, {
          following: true,
        });
      }
    })
    .on(Reject, async (_ctx, reject) => {
      const settings = await activeSettings();
      if (!settings || !reject.actorId) return;
      if (await answersOurFollow(env, settings, reject)) {
        await setActorFlags(db, clock, reject.actorId.href, {
          following: false,
        });
      }
    });
}
