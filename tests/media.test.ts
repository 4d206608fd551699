/** Media uploads through the HTTP surface: recognised by bytes, bounded, served, used by events. */
import assert from "node:assert/strict";
import {
  countRows,
  createTestApp,
  expectError,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { gif, jpeg, png, webpLossy } from "./images.ts";

/** The pinned clock of createTestApp: 2026-06-01T12:00:00Z. */
const NOW = 1_780_315_200;
const DAY = 86_400;

interface Media {
  name: string;
  url: string;
  width: number | null;
  height: number | null;
  size: number | null;
  focalpoint: [number, number];
}

/** POST /api/media with a multipart body; `file` null leaves the field out. */
async function upload(
  ctx: TestContext,
  token: string | undefined,
  file: Uint8Array<ArrayBuffer> | null,
  fields: Record<string, string> = {},
  fileName = "photo.txt",
): Promise<Response> {
  const form = new FormData();
  if (file) form.append("file", new File([file], fileName));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return await ctx.app.request("/api/media", {
    method: "POST",
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

Deno.test("POST /api/media: PNG, JPEG, GIF and WebP recognised by their bytes, then served", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const cases = [
      { kind: "png", type: "image/png", file: png(640, 480), w: 640, h: 480 },
      {
        kind: "jpg",
        type: "image/jpeg",
        file: jpeg(0xc0, 300, 200),
        w: 300,
        h: 200,
      },
      { kind: "gif", type: "image/gif", file: gif(17, 9), w: 17, h: 9 },
      {
        kind: "webp",
        type: "image/webp",
        file: webpLossy(1024, 768),
        w: 1024,
        h: 768,
      },
    ];
    const urls = new Set<string>();
    for (const [i, c] of cases.entries()) {
      const rows = await countRows(ctx, "media_files");
      const item = await json<Media>(
        await upload(ctx, token, c.file, {
          name: "A poster",
          focalpoint: "0.5,-0.25",
        }),
        201,
      );
      assert.match(item.url, new RegExp(`^[0-9a-f]{32}\\.${c.kind}$`));
      assert.ok(!urls.has(item.url), "a new name for every upload");
      urls.add(item.url);
      assert.deepEqual(item, {
        name: "A poster",
        url: item.url,
        width: c.w,
        height: c.h,
        size: c.file.byteLength,
        focalpoint: [0.5, -0.25],
      }, c.kind);
      assert.equal(await countRows(ctx, "media_files"), rows + 1);
      assert.equal(await countRows(ctx, "media_files"), i + 1);

      const served = await ctx.app.request(`/media/${item.url}`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get("content-type"), c.type);
      assert.equal(
        served.headers.get("content-length"),
        String(c.file.byteLength),
      );
      const cache = served.headers.get("cache-control") ?? "";
      assert.match(cache, /max-age=31536000/);
      assert.match(cache, /immutable/);
      assert.equal(served.headers.get("x-content-type-options"), "nosniff");
      assert.deepEqual(new Uint8Array(await served.arrayBuffer()), c.file);
    }

    // Without name and focal point: "" and [0, 0].
    const plain = await json<Media>(await upload(ctx, token, gif(2, 3)), 201);
    assert.equal(plain.name, "");
    assert.deepEqual(plain.focalpoint, [0, 0]);
    // The corners of the range are fine.
    const corner = await json<Media>(
      await upload(ctx, token, gif(2, 3), { focalpoint: "-1,1" }),
      201,
    );
    assert.deepEqual(corner.focalpoint, [-1, 1]);

    const missing = await ctx.app.request(`/media/${"0".repeat(32)}.png`);
    assert.equal(missing.headers.get("content-type"), "application/json");
    await expectError(missing, 404, "not_found");
    await expectError(
      await ctx.app.request("/media/.hidden"),
      400,
      "invalid_request",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/media: refused uploads write nothing", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const text = new TextEncoder().encode("just some text, not an image\n");
    const before = await countRows(ctx, "media_files");

    // The name and the client's type prove nothing: the bytes decide.
    await expectError(
      await upload(ctx, token, text, {}, "x.png"),
      415,
      "unsupported_media_type",
    );
    const form = new FormData();
    form.append("file", new File([text], "x.png", { type: "image/png" }));
    await expectError(
      await ctx.app.request("/api/media", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      }),
      415,
      "unsupported_media_type",
    );
    await expectError(
      await upload(ctx, token, new Uint8Array(0), {}, "empty.png"),
      415,
      "unsupported_media_type",
    );
    // Truncated signatures are not images either.
    await expectError(
      await upload(ctx, token, png(1, 1).slice(0, 6)),
      415,
      "unsupported_media_type",
    );

    for (const focalpoint of ["2,0", "0,-1.5", "0.5", "a,b", "0,0,0"]) {
      const err = await expectError(
        await upload(ctx, token, png(4, 4), { focalpoint }),
        400,
        "invalid_request",
      );
      assert.ok(Array.isArray(err.details), focalpoint);
    }
    await expectError(
      await upload(ctx, token, null, { name: "no file" }),
      400,
      "invalid_request",
    );
    // A file field sent as plain text is not a file.
    const textField = new FormData();
    textField.append("file", "not a file");
    await expectError(
      await ctx.app.request("/api/media", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: textField,
      }),
      400,
      "invalid_request",
    );
    // Only multipart is declared: a JSON body is the wrong type.
    await expectError(
      await ctx.app.request("/api/media", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ file: "x" }),
      }),
      415,
      "unsupported_media_type",
    );

    const noToken = await upload(ctx, undefined, png(4, 4));
    assert.match(noToken.headers.get("www-authenticate") ?? "", /^Bearer/);
    await expectError(noToken, 401, "unauthorized");
    await expectError(
      await upload(ctx, "not-a-valid-token", png(4, 4)),
      401,
      "unauthorized",
    );

    assert.equal(await countRows(ctx, "media_files"), before);
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/media: files over MEDIA_MAX_BYTES are a 413", async () => {
  const ctx = await createTestApp({ env: { MEDIA_MAX_BYTES: "2048" } });
  try {
    const { token } = await userWithToken(ctx);
    const header = png(64, 64).byteLength;
    await expectError(
      await upload(ctx, token, png(64, 64, 4096 - header)),
      413,
      "payload_too_large",
    );
    await expectError(
      await upload(ctx, token, png(64, 64, 2049 - header)),
      413,
      "payload_too_large",
    );
    // Far beyond the limit: the body limit answers before the file is read.
    await expectError(
      await upload(ctx, token, png(64, 64, 200_000)),
      413,
      "payload_too_large",
    );
    assert.equal(await countRows(ctx, "media_files"), 0);

    // Exactly at the limit is accepted.
    const atLimit = png(64, 64, 2048 - header);
    assert.equal(atLimit.byteLength, 2048);
    const item = await json<Media>(await upload(ctx, token, atLimit), 201);
    assert.equal(item.size, 2048);
    assert.equal(await countRows(ctx, "media_files"), 1);
  } finally {
    ctx.close();
  }
});

