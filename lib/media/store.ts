/**
 * Storage back ends for uploaded media: blobs in the database (the embedded
 * default, nothing else to run) or an S3-compatible bucket (for edge
 * deployments and larger instances).
 */
import { Buffer } from "node:buffer";
import { AwsClient } from "aws4fetch";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mediaFiles } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";

export interface StoredMedia {
  body: Uint8Array;
  contentType: string;
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
  get(name: string): Promise<StoredMedia | null>;
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

/** The embedded default: files as blobs in the `media_files` table. */
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
        // A view, not a copy: the driver only reads it.
        data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        createdAt: clock.now(),
      };
      // Overwrite like an S3 PUT, so both stores behave the same.
      await db.insert(mediaFiles).values({ name, ...row })
        .onConflictDoUpdate({ target: mediaFiles.name, set: row });
    },
    async get(name) {
      checkName(name);
      const [row] = await db
        .select({
          contentType: mediaFiles.content_type,
          data: mediaFiles.data,
        })
        .from(mediaFiles)
        .where(eq(mediaFiles.name, name))
        .limit(1);
      // The column is NOT NULL, but Drizzle's blob type still admits null.
      if (!row?.data) return null;
      // Hand out a plain Uint8Array rather than the driver's Buffer.
      const body = new Uint8Array(
        row.data.buffer,
        row.data.byteOffset,
        row.data.byteLength,
      );
      return { body, contentType: row.contentType, size: body.byteLength };
    },
    async delete(name) {
      checkName(name);
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

  return {
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
    async get(name) {
      const res = await send("GET", name);
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) return await fail("GET", name, res);
      const body = new Uint8Array(await res.arrayBuffer());
      return {
        body,
        contentType: res.headers.get("Content-Type") ??
          "application/octet-stream",
        size: body.byteLength,
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
