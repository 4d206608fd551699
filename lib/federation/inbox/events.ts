/**
 * Remote events and notes arriving in the inbox: Create and Update of an
 * Event (by a trusted, followed author, or a member of its origin posting
 * for it, as Mobilizon sends a group's events), an Event announced by a
 * trusted relay, Create and Update of a Note/Article replying to a local
 * event (a resource), and Delete of either.
 */
import type { InboxListenerSetters } from "@fedify/fedify";
import { type Activity, Create, Delete, Update } from "@fedify/vocab";
import { and, eq, isNotNull } from "drizzle-orm";
import { events, type MediaItem, resources } from "../../../db/schema.ts";
import type { EventRow } from "../../events/serialize.ts";
import { deleteEventsById, upsertRemoteEvent } from "../../events/remote.ts";
import { getSettings } from "../../settings.ts";
import { findActor, isBlockedSender } from "../actors.ts";
import { asRecord } from "../core.ts";
import { parseRemoteEvent } from "../parse/event.ts";
import { parseRemoteNote, type RemoteNote } from "../parse/note.ts";
import { idOf } from "../parse/read.ts";
import {
  authoritativeObject,
  type InboxContext,
  localEventFor,
  rawOf,
  rememberSender,
  sameOrigin,
  typeOf,
} from "./common.ts";

/** Where an Event's copy came from, and who may be its author. */
interface EventSource {
  /**
   * A URL on the origin the copy was checked to come from: the signed
   * sender, or, for an announced Event, the Event's own id.
   */
  origin: string;
  /** The author when the object names none (the signed sender), or null. */
  fallbackAuthor: string | null;
  /** The activity's verified LD signature, kept with the event. */
  signature: unknown;
}

/**
 * Imports or updates a remote event. Its author (`attributedTo`, else its
 * `actor`, else the sender) must be on the origin the copy came from, and be
 * trusted, followed and not blocked: so a member of a Mobilizon group may
 * post for the group, never someone elsewhere. An existing event stays its
 * author's (never a local event's).
 */
async function handleRemoteEvent(
  env: Pick<InboxContext, "storage">,
  object: Record<string, unknown>,
  source: EventSource,
): Promise<void> {
  const { db, clock, log } = env.storage;
  const parsed = parseRemoteEvent(object);
  if (!parsed.ok) {
    log.info("ignored an unparseable remote event", {
      origin: source.origin,
      reason: parsed.reason,
    });
    return;
  }
  const data = parsed.value;
  const authorId = data.attributedTo ?? source.fallbackAuthor;
  if (!authorId || !sameOrigin(authorId, source.origin)) {
    log.info("ignored an event whose author is not on its origin", {
      origin: source.origin,
      author: authorId,
    });
    return;
  }
  const author = await findActor(db, authorId);
  if (
    !author || !author.trusted || !author.following ||
    await isBlockedSender(db, authorId)
  ) {
    log.info("ignored an event from an actor not trusted and followed", {
      actor: authorId,
    });
    return;
  }
  const [existing] = await db.select({ apUserApId: events.apUserApId })
    .from(events).where(eq(events.ap_id, data.ap_id));
  // It stays its author's (never a local event).
  if (existing && existing.apUserApId !== authorId) return;
  const media: MediaItem[] = data.media.map((m) => ({
    name: m.name,
    url: m.url,
    width: m.width,
    height: m.height,
    size: null,
    focalpoint: m.focalpoint,
  }));
  await upsertRemoteEvent({ db, clock }, {
    ap_id: data.ap_id,
    apUserApId: authorId,
    title: data.title,
    description: data.description,
    start_datetime: data.start_datetime,
    end_datetime: data.end_datetime,
    status: data.status,
    place: data.place,
    online_locations: data.online_locations,
    tags: data.tags,
    media,
    ap_object: object,
    ld_signature: source.signature ?? null,
  });
}

/** What a resource keeps of a Note: parsed, sanitised fields only. */
function noteData(object: Record<string, unknown>, note: RemoteNote) {
  return {
    id: note.ap_id,
    type: typeOf(object) ?? "Note",
    url: note.url,
    attributedTo: note.attributedTo,
    inReplyTo: note.inReplyTo,
    published: note.published,
    summary: note.summary,
    content: note.content,
    attachment: note.attachment,
  };
}

async function handleNote(
  env: Pick<InboxContext, "storage" | "identity">,
  ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
  activity: Activity,
  actorId: string,
  object: Record<string, unknown>,
  isUpdate: boolean,
): Promise<void> {
  const { db, clock } = env.storage;
  const parsed = parseRemoteNote(object);
  if (!parsed.ok) return;
  const note = parsed.value;
  if (note.attributedTo && note.attributedTo !== actorId) return;
  const [existing] = await db.select().from(resources).where(
    eq(resources.activitypub_id, note.ap_id),
  );
  if (existing) {
    // Only the author may change a resource.
    if (existing.apUserApId !== actorId) return;
    await db.update(resources).set({
      data: noteData(object, note),
      updatedAt: clock.now(),
    }).where(eq(resources.id, existing.id));
    return;
  }
  if (isUpdate && !existing) return;
  const settings = await getSettings(db);
  if (!settings.enable_resources) return;
  let event: EventRow | null = null;
  for (const target of note.inReplyTo) {
    event = await localEventFor(env, target);
    if (event) break;
  }
  if (!event) return;
  await rememberSender(env, ctx, activity);
  await db.insert(resources).values({
    activitypub_id: note.ap_id,
    data: noteData(object, note),
    apUserApId: actorId,
    eventId: event.id,
    hidden: false,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  }).onConflictDoNothing();
}

