/**
 * Storage back ends for uploaded media: blobs in the database (the embedded
 * default, nothing else to run) or an S3-compatible bucket (for edge
 * deployments and larger instances). Both hand files out as streams, a whole
 * file or one byte range of it, so serving one never holds it in memory.
 */
import { Buffer } from "node:buffer";
import { AwsClient } from "aws4fetch";
import { and, eq, exists, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { MEDIA_CHUNK_BYTES, mediaChunks, mediaFiles } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import {
  type ByteRange,
  rangeApplies,
  rangeHeader,
  type RangeRequest,
  resolveRange,
} from "./range.ts";

/** How a file is to be read: all of it, or one range (RFC 9110 `Range` and `If-Range`). */
export interface ReadOptions {
  range?: RangeRequest | null;
  /** The range applies only while the file's ETag (or Last-Modified date) is this one. */
  ifRange?: string | null;
}

/** A stored file opened for reading. */
export interface StoredMedia {
  kind: "file";
  contentType: string;
  /** Size of the whole file, in bytes. */
  size: number;
  /** A strong validator of the bytes behind the name (null when the store has none). */
  etag: string | null;
  lastModified: Date | null;
  /** The bytes `body` holds: this range of the file, or the whole file when null. */
  range: ByteRange | null;
  /** Read as the client takes it; cancel it when it is not sent. */
  body: ReadableStream<Uint8Array>;
}

/** A range that starts beyond the end of the file (416). */
export interface UnsatisfiableRange {
  kind: "unsatisfiable";
  /** Size of the whole file, in bytes. */
  size: number;
}

/** Where uploaded files live. */
export interface MediaStore {
  readonly kind: "db" | "s3";
  put(
    name: string,
    bytes: Uint8Array,
    info: { contentType: string; width: number | null; height: number | null },
  ): Promise<void>;
  /** The file (or the range asked for) as a stream; null when there is no such file. */
  get(
    name: string,
    options?: ReadOptions,
  ): Promise<StoredMedia | UnsatisfiableRange | null>;
  delete(name: string): Promise<void>;
}

const NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Rejects anything but a plain file name. The route layer validates first;
 * this is defence in depth so a name can never become a path or another key.
 */
function checkName(name: string): void {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new Error("invalid media name");
  }
}

/**
 * The embedded default: the bytes in `media_chunks`, MEDIA_CHUNK_BYTES per
 * row, so a download reads one piece per query and holds no more than that.
 */
