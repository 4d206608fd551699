/**
 * Visibility is one rule: an event nobody may see (hidden, waiting for
 * moderation, deleted) answers like one that never existed, on every surface;
 * a place is public only through a visible event that names it.
 */
import assert from "node:assert/strict";
import { apUsers } from "../db/schema.ts";
import { upsertRemoteEvent } from "../lib/events/write.ts";
import {
  call,
  createTestApp,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

const AP = "application/activity+json";
const DAY = 86_400;

type Made = { id: number; slug: string; place: { id: number } | null };

async function makeEvent(
  ctx: TestContext,
  token: string | undefined,
  json: Record<string, unknown>,
): Promise<Made> {
  const start = Math.floor(ctx.clock.now().getTime() / 1000) + DAY;
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: { start_datetime: start, place_name: "Piazza", ...json },
  });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
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

Deno.test("hidden, unconfirmed and deleted events answer like unknown ones on the API, the event page (HTML, ActivityPub, .ics)", async () => {
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
  } finally {
    ctx.close();
  }
});
