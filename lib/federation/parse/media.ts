/**
 * A remote object's pictures (image attachments and `image`) and Mobilizon's
 * "Website" link attachment. Pure and liberal, like the rest of parse/
 * (read.ts).
 */
import {
  get,
  httpUrl,
  isObject,
  type Json,
  linkUrl,
  list,
  mapText,
  mediaTypeOf,
  oneLine,
  types,
} from "./read.ts";

/** A raster image from a remote object. */
export interface RemoteMedia {
  url: string;
  name: string;
  focalpoint: [number, number];
  width: number | null;
  height: number | null;
}

// Limits: see read.ts.
const MAX_MEDIA = 10;
const MAX_MEDIA_NAME = 500;

/** Raster images only: an SVG can carry script. */
function isImageType(mediaType: string): boolean {
  return mediaType.startsWith("image/") && !mediaType.startsWith("image/svg");
}

function dimension(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v > 0 && v <= 100_000
    ? v
    : null;
}

/** Mastodon's focalPoint `[x, y]` in [-1, 1]; [0, 0] (the centre) otherwise. */
function focalPoint(v: unknown): [number, number] {
  const pair = isObject(v) ? v["@list"] : v;
  if (!Array.isArray(pair) || pair.length < 2) return [0, 0];
  const [x, y] = pair;
  if (
    typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) ||
    !Number.isFinite(y)
  ) return [0, 0];
  const clamp = (n: number) => Math.min(1, Math.max(-1, n));
  return [clamp(x), clamp(y)];
}

/** The image URL of a media object: `url` as string, Link or array (image entries first). */
function mediaUrl(obj: Json): string | null {
  const url = get(obj, "url") ?? get(obj, "href");
  if (!Array.isArray(url)) return linkUrl(url);
  const items = list(url);
  for (const item of items) {
    if (isObject(item) && isImageType(mediaTypeOf(item))) {
      const u = linkUrl(item);
      if (u) return u;
    }
  }
  for (const item of items) {
    const u = linkUrl(item);
    if (u) return u;
  }
  return null;
}

function parseMediaItem(item: unknown, fromImage: boolean): RemoteMedia | null {
  if (typeof item === "string" && fromImage) {
    const url = httpUrl(item);
    return url
      ? { url, name: "", focalpoint: [0, 0], width: null, height: null }
      : null;
  }
  if (!isObject(item)) return null;
  const t = types(item);
  const mediaType = mediaTypeOf(item);
  const image = t.has("image")
    ? mediaType === "" || isImageType(mediaType)
    : (t.has("document") || (fromImage && t.size === 0)) &&
      isImageType(mediaType);
  if (!image) return null;
  const url = mediaUrl(item);
  if (!url) return null;
  return {
    url,
    name: oneLine(
      mapText(item, "name") ?? mapText(item, "summary"),
      MAX_MEDIA_NAME,
    ),
    focalpoint: focalPoint(get(item, "focalPoint")),
    width: dimension(get(item, "width")),
    height: dimension(get(item, "height")),
  };
}

/** Image attachments, then `image`, without repeats, at most MAX_MEDIA. */
export function parseMedia(attachment: unknown, image: unknown): RemoteMedia[] {
  const out: RemoteMedia[] = [];
  const candidates = [
    ...list(attachment).map((item) => [item, false] as const),
    ...list(image).map((item) => [item, true] as const),
  ];
  for (const [item, fromImage] of candidates) {
    if (out.length >= MAX_MEDIA) break;
    const media = parseMediaItem(item, fromImage);
    if (media && !out.some((m) => m.url === media.url)) out.push(media);
  }
  return out;
}

/** Mobilizon's `online_address`: a Link (or Document) attachment named "Website". */
export function websiteLink(attachment: unknown): string | null {
  for (const item of list(attachment)) {
    if (!isObject(item)) continue;
    const t = types(item);
    if (t.size > 0 && !t.has("link") && !t.has("document")) continue;
    if (oneLine(get(item, "name"), 50).toLowerCase() !== "website") continue;
    const url = httpUrl(get(item, "href")) ?? linkUrl(get(item, "url"));
    if (url) return url;
  }
  return null;
}
