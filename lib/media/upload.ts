/** Accepting an uploaded image: recognised by its bytes, bounded in size, registered. */
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

/** Stores a checked image under a new random name and registers it; returns the Media item. */
export async function storeImage(
  deps: { db: Db; clock: Clock; media: MediaStore },
  image: CheckedImage,
  meta: { name?: string; focalpoint?: [number, number] },
): Promise<MediaItem> {
  const { db, clock, media } = deps;
  const name = newMediaName(image.info.extension);
  await media.put(name, image.bytes, {
    contentType: image.info.contentType,
    width: image.info.width,
    height: image.info.height,
  });
  if (media.kind !== "db") {
    // The database store registers the file itself; others keep only the bytes.
    await db.insert(mediaFiles).values({
      name,
      content_type: image.info.contentType,
      size: image.bytes.byteLength,
      width: image.info.width,
      height: image.info.height,
      data: null,
      createdAt: clock.now(),
    });
  }
  return {
    name: meta.name ?? "",
    url: name,
    width: image.info.width,
    height: image.info.height,
    size: image.bytes.byteLength,
    focalpoint: meta.focalpoint ?? [0, 0],
  };
}
