import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { MEDIA_CHUNK_BYTES, mediaFiles } from "../db/schema.ts";
import { FixedClock } from "../lib/clock.ts";
import {
  createDbMediaStore,
  createS3MediaStore,
  type MediaStore,
  newMediaName,
  type ReadOptions,
} from "../lib/media/store.ts";

const BAD_NAMES = [
  "",
  ".hidden",
  "..",
  "../etc/passwd",
  "a/b.jpg",
  "a\\b.jpg",
  "a b.jpg",
  "a%2Fb.jpg",
  "name?x=1",
  "ünï.jpg",
  "x".repeat(129),
];

const INFO = { contentType: "image/png", width: 2, height: 3 };

/** Every method must refuse every bad name. */
async function assertRejectsBadNames(store: MediaStore): Promise<void> {
  for (const name of BAD_NAMES) {
    await assert.rejects(
      store.put(name, new Uint8Array([1]), INFO),
      Error,
      `put ${name}`,
    );
    await assert.rejects(store.get(name), Error, `get ${name}`);
    await assert.rejects(store.delete(name), Error, `delete ${name}`);
  }
}

/** Reads a stored file (or range) whole: its bytes and what the store said. */
async function read(store: MediaStore, name: string, options?: ReadOptions) {
  const stored = await store.get(name, options);
  if (!stored || stored.kind === "unsatisfiable") return stored;
  assert.ok(stored.body instanceof ReadableStream);
  const body = new Uint8Array(await new Response(stored.body).arrayBuffer());
  return { ...stored, body };
}

/** Shared behaviour of both stores. */
async function assertRoundTrip(store: MediaStore): Promise<void> {
  const name = newMediaName("png");
  // Every byte value, from an offset view into a larger buffer.
  const backing = new Uint8Array(300);
  for (let i = 0; i < backing.length; i++) backing[i] = i & 0xff;
  const bytes = backing.subarray(10, 266);

  assert.equal(await store.get(name), null);
  await store.put(name, bytes, INFO);
  const stored = await read(store, name);
  assert.ok(stored?.kind === "file");
  assert.deepEqual(stored.body, new Uint8Array(bytes));
  assert.equal(stored.contentType, "image/png");
  assert.equal(stored.size, 256);
  assert.equal(stored.range, null);
  assert.ok(stored.etag);

  // One byte range, or none at all beyond the end.
  const part = await read(store, name, { range: { first: 10, last: 19 } });
  assert.ok(part?.kind === "file");
  assert.deepEqual(part.body, new Uint8Array(bytes.subarray(10, 20)));
  assert.deepEqual(part.range, { start: 10, end: 19 });
  assert.equal(part.size, 256);
  const tail = await read(store, name, { range: { suffix: 6 } });
  assert.ok(tail?.kind === "file");
  assert.deepEqual(tail.body, new Uint8Array(bytes.subarray(250)));
  assert.deepEqual(tail.range, { start: 250, end: 255 });
  assert.deepEqual(await store.get(name, { range: { first: 256 } }), {
    kind: "unsatisfiable",
    size: 256,
  });
  // If-Range naming another version: the whole file.
  const whole = await read(store, name, {
    range: { first: 0, last: 0 },
    ifRange: '"another-version"',
  });
  assert.ok(whole?.kind === "file");
  assert.equal(whole.range, null);
  assert.equal(whole.body.byteLength, 256);
  const same = await read(store, name, {
    range: { first: 0, last: 0 },
    ifRange: stored.etag!,
  });
  assert.ok(same?.kind === "file");
  assert.deepEqual(same.range, { start: 0, end: 0 });

  // Put again overwrites.
  await store.put(name, new Uint8Array([9, 8, 7]), {
    contentType: "image/gif",
    width: null,
    height: null,
  });
  const replaced = await read(store, name);
  assert.ok(replaced?.kind === "file");
  assert.deepEqual(replaced.body, new Uint8Array([9, 8, 7]));
  assert.equal(replaced.contentType, "image/gif");
  assert.equal(replaced.size, 3);

  // Other names are untouched by a delete.
  const other = newMediaName("jpg");
  await store.put(other, new Uint8Array([1, 2]), INFO);
  await store.delete(name);
  assert.equal(await store.get(name), null);
  const kept = await read(store, other);
  assert.ok(kept?.kind === "file");
  assert.deepEqual(kept.body, new Uint8Array([1, 2]));
  // Deleting again (or something never stored) is not an error.
  await store.delete(name);
  await store.delete(newMediaName("webp"));
}

