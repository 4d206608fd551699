/** Validators for conditional GET (RFC 9110 section 13): ETag and Last-Modified. */

/** A strong ETag: the base64url SHA-256 of the body, quoted. */
export async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)),
  );
  const b64 = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
  return `"${b64}"`;
}

/** Whole seconds: HTTP dates carry no milliseconds. */
export function httpDate(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString();
}

/**
 * Whether the client's copy is current: `If-None-Match` decides when present
 * (weak comparison, `*` matches); otherwise `If-Modified-Since` against the
 * last modification.
 */
export function notModified(
  request: { ifNoneMatch?: string | null; ifModifiedSince?: string | null },
  etag: string,
  lastModified: Date,
): boolean {
  const inm = request.ifNoneMatch?.trim();
  if (inm) {
    if (inm === "*") return true;
    const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
    return inm.split(",").some((t) => opaque(t) === opaque(etag));
  }
  const ims = request.ifModifiedSince?.trim();
  if (ims) {
    const since = Date.parse(ims);
    if (!Number.isNaN(since)) {
      return Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
    }
  }
  return false;
}
