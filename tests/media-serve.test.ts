/** GET /media/{file}: streamed, with byte ranges, validators and immutable caching. */
import assert from "node:assert/strict";
import {
  createTestApp,
  expectError,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { png } from "./images.ts";

/** A PNG of `size` bytes whose padding is not all zeros, so misplaced bytes show. */
function patternedPng(size: number): Uint8Array<ArrayBuffer> {
  const file = png(64, 64, size - png(64, 64).byteLength);
  for (let i = 40; i < file.length; i++) file[i] = (i * 7 + (i >> 8)) & 0xff;
  return file;
}

async function uploadFile(
  ctx: TestContext,
  file: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const { token } = await userWithToken(ctx);
  const form = new FormData();
  form.append("file", new File([file], "big.png"));
  const res = await ctx.app.request("/api/media", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text).url;
}

function get(
  ctx: TestContext,
  name: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Response> {
  return Promise.resolve(
    ctx.app.request(`/media/${name}`, { method, headers }),
  );
}

async function bytesOf(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

// Larger than several 256 KiB chunks, and not a multiple of one.
const SIZE = 700_001;

Deno.test("GET /media/{file}: the whole file, with validators and immutable caching", async () => {
  const ctx = await createTestApp();
  try {
    const file = patternedPng(SIZE);
    const name = await uploadFile(ctx, file);
    const res = await get(ctx, name);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), String(SIZE));
    assert.equal(res.headers.get("content-type"), "image/png");
    assert.equal(res.headers.get("accept-ranges"), "bytes");
    assert.match(res.headers.get("cache-control") ?? "", /immutable/);
    assert.match(res.headers.get("cache-control") ?? "", /max-age=31536000/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const etag = res.headers.get("etag");
    assert.match(etag ?? "", /^"[^"]+"$/);
    assert.ok(res.headers.get("last-modified"));
    assert.ok(res.body instanceof ReadableStream);
    assert.deepEqual(await bytesOf(res), file);

    // The client's copy is current: 304, no body, same validators.
    const again = await get(ctx, name, { "if-none-match": etag! });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("etag"), etag);
    assert.match(again.headers.get("cache-control") ?? "", /immutable/);
    assert.equal((await bytesOf(again)).byteLength, 0);
    const other = await get(ctx, name, { "if-none-match": '"something-else"' });
    assert.equal(other.status, 200);
    await other.body?.cancel();

    // HEAD: the headers, no bytes.
    const head = await get(ctx, name, {}, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), String(SIZE));
    assert.equal((await bytesOf(head)).byteLength, 0);
  } finally {
    ctx.close();
  }
});

Deno.test("GET /media/{file}: Range answers 206 with Content-Range; beyond the end 416", async () => {
  const ctx = await createTestApp();
  try {
    const file = patternedPng(SIZE);
    const name = await uploadFile(ctx, file);
    const chunk = 256 * 1024;
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=100-100", 100, 100],
      // Across the boundary of the store's chunks.
      [`bytes=${chunk - 10}-${2 * chunk + 10}`, chunk - 10, 2 * chunk + 10],
      [`bytes=${SIZE - 10}-`, SIZE - 10, SIZE - 1],
      ["bytes=-500", SIZE - 500, SIZE - 1],
      [`bytes=-${SIZE + 5}`, 0, SIZE - 1],
      ["bytes=600000-99999999", 600_000, SIZE - 1],
      ["bytes= 5 - 9", 5, 9],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(ctx, name, { range });
      assert.equal(res.status, 206, range);
      assert.equal(
        res.headers.get("content-range"),
        `bytes ${start}-${end}/${SIZE}`,
        range,
      );
      assert.equal(
        res.headers.get("content-length"),
        String(end - start + 1),
        range,
      );
      assert.match(res.headers.get("cache-control") ?? "", /immutable/);
      assert.ok(res.headers.get("etag"), range);
      assert.deepEqual(await bytesOf(res), file.slice(start, end + 1), range);
    }

    for (
      const range of [
        `bytes=${SIZE}-`,
        `bytes=${SIZE + 100}-${SIZE + 200}`,
        "bytes=-0",
      ]
    ) {
      const res = await get(ctx, name, { range });
      assert.equal(res.headers.get("content-range"), `bytes */${SIZE}`, range);
      await expectError(res, 416, "range_not_satisfiable");
    }

    // Ranges we do not serve are ignored: the whole file, 200.
    for (
      const range of ["bytes=9-5", "bytes=0-1,4-5", "items=0-9", "bytes=x-y"]
    ) {
      const res = await get(ctx, name, { range });
      assert.equal(res.status, 200, range);
      assert.equal(res.headers.get("content-length"), String(SIZE), range);
      await res.body?.cancel();
    }

    // If-Range: the range only while the client's copy is this version.
    const etag = (await get(ctx, name, {}, "HEAD")).headers.get("etag")!;
    const same = await get(ctx, name, { range: "bytes=0-9", "if-range": etag });
    assert.equal(same.status, 206);
    assert.deepEqual(await bytesOf(same), file.slice(0, 10));
    const changed = await get(ctx, name, {
      range: "bytes=0-9",
      "if-range": '"an-older-version"',
    });
    assert.equal(changed.status, 200);
    assert.deepEqual(await bytesOf(changed), file);
  } finally {
    ctx.close();
  }
});
