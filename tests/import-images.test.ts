/**
 * Images of imported events (lib/imports/images.ts through applyImport): an
 * ICS item's IMAGE is fetched under the fetch rules, checked and stored like
 * an upload, served by /media/…, and fetched again only when its URL
 * changes; an image that fails is a problem line and the event still comes.
 */
import assert from "node:assert/strict";
import { call, createTestApp, userWithToken } from "./helpers.ts";
import { png } from "./images.ts";

/** A feed and its images; counts the image requests. */
function feedServer() {
  let body = "";
  const imageHits: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/calendar.ics") {
        return new Response(body, {
          headers: { "content-type": "text/calendar" },
        });
      }
      imageHits.push(path);
      if (path === "/poster.png") {
        return new Response(png(40, 30), {
          headers: { "content-type": "image/png" },
        });
      }
      if (path === "/other.png") {
        return new Response(png(20, 10), {
          headers: { "content-type": "image/png" },
        });
      }
      if (path === "/not-an-image.png") {
        return new Response("<html></html>", {
          headers: { "content-type": "image/png" },
        });
      }
      return new Response("gone", { status: 404 });
    },
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    base,
    url: `${base}/calendar.ics`,
    imageHits,
    set(image: string, title = "Poster night") {
      body = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Quando tests//EN",
        "BEGIN:VEVENT",
        "UID:poster@feed",
        "DTSTART:20260612T190000Z",
        `SUMMARY:${title}`,
        "LOCATION:Cinema",
        `IMAGE;VALUE=URI:${base}${image}`,
        "END:VEVENT",
        "END:VCALENDAR",
      ].join("\r\n");
    },
    close: () => server.shutdown(),
  };
}

Deno.test("ICS import: an item's IMAGE is stored and served, fetched again only when its URL changes; a failing image is a problem line", async () => {
  const feed = feedServer();
  const ctx = await createTestApp({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  try {
    const editor = await userWithToken(ctx, "editor");
    feed.set("/poster.png");
    const created = await (await call(ctx, "POST", "/api/sources", {
      token: editor.token,
      json: { url: feed.url },
    })).json();
    assert.equal(created.counts.created, 1, JSON.stringify(created));
    assert.deepEqual(created.problems, []);
    const sync = async () =>
      await (await call(
        ctx,
        "POST",
        `/api/sources/${created.source.id}/sync`,
        { token: editor.token },
      )).json();
    const event = async () => {
      const [summary] = await (await call(ctx, "GET", "/api/events?start=0"))
        .json();
      return await (await call(ctx, "GET", `/api/events/${summary.id}`))
        .json();
    };
    let full = await event();
    assert.equal(full.media.length, 1);
    assert.equal(full.media[0].width, 40);
    assert.equal(full.media[0].height, 30);
    const served = await call(ctx, "GET", `/media/${full.media[0].url}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("content-type"), "image/png");
    assert.deepEqual(
      new Uint8Array(await served.arrayBuffer()),
      png(40, 30),
    );
    assert.deepEqual(feed.imageHits, ["/poster.png"]);

    // Unchanged: nothing fetched but the feed.
    assert.equal((await sync()).counts.unchanged, 1);
    // The title changes, the image does not: not fetched again, kept.
    feed.set("/poster.png", "Poster night (sold out)");
    assert.equal((await sync()).counts.updated, 1);
    assert.deepEqual(feed.imageHits, ["/poster.png"]);
    const kept = (await event()).media[0].url;
    assert.equal(kept, full.media[0].url);

    // Another image: fetched and stored, the old one replaced.
    feed.set("/other.png", "Poster night (sold out)");
    assert.equal((await sync()).counts.updated, 1);
    full = await event();
    assert.equal(full.media.length, 1);
    assert.equal(full.media[0].width, 20);
    assert.notEqual(full.media[0].url, kept);

    // An image that is not one, then one that is gone: problem lines, the
    // event stays with its current image; each run tries again.
    feed.set("/not-an-image.png", "Poster night (sold out)");
    const bad = await sync();
    assert.equal(bad.counts.updated, 1);
    assert.match(bad.problems.join("\n"), /not-an-image\.png was not stored/);
    assert.equal((await event()).media[0].width, 20);
    const again = await sync();
    assert.match(again.problems.join("\n"), /not-an-image\.png/);
    feed.set("/missing.png", "Poster night (sold out)");
    const missing = await sync();
    assert.match(missing.problems.join("\n"), /HTTP 404/);
    assert.equal(feed.imageHits.filter((p) => p === "/missing.png").length, 1);
  } finally {
    ctx.close();
    await feed.close();
  }
});
