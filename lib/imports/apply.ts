/**
 * Brings imported items (from an ICS feed or file, or a Gancio instance) into
 * Quando's events, keyed by where they came from, their UID and their
 * RECURRENCE-ID (`imported_events`): a new item is created, a changed one
 * updated (and federated as an update), an unchanged one left alone. For a
 * feed, which always holds its whole calendar, upcoming events it no longer
 * lists are marked cancelled. Every write goes through lib/events/write.ts,
 * so validation, sanitising, series and federation are the API's.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import { events, importedEvents, type SyncCounts } from "../../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { EventRow } from "../events/serialize.ts";
import type { WriteDeps, WriteResult } from "../events/commit.ts";
import type { EventInput } from "../events/input.ts";
import { createEvent, updateEvent } from "../events/write.ts";
import { sha256Hex } from "../oauth/crypto.ts";
import type { UserRow } from "../users.ts";
import type { IcsItem } from "./ics.ts";
import { type ImageImport, importImage } from "./images.ts";

/**
 * An item to import: an ICS item, with what other origins (Gancio) also
 * tell: the image's alt text and focal point, the owner, the visibility.
 */
export interface ImportItem extends IcsItem {
  /**
   * What names `image` whichever way it is read (a Gancio upload read from
   * its folder or from the instance): an image is fetched again only when
   * this changes. Absent: `image` itself.
   */
  imageKey?: string;
  /** Alt text of `image`. */
  imageName?: string;
  imageFocalpoint?: [number, number];
  /** Created and changed as this user rather than the target's. */
  owner?: UserRow;
  /** Visible or waiting for confirmation, whatever the target says. */
  visible?: boolean;
  /**
   * For an exception (a RECURRENCE-ID): it only repeats its series, so it is
   * linked to the series' occurrence of that slot without changing it.
   */
  inheritsSeries?: boolean;
  /**
   * For an exception: when the series has no occurrence at that start (one
   * from before the series came in), it becomes a single event of its own.
   */
  orphanAsSingle?: boolean;
}

/** Where imported items go and how. */
export interface ImportTarget {
  /** Names the items' origin in `imported_events` (`source:3`, `ics:user:5`, …). */
  origin: string;
  /** Events are created and changed as this user. */
  user: UserRow;
  defaultTags: string[];
  defaultPlaceId: number | null;
  /** New events wait for an editor's confirmation. */
  needsConfirmation: boolean;
  /** The items are the origin's whole calendar: upcoming events missing from it are cancelled. */
  complete: boolean;
}

/** What an import needs beyond a write's dependencies. */
export interface ImportDeps extends WriteDeps {
  /** Federates a change (absent: nothing federates). */
  publish?: (change: WriteResult<undefined>) => Promise<void>;
  /** Brings items' images in (absent: images are left out). */
  images?: ImageImport;
  /**
   * When (ms since the epoch) to stop: items not reached by then come in at
   * the next run, and nothing is cancelled as missing. Absent: no deadline.
   */
  deadline?: number;
  /** Images fetched at most by one run (default MAX_IMAGES_PER_RUN). */
  maxImages?: number;
}

/** Images one run fetches at most: the rest come with the next runs. */
export const MAX_IMAGES_PER_RUN = 50;

/** What an import did, with a sentence per item it could not bring in. */
export interface ImportOutcome {
  counts: SyncCounts;
  problems: string[];
}

/** The write input of an item. */
function inputOf(
  item: ImportItem,
  target: ImportTarget,
): EventInput | string {
  const input: EventInput = {
    title: item.title,
    description: item.description,
    start_datetime: item.start,
    end_datetime: item.end,
    online_locations: item.online_locations,
    tags: [...new Set([...target.defaultTags, ...item.tags])],
    status: item.cancelled ? "EventCancelled" : "EventScheduled",
  };
  if (item.visible !== undefined) input.is_visible = item.visible;
  if (item.place) {
    input.place_name = item.place.name;
    input.place_address = item.place.address;
    input.place_latitude = item.place.latitude;
    input.place_longitude = item.place.longitude;
  } else if (target.defaultPlaceId !== null) {
    input.place_id = target.defaultPlaceId;
  } else if (item.online_locations.length === 0) {
    return "no LOCATION and the source has no default place";
  }
  if (item.recurrent) {
    input.recurrent = item.until === null
      ? item.recurrent
      : { ...item.recurrent, until: item.until };
  }
  return input;
}

