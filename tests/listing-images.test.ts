/**
 * Images in listings: the home page and the tag, place and search listings
 * show each event's own image (from /media) as a thumbnail with its alt
 * text, loaded lazily in a box of fixed size; events without one show none.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { png } from "./images.ts";
import {
  call,
  createTestApp,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

async function uploadImage(ctx: TestContext, token: string) {
  const form = new FormData();
  form.append("file", new File([png(640, 480)], "poster.png"));
  form.append("name", "A poster with a trumpet");
  const res = await ctx.app.request("/api/media", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

interface Img {
  getAttribute(name: string): string | null;
}

async function thumbnails(ctx: TestContext, path: string) {
  const res = await call(ctx, "GET", path);
  assert.equal(res.status, 200, path);
  const html = await res.text();
  const { document } = parseHTML(html) as unknown as {
    document: { querySelectorAll(s: string): Img[] };
  };
  return { html, imgs: [...document.querySelectorAll(".event-item img")] };
}

Deno.test("listings: the home, tag, place and search pages show an event's own image as a lazy, fixed-size thumbnail with its alt text", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx, "user");
    const media = await uploadImage(ctx, token);
    const withImage = await postEvent(ctx, token, {
      title: "Jazz with a poster",
      tags: ["jazz"],
      media: [{ ...media, name: "A poster with a trumpet" }],
    });
    await postEvent(ctx, token, { title: "Jazz without", tags: ["jazz"] });
    for (
      const path of [
        "/",
        "/tag/jazz",
        `/place/${withImage.placeId}`,
        "/search?q=jazz",
      ]
    ) {
      const { imgs } = await thumbnails(ctx, path);
      assert.equal(imgs.length, 1, `${path}: one thumbnail`);
      const img = imgs[0];
      assert.equal(
        img.getAttribute("src"),
        `/media/${encodeURIComponent(media.url)}`,
        path,
      );
      assert.equal(img.getAttribute("alt"), "A poster with a trumpet", path);
      assert.equal(img.getAttribute("loading"), "lazy", path);
      assert.equal(img.getAttribute("width"), "88", path);
      assert.equal(img.getAttribute("height"), "88", path);
    }
    // The thumbnail is ours: its file answers from this site.
    const file = await call(ctx, "GET", `/media/${media.url}`);
    assert.equal(file.status, 200);
    await file.body?.cancel();
  } finally {
    ctx.close();
  }
});