/** A received Create or Update, unless its sender is blocked. */
async function receiveCreateOrUpdate(
  env: InboxContext,
  ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
  activity: Activity,
  isUpdate: boolean,
) {
  if (!activity.actorId) return;
  const actorId = activity.actorId.href;
  if (await isBlockedSender(env.storage.db, actorId)) return;
  await handleCreateOrUpdate(
    env,
    ctx,
    activity,
    actorId,
    await rawOf(env, activity),
    isUpdate,
  );
}

/** Handles Create or Update (possibly unwrapped from an Announce). */
export async function handleCreateOrUpdate(
  env: Pick<InboxContext, "storage" | "fetching" | "identity">,
  ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
  activity: Activity,
  actorId: string,
  raw: Record<string, unknown>,
  isUpdate: boolean,
  unwrapped = false,
) {
  const embedded = raw.object;
  const kind = typeOf(embedded);
  // Inside an Announce the Create was not signed by its author: only the
  // copy its author's origin serves counts.
  if (kind === "Note" || kind === "Article") {
    const note = await authoritativeObject(
      env,
      embedded,
      actorId,
      unwrapped ? "never" : "use",
    );
    if (note) await handleNote(env, ctx, activity, actorId, note, isUpdate);
    return;
  }
  if (kind !== "Event" && typeof embedded !== "string") return;
  // Events are read as their origin serves them (the full version). An
  // embedded copy counts only when its author signed the activity: not
  // inside an Announce, nor when a member posts for its group.
  const claimed = kind === "Event"
    ? idOf(asRecord(embedded).attributedTo) ?? idOf(asRecord(embedded).actor)
    : null;
  const ownCopy = !unwrapped && (claimed === null || claimed === actorId);
  const object = await authoritativeObject(
    env,
    embedded,
    actorId,
    ownCopy ? "fallback" : "never",
  );
  if (!object || typeOf(object) !== "Event") return;
  // An unwrapped Create's signature was not verified: never kept.
  await handleRemoteEvent(env, object, {
    origin: actorId,
    fallbackAuthor: actorId,
    signature: unwrapped ? null : raw.signature,
  });
}

/**
 * An Event announced by `announcerId` (a relay), embedded or by id: read
 * only as the Event's own origin serves it, and imported when the announcer
 * is trusted and the Event's author is trusted and followed.
 */
export async function handleAnnouncedEvent(
  env: Pick<InboxContext, "storage" | "fetching">,
  announcerId: string,
  announced: unknown,
): Promise<void> {
  const { db, log } = env.storage;
  const announcer = await findActor(db, announcerId);
  if (!announcer?.trusted) {
    log.info("ignored an Event announced by an actor not trusted", {
      actor: announcerId,
    });
    return;
  }
  const id = idOf(announced);
  if (!id) return;
  const object = await authoritativeObject(env, id, id, "never");
  if (!object || typeOf(object) !== "Event") return;
  await handleRemoteEvent(env, object, {
    origin: id,
    fallbackAuthor: null,
    signature: null,
  });
}

/**
 * Whether the remote event `objectId` may be deleted by `actorId`: its
 * author may; another actor of the author's origin (another member of a
 * Mobilizon group) only once that origin no longer serves it as an Event.
 */
async function mayDelete(
  env: Pick<InboxContext, "fetching">,
  authorId: string | null,
  actorId: string,
  objectId: string,
): Promise<boolean> {
  if (authorId === actorId) return true;
  if (!authorId || !sameOrigin(authorId, actorId)) return false;
  try {
    const { document } = await env.fetching.freshLoader(objectId);
    const doc = asRecord(document);
    return !(idOf(doc) === objectId && typeOf(doc) === "Event");
  } catch {
    // Gone (Mobilizon answers 410 with a Tombstone) or unreachable.
    return true;
  }
}

/** Registers the Create, Update and Delete listeners on `inbox`. */
export function listenEvents(
  env: InboxContext,
  inbox: InboxListenerSetters<void>,
): void {
  const { db, log } = env.storage;
  inbox
    .on(
      Create,
      (ctx, create) => receiveCreateOrUpdate(env, ctx, create, false),
    )
    .on(Update, (ctx, update) => receiveCreateOrUpdate(env, ctx, update, true))
    .on(Delete, async (_ctx, del) => {
      if (!del.actorId) return;
      const actorId = del.actorId.href;
      const objectId = del.objectId?.href ?? null;
      if (!objectId) return;
      const [candidates, removed] = await db.batch([
        db.select({ id: events.id, apUserApId: events.apUserApId }).from(
          events,
        ).where(and(eq(events.ap_id, objectId), isNotNull(events.apUserApId))),
        // Only the author's own resources go.
        db.delete(resources).where(
          and(
            eq(resources.activitypub_id, objectId),
            eq(resources.apUserApId, actorId),
          ),
        ),
      ]);
      const remoteEvents: { id: number }[] = [];
      for (const e of candidates) {
        if (await mayDelete(env, e.apUserApId, actorId, objectId)) {
          remoteEvents.push(e);
        }
      }
      await deleteEventsById(db, remoteEvents.map((e) => e.id));
      if (remoteEvents.length === 0 && removed.rowsAffected === 0) {
        log.debug("a Delete changed nothing", { actor: actorId, objectId });
      }
    });
}
