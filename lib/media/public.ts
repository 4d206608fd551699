/** How media items are addressed from outside: URLs and content types. */
import type { MediaItem } from "../../db/schema.ts";

const IMAGE_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
};

/**
 * Where a media item is served: our `/media/{file}`, or a remote item's own
 * URL when it is http(s). Null for anything else (javascript:, data:).
 */
export function publicMediaUrl(
  baseUrl: string,
  item: MediaItem,
): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(item.url)) {
    return /^https?:\/\/[^\s]+$/i.test(item.url) ? item.url : null;
  }
  return `${baseUrl}/media/${encodeURIComponent(item.url)}`;
}

/**
 * The path of a media item stored here (`/media/{file}`), or null for a
 * remote one: listings show only our own files, so a page of them makes no
 * request to another site.
 */
export function ownMediaPath(item: MediaItem): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(item.url) || item.url === "") return null;
  return `/media/${encodeURIComponent(item.url)}`;
}

/** The image content type a file name or URL's extension says (JPEG when unknown). */
export function imageTypeOf(nameOrUrl: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(nameOrUrl)?.[1]?.toLowerCase() ??
    "";
  return IMAGE_TYPES[ext] ?? "image/jpeg";
}

/**
 * An image stored here, as a page of this site shows it (the signed-in
 * pages' policy loads no other): its path and text; null for none or a
 * remote one.
 */
export function localImageOf(
  item: MediaItem | undefined,
): { src: string; alt: string } | null {
  if (!item || /^[a-z][a-z0-9+.-]*:/i.test(item.url)) return null;
  return {
    src: `/media/${encodeURIComponent(item.url)}`,
    alt: item.name ?? "",
  };
}
