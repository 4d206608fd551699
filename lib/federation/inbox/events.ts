/**
 * Remote events and notes arriving in the inbox: Create and Update of an
 * Event (from a trusted, followed actor) or of a Note/Article replying to a
 * local event (a resource), and Delete of either.
 */
import type { InboxListenerSetters } from "@fedify/fedify";
import { type Activity, Create, Delete, Update } from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import { events, type MediaItem, resources } from "../../../db/schema.ts";
import type { EventRow } from "../../events/serialize.ts";
import { deleteEventsById, upsertRemoteEvent } from "../../events/write.ts";
import { getSettings } from "../../settings.ts";
import { findActor, isBlockedSender } from "../actors.ts";
import type { FederationCore } from "../core.ts";
import {
  parseRemoteEvent,
  parseRemoteNote,
  type RemoteNote,
} from "../parse.ts";
import {
  authoritativeObject,
  localEventFor,
  rawOf,
  rememberSender,
  typeOf,
} from "./common.ts";

async function handleRemoteEvent(
  core: FederationCore,
  actorId: string,
  object: Record<string, unknown>,
  signature: unknown,
): Promise<void> {
  const { db, clock, log } = core;
  const actor = await findActor(db, actorId);
  if (!actor || !actor.trusted || !actor.following || actor.blocked) {
    log.info("ignored an event from an actor not trusted and followed", {
      actor: actorId,
    });
    return;
  }
  const parsed = parseRemoteEvent(object);
  if (!parsed.ok) {
    log.info("ignored an unparseable remote event", {
      actor: actorId,
      reason: parsed.reason,
    });
    return;
  }
  const data = parsed.value;
  if (data.attributedTo && data.attributedTo !== actorId) return;
  const [existing] = await db.select({ apUserApId: events.apUserApId })
    .from(events).where(eq(events.ap_id, data.ap_id));
  // Only the original author may change it (never a local event).
  if (existing && existing.apUserApId !== actorId) return;
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
    apUserApId: actorId,
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
    ld_signature: signature ?? null,
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
  core: FederationCore,
  ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
  activity: Activity,
  actorId: string,
  object: Record<string, unknown>,
  isUpdate: boolean,
): Promise<void> {
  const { db, clock } = core;
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
    event = await localEventFor(core, target);
    if (event) break;
  }
  if (!event) return;
  await rememberSender(core, ctx, activity);
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
  core: FederationCore,
  ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
  activity: Activity,
  isUpdate: boolean,
) {
  if (!activity.actorId) return;
  const actorId = activity.actorId.href;
  if (await isBlockedSender(core.db, actorId)) return;
  await handleCreateOrUpdate(
    core,
    ctx,
    activity,
    actorId,
    await rawOf(core, activity),
    isUpdate,
  );
}

/** Handles Create or Update (possibly unwrapped from an Announce). */
export async function handleCreateOrUpdate(
  core: FederationCore,
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
      core,
      embedded,
      actorId,
      unwrapped ? "never" : "use",
    );
    if (note) await handleNote(core, ctx, activity, actorId, note, isUpdate);
    return;
  }
  if (kind !== "Event" && typeof embedded !== "string") return;
  // Events are read as their origin serves them (the full version).
  const object = await authoritativeObject(
    core,
    embedded,
    actorId,
    unwrapped ? "never" : "fallback",
  );
  if (!object || typeOf(object) !== "Event") return;
  // An unwrapped Create's signature was not verified: never kept.
  await handleRemoteEvent(
    core,
    actorId,
    object,
    unwrapped ? null : raw.signature,
  );
}

/** Registers the Create, Update and Delete listeners on `inbox`. */
export function listenEvents(
  core: FederationCore,
  inbox: InboxListenerSetters<void>,
): void {
  const { db, log } = core;
  inbox
    .on(
      Create,
      (ctx, create) => receiveCreateOrUpdate(core, ctx, create, false),
    )
    .on(Update, (ctx, update) => receiveCreateOrUpdate(core, ctx, update, true))
    .on(Delete, async (_ctx, del) => {
      if (!del.actorId) return;
      const actorId = del.actorId.href;
      const objectId = del.objectId?.href ?? null;
      if (!objectId) return;
      const [remoteEvents, removed] = await db.batch([
        db.select({ id: events.id }).from(events).where(
          and(eq(events.ap_id, objectId), eq(events.apUserApId, actorId)),
        ),
        // Only the author's own resources go.
        db.delete(resources).where(
          and(
            eq(resources.activitypub_id, objectId),
            eq(resources.apUserApId, actorId),
          ),
        ),
      ]);
      await deleteEventsById(db, remoteEvents.map((e) => e.id));
      if (remoteEvents.length === 0 && removed.rowsAffected === 0) {
        log.debug("a Delete changed nothing", { actor: actorId, objectId });
      }
    });
}
