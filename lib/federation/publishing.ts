/**
 * Publishing local events: the statements an event write adds to its batch
 * to queue its publication, and the publication itself (Create, Update or
 * Delete of the event and its occurrences, signed, bundled and queued for
 * every follower's inbox), at once by the writer or later by the queue.
 */
import { type Context, type Federation, signJsonLd } from "@fedify/fedify";
import {
  type Activity,
  Create,
  Delete,
  type Recipient,
  Update,
} from "@fedify/vocab";
import { eq, type SQL, sql } from "drizzle-orm";
import { events, fedifyQueue } from "../../db/schema.ts";
import type { EventRow } from "../events/serialize.ts";
import { allReads, type BatchItem, runRead } from "../../db/batch.ts";
import { prebuiltForEvent } from "../events/refs.ts";
import type {
  EventChange,
  PublicationWrite,
  QueuedPublication,
} from "../events/commit.ts";
import type { Settings } from "../settings.ts";
import { anyDeliverableFollower, deliverableFollowersQuery } from "./actors.ts";
import {
  type FederationEventForms,
  type FederationIdentity,
  type FederationOutbox,
  type FederationStorage,
  isAnnounced,
  isFederated,
  type PublicationMessage,
  type PublishedBefore,
} from "./core.ts";
import { AS_PUBLIC, type EventObject, eventObjectUrl } from "./object.ts";
import { type JsonObject, RAW_ACTIVITY_CONTEXT } from "./raw-activities.ts";

/**
 * How long a publication queued by a write waits before the queue may take
 * it when the writer publishes it itself (embedded databases): only a writer
 * that died leaves it to the queue.
 */
export const PUBLICATION_GRACE_MS = 60_000;

/** Publishing, as the service and the queue use it. */
export interface Publishing {
  /**
   * The statements an event write adds to its batch to queue its
   * publication (Create, Update or Delete of the event and its occurrences),
   * so that the change and its federation commit together; null when
   * federation is off.
   */
  publicationWrite(settings: Settings): PublicationWrite | null;
  /**
   * After a write's batch: publishes what it queued now (embedded database;
   * a failure leaves it to the queue) or wakes the queue for it (deferred
   * publication: the response is not held up).
   */
  publishWritten(
    change: EventChange & { publication: QueuedPublication | null },
  ): Promise<void>;
  /**
   * The hourly job's part: announces (a Create each, through the queue) the
   * occurrences of series that came into their federation horizon, and
   * each series' next occurrence. Each is announced once, however many runs
   * there are at once. Returns how many; 0 when federation is off.
   */
  announceDueOccurrences(): Promise<number>;
  /**
   * Handles a publication from the queue: the event's family as it is now
   * (one read) against the family the write saw before it.
   */
  publishQueued(message: PublicationMessage): Promise<void>;
}

/** What publishing uses. */
export interface PublishingContext {
  storage: FederationStorage;
  identity: FederationIdentity;
  forms: Pick<FederationEventForms, "eventObjectsQuery">;
  outbox: FederationOutbox;
  /** Whose contexts sign and send the activities. */
  federation: Federation<void>;
}

