/** Accepting an uploaded image: recognised by its bytes, bounded in size, registered. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { MediaItem } from "../../db/schema.ts";
import { mediaFiles } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import { type ImageInfo, sniffImage } from "./image.ts";
import { type MediaStore, newMediaName } from "./store.ts";

/** A checked upload, not yet stored. */
export interface CheckedImage {
  bytes: Uint8Array;
  info: ImageInfo;
}

/** 413 beyond `maxBytes`, 415 unless JPEG, PNG, WebP or GIF by content. */
export function checkImage(bytes: Uint8Array, maxBytes: number): CheckedImage {
  if (bytes.byteLength > maxBytes) {
    throw new ApiError(
      413,
      "payload_too_large",
      `The file is larger than ${maxBytes} bytes`,
    );
  }
  const info = sniffImage(bytes);
  if (!info) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Only JPEG, PNG, WebP and GIF images are accepted",
    );
  }
  return { bytes, info };
}

/** Who stores a file and how much they may hold. */
export interface UploadDeps {
  db: Db;
  clock: Clock;
  media: MediaStore;
  /** Bytes each uploader may hold (anonymous submissions share one quota); 0: no quota. */
  quotaBytes: number;
}

/** Bytes of stored files counted against `ownerId` (null: the anonymous quota). */
async function mediaUsage(
  db: Db,
  ownerId: number | null,
): Promise<number> {
  const [row] = await db.select({
    bytes: sql<number>`coalesce(sum(${mediaFiles.size}), 0)`,
  }).from(mediaFiles).where(sql`${mediaFiles.ownerId} is ${ownerId}`);
  return Number(row?.bytes ?? 0);
}

/**
 * Stores a checked image under a new random name, registered to `ownerId`
 * (null for an anonymous submission), and returns the Media item. 413 when
 * it would take the owner beyond the quota; then nothing is stored.
 */
export async function storeImage(
  deps: UploadDeps,
  image: CheckedImage,
  meta: {
    name?: string;
    focalpoint?: [number, number];
    ownerId: number | null;
  },
): Promise<MediaItem> {
  const { db, clock, media, quotaBytes } = deps;
  const name = newMediaName(image.info.extension);
  const size = image.bytes.byteLength;
  // The row comes first, inserted only while the owner's total stays within
  // the quota: one statement, so parallel uploads cannot both slip under it.
  // The store then adds the bytes.
  const reserved = await db.run(sql`
    insert into ${mediaFiles}
      ("name", "content_type", "size", "width", "height", "createdAt", "ownerId")
    select ${name}, ${image.info.contentType}, ${size}, ${image.info.width},
      ${image.info.height}, ${clock.now().getTime()}, ${meta.ownerId}
    where ${quotaBytes} = 0 or ${size} + (
      select coalesce(sum(${mediaFiles.size}), 0) from ${mediaFiles}
      where ${mediaFiles.ownerId} is ${meta.ownerId}
    ) <= ${quotaBytes}`);
  if (reserved.rowsAffected !== 1) {
    const used = await mediaUsage(db, meta.ownerId);
    throw new ApiError(
      413,
      "payload_too_large",
      `This file (${size} bytes) would exceed the upload quota of ${quotaBytes} bytes (${used} in use). Deleting events frees their images; uploads no event uses are removed a day after they were sent.`,
    );
  }
  try {
    await media.put(name, image.bytes, {
      contentType: image.info.contentType,
      width: image.info.width,
      height: image.info.height,
    });
  } catch (err) {
    await db.delete(mediaFiles).where(eq(mediaFiles.name, name));
    throw err;
  }
  return {
    name: meta.name ?? "",
    url: name,
    width: image.info.width,
    height: image.info.height,
    size,
    focalpoint: meta.focalpoint ?? [0, 0],
  };
}

/** A focal point typed as `x,y`, each in [-1, 1]; null when it is not one. */
export function parseFocalPoint(text: string): [number, number] | null {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!match) return null;
  const point: [number, number] = [Number(match[1]), Number(match[2])];
  return point.every((v) => v >= -1 && v <= 1) ? point : null;
}

/**
 * Checks an uploaded file at once (413, 415) and returns what stores it,
 * to be called once everything else about the write is known to be valid
 * (an event write's `saveImage`); undefined when no file was sent.
 */
export async function imageSaver(
  deps: UploadDeps & { maxBytes: number },
  file: File | undefined,
  meta: {
    name?: string;
    focalpoint?: [number, number];
    ownerId: number | null;
  },
): Promise<(() => Promise<MediaItem>) | undefined> {
  if (!file) return undefined;
  const checked = checkImage(
    new Uint8Array(await file.arrayBuffer()),
    deps.maxBytes,
  );
  return () => storeImage(deps, checked, meta);
}