Deno.test("newMediaName: random, URL-safe, with the extension", () => {
  const names = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const name = newMediaName("jpg");
    assert.match(name, /^[0-9a-f]{32}\.jpg$/);
    names.add(name);
  }
  assert.equal(names.size, 200);
  assert.match(newMediaName("webp"), /^[0-9a-f]{32}\.webp$/);
  for (const bad of ["", ".jpg", "j/pg", "../x", "a b"]) {
    assert.throws(() => newMediaName(bad), Error, bad);
  }
});

Deno.test("db media store: round trip, missing, delete, metadata", async () => {
  const database = await openDatabase(":memory:");
  try {
    await migrateDatabase(database);
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const store = createDbMediaStore(database.db, clock);
    assert.equal(store.kind, "db");
    await assertRoundTrip(store);

    // Size, dimensions and creation time land in the row.
    const name = newMediaName("png");
    await store.put(name, new Uint8Array([1, 2, 3, 4, 5]), INFO);
    const [row] = await database.db.select().from(mediaFiles).where(
      eq(mediaFiles.name, name),
    );
    assert.equal(row.size, 5);
    assert.equal(row.width, 2);
    assert.equal(row.height, 3);
    assert.equal(row.content_type, "image/png");
    assert.equal(row.createdAt.toISOString(), "2026-06-01T12:00:00.000Z");

    // Edge-case names that are allowed.
    for (const ok of ["a", "x".repeat(128), "A-b_c.d.e", "_x", "-x"]) {
      await store.put(ok, new Uint8Array([7]), INFO);
      const got = await read(store, ok);
      assert.ok(got?.kind === "file");
      assert.deepEqual(got.body, new Uint8Array([7]));
    }
    await assertRejectsBadNames(store);
  } finally {
    database.close();
  }
});

Deno.test("db media store: a file is read in chunks, and a file replaced or removed mid-stream fails the stream", async () => {
  const database = await openDatabase(":memory:");
  try {
    await migrateDatabase(database);
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const store = createDbMediaStore(database.db, clock);
    const size = 3 * MEDIA_CHUNK_BYTES + 17;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 13 + (i >> 10)) & 0xff;
    const name = newMediaName("png");
    await store.put(name, bytes, INFO);

    const stored = await store.get(name);
    assert.ok(stored?.kind === "file");
    const reader = stored.body.getReader();
    const sizes: number[] = [];
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sizes.push(value.byteLength);
      parts.push(value);
    }
    assert.deepEqual(sizes, [
      MEDIA_CHUNK_BYTES,
      MEDIA_CHUNK_BYTES,
      MEDIA_CHUNK_BYTES,
      17,
    ]);
    const joined = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.byteLength;
    }
    assert.deepEqual(joined, bytes);

    // Replaced between two chunks (same size, a later put): the stream errors
    // rather than join the old file's start to the new one's end.
    const replaced = await store.get(name);
    assert.ok(replaced?.kind === "file");
    const r1 = replaced.body.getReader();
    assert.equal((await r1.read()).value?.byteLength, MEDIA_CHUNK_BYTES);
    clock.advance(1000);
    await store.put(name, bytes.map((b) => b ^ 0xff), INFO);
    await assert.rejects(r1.read(), /changed while it was being read/);

    // Removed between two chunks: the same.
    const removed = await store.get(name);
    assert.ok(removed?.kind === "file");
    const r2 = removed.body.getReader();
    await r2.read();
    await store.delete(name);
    await assert.rejects(r2.read(), /changed while it was being read/);
  } finally {
    database.close();
  }
});

const ACCESS_KEY = "AKIDQUANDOTEST";
const SECRET_KEY = "s3cr3t/Quando+Key-never-sent-0123456789";

