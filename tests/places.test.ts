/**
 * Editing and merging places: `PUT /api/places/{id}` and
 * `POST /api/places/{id}/merge` for editors and admins, and the pages
 * `/admin/places`, `/admin/places/{id}` and `/admin/places/{id}/merge`. The
 * events held there change with the place: their sequence moves on and the
 * ActivityPub object (what followers are sent) names the new place.
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
import { get, postForm, signedInWithCsrf } from "./web-helpers.ts";

// deno-lint-ignore no-explicit-any -- tests read arbitrary response fields
async function eventOf(ctx: TestContext, id: number): Promise<any> {
  const res = await call(ctx, "GET", `/api/events/${id}`);
  assert.equal(res.status, 200);
  return await res.json();
}

/** The location name of an event's ActivityPub object. */
function apPlace(event: { ap_object: unknown }): string | undefined {
  const location = (event.ap_object as { location?: unknown }).location;
  const place = Array.isArray(location)
    ? location.find((l) => (l as { type?: string }).type === "Place")
    : location;
  return (place as { name?: string } | undefined)?.name;
}

Deno.test("PUT /api/places/{id}: an editor renames a place; its events show it, their sequence moves on and their ActivityPub object names it", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await userWithToken(ctx, "editor");
    const user = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, user.token, {
      place_name: "Circolo",
      place_address: "Via Roma 1",
    });
    assert.equal(apPlace(await eventOf(ctx, event.id)), "Circolo");
    const res = await call(ctx, "PUT", `/api/places/${event.placeId}`, {
      token: editor.token,
      json: {
        name: "Circolo Arci",
        address: "Via Roma 1, Bologna",
        latitude: 44.5,
        longitude: 11.34,
      },
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).name, "Circolo Arci");
    const after = await eventOf(ctx, event.id);
    assert.equal(after.place.name, "Circolo Arci");
    assert.equal(after.place.address, "Via Roma 1, Bologna");
    const [{ sequence }] = await ctx.database.db.all<{ sequence: number }>(
      sql`select sequence from events where id = ${event.id}`,
    );
    assert.equal(sequence, 1);
    assert.equal(apPlace(after), "Circolo Arci");
    // A member may not; bad input is a 400 and changes nothing.
    await expectError(
      await call(ctx, "PUT", `/api/places/${event.placeId}`, {
        token: user.token,
        json: { name: "Mine" },
      }),
      403,
      "forbidden",
    );
    await expectError(
      await call(ctx, "PUT", `/api/places/${event.placeId}`, {
        token: editor.token,
        json: { name: "", latitude: 200 },
      }),
      400,
      "invalid_request",
    );
    assert.equal((await eventOf(ctx, event.id)).place.name, "Circolo Arci");
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/places/{id}/merge: the duplicates' events, filters and subscriptions move to the kept place in one write, and the duplicates are gone", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await userWithToken(ctx, "editor");
    const admin = await userWithToken(ctx, "admin");
    const user = await userWithToken(ctx, "user");
    const kept = await postEvent(ctx, user.token, {
      place_name: "Teatro",
      place_address: "Piazza 1",
    });
    const dupA = await postEvent(ctx, user.token, {
      title: "At the dup",
      place_name: "teatro",
      place_address: "Piazza 1",
    });
    const dupB = await postEvent(ctx, user.token, {
      title: "At the other dup",
      place_name: "Teatro ",
      place_address: "piazza 1",
    });
    assert.notEqual(dupA.placeId, kept.placeId);
    assert.notEqual(dupB.placeId, dupA.placeId);
    // A collection filtering on a duplicate.
    const collection = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Theatre" },
    });
    assert.equal(collection.status, 201, await collection.clone().text());
    const { id: collectionId } = await collection.json();
    const filter = await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: {
        collectionId,
        places: [{ id: dupA.placeId, name: "teatro" }],
      },
    });
    assert.equal(filter.status, 201, await filter.clone().text());
    const filterId = (await filter.json()).id;

    const path = `/api/places/${kept.placeId}/merge`;
    // Refusals write nothing.
    await expectError(
      await call(ctx, "POST", path, {
        token: user.token,
        json: { places: [dupA.placeId] },
      }),
      403,
      "forbidden",
    );
    await expectError(
      await call(ctx, "POST", path, {
        token: editor.token,
        json: { places: [kept.placeId] },
      }),
      400,
      "invalid_request",
    );
    await expectError(
      await call(ctx, "POST", path, {
        token: editor.token,
        json: { places: [dupA.placeId, 999999] },
      }),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "POST", path, {
        token: editor.token,
        json: { places: "all" },
      }),
      400,
      "invalid_request",
    );
    assert.equal((await eventOf(ctx, dupA.id)).placeId, dupA.placeId);

    const res = await call(ctx, "POST", path, {
      token: editor.token,
      json: { places: [dupA.placeId, dupB.placeId] },
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).id, kept.placeId);
    for (const moved of [dupA, dupB]) {
      const after = await eventOf(ctx, moved.id);
      assert.equal(after.placeId, kept.placeId);
      assert.equal(after.place.name, "Teatro");
      assert.equal(apPlace(after), "Teatro");
    }
    const left = await ctx.database.db.all<{ id: number }>(
      sql`select id from places order by id`,
    );
    assert.deepEqual(left.map((p) => p.id), [kept.placeId]);
    const [row] = await ctx.database.db.all<{ places: string }>(
      sql`select places from filters where id = ${filterId}`,
    );
    assert.deepEqual(JSON.parse(row.places), [{
      id: kept.placeId,
      name: "Teatro",
    }]);
    // The place page lists the moved events.
    const page = await call(ctx, "GET", `/api/places/${kept.placeId}`);
    assert.equal((await page.json()).events.length, 3);
  } finally {
    ctx.close();
  }
});

