/**
 * The inbox: the guard every post to it passes before any JSON-LD work, and
 * the listeners of each activity family, registered on the personal and
 * shared inboxes.
 */
import { isBlockedSender } from "../actors.ts";
import type { Federation } from "@fedify/fedify";
import { hasValidHttpSignature, readInboxPost } from "../inbox-guard.ts";
import { idOf } from "../parse/read.ts";
import type { InboxContext } from "./common.ts";
import { listenEvents } from "./events.ts";
import { listenFollows } from "./follow.ts";
import { listenJoins } from "./join.ts";
import { listenReactions } from "./reactions.ts";

/** Registers every inbox listener (and the error handler) on `federation`. */
export function registerInboxListeners(
  federation: Federation<void>,
  env: InboxContext,
): void {
  const { log } = env.storage;
  const inbox = federation.setInboxListeners(
    "/federation/u/{identifier}/inbox",
    "/federation/inbox",
  );
  listenFollows(env, inbox);
  listenReactions(env, inbox);
  listenEvents(env, inbox);
  listenJoins(env, inbox);
  inbox.onError((_ctx, error) => {
    log.warning("inbox activity failed", { error: String(error) });
  });
}

/**
 * Refuses an inbox post before any JSON-LD work: too large (413), not a
 * bounded JSON activity or naming an unknown context (400), from a blocked
 * sender (403), or without a valid HTTP signature (401). Null lets it on.
 */
export async function guardInboxPost(
  env: Pick<InboxContext, "storage" | "fetching">,
  request: Request,
): Promise<Response | null> {
  const { db } = env.storage;
  const { cachedLoader } = env.fetching;
  const read = await readInboxPost(request);
  if ("refusal" in read) {
    return new Response(read.refusal.message, {
      status: read.refusal.status,
    });
  }
  const actor = idOf(read.json.actor);
  if (actor && await isBlockedSender(db, actor)) {
    return new Response("This actor or instance is blocked", {
      status: 403,
    });
  }
  if (!await hasValidHttpSignature(request, cachedLoader)) {
    return new Response(
      "The request needs a valid HTTP signature (draft-cavage with Digest, or RFC 9421)",
      { status: 401 },
    );
  }
  return null;
}