interface FakeS3 {
  endpoint: string;
  objects: Map<
    string,
    { body: Uint8Array<ArrayBuffer>; contentType: string; etag: string }
  >;
  /** The Range header of every GET (null when absent). */
  ranges: (string | null)[];
  /** Every header value of every request, for the secret check. */
  headerValues: string[];
  requests: string[];
  /** Makes the next request fail with this status. */
  failNext: number | null;
  server: Deno.HttpServer<Deno.NetAddr>;
}

/** A minimal path-style S3: `/{bucket}/{key}`, checking the SigV4 headers exist. */
function startFakeS3(bucket: string, region: string): FakeS3 {
  // The handler mutates this same object, which the test then inspects.
  const fake: Omit<FakeS3, "endpoint" | "server"> = {
    objects: new Map(),
    ranges: [],
    headerValues: [],
    requests: [],
    failNext: null,
  };
  let versions = 0;
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    for (const [key, value] of req.headers) {
      fake.headerValues.push(`${key}: ${value}`);
    }
    fake.requests.push(`${req.method} ${url.pathname}`);
    const auth = req.headers.get("authorization") ?? "";
    const credential = `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/`;
    if (
      !auth.startsWith(credential) ||
      !auth.includes(`/${region}/s3/aws4_request`) ||
      !req.headers.get("x-amz-date") ||
      !req.headers.get("x-amz-content-sha256")
    ) {
      await req.body?.cancel();
      return new Response("<Error><Code>AccessDenied</Code></Error>", {
        status: 403,
      });
    }
    if (fake.failNext !== null) {
      const status = fake.failNext;
      fake.failNext = null;
      await req.body?.cancel();
      return new Response("<Error><Code>InternalError</Code></Error>", {
        status,
      });
    }
    const prefix = `/${bucket}/`;
    if (!url.pathname.startsWith(prefix)) {
      await req.body?.cancel();
      return new Response("no such bucket", { status: 404 });
    }
    const key = url.pathname.slice(prefix.length);
    switch (req.method) {
      case "PUT": {
        const body = new Uint8Array(await req.arrayBuffer());
        fake.objects.set(key, {
          body,
          contentType: req.headers.get("content-type") ??
            "binary/octet-stream",
          etag: `"v${++versions}"`,
        });
        return new Response(null, { status: 200 });
      }
      case "GET": {
        const object = fake.objects.get(key);
        if (!object) {
          return new Response("<Error><Code>NoSuchKey</Code></Error>", {
            status: 404,
          });
        }
        const headers = {
          "content-type": object.contentType,
          etag: object.etag,
          "last-modified": "Mon, 01 Jun 2026 12:00:00 GMT",
        };
        const range = req.headers.get("range");
        fake.ranges.push(range);
        // One range, as S3 serves it: first-last, first- or -suffix.
        const match = /^bytes=(\d*)-(\d*)$/.exec(range ?? "");
        if (!match) return new Response(object.body, { headers });
        const size = object.body.byteLength;
        const start = match[1] === ""
          ? Math.max(0, size - Number(match[2]))
          : Number(match[1]);
        const end = match[1] === "" || match[2] === ""
          ? size - 1
          : Math.min(Number(match[2]), size - 1);
        if (start >= size || (match[1] === "" && match[2] === "0")) {
          return new Response("<Error><Code>InvalidRange</Code></Error>", {
            status: 416,
            headers: { "content-range": `bytes */${size}` },
          });
        }
        return new Response(object.body.slice(start, end + 1), {
          status: 206,
          headers: {
            ...headers,
            "content-range": `bytes ${start}-${end}/${size}`,
          },
        });
      }
      case "DELETE":
        fake.objects.delete(key);
        return new Response(null, { status: 204 });
      default:
        return new Response(null, { status: 405 });
    }
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    handler,
  );
  return Object.assign(fake, {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    server,
  });
}

