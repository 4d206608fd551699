/**
 * Visibility is one rule: an event nobody may see (hidden, waiting for
 * moderation, deleted) answers like one that never existed, on every surface;
 * a place is public only through a visible event that names it.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { apUsers, events } from "../db/schema.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import {
  call,
  createTestApp,
  postEvent,
  sqlDuring,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { get, signIn } from "./web-helpers.ts";

const AP = "application/activity+json";
const DAY = 86_400;

type Made = { id: number; slug: string; place: { id: number } | null };

function makeEvent(
  ctx: TestContext,
  token: string | undefined,
  json: Record<string, unknown>,
): Promise<Made> {
  const start = Math.floor(ctx.clock.now().getTime() / 1000) + DAY;
  return postEvent(ctx, token, {
    start_datetime: start,
    end_datetime: undefined,
    place_name: "Piazza",
    place_address: undefined,
    ...json,
  });
}

/** Status, the headers that could tell, and the body with `id` written as ID. */
async function shapeOf(res: Response, id?: number | string) {
  const body = await res.text();
  return {
    status: res.status,
    location: res.headers.get("location"),
    type: res.headers.get("content-type"),
    body: id === undefined ? body : body.replaceAll(String(id), "ID"),
  };
}

/**
 * A visible event, one hidden by its owner, an anonymous submission waiting
 * for moderation, a deleted one, a series (its template), and a remote event.
 */
async function eventsOfEveryKind(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const { token } = await userWithToken(ctx, "user");
  const visible = await makeEvent(ctx, token, { title: "Open air" });
  const hidden = await makeEvent(ctx, token, {
    title: "Secret rehearsal",
    place_name: "Back room",
    place_address: "Via Nascosta 7",
  });
  const toggled = await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, {
    token,
  });
  assert.equal(toggled.status, 200);
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_anon_event: true },
  });
  const unconfirmed = await makeEvent(ctx, undefined, {
    title: "Anonymous party",
    place_name: "Cellar",
    place_address: "Vicolo Cieco 3",
  });
  const deleted = await makeEvent(ctx, token, { title: "Called off" });
  const gone = await call(ctx, "DELETE", `/api/events/${deleted.id}`, {
    token,
  });
  assert.equal(gone.status, 204);
  const series = await makeEvent(ctx, token, {
    title: "Weekly jam",
    recurrent: { frequency: "1w" },
  });
  await ctx.database.db.insert(apUsers).values({
    ap_id: "https://remote.example/u/relay",
    trusted: true,
    following: true,
    object: { id: "https://remote.example/u/relay" },
    createdAt: ctx.clock.now(),
    updatedAt: ctx.clock.now(),
  });
  const remote = await upsertRemoteEvent(
    { db: ctx.database.db, clock: ctx.clock },
    {
      ap_id: "https://remote.example/m/1",
      apUserApId: "https://remote.example/u/relay",
      title: "Far away",
      description: "",
      start_datetime: Math.floor(ctx.clock.now().getTime() / 1000) + DAY,
      end_datetime: null,
      status: "EventScheduled",
      place: null,
      online_locations: [],
      tags: [],
      media: [],
      ap_object: { type: "Event" },
      ld_signature: null,
    },
  );
  return {
    admin,
    token,
    visible,
    hidden,
    unconfirmed,
    deleted,
    series,
    remote,
  };
}

Deno.test("/federation/m/{id}: hidden, unconfirmed, deleted, template and remote ids answer as HTML and as ActivityPub exactly like an id that never existed", async () => {
  const ctx = await createTestApp();
  try {
    const e = await eventsOfEveryKind(ctx);
    const never = 987654;
    for (const accept of ["text/html", "*/*", AP]) {
      const expected = await shapeOf(
        await call(ctx, "GET", `/federation/m/${never}`, {
          headers: { accept },
        }),
        never,
      );
      for (
        const id of [
          e.hidden.id,
          e.unconfirmed.id,
          e.deleted.id,
          e.series.id,
          e.remote.id,
        ]
      ) {
        const res = await call(ctx, "GET", `/federation/m/${id}`, {
          headers: { accept },
        });
        assert.deepEqual(await shapeOf(res, id), expected, `${id} ${accept}`);
      }
      // As an unknown object is: not found, whatever was asked for.
      assert.equal(expected.status, 404, accept);
      assert.equal(expected.location, null);
    }
    // A visible event: its object, and browsers go to its page.
    const object = await call(ctx, "GET", `/federation/m/${e.visible.id}`, {
      headers: { accept: AP },
    });
    assert.equal(object.status, 200);
    await object.body?.cancel();
    const page = await call(ctx, "GET", `/federation/m/${e.visible.id}`, {
      headers: { accept: "text/html" },
    });
    assert.equal(page.status, 302);
    assert.equal(page.headers.get("location"), `/event/${e.visible.slug}`);
  } finally {
    ctx.close();
  }
});

