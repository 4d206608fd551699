/**
 * Images of imported events (an ICS item's IMAGE/ATTACH, a Gancio event's
 * media): fetched under the fetch rules (or read by a loader the caller
 * gives, for a Gancio uploads folder), checked like an upload (type by
 * content, the upload size limit) and stored like one, owned by the event's
 * owner. An image that cannot be brought in is a problem line, never fatal.
 */
import type { Db } from "../../db/client.ts";
import type { MediaItem } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { type FetchLimits, limitedGet } from "../federation/loader.ts";
import type { MediaStore } from "../media/store.ts";
import { checkImage, storeImage } from "../media/upload.ts";

/** How an import brings images in. */
export interface ImageImport {
  media: MediaStore;
  /** Largest image accepted (the upload limit). */
  maxBytes: number;
  /** Bytes each owner may hold (the upload quota); 0: no quota. */
  quotaBytes: number;
  /** The bytes an image reference names (a URL, or the caller's own scheme); throws when it cannot. */
  load(ref: string, maxBytes: number): Promise<Uint8Array>;
}

/** How long one image download may take. */
export const IMAGE_TIMEOUT_MS = 20_000;

/** A loader for http(s) image URLs under the fetch rules. */
export function urlImageLoader(
  limits: FetchLimits,
): (ref: string, maxBytes: number) => Promise<Uint8Array> {
  return async (ref, maxBytes) => {
    const got = await limitedGet(ref, { ...limits, maxBytes }, {
      headers: { Accept: "image/*" },
      signal: AbortSignal.timeout(limits.timeoutMs ?? IMAGE_TIMEOUT_MS),
    });
    if (got.status < 200 || got.status >= 300) {
      throw new Error(`the image answered HTTP ${got.status}`);
    }
    return got.body;
  };
}

/** The image settings of an import that fetches URLs (ICS feeds and files). */
export function urlImageImport(
  media: MediaStore,
  limits: FetchLimits,
  sizes: { maxBytes: number; quotaBytes: number },
): ImageImport {
  return { media, ...sizes, load: urlImageLoader(limits) };
}

/** What an image is stored with. */
export interface ImageMeta {
  /** Alt text. */
  name?: string;
  focalpoint?: [number, number];
  ownerId: number | null;
}

/** Loads, checks and stores one image; throws an Error with a readable message when it cannot. */
export async function importImage(
  deps: { db: Db; clock: Clock },
  images: ImageImport,
  ref: string,
  meta: ImageMeta,
): Promise<MediaItem> {
  let bytes: Uint8Array;
  try {
    bytes = await images.load(ref, images.maxBytes);
  } catch (error) {
    throw new Error(
      `image ${ref} could not be read: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  try {
    const checked = checkImage(bytes, images.maxBytes);
    return await storeImage(
      {
        db: deps.db,
        clock: deps.clock,
        media: images.media,
        quotaBytes: images.quotaBytes,
      },
      checked,
      meta,
    );
  } catch (error) {
    throw new Error(
      `image ${ref} was not stored: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}