export function createDbMediaStore(db: Db, clock: Clock): MediaStore {
  return {
    kind: "db",
    async put(name, bytes, info) {
      checkName(name);
      const row = {
        content_type: info.contentType,
        size: bytes.byteLength,
        width: info.width,
        height: info.height,
        createdAt: clock.now(),
      };
      const chunks = [];
      // At least one piece, so an empty file is a stored file too.
      for (
        let seq = 0;
        seq === 0 || seq * MEDIA_CHUNK_BYTES < bytes.byteLength;
        seq++
      ) {
        const start = seq * MEDIA_CHUNK_BYTES;
        const end = Math.min(start + MEDIA_CHUNK_BYTES, bytes.byteLength);
        // Views, not copies: the driver only reads them.
        const data = Buffer.from(
          bytes.buffer,
          bytes.byteOffset + start,
          end - start,
        );
        chunks.push({ name, seq, data });
      }
      // Overwrite like an S3 PUT, so both stores behave the same; one batch,
      // so a reader sees the old version or the new one, never a mixture.
      await db.batch([
        db.insert(mediaFiles).values({ name, ...row })
          .onConflictDoUpdate({ target: mediaFiles.name, set: row }),
        db.delete(mediaChunks).where(eq(mediaChunks.name, name)),
        db.insert(mediaChunks).values(chunks),
      ]);
    },
    async get(name, options = {}) {
      checkName(name);
      const [meta] = await db.select({
        contentType: mediaFiles.content_type,
        size: mediaFiles.size,
        createdAt: mediaFiles.createdAt,
      }).from(mediaFiles).where(and(
        eq(mediaFiles.name, name),
        // A row without pieces is an upload still being stored.
        exists(
          db.select({ one: sql`1` }).from(mediaChunks).where(and(
            eq(mediaChunks.name, mediaFiles.name),
            eq(mediaChunks.seq, 0),
          )),
        ),
      )).limit(1);
      if (!meta) return null;
      const { size, createdAt } = meta;
      // Every put sets createdAt: with the size it tells one version of a
      // name from another (names are random, so each is put once anyway).
      const etag = `"${createdAt.getTime().toString(36)}-${size.toString(36)}"`;
      let range: ByteRange | null = null;
      if (options.range && rangeApplies(options.ifRange, etag, createdAt)) {
        range = resolveRange(options.range, size);
        if (!range) return { kind: "unsatisfiable", size };
      }
      const end = range ? range.end : size - 1;
      let offset = range ? range.start : 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const seq = Math.floor(offset / MEDIA_CHUNK_BYTES);
          const [row] = await db.select({
            data: mediaChunks.data,
            size: mediaFiles.size,
            createdAt: mediaFiles.createdAt,
          }).from(mediaChunks)
            .innerJoin(mediaFiles, eq(mediaFiles.name, mediaChunks.name))
            .where(and(eq(mediaChunks.name, name), eq(mediaChunks.seq, seq)))
            .limit(1);
          const pieceStart = seq * MEDIA_CHUNK_BYTES;
          const pieceLength = Math.min(MEDIA_CHUNK_BYTES, size - pieceStart);
          // Replaced or removed since the first piece: stop rather than
          // splice two versions (the client sees a body shorter than announced).
          if (
            !row || row.data.byteLength !== pieceLength || row.size !== size ||
            row.createdAt.getTime() !== createdAt.getTime()
          ) {
            controller.error(
              new Error(`media ${name} changed while it was being read`),
            );
            return;
          }
          const last = Math.min(end, pieceStart + pieceLength - 1);
          controller.enqueue(
            new Uint8Array(
              row.data.buffer,
              row.data.byteOffset + offset - pieceStart,
              last + 1 - offset,
            ),
          );
          offset = last + 1;
          if (offset > end) controller.close();
        },
        // Nothing is read before the client asks (a HEAD or a 304 reads nothing).
      }, { highWaterMark: 0 });
      return {
        kind: "file",
        contentType: meta.contentType,
        size,
        etag,
        lastModified: createdAt,
        range,
        body,
      };
    },
    async delete(name) {
      checkName(name);
      // The pieces go with the row (foreign key, and the trigger of 0008).
      await db.delete(mediaFiles).where(eq(mediaFiles.name, name));
    },
  };
}

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** path-style URLs (default true: works with MinIO, R2, Garage) */
  pathStyle?: boolean;
  fetch?: typeof fetch;
}

/** A Content-Range value (RFC 9110 section 14.4): `bytes first-last/size`, or `*` for the range when unsatisfiable. */
function contentRangeOf(
  header: string | null,
): { range: ByteRange | null; size: number } | null {
  const match = /^bytes (?:(\d+)-(\d+)|\*)\/(\d+)$/.exec(header?.trim() ?? "");
  if (!match) return null;
  const [, start, end, size] = match;
  return {
    range: start !== undefined
      ? { start: Number(start), end: Number(end) }
      : null,
    size: Number(size),
  };
}

function dateOf(header: string | null): Date | null {
  const time = header ? Date.parse(header) : NaN;
  return Number.isNaN(time) ? null : new Date(time);
}