/** Builds publishing over its contexts. */
export function createPublishing(
  { storage, identity, forms, outbox, federation }: PublishingContext,
): Publishing {
  const { db, clock, log, queue } = storage;
  const { baseUrl, activeSettings, me } = identity;
  const { eventObjectsQuery } = forms;
  const { bundling, rawActivities, deferPublication } = outbox;

  /**
   * The Linked Data signature (RSA) of the activity carrying an event, kept
   * in the event's `ld_signature`; null when it cannot be made.
   */
  async function ldSignature(
    ctx: Context<void>,
    settings: Settings,
    object: EventObject,
    activity: { id: string; type: "Create" | "Update" },
  ): Promise<unknown> {
    try {
      const [rsa] = await ctx.getActorKeyPairs(settings.instance_actor);
      if (!rsa) return null;
      const { "@context": context, ...body } = object;
      const signed = await signJsonLd(
        {
          "@context": [...context, "https://w3id.org/security/v1"],
          id: activity.id,
          type: activity.type,
          actor: me(settings),
          to: [AS_PUBLIC],
          cc: [`${me(settings)}/followers`],
          object: body,
        },
        rsa.privateKey,
        rsa.keyId,
        { contextLoader: ctx.contextLoader },
      );
      return (signed as { signature?: unknown }).signature ?? null;
    } catch (err) {
      log.debug("no LD signature for an event", { error: String(err) });
      return null;
    }
  }

  /** What publishing keeps of an event as it was before a change. */
  const beforeOf = (e: EventRow): PublishedBefore => ({
    id: e.id,
    parentId: e.parentId,
    federated: isAnnounced(e),
    pending: isFederated(e) && !e.announced,
  });

  /**
   * Sends Create, Update or Delete for local events that changed (an event
   * and its occurrences, say). Round trips, whatever the number of events:
   * one read (places, tags, followers), one write (the objects as federated,
   * kept in ap_object and ld_signature), and one insert per ordering key and
   * delivery origin (the series' activities to one inbox are one queue row).
   * Activity ids come from `stamp`, the write's time: publishing one change
   * twice (a writer died before its queued publication was settled) sends
   * the same activities, which receivers recognise.
   */
  async function publish(
    changes: { before: PublishedBefore | null; after: EventRow | null }[],
    stamp: number,
    settle: BatchItem[] = [],
  ): Promise<void> {
    /** Runs `items` and `settle` in one batch (settle last: it ends the work). */
    const finish = async (items: BatchItem[]) => {
      const all = [...items, ...settle];
      if (all.length > 0) await db.batch(all as [BatchItem, ...BatchItem[]]);
    };
    const settings = await activeSettings();
    if (!settings) return await finish([]);
    // Only what followers have, or get now: an occurrence beyond its
    // series' horizon is left to the hourly job (announceDueOccurrences).
    const relevant = changes.filter(({ before, after }) =>
      before?.federated || isAnnounced(after)
    );
    if (relevant.length === 0) return await finish([]);
    const published = relevant.flatMap(({ after }) =>
      isAnnounced(after) ? [after] : []
    );
    const [objects, followers] = await runRead(
      db,
      allReads(
        eventObjectsQuery(published, settings),
        deliverableFollowersQuery(db),
      ),
    );
    // Nobody to deliver to: nothing is signed or kept (ap_object and
    // ld_signature are those of the last activity followers were sent).
    if (followers.length === 0) return await finish([]);
    const objectById = new Map(published.map((e, i) => [e.id, objects[i]]));
    const ctx = federation.createContext(new URL(baseUrl));
    const sender = { identifier: settings.instance_actor };
    const actor = new URL(me(settings));
    /** How Fedify reads an activity from the JSON we deliver. */
    const loaders = {
      documentLoader: ctx.documentLoader,
      contextLoader: ctx.contextLoader,
    };
    const updates: BatchItem[] = [];
    const activities: {
      activity: Activity;
      orderingKey: string;
      raw: JsonObject;
    }[] = [];
    for (const { before, after } of relevant) {
      // Pending before and announced now: the hourly job announced it
      // meanwhile (its Create is its own), so this change is an Update.
      const was = (before?.federated || before?.pending) ?? false;
      const event = (after ?? before)!;
      // One series' activities (its occurrences', those it detaches
      // included) share an ordering key: delivered in order, as one row.
      const orderingKey = eventObjectUrl(
        baseUrl,
        after?.parentId ?? before?.parentId ?? event.id,
      );
      if (isAnnounced(after)) {
        const json = objectById.get(after.id)!;
        const kind = was ? "Update" : "Create";
        const activityId = `${json.id}#${kind.toLowerCase()}-${stamp}`;
        updates.push(
          db.update(events).set({
            ap_object: json,
            ld_signature: await ldSignature(ctx, settings, json, {
              id: activityId,
              type: kind,
            }),
          }).where(eq(events.id, after.id)),
        );
        const Kind = was ? Update : Create;
        const published = Temporal.Instant.fromEpochMilliseconds(stamp);
        const { "@context": _context, ...object } = json;
        // Delivered as written (lib/federation/raw-activities.ts): the
        // whole object as served, its place's address, `tag` and
        // `attachment` as arrays, every term of ours. Fedify's activity,
        // which routes it, is read from it.
        const raw: JsonObject = {
          "@context": RAW_ACTIVITY_CONTEXT,
          id: activityId,
          type: kind,
          actor: actor.href,
          to: [AS_PUBLIC],
          cc: [ctx.getFollowersUri(settings.instance_actor).href],
          published: published.toString(),
          object,
        };
        activities.push({
          orderingKey,
          activity: await Kind.fromJsonLd(raw, loaders),
          raw,
        });
        continue;
      }
      const id = eventObjectUrl(baseUrl, before!.id);
      const activityId = `${id}#delete-${stamp}`;
      // Gancio deletes only what it knows was an Event (it answers 500 to
      // a bare Tombstone), and reads `formerType` as the plain "Event",
      // which Fedify's serialisation writes as "as:Event".
      const raw: JsonObject = {
        "@context": RAW_ACTIVITY_CONTEXT,
        id: activityId,
        type: "Delete",
        actor: actor.href,
        to: [AS_PUBLIC],
        cc: [ctx.getFollowersUri(settings.instance_actor).href],
        object: { id, type: "Tombstone", formerType: "Event" },
      };
      activities.push({
        orderingKey,
        activity: await Delete.fromJsonLd(raw, loaders),
        raw,
      });
    }
    // Nothing to deliver: the objects and the settling in one commit.
    if (activities.length === 0) return await finish(updates);
    if (updates.length > 0) {
      await db.batch(updates as [BatchItem, ...BatchItem[]]);
    }
    // The followers read above, as the followers collection gives them.
    const recipients: Recipient[] = followers.map((f) => ({
      id: new URL(f.id),
      inboxId: f.inbox ? new URL(f.inbox) : null,
      endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null,
    }));
    for (const { raw } of activities) rawActivities.register(raw);
    try {
      await bundling.collect(async () => {
        for (const { activity, orderingKey } of activities) {
          await ctx.sendActivity(sender, recipients, activity, {
            preferSharedInbox: true,
            // One event's activities are delivered in order (Create before Update).
            orderingKey,
          });
        }
      }, rawActivities.rewriteOutboxMessage);
    } finally {
      rawActivities.forget(activities.map(({ raw }) => String(raw.id)));
    }
    // Settled only once the deliveries are queued.
    await finish([]);
  }

  /** Pairs each event of a change with its row before it (by id). */
  function changePairs(
    before: PublishedBefore[],
    after: EventRow[],
  ): { before: PublishedBefore | null; after: EventRow | null }[] {
    const beforeById = new Map(before.map((e) => [e.id, e]));
    const afterById = new Map(after.map((e) => [e.id, e]));
    return [...new Set([...beforeById.keys(), ...afterById.keys()])].map((
      id,
    ) => ({
      before: beforeById.get(id) ?? null,
      after: afterById.get(id) ?? null,
    }));
  }

  /**
   * Handles a publication from the queue: the event's family as it is now
   * (one read) against the family the write saw before it.
   */
  async function publishQueued(message: PublicationMessage): Promise<void> {
    if (!(await activeSettings())) return;
    const ids = [message.event, ...message.before.map((b) => b.id)];
    const after = await db.select().from(events).where(
      sql`${events.id} in ${ids} or ${events.parentId} = ${message.event}`,
    ) as EventRow[];
    const pairs = changePairs(message.before, after);
    await publish(
      message.due
        // The hourly job's announcement: the occurrences it names.
        ? pairs.filter((p) => p.before !== null)
        : message.onlyNew
        ? pairs.filter((p) => p.before === null)
        : pairs,
      message.stamp,
    );
  }

  /**
   * The occurrences to announce now (as `c`): visible local occurrences
   * not over, never announced, that start within the horizon or are their
   * series' next one.
   */
  function dueOccurrences(settings: Settings, nowS: number): SQL {
    const until = nowS + settings.federation_series_horizon_days * 86_400;
    return sql`c.announced = 0 AND c.parentId IS NOT NULL
      AND c.apUserApId IS NULL AND c.is_visible = 1
      AND coalesce(c.end_datetime, c.start_datetime) >= ${nowS}
      AND (c.start_datetime <= ${until} OR c.start_datetime <= (
        SELECT min(n.start_datetime) FROM events n
        WHERE n.parentId = c.parentId AND n.is_visible = 1
          AND coalesce(n.end_datetime, n.start_datetime) >= ${nowS}))`;
  }

  async function announceDueOccurrences(): Promise<number> {
    const settings = await activeSettings();
    if (!settings) return 0;
    const stamp = clock.now().getTime();
    const due = dueOccurrences(settings, Math.floor(stamp / 1000));
    const int = (value: number) => sql`cast(${value} as integer)`;
    // One transaction: a publication per series naming the occurrences due,
    // then their mark, with the same condition. A second run (even at once:
    // SQLite runs one write transaction at a time) finds them marked.
    const [, announced] = await db.batch([
      db.run(sql`
        INSERT INTO fedify_queue (message, availableAt, orderingKey, createdAt)
        SELECT json_object('type', 'quando:publish', 'event', c.parentId,
            'before', json_group_array(json_object('id', c.id,
              'parentId', c.parentId, 'federated', json('false'))),
            'stamp', ${int(stamp)}, 'due', json('true')),
          ${int(stamp)}, 'quando:publish:' || c.parentId, ${int(stamp)}
        FROM events c WHERE ${due}
        GROUP BY c.parentId`),
      db.all<{ id: number }>(sql`
        UPDATE events SET announced = 1
        WHERE id IN (SELECT c.id FROM events c WHERE ${due})
        RETURNING id`),
    ]);
    const count = (announced as { id: number }[]).length;
    if (count > 0) queue.noteEnqueued?.();
    return count;
  }

  return {
    publishQueued,
    announceDueOccurrences,

    publicationWrite(settings) {
      if (!settings.enable_federation) return null;
      return (ref, before) => {
        const stamp = clock.now().getTime();
        // Publications of one series are handled in order.
        const named = typeof ref === "number"
          ? before.find((e) => e.id === ref)
          : undefined;
        const root = named?.parentId ?? null;
        const wasFederated = before.some(isAnnounced);
        // The writer publishes at once itself unless deferred.
        const available = stamp +
          (deferPublication ? 0 : PUBLICATION_GRACE_MS);
        // Built once per shape (lib/events/refs.ts).
        const statements = prebuiltForEvent(
          db,
          `publication:${wasFederated}:${root !== null}`,
          ref,
          (ref, value) => {
            // Bound numbers reach SQLite as reals here: 1 would read "1.0"
            // in the ordering key and the message.
            const int = (v: unknown) => sql`cast(${v} as integer)`;
            const rootId = int(root !== null ? value("root") : ref);
            const message =
              sql`json_object('type', 'quando:publish', 'event', ${
                int(ref)
              }, 'before', json(${value("before")}), 'stamp', ${
                int(value("stamp"))
              })`;
            // Queued only when someone follows (nobody else is told: no
            // signature, no serialising for nobody) and something of the
            // change is (or was) on the fediverse: a visible local event
            // that is not a series template, announced (not an occurrence
            // beyond its series' horizon).
            return [
              db.all<{ id: number }>(sql`
              INSERT INTO fedify_queue (message, availableAt, orderingKey, createdAt)
              SELECT ${message}, ${
                value("available")
              }, 'quando:publish:' || ${rootId}, ${value("stamp")}
              WHERE ${anyDeliverableFollower} AND (${
                sql.raw(wasFederated ? "1" : "0")
              } OR EXISTS (
                SELECT 1 FROM ${events}
                WHERE (${events.id} = ${ref} OR ${events.parentId} = ${ref})
                  AND ${events.is_visible} AND ${events.apUserApId} IS NULL
                  AND ${events.announced}
                  AND NOT (${events.recurrent} IS NOT NULL AND ${events.parentId} IS NULL)))
              RETURNING id`),
            ];
          },
          {
            root,
            before: JSON.stringify(before.map(beforeOf)),
            stamp,
            available,
          },
        );
        return {
          statements,
          read(results) {
            const row = (results[0] as { id: number }[])[0];
            return row ? { id: row.id, stamp } : null;
          },
        };
      };
    },

    async publishWritten({ before, after, publication }) {
      if (!publication) return;
      if (deferPublication) {
        queue.noteEnqueued?.();
        return;
      }
      try {
        // The queued row is deleted with the last statements of the
        // publication (one commit fewer), never before its deliveries are queued.
        await publish(
          changePairs(before.map(beforeOf), after),
          publication.stamp,
          [db.delete(fedifyQueue).where(eq(fedifyQueue.id, publication.id))],
        );
      } catch (err) {
        // The queued row stays: the queue publishes it once its grace is over.
        log.error("federating an event change failed; the queue will retry", {
          error: String(err),
        });
      }
    },
  };
}
