/**
 * The calendar subscriptions page (/admin/sources): editors and admins add a
 * feed (synced at once), sync it again and remove it; members and visitors
 * are refused; forms need the session's CSRF token; bad input is shown next
 * to its field and writes nothing.
 */
import assert from "node:assert/strict";
import { sources } from "../db/schema.ts";
import {
  countRows,
  createTestApp,
  createTestUser,
  type TestContext,
} from "./helpers.ts";
import { csrfOf, get, postForm, signIn } from "./web-helpers.ts";

/** A feed server with one event. */
function feed() {
  const body = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Quando tests//EN",
    "BEGIN:VEVENT",
    "UID:swap@feed",
    "DTSTART:20260628T160000Z",
    "SUMMARY:Book swap",
    "LOCATION:Library, Via Zamboni 1",
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": "text/calendar" } }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/feed.ics`,
    close: () => server.shutdown(),
  };
}

async function page(ctx: TestContext, path: string, cookie: string) {
  const res = await get(ctx, path, cookie);
  return { status: res.status, html: await res.text() };
}

Deno.test("sources page: an editor adds a calendar (synced at once), syncs it again and removes it; the events stay", async () => {
  const server = feed();
  const ctx = await createTestApp({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  try {
    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);
    const list = await page(ctx, "/admin/sources", cookie);
    assert.equal(list.status, 200);
    assert.match(list.html, /No calendar yet/);
    const csrf = csrfOf(list.html);
    const added = await postForm(ctx, "/admin/sources", {
      csrf_token: csrf,
      url: server.url,
      name: "Library",
      tags: "books, swap",
      place: "",
      confirm: "on",
    }, { cookie });
    assert.equal(added.status, 303);
    const after = await page(ctx, added.headers.get("location")!, cookie);
    assert.match(after.html, /role="status">Synced: 1 new, 0 changed/);
    assert.match(after.html, /Library<\/h2>/);
    assert.match(after.html, /New events wait for confirmation/);
    // The event came in as the editor's, hidden (the source asks for it).
    const [event] = await ctx.database.db.all<
      { title: string; userId: number; is_visible: number }
    >("select title, userId, is_visible from events");
    assert.deepEqual(
      { ...event },
      { title: "Book swap", userId: editor.user.id, is_visible: 0 },
    );
    const id = /\/admin\/sources\/(\d+)\/sync/.exec(after.html)![1];
    const synced = await postForm(ctx, `/admin/sources/${id}/sync`, {
      csrf_token: csrf,
    }, { cookie });
    const again = await page(ctx, synced.headers.get("location")!, cookie);
    assert.match(
      again.html,
      /Synced: 0 new, 0 changed, 0 cancelled, 1 unchanged/,
    );
    // Removing asks first, then keeps the events.
    const confirm = await page(ctx, `/admin/sources/${id}/delete`, cookie);
    assert.match(confirm.html, /Remove this calendar\?/);
    const removed = await postForm(ctx, `/admin/sources/${id}/delete`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(
      removed.headers.get("location"),
      "/admin/sources?done=removed",
    );
    assert.equal(await countRows(ctx, "sources"), 0);
    assert.equal(await countRows(ctx, "events"), 1);
  } finally {
    ctx.close();
    await server.close();
  }
});

Deno.test("sources page: members, visitors, other sites and missing CSRF tokens are refused; bad input is shown and writes nothing; unknown ids are 404", async () => {
  const ctx = await createTestApp();
  try {
    const member = await createTestUser(ctx, { role: "user" });
    const memberCookie = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin/sources", memberCookie)).status, 403);
    const visitor = await get(ctx, "/admin/sources");
    assert.equal(visitor.status, 303);
    assert.match(visitor.headers.get("location")!, /^\/login\?next=/);

    const admin = await createTestUser(ctx, { role: "admin" });
    const cookie = await signIn(ctx, admin);
    const csrf = csrfOf((await page(ctx, "/admin/sources", cookie)).html);
    const fields = { url: "https://calendar.example.org/a.ics", tags: "" };
    assert.equal(
      (await postForm(ctx, "/admin/sources", fields, { cookie })).status,
      403,
    );
    assert.equal(
      (await postForm(ctx, "/admin/sources", { ...fields, csrf_token: csrf }, {
        cookie,
        origin: "https://evil.example",
      })).status,
      403,
    );
    assert.equal(
      (await postForm(ctx, "/admin/sources", { ...fields, csrf_token: csrf }, {
        cookie: memberCookie,
      })).status,
      403,
    );
    for (
      const [bad, field] of [
        [{ url: "ftp://example.org/a.ics" }, "url"],
        [{ url: "https://x.example/a.ics", place: "99" }, "place"],
        [{ url: "https://x.example/a.ics", place: "abc" }, "place"],
        [{ url: "https://x.example/a.ics", tags: "x".repeat(101) }, "tags"],
      ] as const
    ) {
      const res = await postForm(ctx, "/admin/sources", {
        csrf_token: csrf,
        ...bad,
      }, { cookie });
      const html = await res.text();
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.match(html, new RegExp(`id="${field}-error"`));
      assert.match(
        html,
        new RegExp(`value="${bad.url.replaceAll(".", "\\.")}"`),
      );
    }
    assert.equal(await countRows(ctx, "sources"), 0);
    assert.equal(
      (await get(ctx, "/admin/sources/99/delete", cookie)).status,
      404,
    );
    assert.equal(
      (await get(ctx, "/admin/sources/x/delete", cookie)).status,
      404,
    );
    assert.equal(
      (await postForm(ctx, "/admin/sources/99/sync", { csrf_token: csrf }, {
        cookie,
      })).status,
      404,
    );
    // A feed that cannot be read (loopback without the flag): recorded, shown.
    const failed = await postForm(ctx, "/admin/sources", {
      csrf_token: csrf,
      url: "http://127.0.0.1:9/none.ics",
    }, { cookie });
    const shown = await page(ctx, failed.headers.get("location")!, cookie);
    assert.match(shown.html, /role="alert">The sync failed/);
    assert.match(shown.html, /The feed could not be read/);
  } finally {
    ctx.close();
  }
});

Deno.test("sources page: 50 calendars a page, with links between pages; a page past the last shows the last", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await createTestUser(ctx, { role: "editor" });
    const at = ctx.clock.now();
    await ctx.database.db.insert(sources).values(
      Array.from({ length: 55 }, (_, i) => ({
        url: `https://calendars.example/${i + 1}.ics`,
        name: `Calendar ${i + 1}`,
        userId: editor.user.id,
        createdAt: at,
        updatedAt: at,
      })),
    );
    const cookie = await signIn(ctx, editor);
    const names = (html: string) =>
      [...html.matchAll(/<h2 id="source-\d+">([^<]*)<\/h2>/g)].map((m) => m[1]);
    const first = await page(ctx, "/admin/sources", cookie);
    assert.equal(first.status, 200);
    assert.equal(names(first.html).length, 50);
    assert.match(first.html, /href="\/admin\/sources\?page=2">Next</);
    assert.match(first.html, /Page 1 of 2/);
    const second = await page(ctx, "/admin/sources?page=2", cookie);
    assert.deepEqual(names(second.html), [
      "Calendar 51",
      "Calendar 52",
      "Calendar 53",
      "Calendar 54",
      "Calendar 55",
    ]);
    assert.match(second.html, /href="\/admin\/sources">Previous</);
    assert.doesNotMatch(second.html, />Next</);
    const beyond = await page(ctx, "/admin/sources?page=9", cookie);
    assert.deepEqual(names(beyond.html), names(second.html));
  } finally {
    ctx.close();
  }
});
