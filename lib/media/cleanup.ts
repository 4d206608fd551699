/**
 * Removing uploaded files that no event references: at once when the events
 * that used them are deleted, and by a periodic sweep for uploads never
 * attached (or detached by an edit). The `event_media` table, kept by
 * triggers, says which files are referenced; its foreign key makes removing
 * a referenced file fail, whatever the code path.
 */
import { and, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import {
  eventMedia,
  mediaFiles,
  type MediaItem,
  mediaTrash,
} from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { MediaStore } from "./store.ts";

/** Uploads no event has referenced for this long are removed by the sweep. */
export const UNATTACHED_GRACE_MS = 24 * 3600 * 1000;

/** Files removed per statement by the sweep (each may be a large blob). */
const SWEEP_BATCH = 100;

/** Names of our own files among media items (remote events' media are URLs elsewhere). */
export function localMediaNames(lists: MediaItem[][]): string[] {
  const names = new Set<string>();
  for (const list of lists) {
    for (const item of list) {
      if (!item.url.includes(":")) names.add(item.url);
    }
  }
  return [...names];
}

const unreferenced =
  sql`not exists (select 1 from ${eventMedia} where ${eventMedia.name} = ${mediaFiles.name})`;

/**
 * A statement that removes those of `names` no event references any more:
 * put it after the deletion of the events that used them, in the same batch,
 * so the check and the removal see the same state.
 */
export function pruneMediaStatement(db: Db, names: string[]): BatchItem[] {
  if (names.length === 0) return [];
  return [
    db.delete(mediaFiles).where(
      and(inArray(mediaFiles.name, names), unreferenced),
    ),
  ];
}

/** What a sweep did. */
export interface SweepResult {
  /** Files removed because no event referenced them. */
  removed: number;
  /** Bytes deleted from an external store (S3) for removed files. */
  storeDeleted: number;
  /** Deletions from an external store that failed (kept for the next sweep). */
  storeFailed: number;
}

/**
 * Deletes from the store the bytes of removed files (names recorded in
 * `media_trash` by a trigger) when they live outside the database (S3). A
 * failure leaves the name there for the next call.
 */
export async function emptyMediaTrash(
  deps: { db: Db; media: MediaStore },
  limit = 500,
): Promise<{ deleted: number; failed: number }> {
  const { db, media } = deps;
  if (media.kind === "db") {
    // The bytes went with the rows (media_chunks): nothing to delete elsewhere.
    await db.delete(mediaTrash);
    return { deleted: 0, failed: 0 };
  }
  const rows = await db.select({ name: mediaTrash.name }).from(mediaTrash)
    .limit(limit);
  const deleted: string[] = [];
  let failed = 0;
  for (const { name } of rows) {
    try {
      await media.delete(name);
      deleted.push(name);
    } catch {
      failed++;
    }
  }
  if (deleted.length > 0) {
    await db.delete(mediaTrash).where(inArray(mediaTrash.name, deleted));
  }
  return { deleted: deleted.length, failed };
}

/**
 * After an event was deleted: the files it took with it leave an external
 * store now rather than at the next sweep. A failure is logged; the sweep
 * retries it.
 */
export async function emptyMediaTrashNow(
  deps: { db: Db; media: MediaStore; log: Logger },
): Promise<void> {
  if (deps.media.kind === "db") return;
  try {
    await emptyMediaTrash(deps);
  } catch (err) {
    deps.log.error("deleting removed media from the store failed", {
      error: String(err),
    });
  }
}

/**
 * The periodic clean-up: removes uploads that no event references and that
 * are older than a day (never attached, or detached by an edit), then
 * deletes the bytes of removed files from an external store. A plain
 * function of the database, clock and store, for an hourly timer, `Deno.cron`
 * or a Workers `scheduled` handler.
 */
export async function sweepMedia(
  deps: { db: Db; clock: Clock; media: MediaStore },
): Promise<SweepResult> {
  const { db, clock } = deps;
  const cutoff = new Date(clock.now().getTime() - UNATTACHED_GRACE_MS);
  let removed = 0;
  for (;;) {
    // One statement chooses and removes: a file referenced meanwhile is kept.
    const gone = await db.delete(mediaFiles).where(
      inArray(
        mediaFiles.name,
        db.select({ name: mediaFiles.name }).from(mediaFiles)
          .where(and(lt(mediaFiles.createdAt, cutoff), unreferenced))
          .limit(SWEEP_BATCH),
      ),
    ).returning({ name: mediaFiles.name });
    removed += gone.length;
    if (gone.length < SWEEP_BATCH) break;
  }
  const trash = await emptyMediaTrash(deps);
  return { removed, storeDeleted: trash.deleted, storeFailed: trash.failed };
}
