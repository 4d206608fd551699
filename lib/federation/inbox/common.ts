/**
 * What the inbox listeners share: the activity as received, the sender's
 * actor, the local event an activity names, and the copy of a remote object
 * that counts as its author's.
 */
import type { Activity } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { events } from "../../../db/schema.ts";
import type { ApUserRow } from "../../events/serialize.ts";
import { upsertActor } from "../actors.ts";
import {
  asRecord,
  type FederationFetching,
  type FederationIdentity,
  type FederationInboxWork,
  type FederationStorage,
  isFederated,
} from "../core.ts";
import { localEventIdFromUrl } from "../object.ts";
import { idOf } from "../parse/read.ts";

/**
 * What the inbox listeners use: storage, fetching, identity and the queue
 * message being handled. Each helper takes only the parts it reads.
 */
export interface InboxContext {
  storage: FederationStorage;
  fetching: FederationFetching;
  identity: FederationIdentity;
  inboxWork: FederationInboxWork;
}

/** The `type` of a JSON-LD object (its first, when several), or null. */
export function typeOf(value: unknown): string | null {
  if (!value || typeof value !== "object") return null;
  const t = (value as { type?: unknown }).type;
  return typeof t === "string" ? t : Array.isArray(t) ? String(t[0]) : null;
}

/** Whether two URLs share scheme, host and port (false if either is not a URL). */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * The activity as received, from the queued inbox message; its LD
 * signature is kept only when Fedify verified it. Falls back to Fedify's
 * own serialisation.
 */
export async function rawOf(
  env: Pick<InboxContext, "inboxWork">,
  activity: Activity,
): Promise<Record<string, unknown>> {
  const message = asRecord(env.inboxWork.currentMessage.getStore());
  const original = asRecord(message.activity);
  if (
    message.type === "inbox" && activity.id &&
    idOf(original) === activity.id.href
  ) {
    const raw = { ...original };
    if (message.ldSignatureVerified !== true) delete raw.signature;
    return raw;
  }
  return asRecord(await activity.toJsonLd());
}

/** Stores the sender (fetching its actor document) and returns its row. */
export async function rememberSender(
  env: Pick<InboxContext, "storage">,
  ctx: { documentLoader: unknown },
  activity: Activity,
  flags: Partial<Pick<ApUserRow, "follower" | "following">> = {},
): Promise<ApUserRow | null> {
  const { db, clock } = env.storage;
  const actor = await activity.getActor(ctx as never);
  if (!actor?.id) return null;
  return await upsertActor(
    db,
    clock,
    actor.id.href,
    await actor.toJsonLd(),
    flags,
  );
}

/** The local, federated event `objectId` names, or null. */
export async function localEventFor(
  env: Pick<InboxContext, "storage" | "identity">,
  objectId: string | null,
) {
  const { db } = env.storage;
  const { baseUrl } = env.identity;
  if (!objectId) return null;
  const id = localEventIdFromUrl(baseUrl, objectId);
  if (id === null) return null;
  const [row] = await db.select().from(events).where(eq(events.id, id));
  return isFederated(row ?? null) ? row : null;
}

/**
 * The copy of a remote object that counts as `authorId`'s, or null. Its id
 * must be on the author's origin, and a fetched copy must come from there
 * (redirects included). An embedded copy counts only inside an activity the
 * author signed: as is (`embedded: "use"`), or when the fetch fails
 * (`"fallback"`); otherwise (`"never"`, as inside an Announce) only the
 * origin's copy counts.
 */
export async function authoritativeObject(
  env: Pick<InboxContext, "storage" | "fetching">,
  object: unknown,
  authorId: string,
  embedded: "use" | "fallback" | "never",
): Promise<Record<string, unknown> | null> {
  const { log } = env.storage;
  const { freshLoader } = env.fetching;
  const id = idOf(object);
  if (!id) return null;
  if (!sameOrigin(id, authorId)) {
    log.debug("ignored an object that is not on its author's origin", {
      id,
      author: authorId,
    });
    return null;
  }
  const copy = typeof object === "object" && embedded !== "never"
    ? asRecord(object)
    : null;
  if (copy && embedded === "use") return copy;
  try {
    const { document, documentUrl } = await freshLoader(id);
    const doc = asRecord(document);
    if (idOf(doc) === id && sameOrigin(documentUrl, authorId)) return doc;
    log.debug("a fetched object is not the one named on its origin", {
      id,
      documentUrl,
    });
  } catch (err) {
    log.debug("could not fetch a remote object", {
      id,
      error: String(err),
    });
  }
  return copy;
}