Deno.test("s3 media store: signed round trip against a fake S3", async () => {
  const fake = startFakeS3("quando-media", "eu-west-1");
  try {
    const store = createS3MediaStore({
      endpoint: fake.endpoint,
      bucket: "quando-media",
      region: "eu-west-1",
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
    });
    assert.equal(store.kind, "s3");
    await assertRoundTrip(store);

    // A range goes upstream as asked; S3's 206 and Content-Range come back.
    const big = newMediaName("png");
    const content = new Uint8Array(5000).map((_, i) => i & 0xff);
    await store.put(big, content, INFO);
    fake.ranges.length = 0;
    const part = await read(store, big, { range: { first: 1000, last: 1999 } });
    assert.ok(part?.kind === "file");
    assert.deepEqual(fake.ranges, ["bytes=1000-1999"]);
    assert.deepEqual(part.range, { start: 1000, end: 1999 });
    assert.equal(part.size, 5000);
    assert.deepEqual(part.body, content.slice(1000, 2000));
    assert.match(part.etag ?? "", /^"v\d+"$/);
    assert.ok(part.lastModified);

    // The object key is exactly the name, under the bucket path.
    const name = newMediaName("jpg");
    await store.put(name, new Uint8Array([0xff, 0xd8, 0xff]), {
      contentType: "image/jpeg",
      width: null,
      height: null,
    });
    assert.equal(fake.objects.get(name)?.contentType, "image/jpeg");
    assert.ok(fake.requests.includes(`PUT /quando-media/${name}`));

    // Other failures throw, without credentials in the message.
    for (const method of ["get", "put", "delete"] as const) {
      fake.failNext = 500;
      const call = method === "put"
        ? store.put(name, new Uint8Array([1]), INFO)
        : store[method](name);
      await assert.rejects(call, (error: Error) => {
        assert.match(error.message, /500/);
        assert.ok(!error.message.includes(SECRET_KEY));
        assert.ok(!error.message.includes("Signature="));
        return true;
      });
    }
    // The fake rejects requests it cannot authenticate, which surfaces as an error.
    const wrongKey = createS3MediaStore({
      endpoint: fake.endpoint,
      bucket: "quando-media",
      region: "eu-west-1",
      accessKeyId: "SOMEONEELSE",
      secretAccessKey: SECRET_KEY,
    });
    await assert.rejects(wrongKey.get(name), /403/);

    const before = fake.requests.length;
    await assertRejectsBadNames(store);
    assert.equal(fake.requests.length, before, "bad names never reach S3");

    assert.ok(fake.headerValues.length > 0);
    for (const header of fake.headerValues) {
      assert.ok(!header.includes(SECRET_KEY), header);
    }
    assert.ok(
      fake.headerValues.some((h) => h.startsWith("x-amz-content-sha256: ")),
    );
  } finally {
    await fake.server.shutdown();
  }
});

Deno.test("s3 media store: virtual-hosted URLs and an injected fetch", async () => {
  const seen: Request[] = [];
  const store = createS3MediaStore({
    endpoint: "https://s3.example.test/",
    bucket: "media",
    region: "auto",
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET_KEY,
    pathStyle: false,
    fetch: (input, init) => {
      const request = new Request(input, init);
      seen.push(request);
      return Promise.resolve(
        request.method === "GET"
          ? new Response(null, { status: 404 })
          : new Response(null, { status: 200 }),
      );
    },
  });
  const name = newMediaName("gif");
  await store.put(name, new Uint8Array([1, 2, 3]), {
    contentType: "image/gif",
    width: 1,
    height: 1,
  });
  assert.equal(await store.get(name), null);
  await store.delete(name);
  assert.deepEqual(
    seen.map((r) => `${r.method} ${r.url}`),
    [
      `PUT https://media.s3.example.test/${name}`,
      `GET https://media.s3.example.test/${name}`,
      `DELETE https://media.s3.example.test/${name}`,
    ],
  );
  assert.equal(seen[0].headers.get("content-type"), "image/gif");
  assert.deepEqual(
    new Uint8Array(await seen[0].arrayBuffer()),
    new Uint8Array([1, 2, 3]),
  );
  for (const request of seen) {
    assert.match(
      request.headers.get("authorization") ?? "",
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/\\d{8}/auto/s3/`),
    );
  }
});
