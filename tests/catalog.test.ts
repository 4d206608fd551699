/** Tags and places through the HTTP surface: search, dedup, one place with its events, admin edits. */
import assert from "node:assert/strict";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

/** The pinned clock of createTestApp: 2026-06-01T12:00:00Z. */
const NOW = 1_780_315_200;
const HOUR = 3600;
const DAY = 86_400;

interface TagCount {
  tag: string;
  normalizedTag: string;
  count: number;
}

interface Place {
  id: number;
  name: string;
  address: string;
  ap_id: string | null;
  postal_address: Record<string, unknown> | null;
  latitude: number | null;
  longitude: number | null;
  createdAt: string;
  updatedAt: string;
}

interface EventFull {
  id: number;
  placeId: number | null;
  place: Place | null;
  tags: { tag: string; normalizedTag: string }[];
  is_visible: boolean;
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

let titleCounter = 0;

/** Creates an event through the API (201 expected) and returns its full form. */
function createEvent(
  ctx: TestContext,
  token: string,
  fields: Record<string, unknown> = {},
): Promise<EventFull> {
  return postEvent(ctx, token, {
    title: `Event ${++titleCounter}`,
    end_datetime: undefined,
    place_name: "Somewhere",
    place_address: undefined,
    ...fields,
  });
}

async function getTags(ctx: TestContext, query = ""): Promise<TagCount[]> {
  return await json<TagCount[]>(
    await call(ctx, "GET", `/api/tags${query}`),
    200,
  );
}

async function getPlaces(ctx: TestContext, query = ""): Promise<Place[]> {
  return await json<Place[]>(
    await call(ctx, "GET", `/api/places${query}`),
    200,
  );
}

async function getPlace(
  ctx: TestContext,
  id: number,
): Promise<Place & { events: { id: number }[] }> {
  return await json(await call(ctx, "GET", `/api/places/${id}`), 200);
}

const keys = (list: TagCount[]) => list.map((t) => t.normalizedTag);

Deno.test("GET /api/tags: one tag per normalised key, first spelling kept, counts, order, limit", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const first = await createEvent(ctx, token, {
      tags: ["Jazz", "Acid Jazz"],
    });
    assert.deepEqual(
      first.tags.toSorted((x, y) => x.tag.localeCompare(y.tag)),
      [
        { tag: "Acid Jazz", normalizedTag: "acid jazz" },
        { tag: "Jazz", normalizedTag: "jazz" },
      ],
    );
    const second = await createEvent(ctx, token, {
      tags: ["jazz", "Rock", "Jazzfest"],
    });
    // The existing row is reused: its first spelling, not this one.
    assert.deepEqual(
      second.tags.map((t) => t.tag).sort(),
      ["Jazz", "Jazzfest", "Rock"],
    );
    await createEvent(ctx, token, {
      tags: [" JAZZ ", "Jazzfest", "acid jazz"],
    });
    await createEvent(ctx, token, { tags: ["Jazzband", "Café"] });
    await createEvent(ctx, token, { tags: ["CAFÉ", "Rock"] });
    // Decomposed é (e + U+0301) is the same tag, also twice in one event.
    const decomposed = await createEvent(ctx, token, {
      tags: ["Cafe\u0301", " cafe\u0301 "],
    });
    assert.deepEqual(decomposed.tags, [{ tag: "Café", normalizedTag: "café" }]);

    assert.equal(await countRows(ctx, "tags"), 6);
    assert.deepEqual(await getTags(ctx), [
      { tag: "Café", normalizedTag: "café", count: 3 },
      { tag: "Jazz", normalizedTag: "jazz", count: 3 },
      { tag: "Acid Jazz", normalizedTag: "acid jazz", count: 2 },
      { tag: "Jazzfest", normalizedTag: "jazzfest", count: 2 },
      { tag: "Rock", normalizedTag: "rock", count: 2 },
      { tag: "Jazzband", normalizedTag: "jazzband", count: 1 },
    ]);

    // Prefix matches first (most used first, not alphabetical), then infix ones.
    assert.deepEqual(keys(await getTags(ctx, "?search=JAZZ")), [
      "jazz",
      "jazzfest",
      "jazzband",
      "acid jazz",
    ]);
    assert.deepEqual(keys(await getTags(ctx, "?search=%20jazz%20")), [
      "jazz",
      "jazzfest",
      "jazzband",
      "acid jazz",
    ]);
    // Only infix matches: by use, then by key.
    assert.deepEqual(keys(await getTags(ctx, "?search=azz")), [
      "jazz",
      "acid jazz",
      "jazzfest",
      "jazzband",
    ]);
    for (const spelling of ["café", "CAFÉ", "Cafe\u0301", "caf"]) {
      assert.deepEqual(
        await getTags(ctx, `?search=${encodeURIComponent(spelling)}`),
        [{ tag: "Café", normalizedTag: "café", count: 3 }],
        spelling,
      );
    }
    // LIKE wildcards in the search are literal characters.
    assert.deepEqual(await getTags(ctx, "?search=%25"), []);
    assert.deepEqual(await getTags(ctx, "?search=_"), []);
    assert.deepEqual(await getTags(ctx, "?search=j_zz"), []);
    assert.deepEqual(await getTags(ctx, "?search=nothing"), []);

    assert.deepEqual(keys(await getTags(ctx, "?search=jazz&limit=2")), [
      "jazz",
      "jazzfest",
    ]);
    assert.equal((await getTags(ctx, "?limit=1")).length, 1);
    assert.equal((await getTags(ctx, "?limit=100")).length, 6);
    for (const limit of ["0", "101", "-1", "abc", "1.5"]) {
      await expectError(
        await call(ctx, "GET", `/api/tags?limit=${limit}`),
        400,
        "invalid_request",
      );
    }
    await expectError(
      await call(ctx, "GET", `/api/tags?search=${"x".repeat(101)}`),
      400,
      "invalid_request",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("GET /api/tags: a tag disappears with its last event (deleted or re-tagged)", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const solo = await createEvent(ctx, token, { tags: ["Solo", "Shared"] });
    const other = await createEvent(ctx, token, { tags: ["shared"] });
    assert.deepEqual(await getTags(ctx, "?search=shared"), [
      { tag: "Shared", normalizedTag: "shared", count: 2 },
    ]);

    const del = await call(ctx, "DELETE", `/api/events/${solo.id}`, { token });
    assert.equal(del.status, 204, await del.text());
    assert.deepEqual(await getTags(ctx, "?search=solo"), []);
    assert.deepEqual(await getTags(ctx, "?search=shared"), [
      { tag: "Shared", normalizedTag: "shared", count: 1 },
    ]);
    assert.equal(await countRows(ctx, "tags"), 1);

    const lonely = await createEvent(ctx, token, { tags: ["Lonely"] });
    assert.equal(await countRows(ctx, "tags"), 2);
    const put = await call(ctx, "PUT", `/api/events/${lonely.id}`, {
      token,
      json: {
        title: "Re-tagged",
        start_datetime: NOW + DAY,
        place_name: "Somewhere",
        tags: ["Other", "shared"],
      },
    });
    const retagged = await json<EventFull>(put, 200);
    assert.deepEqual(retagged.tags.map((t) => t.tag).sort(), [
      "Other",
      "Shared",
    ]);
    assert.deepEqual(await getTags(ctx, "?search=lonely"), []);
    assert.deepEqual(await getTags(ctx), [
      { tag: "Shared", normalizedTag: "shared", count: 2 },
      { tag: "Other", normalizedTag: "other", count: 1 },
    ]);
    assert.equal(await countRows(ctx, "tags"), 2);

    // Clearing the tags of both events leaves no tag at all.
    for (const id of [other.id, lonely.id]) {
      const res = await call(ctx, "PUT", `/api/events/${id}`, {
        token,
        json: {
          title: "Untagged",
          start_datetime: NOW + DAY,
          place_name: "Somewhere",
          tags: [],
        },
      });
      assert.equal(res.status, 200, await res.text());
    }
    assert.deepEqual(await getTags(ctx), []);
    assert.equal(await countRows(ctx, "tags"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("places: deduplicated by name and address, trimmed, case kept, searchable", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const a = await createEvent(ctx, token, {
      place_name: "  Blue Note ",
      place_address: " 131 W 3rd St, New York  ",
      place_latitude: 40.73,
      place_longitude: -74.0,
    });
    assert.ok(a.placeId);
    assert.equal(a.place?.name, "Blue Note");
    assert.equal(a.place?.address, "131 W 3rd St, New York");
    const again = await createEvent(ctx, token, {
      place_name: "Blue Note",
      place_address: "131 W 3rd St, New York",
    });
    assert.equal(again.placeId, a.placeId);
    const milan = await createEvent(ctx, token, {
      place_name: "Blue Note",
      place_address: "Via Borgonuovo 12, Milano",
    });
    assert.ok(milan.placeId);
    assert.notEqual(milan.placeId, a.placeId);
    const rouge = await createEvent(ctx, token, {
      place_name: "Le Café Rouge",
    });
    assert.equal(rouge.place?.address, "");
    assert.equal(await countRows(ctx, "places"), 3);

    const all = await getPlaces(ctx);
    assert.deepEqual(all.map((p) => [p.id, p.name, p.address]), [
      [a.placeId, "Blue Note", "131 W 3rd St, New York"],
      [milan.placeId, "Blue Note", "Via Borgonuovo 12, Milano"],
      [rouge.placeId, "Le Café Rouge", ""],
    ]);
    assert.equal(all[0].latitude, 40.73);
    assert.equal(all[0].longitude, -74.0);

    const ids = (list: Place[]) => list.map((p) => p.id);
    assert.deepEqual(ids(await getPlaces(ctx, "?search=blue")), [
      a.placeId,
      milan.placeId,
    ]);
    assert.deepEqual(ids(await getPlaces(ctx, "?search=BLUE%20NOTE")), [
      a.placeId,
      milan.placeId,
    ]);
    // Address matches, case-insensitive for ASCII.
    assert.deepEqual(ids(await getPlaces(ctx, "?search=MILANO")), [
      milan.placeId,
    ]);
    assert.deepEqual(ids(await getPlaces(ctx, "?search=w%203RD")), [
      a.placeId,
    ]);
    assert.deepEqual(ids(await getPlaces(ctx, "?search=rouge")), [
      rouge.placeId,
    ]);
    assert.deepEqual(ids(await getPlaces(ctx, "?search=%20rouge%20")), [
      rouge.placeId,
    ]);
    assert.deepEqual(await getPlaces(ctx, "?search=zzz"), []);
    assert.deepEqual(await getPlaces(ctx, "?search=%25"), []);
    assert.deepEqual(ids(await getPlaces(ctx, "?limit=1")), [a.placeId]);
    for (const limit of ["0", "101", "x"]) {
      await expectError(
        await call(ctx, "GET", `/api/places?limit=${limit}`),
        400,
        "invalid_request",
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("GET /api/places/{id}: the full place with its upcoming visible events only", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const place = { place_name: "Arena", place_address: "Main Street 1" };
    const later = await createEvent(ctx, token, {
      ...place,
      start_datetime: NOW + 2 * DAY,
    });
    const soon = await createEvent(ctx, token, {
      ...place,
      start_datetime: NOW + DAY,
      end_datetime: NOW + DAY + 2 * HOUR,
    });
    // Still running: its end is after now.
    const running = await createEvent(ctx, token, {
      ...place,
      start_datetime: NOW - HOUR,
      end_datetime: NOW + HOUR,
    });
    const past = await createEvent(ctx, token, {
      ...place,
      start_datetime: NOW - 2 * DAY,
      end_datetime: NOW - DAY,
    });
    const hidden = await createEvent(ctx, token, {
      ...place,
      start_datetime: NOW + 3 * DAY,
    });
    const toggled = await json<EventFull>(
      await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, { token }),
      200,
    );
    assert.equal(toggled.is_visible, false);
    await createEvent(ctx, token, { place_name: "Elsewhere" });
    const placeId = later.placeId!;
    for (const e of [soon, running, past, hidden]) {
      assert.equal(e.placeId, placeId);
    }

    const got = await getPlace(ctx, placeId);
    assert.deepEqual(Object.keys(got).sort(), [
      "address",
      "ap_id",
      "createdAt",
      "events",
      "id",
      "latitude",
      "longitude",
      "name",
      "postal_address",
      "updatedAt",
    ]);
    assert.equal(got.id, placeId);
    assert.equal(got.name, "Arena");
    assert.equal(got.address, "Main Street 1");
    assert.equal(got.ap_id, null);
    assert.equal(got.postal_address, null);
    assert.equal(got.latitude, null);
    assert.equal(got.longitude, null);
    assert.equal(got.createdAt, "2026-06-01T12:00:00.000Z");
    assert.equal(got.updatedAt, "2026-06-01T12:00:00.000Z");
    assert.deepEqual(got.events.map((e) => e.id), [
      running.id,
      soon.id,
      later.id,
    ]);
    const summary = got.events[1] as unknown as Record<string, unknown>;
    assert.equal(summary.start_datetime, NOW + DAY);
    assert.equal(summary.end_datetime, NOW + DAY + 2 * HOUR);
    assert.deepEqual(summary.place, {
      id: placeId,
      name: "Arena",
      address: "Main Street 1",
      latitude: null,
      longitude: null,
    });

    // Showing the hidden event again lists it.
    await json(
      await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, { token }),
      200,
    );
    assert.deepEqual((await getPlace(ctx, placeId)).events.map((e) => e.id), [
      running.id,
      soon.id,
      later.id,
      hidden.id,
    ]);

    await expectError(
      await call(ctx, "GET", "/api/places/999999"),
      404,
      "not_found",
    );
    for (const bad of ["abc", "0", "-1", "1.5"]) {
      await expectError(
        await call(ctx, "GET", `/api/places/${bad}`),
        400,
        "invalid_request",
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("PUT /api/places/{id}: editors and admins only, validated, 409 on a duplicate name and address", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const user = await userWithToken(ctx, "user");
    const hall = await createEvent(ctx, user.token, {
      place_name: "Hall A",
      place_address: "Street 1",
    });
    await createEvent(ctx, user.token, {
      place_name: "Hall B",
      place_address: "Street 2",
    });
    const id = hall.placeId!;
    const before = await getPlace(ctx, id);
    const unchanged = async () =>
      assert.deepEqual(await getPlace(ctx, id), before);
    const body = {
      name: "Hall A2",
      address: "New Street 3",
      latitude: 45.5,
      longitude: 9.25,
    };

    await expectError(
      await call(ctx, "PUT", `/api/places/${id}`, { json: body }),
      401,
      "unauthorized",
    );
    await unchanged();
    // Editors may (tests/places.test.ts); members may not.
    for (const who of [user]) {
      await expectError(
        await call(ctx, "PUT", `/api/places/${id}`, {
          token: who.token,
          json: body,
        }),
        403,
        "forbidden",
      );
      await unchanged();
    }
    await expectError(
      await call(ctx, "PUT", "/api/places/999999", {
        token: admin.token,
        json: body,
      }),
      404,
      "not_found",
    );
    // Unknown stays 404 even when the name and address belong to another place.
    await expectError(
      await call(ctx, "PUT", "/api/places/999999", {
        token: admin.token,
        json: { name: "Hall B", address: "Street 2" },
      }),
      404,
      "not_found",
    );
    for (
      const bad of [
        { ...body, latitude: 91 },
        { ...body, latitude: -90.5 },
        { ...body, longitude: 181 },
        { ...body, name: "   " },
        { ...body, latitude: "45" },
        { address: "No name" },
      ]
    ) {
      const err = await expectError(
        await call(ctx, "PUT", `/api/places/${id}`, {
          token: admin.token,
          json: bad,
        }),
        400,
        "invalid_request",
      );
      assert.ok(Array.isArray(err.details), JSON.stringify(err));
      await unchanged();
    }
    const dup = await call(ctx, "PUT", `/api/places/${id}`, {
      token: admin.token,
      json: { name: " Hall B ", address: "Street 2 " },
    });
    await expectError(dup, 409, "conflict");
    await unchanged();

    ctx.clock.advance(60_000);
    const res = await call(ctx, "PUT", `/api/places/${id}`, {
      token: admin.token,
      json: { ...body, name: "  Hall A2 ", address: " New Street 3 " },
    });
    const updated = await json<Place>(res, 200);
    const { events: _events, ...placeBefore } = before;
    assert.deepEqual(updated, {
      ...placeBefore,
      name: "Hall A2",
      address: "New Street 3",
      latitude: 45.5,
      longitude: 9.25,
      updatedAt: "2026-06-01T12:01:00.000Z",
    });
    const reread = await getPlace(ctx, id);
    assert.equal(reread.name, "Hall A2");
    assert.equal(reread.address, "New Street 3");
    assert.equal(reread.latitude, 45.5);
    assert.equal(reread.longitude, 9.25);
    assert.equal(reread.createdAt, before.createdAt);
    assert.deepEqual(reread.events.map((e) => e.id), [hall.id]);

    // The renamed place is found (and reused) under its new name and address.
    const reuse = await createEvent(ctx, user.token, {
      place_name: "Hall A2",
      place_address: "New Street 3",
    });
    assert.equal(reuse.placeId, id);
    assert.equal(await countRows(ctx, "places"), 2);

    // Saving a place under its own name and address is not a conflict; a form body works too.
    const form = await call(ctx, "PUT", `/api/places/${id}`, {
      token: admin.token,
      form: { name: "Hall A2", address: "New Street 3", latitude: "-12.5" },
    });
    const viaForm = await json<Place>(form, 200);
    assert.equal(viaForm.latitude, -12.5);
    assert.equal(viaForm.longitude, null);
  } finally {
    ctx.close();
  }
});

Deno.test("tag search counts only listable events, a series once, and never reveals hidden events' tags", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const start = Date.parse("2026-06-02T10:00:00Z") / 1000;
  const post = (json: Record<string, unknown>) =>
    call(ctx, "POST", "/api/events", {
      token,
      json: { title: "T", start_datetime: start, place_name: "P", ...json },
    });
  assert.equal(
    (await post({ tags: ["Secret"], is_visible: false })).status,
    201,
  );
  assert.equal(
    (await post({ tags: ["Weekly"], recurrent: { frequency: "1w" } })).status,
    201,
  );
  assert.equal((await post({ tags: ["Weekly"] })).status, 201);
  const res = await call(ctx, "GET", "/api/tags?search=");
  const list: { tag: string; count: number }[] = await res.json();
  assert.deepEqual(list, [{
    tag: "Weekly",
    normalizedTag: "weekly",
    count: 2,
  }]);
  ctx.close();
});