/** A readable sentence for a refused write. */
function reason(error: unknown): string {
  if (error instanceof ApiError) {
    const details = (error.details ?? []) as {
      field?: string;
      message?: string;
    }[];
    return [error.message, ...details.map((d) => `${d.field}: ${d.message}`)]
      .join("; ");
  }
  throw error;
}

/** Applies `items` for `target`; never throws for what the items contain. */
export async function applyImport(
  deps: ImportDeps,
  target: ImportTarget,
  items: ImportItem[],
): Promise<ImportOutcome> {
  const { db, clock } = deps;
  const counts: SyncCounts = {
    created: 0,
    updated: 0,
    cancelled: 0,
    unchanged: 0,
    skipped: 0,
  };
  const problems: string[] = [];
  // One item per key, the last one winning (an exception after its rule).
  const byKey = new Map<string, ImportItem>();
  for (const item of items) {
    byKey.set(`${item.recurrenceId ?? 0}\u0000${item.uid}`, item);
  }
  const known = await db.select({
    uid: importedEvents.uid,
    recurrence_id: importedEvents.recurrence_id,
    eventId: importedEvents.eventId,
    digest: importedEvents.digest,
  }).from(importedEvents).where(eq(importedEvents.origin, target.origin));
  const mapped = new Map(
    known.map((k) => [`${k.recurrence_id}\u0000${k.uid}`, k]),
  );
  const seen = new Set<string>();
  const now = clock.now();

  const record = (
    uid: string,
    recurrenceId: number,
    digest: string,
  ) =>
  (ref: SQL | number) => [
    db.insert(importedEvents).values({
      origin: target.origin,
      uid,
      recurrence_id: recurrenceId,
      eventId: sql`${ref}`,
      digest,
      updatedAt: now,
    }).onConflictDoUpdate({
      target: [
        importedEvents.origin,
        importedEvents.uid,
        importedEvents.recurrence_id,
      ],
      set: { eventId: sql`${ref}`, digest, updatedAt: now },
    }),
  ];

  const publish = async (change: WriteResult<undefined>) => {
    try {
      await deps.publish?.(change);
    } catch {
      // The write stands; its delivery is retried by the queue.
    }
  };

  // Rules and single events first, then the exceptions to a series.
  const ordered = [...byKey.entries()].sort(([, a], [, b]) =>
    Number(a.recurrenceId !== null) - Number(b.recurrenceId !== null)
  );
  const seriesIds = new Map<string, number>();
  const seriesImages = new Map<string, string | null>();
  const maxImages = deps.maxImages ?? MAX_IMAGES_PER_RUN;
  let imagesFetched = 0;
  let stoppedEarly = false;
  for (const [key, item] of ordered) {
    if (deps.deadline !== undefined && Date.now() > deps.deadline) {
      stoppedEarly = true;
      problems.push(
        `stopped before ${
          ordered.length - seen.size
        } items, out of time: they come in at the next run`,
      );
      break;
    }
    seen.add(key);
    const recurrenceId = item.recurrenceId ?? 0;
    const input = inputOf(item, target);
    if (typeof input === "string") {
      counts.skipped++;
      problems.push(`${item.uid}: ${input}`);
      continue;
    }
    // The digest has two parts, the event's and its image's, so that an
    // image is fetched again only when it changed.
    const eventDigest = await sha256Hex(
      JSON.stringify([input, item.exdates]),
    );
    const imageDigest = !deps.images
      ? "off"
      : item.image
      ? await sha256Hex(JSON.stringify([
        item.imageKey ?? item.image,
        item.imageName ?? "",
        item.imageFocalpoint ?? [0, 0],
      ]))
      : "none";
    let digest = `${eventDigest}:${imageDigest}`;
    let existing = mapped.get(key);
    const parentId = item.recurrenceId !== null
      ? seriesIds.get(item.uid)
      : undefined;
    if (!existing && parentId !== undefined) {
      // An exception to a Quando series: the occurrence it replaces, by the
      // slot the rule gave it (it keeps it when moved).
      const [occurrence] = await db.select({ id: events.id }).from(events)
        .where(and(
          eq(events.parentId, parentId),
          eq(events.recurrence_slot, item.recurrenceId!),
        ));
      if (!occurrence && !item.orphanAsSingle) {
        counts.skipped++;
        problems.push(
          `${item.uid}: the occurrence it changes is not in the series yet`,
        );
        continue;
      }
      if (occurrence && item.inheritsSeries) {
        // The series' own occurrence: remembered, left as the series made it.
        await db.batch(
          record(item.uid, recurrenceId, digest)(occurrence.id) as [
            ReturnType<ReturnType<typeof record>>[number],
          ],
        );
        counts.unchanged++;
        continue;
      }
      if (occurrence) {
        existing = {
          uid: item.uid,
          recurrence_id: recurrenceId,
          eventId: occurrence.id,
          digest: "",
        };
      }
    }
    if (parentId !== undefined) delete input.recurrent;
    const user = item.owner ?? target.user;
    if (existing?.digest === digest) {
      counts.unchanged++;
    } else {
      const before = existing?.digest.split(":")[1];
      const inherited = parentId !== undefined &&
        seriesImages.get(item.uid) === item.image;
      if (deps.images && before !== imageDigest && !inherited) {
        if (item.image && imagesFetched >= maxImages) {
          // Bounded per run: this one is fetched by a later run.
          problems.push(
            `${item.uid}: image left for the next run (${maxImages} per run)`,
          );
          digest = `${eventDigest}:failed`;
        } else if (item.image) {
          imagesFetched++;
          try {
            const stored = await importImage(deps, deps.images, item.image, {
              name: item.imageName,
              focalpoint: item.imageFocalpoint,
              ownerId: user.id,
            });
            input.media = [{
              url: stored.url,
              name: stored.name,
              focalpoint: stored.focalpoint,
            }];
          } catch (error) {
            // The event comes in without it (or keeps its current one); the
            // next run tries again.
            problems.push(`${item.uid}: ${(error as Error).message}`);
            digest = `${eventDigest}:failed`;
          }
        } else if (existing && before && before.length === 64) {
          // The image is gone from the source.
          input.media = [];
        }
      }
      try {
        if (existing) {
          const result = await updateEvent(
            deps,
            user,
            existing.eventId,
            input,
            { alsoWrite: record(item.uid, recurrenceId, digest) },
          );
          await publish(result);
          const before = result.before.find((e) => e.id === result.id);
          if (
            input.status === "EventCancelled" &&
            before?.status !== "EventCancelled"
          ) counts.cancelled++;
          else counts.updated++;
        } else {
          const result = await createEvent(
            deps,
            user,
            {
              ...input,
              is_visible: input.is_visible ?? !target.needsConfirmation,
            },
            { alsoWrite: record(item.uid, recurrenceId, digest) },
          );
          await publish(result);
          counts.created++;
          existing = {
            uid: item.uid,
            recurrence_id: recurrenceId,
            eventId: result.id,
            digest,
          };
        }
      } catch (error) {
        counts.skipped++;
        problems.push(`${item.uid}: ${reason(error)}`);
        continue;
      }
    }
    if (item.recurrent && item.recurrenceId === null) {
      seriesIds.set(item.uid, existing.eventId);
      seriesImages.set(item.uid, item.image);
      try {
        await cancelExdates(
          deps,
          target.user,
          existing.eventId,
          item.exdates,
          publish,
        );
      } catch (error) {
        problems.push(
          `${item.uid}: EXDATE: ${
            error instanceof ApiError ? reason(error) : "not marked cancelled"
          }`,
        );
      }
    }
  }

  if (target.complete && !stoppedEarly) {
    // Upcoming events the feed no longer lists: cancelled, not deleted.
    const gone = known.filter((k) =>
      !seen.has(`${k.recurrence_id}\u0000${k.uid}`)
    );
    if (gone.length > 0) {
      const rows = await db.select().from(events).where(and(
        inArray(events.id, gone.map((g) => g.eventId)),
        sql`coalesce(${events.end_datetime}, ${events.start_datetime}) >= ${
          Math.floor(now.getTime() / 1000)
        }`,
        sql`${events.status} <> 'EventCancelled'`,
      )) as EventRow[];
      for (const row of rows) {
        try {
          const result = await updateEvent(deps, target.user, row.id, {
            status: "EventCancelled",
          });
          await publish(result);
          counts.cancelled++;
        } catch (error) {
          problems.push(`event ${row.id}: ${reason(error)}`);
        }
      }
    }
  }
  return { counts, problems };
}

/** Marks the occurrences of a series that EXDATE leaves out as cancelled. */
async function cancelExdates(
  deps: ImportDeps,
  user: UserRow,
  seriesId: number,
  exdates: number[],
  publish: (change: WriteResult<undefined>) => Promise<void>,
) {
  if (exdates.length === 0) return;
  const skipped = await deps.db.select({ id: events.id }).from(events).where(
    and(
      eq(events.parentId, seriesId),
      inArray(events.start_datetime, exdates),
      sql`${events.status} <> 'EventCancelled'`,
    ),
  );
  for (const { id } of skipped) {
    await publish(
      await updateEvent(deps, user, id, { status: "EventCancelled" }),
    );
  }
}