Deno.test("hidden, unconfirmed and deleted events answer like unknown ones on the API and the event page (HTML, ActivityPub, .ics); a page without an object is no ActivityPub redirect", async () => {
  const ctx = await createTestApp();
  try {
    const e = await eventsOfEveryKind(ctx);
    const never = 987654;
    const api = await shapeOf(await call(ctx, "GET", `/api/events/${never}`));
    assert.equal(api.status, 404);
    for (const made of [e.hidden, e.unconfirmed, e.deleted]) {
      assert.deepEqual(
        await shapeOf(await call(ctx, "GET", `/api/events/${made.id}`)),
        api,
      );
    }
    const slug = "never-was-an-event";
    for (
      const [suffix, accept] of [
        ["", "text/html"],
        ["", AP],
        [".ics", "text/calendar"],
      ]
    ) {
      const expected = await shapeOf(
        await call(ctx, "GET", `/event/${slug}${suffix}`, {
          headers: { accept },
        }),
        slug,
      );
      assert.equal(expected.status, 404, `${suffix} ${accept}`);
      for (const made of [e.hidden, e.unconfirmed, e.deleted]) {
        const res = await call(ctx, "GET", `/event/${made.slug}${suffix}`, {
          headers: { accept },
        });
        const got = await shapeOf(res, made.slug);
        // A page's body may carry a nonce: compare all but that.
        if (accept === "text/html") {
          assert.equal(got.status, expected.status);
          assert.equal(got.type, expected.type);
          assert.doesNotMatch(got.body, /Secret|Anonymous|Called off/);
        } else assert.deepEqual(got, expected, `${made.slug}${suffix}`);
      }
    }
    // Asked for as ActivityPub, a page whose event has no object (a series'
    // template, a remote event whose actor is since blocked) is no redirect.
    await ctx.database.db.update(apUsers).set({ blocked: true });
    const [remote] = await ctx.database.db.select({ slug: events.slug })
      .from(events).where(eq(events.id, e.remote.id));
    const unknownAp = await shapeOf(
      await call(ctx, "GET", `/event/${slug}`, { headers: { accept: AP } }),
    );
    for (const other of [e.series.slug, remote.slug]) {
      const res = await call(ctx, "GET", `/event/${other}`, {
        headers: { accept: AP },
      });
      assert.deepEqual(await shapeOf(res), unknownAp, other);
    }
    const object = await call(ctx, "GET", `/event/${e.visible.slug}`, {
      headers: { accept: AP },
    });
    assert.equal(object.status, 302);
    assert.equal(
      object.headers.get("location"),
      `${ctx.config.baseUrl}/federation/m/${e.visible.id}`,
    );
  } finally {
    ctx.close();
  }
});

/** Every public surface that shows one place, by id. */
const PLACE_SURFACES: [string, (id: number) => string, string][] = [
  ["the API", (id) => `/api/places/${id}`, "application/json"],
  ["the page", (id) => `/place/${id}`, "text/html"],
  ["the ActivityPub object", (id) => `/federation/p/${id}`, AP],
  ["the feed", (id) => `/feed/rss/place/${id}`, "application/rss+xml"],
  ["the filtered feed", (id) => `/feed/rss?places=${id}`, "application/json"],
];

