import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { mediaFiles } from "../db/schema.ts";
import { FixedClock } from "../lib/clock.ts";
import {
  createDbMediaStore,
  createS3MediaStore,
  type MediaStore,
  newMediaName,
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

/** Shared behaviour of both stores. */
async function assertRoundTrip(store: MediaStore): Promise<void> {
  const name = newMediaName("png");
  // Every byte value, from an offset view into a larger buffer.
  const backing = new Uint8Array(300);
  for (let i = 0; i < backing.length; i++) backing[i] = i & 0xff;
  const bytes = backing.subarray(10, 266);

  assert.equal(await store.get(name), null);
  await store.put(name, bytes, INFO);
  const stored = await store.get(name);
  assert.ok(stored);
  assert.deepEqual(stored.body, new Uint8Array(bytes));
  assert.equal(stored.contentType, "image/png");
  assert.equal(stored.size, 256);

  // Put again overwrites.
  await store.put(name, new Uint8Array([9, 8, 7]), {
    contentType: "image/gif",
    width: null,
    height: null,
  });
  const replaced = await store.get(name);
  assert.deepEqual(replaced?.body, new Uint8Array([9, 8, 7]));
  assert.equal(replaced?.contentType, "image/gif");
  assert.equal(replaced?.size, 3);

  // Other names are untouched by a delete.
  const other = newMediaName("jpg");
  await store.put(other, new Uint8Array([1, 2]), INFO);
  await store.delete(name);
  assert.equal(await store.get(name), null);
  assert.deepEqual((await store.get(other))?.body, new Uint8Array([1, 2]));
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
      assert.deepEqual((await store.get(ok))?.body, new Uint8Array([7]));
    }
    await assertRejectsBadNames(store);
  } finally {
    database.close();
  }
});

const ACCESS_KEY = "AKIDQUANDOTEST";
const SECRET_KEY = "s3cr3t/Quando+Key-never-sent-0123456789";

interface FakeS3 {
  endpoint: string;
  objects: Map<string, { body: Uint8Array<ArrayBuffer>; contentType: string }>;
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
    headerValues: [],
    requests: [],
    failNext: null,
  };
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
        return new Response(object.body, {
          headers: { "content-type": object.contentType },
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