interface EventFull {
  id: number;
  media: Media[];
  tags: { tag: string; normalizedTag: string }[];
}

Deno.test("events reference uploaded media by url; unknown urls are refused", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const file = jpeg(0xc0, 800, 600);
    const uploaded = await json<Media>(
      await upload(ctx, token, file, { name: "ignored", focalpoint: "1,1" }),
      201,
    );
    const res = await ctx.app.request("/api/events", {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        title: "With a picture",
        start_datetime: NOW + DAY,
        place_name: "Gallery",
        media: [{ url: uploaded.url, name: "alt", focalpoint: [0.1, 0.2] }],
      }),
    });
    const event = await json<EventFull>(res, 201);
    const expected: Media = {
      name: "alt",
      url: uploaded.url,
      width: 800,
      height: 600,
      size: file.byteLength,
      focalpoint: [0.1, 0.2],
    };
    assert.deepEqual(event.media, [expected]);
    const reread = await json<EventFull>(
      await ctx.app.request(`/api/events/${event.id}`),
      200,
    );
    assert.deepEqual(reread.media, [expected]);

    const events = await countRows(ctx, "events");
    for (
      const media of [
        [{ url: `${"ab".repeat(16)}.png` }],
        [{ url: uploaded.url }, { url: "never-uploaded.gif" }],
        [{ url: "../etc/passwd" }],
        [{ url: uploaded.url, focalpoint: [2, 0] }],
      ]
    ) {
      const bad = await ctx.app.request("/api/events", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          title: "Broken picture",
          start_datetime: NOW + DAY,
          place_name: "Gallery",
          media,
        }),
      });
      await expectError(bad, 400, "invalid_request");
      assert.equal(await countRows(ctx, "events"), events);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/events as multipart with an image file", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const file = png(320, 200);
    const form = new FormData();
    form.append("title", "Poster night");
    form.append("start_datetime", String(NOW + DAY));
    form.append("place_name", "Print shop");
    form.append("tags", "Print");
    form.append("tags", "Art");
    form.append("image", new File([file], "poster.txt"));
    form.append("image_name", "The poster");
    form.append("image_focalpoint", "0,0.5");
    const res = await ctx.app.request("/api/events", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const event = await json<EventFull>(res, 201);
    assert.equal(event.media.length, 1);
    const [item] = event.media;
    assert.match(item.url, /^[0-9a-f]{32}\.png$/);
    assert.deepEqual(item, {
      name: "The poster",
      url: item.url,
      width: 320,
      height: 200,
      size: file.byteLength,
      focalpoint: [0, 0.5],
    });
    assert.deepEqual(event.tags.map((t) => t.tag).sort(), ["Art", "Print"]);
    assert.equal(await countRows(ctx, "media_files"), 1);
    const served = await ctx.app.request(`/media/${item.url}`);
    assert.equal(served.headers.get("content-type"), "image/png");
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), file);

    // Without image_name, the file's name is the alt text.
    const plain = new FormData();
    plain.append("title", "Second poster night");
    plain.append("start_datetime", String(NOW + 2 * DAY));
    plain.append("place_name", "Print shop");
    plain.append("tags", "Print");
    plain.append("image", new File([gif(5, 7)], "flyer.gif"));
    const second = await json<EventFull>(
      await ctx.app.request("/api/events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: plain,
      }),
      201,
    );
    assert.equal(second.media.length, 1);
    assert.equal(second.media[0].width, 5);
    assert.equal(second.media[0].height, 7);
    assert.equal(second.media[0].name, "flyer.gif");
    assert.deepEqual(second.tags.map((t) => t.tag), ["Print"]);
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/events as multipart: a refused event or image stores nothing", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const send = async (
      fields: Record<string, string>,
      image: Uint8Array<ArrayBuffer>,
    ) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append("image", new File([image], "poster.png"));
      return await ctx.app.request("/api/events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
    };
    const fields = {
      title: "Poster night",
      start_datetime: String(NOW + DAY),
      place_name: "Print shop",
    };
    await expectError(
      await send(fields, new TextEncoder().encode("<svg></svg>")),
      415,
      "unsupported_media_type",
    );
    // The event is invalid (unknown place): the valid image is not kept either.
    await expectError(
      await send(
        {
          title: fields.title,
          start_datetime: fields.start_datetime,
          place_id: "999999",
        },
        png(8, 8),
      ),
      400,
      "invalid_request",
    );
    await expectError(
      await send({ ...fields, end_datetime: String(NOW) }, png(8, 8)),
      400,
      "invalid_request",
    );
    assert.equal(await countRows(ctx, "events"), 0);
    assert.equal(await countRows(ctx, "media_files"), 0);
  } finally {
    ctx.close();
  }
});
