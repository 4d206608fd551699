/** Single byte ranges (RFC 9110 section 14): what a `Range` header asks, and what it gets. */

/** A range as asked: `first-last`, `first-` (last absent) or `-suffix`. */
export type RangeRequest =
  | { first: number; last?: number }
  | { suffix: number };

/** Inclusive offsets of the bytes sent. */
export interface ByteRange {
  start: number;
  end: number;
}

// Offsets beyond 2^53 cannot be files we hold; 15 digits keep Number exact.
const SINGLE_RANGE = /^bytes=(?:(\d{1,15})-(\d{0,15})|-(\d{1,15}))$/;

/**
 * The one byte range a `Range` header asks for, or null when the header is
 * absent or is to be ignored: another unit, several ranges (we answer those
 * with the whole file, as RFC 9110 allows) or a malformed one.
 */
export function parseRange(
  header: string | undefined | null,
): RangeRequest | null {
  if (!header) return null;
  const match = SINGLE_RANGE.exec(header.replace(/[ \t]/g, ""));
  if (!match) return null;
  const [, first, last, suffix] = match;
  if (suffix !== undefined) return { suffix: Number(suffix) };
  if (last === "") return { first: Number(first) };
  if (Number(last) < Number(first)) return null;
  return { first: Number(first), last: Number(last) };
}

/** The bytes of a file of `size` that `request` covers, or null when it covers none (416). */
export function resolveRange(
  request: RangeRequest,
  size: number,
): ByteRange | null {
  if ("suffix" in request) {
    if (request.suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - request.suffix), end: size - 1 };
  }
  if (request.first >= size) return null;
  return {
    start: request.first,
    end: Math.min(request.last ?? size - 1, size - 1),
  };
}

/** The `Range` header that asks for `request` again (to pass it upstream). */
export function rangeHeader(request: RangeRequest): string {
  if ("suffix" in request) return `bytes=-${request.suffix}`;
  return `bytes=${request.first}-${request.last ?? ""}`;
}

/**
 * Whether a range may be served under `If-Range` (RFC 9110 section 13.1.5):
 * always without one; with an entity tag, only when it is the file's strong
 * ETag; with a date, only when it is the file's Last-Modified to the second.
 */
export function rangeApplies(
  ifRange: string | null | undefined,
  etag: string | null,
  lastModified: Date | null,
): boolean {
  const condition = ifRange?.trim();
  if (!condition) return true;
  if (condition.startsWith('"') || condition.startsWith("W/")) {
    return etag !== null && condition === etag;
  }
  const time = Date.parse(condition);
  return lastModified !== null && !Number.isNaN(time) &&
    Math.floor(lastModified.getTime() / 1000) * 1000 === time;
}