Deno.test("a place named only by hidden or unconfirmed events answers like an unknown one, and is never listed nor offered", async () => {
  const ctx = await createTestApp();
  try {
    const e = await eventsOfEveryKind(ctx);
    const never = 987654;
    for (const [what, path, accept] of PLACE_SURFACES) {
      const expected = await shapeOf(
        await call(ctx, "GET", path(never), { headers: { accept } }),
        never,
      );
      assert.ok(expected.status >= 400, what);
      for (const made of [e.hidden, e.unconfirmed]) {
        const id = made.place!.id;
        const got = await shapeOf(
          await call(ctx, "GET", path(id), { headers: { accept } }),
          id,
        );
        if (accept === "text/html") {
          assert.equal(got.status, expected.status, what);
          assert.doesNotMatch(got.body, /Back room|Cellar|Nascosta|Cieco/);
        } else assert.deepEqual(got, expected, `${what} ${id}`);
      }
    }
    // The search page: an unknown place, whatever its id.
    for (const made of [e.hidden, e.unconfirmed]) {
      const res = await call(ctx, "GET", `/search?places=${made.place!.id}`);
      assert.equal(res.status, 400);
      assert.doesNotMatch(await res.text(), /Back room|Cellar/);
    }
    // Never listed: searches, the embed builder's and the forms' choices.
    for (
      const path of [
        "/api/places",
        "/api/places?search=room",
        "/api/places?search=Nascosta",
        "/api/places?search=Cellar",
        "/embed/new",
        "/search",
        "/places",
      ]
    ) {
      const res = await call(ctx, "GET", path);
      assert.equal(res.status, 200, path);
      assert.doesNotMatch(await res.text(), /Back room|Cellar|Nascosta/, path);
    }
    const form = await call(ctx, "GET", "/submit");
    assert.doesNotMatch(await form.text(), /Back room|Cellar|Nascosta/);
    // Nor can an event borrow it by id (and so show it).
    const borrowed = await call(ctx, "POST", "/api/events", {
      token: e.token,
      json: {
        title: "Borrow",
        start_datetime: Math.floor(ctx.clock.now().getTime() / 1000) + DAY,
        place_id: e.hidden.place!.id,
      },
    });
    const unknown = await call(ctx, "POST", "/api/events", {
      token: e.token,
      json: {
        title: "Borrow",
        start_datetime: Math.floor(ctx.clock.now().getTime() / 1000) + DAY,
        place_id: never,
      },
    });
    assert.deepEqual(
      await shapeOf(borrowed, e.hidden.place!.id),
      await shapeOf(unknown, never),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("a place is public while a visible event names it: confirming shows it, hiding ends it, cached answers included", async () => {
  // Cached answers live a minute here: only the write's change marker ends them.
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "60000" } });
  try {
    const e = await eventsOfEveryKind(ctx);
    const id = e.hidden.place!.id;
    const toggle = async () => {
      const res = await call(ctx, "PUT", `/api/events/${e.hidden.id}/toggle`, {
        token: e.token,
      });
      assert.equal(res.status, 200);
    };
    await toggle(); // visible
    for (const [what, path, accept] of PLACE_SURFACES) {
      const res = await call(ctx, "GET", path(id), { headers: { accept } });
      assert.equal(res.status, 200, what);
      assert.match(await res.text(), /Back room/, what);
    }
    const listed = await call(ctx, "GET", "/api/places?search=room");
    assert.equal((await listed.json()).length, 1);
    await toggle(); // hidden again: the cached page and feed go too
    for (const [what, path, accept] of PLACE_SURFACES) {
      const res = await call(ctx, "GET", path(id), { headers: { accept } });
      assert.ok(res.status >= 400, what);
      assert.doesNotMatch(await res.text(), /Back room/, what);
    }

    // Its owner keeps it on their hidden event; an admin may still edit it.
    const kept = await call(ctx, "PATCH", `/api/events/${e.hidden.id}`, {
      token: e.token,
      json: { title: "Secret rehearsal", place_id: id },
    });
    assert.equal(kept.status, 200, await kept.clone().text());
    const edited = await call(ctx, "PUT", `/api/places/${id}`, {
      token: e.admin.token,
      json: { name: "Back room", address: "Via Nascosta 8" },
    });
    assert.equal(edited.status, 200);
    // Their forms offer it (here, the calendar subscriptions' default place).
    const sources = await get(
      ctx,
      "/admin/sources",
      await signIn(ctx, e.admin),
    );
    assert.equal(sources.status, 200);
    assert.match(await sources.text(), /Back room/);
    // And a moderator may name it by id.
    const moderated = await call(ctx, "POST", "/api/events", {
      token: e.admin.token,
      json: {
        title: "Moderated",
        start_datetime: Math.floor(ctx.clock.now().getTime() / 1000) + DAY,
        place_id: e.unconfirmed.place!.id,
      },
    });
    assert.equal(moderated.status, 201);
  } finally {
    ctx.close();
  }
});

Deno.test("whether a place is public is read through events_place_idx, in the statement that reads the places", async () => {
  const ctx = await createTestApp();
  try {
    await eventsOfEveryKind(ctx);
    const seen = await sqlDuring(ctx, async () => {
      const res = await call(ctx, "GET", "/api/places?search=room");
      assert.equal(res.status, 200);
    });
    const statement = seen.find((s) => /from "places"/.test(s));
    assert.ok(statement, seen.join("\n"));
    assert.equal(seen.length, 1, seen.join("\n"));
    // deno-lint-ignore no-explicit-any -- the libSQL client under Drizzle
    const client = (ctx.database.db as any).$client;
    const plan = await client.execute({
      sql: `explain query plan ${statement}`,
      args: [...statement.matchAll(/\?/g)].map(() => "%room%"),
    });
    const text = plan.rows.map((r: { detail: string }) => r.detail).join("\n");
    assert.match(text, /USING (COVERING )?INDEX events_place_idx/, text);
  } finally {
    ctx.close();
  }
});