/** An S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Garage) through aws4fetch: works at the edge. */
export function createS3MediaStore(options: S3Options): MediaStore {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: "s3",
    region: options.region,
  });
  const doFetch = options.fetch ?? fetch;
  const base = new URL(options.endpoint);
  const basePath = base.pathname.replace(/\/+$/, "");
  const pathStyle = options.pathStyle ?? true;

  function objectUrl(name: string): string {
    checkName(name);
    const url = new URL(base.href);
    if (pathStyle) {
      url.pathname = `${basePath}/${
        encodeURIComponent(options.bucket)
      }/${name}`;
    } else {
      url.hostname = `${options.bucket}.${base.hostname}`;
      url.pathname = `${basePath}/${name}`;
    }
    url.search = "";
    url.hash = "";
    return url.href;
  }

  // Signs with aws4fetch but sends through the injected fetch (tests, custom runtimes).
  async function send(
    method: string,
    name: string,
    init: { body?: Uint8Array<ArrayBuffer>; headers?: HeadersInit } = {},
  ): Promise<Response> {
    const request = await client.sign(objectUrl(name), { method, ...init });
    return await doFetch(request);
  }

  // Only the method, object name and status: never headers, which carry the signature.
  async function fail(
    method: string,
    name: string,
    res: Response,
  ): Promise<never> {
    await res.body?.cancel();
    throw new Error(`S3 ${method} ${name} failed with status ${res.status}`);
  }

  const store: MediaStore = {
    kind: "s3",
    async put(name, bytes, info) {
      // Copy into a fresh ArrayBuffer-backed array: fetch bodies cannot be shared-memory views.
      const body = new Uint8Array(bytes.byteLength);
      body.set(bytes);
      const res = await send("PUT", name, {
        body,
        headers: { "Content-Type": info.contentType },
      });
      if (!res.ok) return await fail("PUT", name, res);
      await res.body?.cancel();
    },
    async get(name, options = {}) {
      const range = options.range ?? null;
      const res = await send(
        "GET",
        name,
        range ? { headers: { Range: rangeHeader(range) } } : {},
      );
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (res.status === 416) {
        await res.body?.cancel();
        const total = contentRangeOf(res.headers.get("Content-Range"))?.size;
        if (total === undefined) return await fail("GET", name, res);
        return { kind: "unsatisfiable", size: total };
      }
      if (!res.ok) return await fail("GET", name, res);
      const etag = res.headers.get("ETag");
      const lastModified = dateOf(res.headers.get("Last-Modified"));
      if (
        res.status === 206 && !rangeApplies(options.ifRange, etag, lastModified)
      ) {
        // The client's copy is another version: it gets the whole file.
        await res.body?.cancel();
        return await store.get(name, {});
      }
      const contentType = res.headers.get("Content-Type") ??
        "application/octet-stream";
      const body = res.body ?? new ReadableStream<Uint8Array>();
      if (res.status === 206) {
        const part = contentRangeOf(res.headers.get("Content-Range"));
        if (!part?.range) return await fail("GET", name, res);
        return {
          kind: "file",
          contentType,
          size: part.size,
          etag,
          lastModified,
          range: part.range,
          body,
        };
      }
      const size = Number(res.headers.get("Content-Length"));
      if (!Number.isSafeInteger(size) || size < 0) {
        return await fail("GET", name, res);
      }
      // The upstream body passes through: nothing is buffered here.
      return {
        kind: "file",
        contentType,
        size,
        etag,
        lastModified,
        range: null,
        body,
      };
    },
    async delete(name) {
      const res = await send("DELETE", name);
      // Deleting what is already gone is success.
      if (!res.ok && res.status !== 404) {
        return await fail("DELETE", name, res);
      }
      await res.body?.cancel();
    },
  };
  return store;
}

/** A random file name with the given extension (>= 128 bits, URL-safe), e.g. "3f9a...c1.jpg". */
export function newMediaName(extension: string): string {
  if (!/^[A-Za-z0-9]{1,10}$/.test(extension)) {
    throw new Error("invalid media extension");
  }
  const random = crypto.getRandomValues(new Uint8Array(16));
  const hex = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
  return `${hex}.${extension}`;
}
