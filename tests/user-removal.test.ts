/**
 * Deleting a user: `DELETE /api/users/{id}?events=keep|reassign|remove`
 * and the confirmation page `/admin/users/{id}/delete`. Their events stay
 * without an owner, go to another account, or go with them; sessions and
 * tokens end; never the last active admin; a refusal writes nothing.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import {
  call,
  createTestApp,
  expectError,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

async function ownerOf(ctx: TestContext, id: number) {
  const rows = await ctx.database.db.all<{ userId: number | null }>(
    sql`select userId from events where id = ${id}`,
  );
  return rows.length ? rows[0].userId : "gone";
}

Deno.test("DELETE /api/users/{id}: events kept without an owner by default; the account's token and session end", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const member = await userWithToken(ctx, "user");
    const cookie = await signIn(ctx, member);
    const event = await postEvent(ctx, member.token);
    await ctx.database.db.run(
      sql`insert into sources (url, name, userId, createdAt, updatedAt) values ('https://cal.example/a.ics', 'A', ${member.user.id}, 0, 0)`,
    );
    const res = await call(ctx, "DELETE", `/api/users/${member.user.id}`, {
      token: admin.token,
    });
    assert.equal(res.status, 204);
    assert.equal(await ownerOf(ctx, event.id), null);
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      200,
    );
    // The calendar subscription stays, under the deleting admin.
    const [sub] = await ctx.database.db.all<{ userId: number }>(
      sql`select userId from sources`,
    );
    assert.equal(sub.userId, admin.user.id);
    await expectError(
      await call(ctx, "GET", "/api/users/me", { token: member.token }),
      401,
      "unauthorized",
    );
    assert.equal((await get(ctx, "/my", cookie)).status, 303);
  } finally {
    ctx.close();
  }
});

Deno.test("DELETE /api/users/{id}?events=reassign: the events go to another active account; a bad target is a 400 that writes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const member = await userWithToken(ctx, "user");
    const heir = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, member.token);
    const path = `/api/users/${member.user.id}`;
    for (
      const query of [
        "?events=reassign",
        `?events=reassign&reassign_to=${member.user.id}`,
        "?events=reassign&reassign_to=999999",
        "?events=reassign&reassign_to=abc",
        "?events=everything",
      ]
    ) {
      await expectError(
        await call(ctx, "DELETE", path + query, { token: admin.token }),
        400,
        "invalid_request",
      );
    }
    assert.equal(await ownerOf(ctx, event.id), member.user.id);
    assert.equal(
      (await call(ctx, "GET", `/api/users/${member.user.id}`, {
        token: admin.token,
      })).status,
      200,
    );
    const res = await call(
      ctx,
      "DELETE",
      `${path}?events=reassign&reassign_to=${heir.user.id}`,
      { token: admin.token },
    );
    assert.equal(res.status, 204);
    assert.equal(await ownerOf(ctx, event.id), heir.user.id);
  } finally {
    ctx.close();
  }
});

Deno.test("DELETE /api/users/{id}?events=remove: their events (a series with its dates) go with them, and their unused tags; others' stay", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const member = await userWithToken(ctx, "user");
    const other = await userWithToken(ctx, "user");
    const single = await postEvent(ctx, member.token, { tags: ["solo-tag"] });
    const series = await postEvent(ctx, member.token, {
      title: "Weekly",
      recurrent: { frequency: "1w" },
    });
    const kept = await postEvent(ctx, other.token, { tags: ["shared"] });
    const occurrences = await ctx.database.db.all<{ n: number }>(
      sql`select count(*) as n from events where parentId = ${series.id}`,
    );
    assert.ok(occurrences[0].n > 0);
    // Editors may not delete users.
    const editor = await userWithToken(ctx, "editor");
    await expectError(
      await call(ctx, "DELETE", `/api/users/${member.user.id}?events=remove`, {
        token: editor.token,
      }),
      403,
      "forbidden",
    );
    const res = await call(
      ctx,
      "DELETE",
      `/api/users/${member.user.id}?events=remove`,
      { token: admin.token },
    );
    assert.equal(res.status, 204);
    assert.equal(await ownerOf(ctx, single.id), "gone");
    assert.equal(await ownerOf(ctx, series.id), "gone");
    const left = await ctx.database.db.all<{ n: number }>(
      sql`select count(*) as n from events where parentId = ${series.id}`,
    );
    assert.equal(left[0].n, 0);
    assert.equal(await ownerOf(ctx, kept.id), other.user.id);
    const tags = await (await call(ctx, "GET", "/api/tags")).json();
    assert.deepEqual(tags.map((t: { tag: string }) => t.tag), ["shared"]);
  } finally {
    ctx.close();
  }
});

Deno.test("DELETE /api/users/{id}: the last active admin is refused (409) and nothing changes", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const event = await postEvent(ctx, admin.token);
    await expectError(
      await call(ctx, "DELETE", `/api/users/${admin.user.id}?events=remove`, {
        token: admin.token,
      }),
      409,
      "conflict",
    );
    assert.equal(await ownerOf(ctx, event.id), admin.user.id);
    assert.equal(
      (await call(ctx, "GET", "/api/users/me", { token: admin.token })).status,
      200,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("/admin/users/{id}/delete: an admin confirms, choosing what becomes of the events; members are refused; a bad choice is a 400", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const member = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, member.token);
    const adminCookie = await signIn(ctx, admin);
    const memberCookie = await signIn(ctx, member);
    const path = `/admin/users/${member.user.id}/delete`;
    assert.equal((await get(ctx, path, memberCookie)).status, 403);
    const list = await (await get(ctx, "/admin/users", adminCookie)).text();
    assert.match(list, new RegExp(`href="${path}"`));
    const page = await get(ctx, path, adminCookie);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /owns 1 events/);
    const csrf = await csrfFrom(ctx, path, adminCookie);

    // Without the token: refused, nothing written.
    assert.equal(
      (await postForm(ctx, path, { events: "remove" }, {
        cookie: adminCookie,
      })).status,
      403,
    );
    const bad = await postForm(ctx, path, {
      csrf_token: csrf,
      events: "reassign",
      reassign_email: "nobody@example.org",
    }, { cookie: adminCookie });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /value="nobody@example.org"/);
    assert.equal(await ownerOf(ctx, event.id), member.user.id);

    const done = await postForm(ctx, path, {
      csrf_token: csrf,
      events: "remove",
      reassign_email: "",
    }, { cookie: adminCookie });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), "/admin/users?done=deleted");
    assert.equal(await ownerOf(ctx, event.id), "gone");
    assert.match(
      await (await get(ctx, "/admin/users?done=deleted", adminCookie)).text(),
      /The account was deleted/,
    );
    assert.equal((await get(ctx, path, adminCookie)).status, 404);
  } finally {
    ctx.close();
  }
});