Deno.test("/admin/places: editors list, edit and merge places through the pages; members are refused; bad input is a 400 that keeps what was typed", async () => {
  const ctx = await createTestApp();
  try {
    const user = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, user.token, {
      place_name: "Sala Borsa",
      place_address: "Piazza Nettuno 3",
    });
    const dup = await postEvent(ctx, user.token, {
      place_name: "Sala Borsa (biblioteca)",
      place_address: "",
    });
    const editor = await signedInWithCsrf(ctx, "editor", "/admin/places");
    const member = await signedInWithCsrf(ctx, "user", "/my");
    assert.equal((await get(ctx, "/admin/places", member.cookie)).status, 403);
    assert.equal((await get(ctx, "/admin/places")).status, 303);

    const list = await (await get(ctx, "/admin/places?q=borsa", editor.cookie))
      .text();
    assert.match(list, /Sala Borsa/);
    assert.match(list, new RegExp(`href="/admin/places/${event.placeId}"`));

    const editPath = `/admin/places/${event.placeId}`;
    const page = await get(ctx, editPath, editor.cookie);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /value="Piazza Nettuno 3"/);

    const bad = await postForm(ctx, editPath, {
      csrf_token: editor.csrf,
      name: "Sala Borsa",
      address: "Piazza Nettuno 3",
      latitude: "44.49",
      longitude: "",
    }, { cookie: editor.cookie });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /value="44.49"/);
    // A member's post is refused, with or without a token of theirs.
    const refused = await postForm(ctx, editPath, {
      csrf_token: member.csrf,
      name: "Mine",
    }, { cookie: member.cookie });
    assert.equal(refused.status, 403);

    const saved = await postForm(ctx, editPath, {
      csrf_token: editor.csrf,
      name: "Biblioteca Sala Borsa",
      address: "Piazza del Nettuno 3",
      latitude: "44,4939",
      longitude: "11.3426",
    }, { cookie: editor.cookie });
    assert.equal(saved.status, 303);
    const place = (await eventOf(ctx, event.id)).place;
    assert.equal(place.name, "Biblioteca Sala Borsa");
    assert.equal(place.latitude, 44.4939);
    assert.equal(place.longitude, 11.3426);

    const mergePath = `${editPath}/merge`;
    const merge = await (await get(ctx, `${mergePath}?q=borsa`, editor.cookie))
      .text();
    assert.match(merge, new RegExp(`value="${dup.placeId}"`));
    assert.doesNotMatch(merge, new RegExp(`value="${event.placeId}"`));
    const nothing = await postForm(ctx, mergePath, {
      csrf_token: editor.csrf,
    }, { cookie: editor.cookie });
    assert.equal(nothing.status, 400);
    const merged = await postForm(ctx, mergePath, {
      csrf_token: editor.csrf,
      place: String(dup.placeId),
    }, { cookie: editor.cookie });
    assert.equal(merged.status, 303);
    assert.equal(
      merged.headers.get("location"),
      `${editPath}?done=merged&count=1`,
    );
    assert.equal((await eventOf(ctx, dup.id)).placeId, event.placeId);
    assert.equal(
      (await get(ctx, `/admin/places/${dup.placeId}`, editor.cookie)).status,
      404,
    );
  } finally {
    ctx.close();
  }
});
