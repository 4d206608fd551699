/**
 * The moderation queue, GET /api/events/unconfirmed: an anonymous submission
 * (hidden) is listed for editors and admins until one confirms it, then the
 * public sees it; roles, OAuth tokens, series, paging and its index.
 */
import assert from "node:assert/strict";
import {
  call,
  createTestApp,
  createTestUser,
  expectError,
  oauthAccessToken,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;

type Json = Record<string, unknown>;

async function queue(
  ctx: TestContext,
  token: string,
  query = "",
): Promise<Json[]> {
  const res = await call(ctx, "GET", `/api/events/unconfirmed${query}`, {
    token,
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

async function submitAnonymously(ctx: TestContext, title: string, extra = {}) {
  return await postEvent(ctx, undefined, {
    title,
    end_datetime: undefined,
    place_name: "Town hall",
    place_address: undefined,
    ...extra,
  }) as { id: number; is_visible: boolean };
}

Deno.test("moderation queue: an anonymous submission waits for an editor, who confirms it; then the public sees it", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const editor = await userWithToken(ctx, "editor");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const submitted = await submitAnonymously(ctx, "Neighbourhood picnic");
    assert.equal(submitted.is_visible, false);

    for (const token of [admin.token, editor.token]) {
      const waiting = await queue(ctx, token);
      assert.deepEqual(waiting.map((e) => e.id), [submitted.id]);
      assert.equal(waiting[0].title, "Neighbourhood picnic");
      assert.equal(waiting[0].userId, null);
      assert.equal(waiting[0].createdAt, "2026-06-01T12:00:00.000Z");
      assert.equal((waiting[0].place as Json).name, "Town hall");
    }
    // Not public yet.
    const listed = await (await call(ctx, "GET", "/api/events")).json();
    assert.ok(!listed.some((e: Json) => e.id === submitted.id));

    const confirmed = await call(
      ctx,
      "PUT",
      `/api/events/${submitted.id}/toggle`,
      { token: editor.token },
    );
    assert.equal(confirmed.status, 200, await confirmed.text());
    assert.deepEqual(await queue(ctx, editor.token), []);
    const after = await (await call(ctx, "GET", "/api/events")).json();
    assert.ok(after.some((e: Json) => e.id === submitted.id));
  } finally {
    ctx.close();
  }
});

Deno.test("moderation queue: 401 anonymous, 403 for users and for OAuth tokens (even an admin's), 400 for bad paging", async () => {
  const ctx = await createTestApp();
  try {
    await expectError(
      await call(ctx, "GET", "/api/events/unconfirmed"),
      401,
    );
    const user = await userWithToken(ctx, "user");
    await expectError(
      await call(ctx, "GET", "/api/events/unconfirmed", { token: user.token }),
      403,
    );
    const admin = await createTestUser(ctx, { role: "admin" });
    const oauth = await oauthAccessToken(ctx, admin);
    await expectError(
      await call(ctx, "GET", "/api/events/unconfirmed", { token: oauth }),
      403,
    );
    const editor = await userWithToken(ctx, "editor");
    for (const query of ["?page=0", "?max=501", "?max=x"]) {
      await expectError(
        await call(ctx, "GET", `/api/events/unconfirmed${query}`, {
          token: editor.token,
        }),
        400,
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("moderation queue: oldest first, paged; a hidden series once; hidden by their owner too; the index is used", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true, allow_recurrent_event: true },
    });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await submitAnonymously(ctx, `Submission ${i}`)).id);
      ctx.clock.advance(60_000);
    }
    const series = await submitAnonymously(ctx, "Weekly market", {
      recurrent: { frequency: "1w" },
    });
    ids.push(series.id);
    ctx.clock.advance(60_000);
    // A member's event, hidden by its owner: waiting as well.
    const member = await userWithToken(ctx, "user");
    const own = await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Members' dinner",
        start_datetime: NOW + DAY,
        place_name: "Club",
      },
    });
    const ownEvent = await own.json();
    await call(ctx, "PUT", `/api/events/${ownEvent.id}/toggle`, {
      token: member.token,
    });
    ids.push(ownEvent.id);

    const all = await queue(ctx, admin.token);
    assert.deepEqual(
      all.map((e) => e.id),
      ids,
      "oldest first, the series once",
    );
    assert.equal(all[all.length - 1].userId, ownEvent.userId);
    const page1 = await queue(ctx, admin.token, "?max=2");
    const page3 = await queue(ctx, admin.token, "?max=2&page=3");
    assert.deepEqual(page1.map((e) => e.id), ids.slice(0, 2));
    assert.deepEqual(page3.map((e) => e.id), ids.slice(4));

    // The plan: the partial index, no scan of the events table.
    // deno-lint-ignore no-explicit-any -- the libSQL client under Drizzle
    const client = (ctx.database.db as any).$client;
    const plan = await client.execute(
      "explain query plan select id from events where is_visible = 0 and apUserApId is null order by createdAt, id limit 50",
    );
    const text = plan.rows.map((r: { detail: string }) => r.detail).join("\n");
    assert.match(text, /events_unconfirmed_idx/, text);
  } finally {
    ctx.close();
  }
});
