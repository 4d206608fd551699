import assert from "node:assert/strict";
import { resources } from "../db/schema.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  loginToken,
  oauthAccessToken,
  postEvent,
  userWithToken,
} from "./helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const HOUR = 3600;
const DAY = 24 * HOUR;

const FULL_FIELDS: Record<string, string> = {
  id: "number",
  createdAt: "string",
  updatedAt: "string",
  title: "string",
  slug: "string",
  status: "string",
  start_datetime: "number",
  end_datetime: "number",
  media: "array",
  description: "string",
  is_visible: "boolean",
  online_locations: "array",
  recurrent: "null",
  // The signature of what followers were last sent: nobody follows here.
  ld_signature: "null",
  // The object as served at its id (made at the read when none was sent).
  ap_object: "object",
  likes: "array",
  boost: "array",
  ap_id: "null",
  userId: "number",
  user: "object",
  parentId: "null",
  parent: "null",
  children: "array",
  placeId: "number",
  place: "object",
  tags: "array",
  apUserApId: "null",
  apUser: "null",
  messages: "array",
  resources: "array",
};

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

Deno.test("GET /api/events/{id}: the full form with every documented field", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const created = await postEvent(ctx, owner.token, {
    tags: ["Jazz", "Live"],
    online_locations: ["https://stream.example/live"],
  });
  const res = await call(ctx, "GET", `/api/events/${created.id}`);
  assert.equal(res.status, 200);
  const event = await res.json();
  for (const [field, type] of Object.entries(FULL_FIELDS)) {
    assert.equal(
      typeOf(event[field]),
      type,
      `${field}: ${JSON.stringify(event[field])}`,
    );
  }
  assert.deepEqual(Object.keys(event).sort(), Object.keys(FULL_FIELDS).sort());
  assert.equal(event.status, "EventScheduled");
  assert.equal(event.slug, "open-mic");
  assert.ok(!Number.isNaN(Date.parse(event.createdAt)));
  assert.deepEqual(event.tags, [
    { tag: "Jazz", normalizedTag: "jazz" },
    { tag: "Live", normalizedTag: "live" },
  ]);
  assert.deepEqual(event.online_locations, ["https://stream.example/live"]);
  assert.deepEqual(Object.keys(event.place).sort(), [
    "address",
    "ap_id",
    "createdAt",
    "id",
    "latitude",
    "longitude",
    "name",
    "postal_address",
    "updatedAt",
  ]);
  // The public sees no e-mail; the owner sees their full record.
  assert.deepEqual(Object.keys(event.user).sort(), [
    "description",
    "id",
    "role",
  ]);
  const asOwner = await (await call(ctx, "GET", `/api/events/${created.id}`, {
    token: owner.token,
  }))
    .json();
  assert.equal(asOwner.user.email, owner.email);

  await expectError(
    await call(ctx, "GET", "/api/events/abc"),
    400,
    "invalid_request",
  );
  await expectError(await call(ctx, "GET", "/api/events/1.5"), 400);
  await expectError(
    await call(ctx, "GET", "/api/events/99999"),
    404,
    "not_found",
  );
  ctx.close();
});

Deno.test("hidden events: 404 to the public and other users, visible to owner, editor, admin", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const other = await userWithToken(ctx, "user");
  const editor = await userWithToken(ctx, "editor");
  const admin = await userWithToken(ctx, "admin");
  const { id } = await postEvent(ctx, owner.token);
  const toggled = await call(ctx, "PUT", `/api/events/${id}/toggle`, {
    token: owner.token,
  });
  assert.equal(toggled.status, 200);
  assert.equal((await toggled.json()).is_visible, false);

  await expectError(await call(ctx, "GET", `/api/events/${id}`), 404);
  await expectError(
    await call(ctx, "GET", `/api/events/${id}`, { token: other.token }),
    404,
  );
  for (const who of [owner, editor, admin]) {
    assert.equal(
      (await call(ctx, "GET", `/api/events/${id}`, { token: who.token }))
        .status,
      200,
    );
  }
  // Toggling a hidden event of someone else looks like it does not exist.
  await expectError(
    await call(ctx, "PUT", `/api/events/${id}/toggle`, { token: other.token }),
    404,
  );
  const back = await call(ctx, "PUT", `/api/events/${id}/toggle`, {
    token: editor.token,
  });
  assert.equal((await back.json()).is_visible, true);
  ctx.close();
});

Deno.test("toggle, PATCH, PUT, DELETE: 401 anonymous, 403 not the owner, 404 unknown", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const other = await userWithToken(ctx, "user");
  const { id } = await postEvent(ctx, owner.token);
  const routes: [string, string, unknown?][] = [
    ["PUT", `/api/events/${id}/toggle`],
    ["PATCH", `/api/events/${id}`, { status: "EventCancelled" }],
    ["PUT", `/api/events/${id}`, {
      title: "X",
      start_datetime: NOW + DAY,
      place_name: "P",
    }],
    ["DELETE", `/api/events/${id}`],
  ];
  for (const [method, path, json] of routes) {
    await expectError(
      await call(ctx, method, path, { json }),
      401,
      "unauthorized",
    );
    await expectError(
      await call(ctx, method, path, { json, token: other.token }),
      403,
      "forbidden",
    );
    await expectError(
      await call(ctx, method, path.replace(String(id), "424242"), {
        json,
        token: owner.token,
      }),
      404,
    );
  }
  const event = await (await call(ctx, "GET", `/api/events/${id}`)).json();
  assert.equal(event.title, "Open mic");
  assert.equal(event.status, "EventScheduled");
  assert.equal(event.is_visible, true);
  ctx.close();
});

Deno.test("PATCH status: schema.org values only; returns the summary form", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const editor = await userWithToken(ctx, "editor");
  const { id } = await postEvent(ctx, owner.token, { tags: ["Rock"] });
  const res = await call(ctx, "PATCH", `/api/events/${id}`, {
    token: editor.token,
    json: { status: "EventCancelled" },
  });
  assert.equal(res.status, 200);
  const summary = await res.json();
  assert.deepEqual(Object.keys(summary).sort(), [
    "end_datetime",
    "id",
    "media",
    "place",
    "slug",
    "start_datetime",
    "status",
    "tags",
    "title",
  ]);
  assert.equal(summary.status, "EventCancelled");
  assert.deepEqual(summary.tags, ["Rock"]);
  assert.deepEqual(Object.keys(summary.place).sort(), [
    "address",
    "id",
    "latitude",
    "longitude",
    "name",
  ]);
  for (const bad of ["Cancelled", "eventcancelled", "", 3]) {
    await expectError(
      await call(ctx, "PATCH", `/api/events/${id}`, {
        token: owner.token,
        json: { status: bad },
      }),
      400,
      "invalid_request",
    );
  }
  const after = await (await call(ctx, "GET", `/api/events/${id}`)).json();
  assert.equal(after.status, "EventCancelled");
  // Form bodies work too.
  const form = await call(ctx, "PATCH", `/api/events/${id}`, {
    token: owner.token,
    form: { status: "EventPostponed" },
  });
  assert.equal((await form.json()).status, "EventPostponed");
  ctx.close();
});

Deno.test("POST validation: each bad input is a 400 and writes nothing", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const base = { title: "T", start_datetime: NOW + DAY, place_name: "P" };
  const bad: Record<string, unknown>[] = [
    { ...base, title: "   " },
    { ...base, title: undefined },
    { ...base, start_datetime: undefined },
    { ...base, end_datetime: NOW + DAY },
    { ...base, end_datetime: NOW },
    { ...base, start_datetime: 1.5 },
    { ...base, start_datetime: "tomorrow" },
    { ...base, start_datetime: -1 },
    { ...base, start_datetime: 7_258_118_400 },
    { ...base, tags: "jazz" },
    { ...base, tags: [1, 2] },
    { ...base, tags: ["ok", "   "] },
    { ...base, place_name: undefined },
    { ...base, place_name: undefined, place_id: 999 },
    { ...base, status: "EventMaybe" },
    { ...base, online_locations: ["javascript:alert(1)"] },
    { ...base, online_locations: "https://x.org" },
    { ...base, recurrent: { frequency: "1x" } },
    { ...base, recurrent: { frequency: "1m", type: "5" } },
    { ...base, media: [{ url: "never-uploaded.jpg" }] },
    { ...base, place_latitude: 95 },
  ];
  for (const json of bad) {
    const res = await call(ctx, "POST", "/api/events", { token, json });
    const body = await expectError(res, 400, "invalid_request");
    assert.ok(body.details && body.details.length > 0, JSON.stringify(json));
  }
  for (const table of ["events", "places", "tags", "event_tags"]) {
    assert.equal(await countRows(ctx, table), 0, table);
  }
  // An online-only event needs no place.
  const online = await postEvent(ctx, token, {
    place_name: undefined,
    place_address: undefined,
    online_locations: ["https://meet.example/x"],
  });
  assert.equal(online.place, null);
  ctx.close();
});

Deno.test("descriptions are sanitised: no script, handler, javascript: link or fbclid", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const event = await postEvent(ctx, token, {
    description:
      `<p onclick="x()" data-x="1">hi</p><script>bad()</script><a href="javascript:alert(1)">a</a><a href="https://x.org/?a=1&fbclid=2">b</a><iframe src="https://evil.example"></iframe>`,
  });
  const html: string = event.description;
  assert.ok(html.includes("<p>hi</p>"), html);
  for (
    const banned of [
      "<script",
      "bad()",
      "onclick",
      "data-x",
      "javascript:",
      "fbclid",
      "<iframe",
    ]
  ) {
    assert.ok(!html.includes(banned), `${banned} in ${html}`);
  }
  assert.ok(html.includes('href="https://x.org/?a=1"'), html);
  ctx.close();
});

Deno.test("places are found or created by name and address; tags trimmed, first spelling wins", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const a = await postEvent(ctx, token, {
    place_name: "  Circolo ",
    place_address: " Via Roma 1 ",
    tags: [" Jazz ", "jazz", "JAZZ"],
  });
  const b = await postEvent(ctx, token, {
    place_name: "Circolo",
    place_address: "Via Roma 1",
    tags: ["JAZZ"],
  });
  const c = await postEvent(ctx, token, {
    place_name: "Circolo",
    place_address: "Via Milano 2",
  });
  assert.equal(a.place.name, "Circolo");
  assert.equal(a.place.address, "Via Roma 1");
  assert.equal(a.placeId, b.placeId);
  assert.notEqual(a.placeId, c.placeId);
  assert.deepEqual(a.tags, [{ tag: "Jazz", normalizedTag: "jazz" }]);
  assert.deepEqual(b.tags, [{ tag: "Jazz", normalizedTag: "jazz" }]);
  assert.equal(await countRows(ctx, "tags"), 1);
  const byId = await postEvent(ctx, token, {
    place_name: undefined,
    place_id: c.placeId,
  });
  assert.equal(byId.place.address, "Via Milano 2");
  ctx.close();
});

Deno.test("slugs: unique by suffix, stable across title changes, event-<id> for non-Latin titles", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const first = await postEvent(ctx, token, { title: "Caffè & Jazz!" });
  const second = await postEvent(ctx, token, { title: "Caffe & Jazz" });
  assert.equal(first.slug, "caffe-and-jazz");
  assert.equal(second.slug, "caffe-and-jazz-2");
  const cjk = await postEvent(ctx, token, { title: "音楽の夜" });
  assert.equal(cjk.slug, `event-${cjk.id}`);
  const put = await call(ctx, "PUT", `/api/events/${first.id}`, {
    token,
    json: {
      title: "Renamed",
      start_datetime: NOW + DAY,
      place_name: "Circolo",
      place_address: "Via Roma 1",
    },
  });
  assert.equal((await put.json()).slug, "caffe-and-jazz");
  ctx.close();
});

Deno.test("PUT keeps omitted optional fields; PUT by an editor is allowed", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const editor = await userWithToken(ctx, "editor");
  const created = await postEvent(ctx, owner.token, {
    description: "<p>Bring a friend</p>",
    tags: ["Folk"],
    online_locations: ["https://stream.example/a"],
  });
  const res = await call(ctx, "PUT", `/api/events/${created.id}`, {
    token: editor.token,
    json: {
      title: "Open mic night",
      start_datetime: NOW + 2 * DAY,
      end_datetime: NOW + 2 * DAY + HOUR,
    },
  });
  assert.equal(res.status, 200);
  const updated = await res.json();
  assert.equal(updated.title, "Open mic night");
  assert.equal(updated.start_datetime, NOW + 2 * DAY);
  assert.equal(updated.description, "<p>Bring a friend</p>");
  assert.deepEqual(updated.tags, [{ tag: "Folk", normalizedTag: "folk" }]);
  assert.deepEqual(updated.online_locations, ["https://stream.example/a"]);
  assert.equal(updated.placeId, created.placeId);
  // A bad update changes nothing.
  await expectError(
    await call(ctx, "PUT", `/api/events/${created.id}`, {
      token: owner.token,
      json: {
        title: "Broken",
        start_datetime: NOW + 2 * DAY,
        end_datetime: NOW,
        tags: ["New"],
      },
    }),
    400,
  );
  const after = await (await call(ctx, "GET", `/api/events/${created.id}`))
    .json();
  assert.equal(after.title, "Open mic night");
  assert.deepEqual(after.tags, [{ tag: "Folk", normalizedTag: "folk" }]);
  ctx.close();
});

Deno.test("DELETE removes the event and its now unused tags", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const { id } = await postEvent(ctx, owner.token, { tags: ["Gone"] });
  const res = await call(ctx, "DELETE", `/api/events/${id}`, {
    token: owner.token,
  });
  assert.equal(res.status, 204);
  await expectError(await call(ctx, "GET", `/api/events/${id}`), 404);
  assert.equal(await countRows(ctx, "tags"), 0);
  ctx.close();
});

Deno.test("anonymous submissions: 401 unless allow_anon_event; then created hidden", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const body = { title: "Anon", start_datetime: NOW + DAY, place_name: "P" };
  await expectError(
    await call(ctx, "POST", "/api/events", { json: body }),
    401,
  );
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_anon_event: true },
  });
  const res = await call(ctx, "POST", "/api/events", {
    json: { ...body, is_visible: true },
  });
  assert.equal(res.status, 201);
  const event = await res.json();
  assert.equal(event.is_visible, false);
  assert.equal(event.userId, null);
  await expectError(await call(ctx, "GET", `/api/events/${event.id}`), 404);
  ctx.close();
});

Deno.test("listing rule: ongoing in events, finished in pastEvents, ordering, tags any case, hidden never", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const tags = ["Tag"];
  const ongoing = await postEvent(ctx, token, {
    title: "Festival",
    start_datetime: NOW - 2 * DAY,
    end_datetime: NOW + 2 * DAY,
    tags,
  });
  const finished = await postEvent(ctx, token, {
    title: "Yesterday",
    start_datetime: NOW - DAY,
    end_datetime: NOW - DAY + HOUR,
    tags,
  });
  const older = await postEvent(ctx, token, {
    title: "Last week",
    start_datetime: NOW - 7 * DAY,
    end_datetime: null,
    tags,
  });
  const later = await postEvent(ctx, token, {
    title: "Later",
    start_datetime: NOW + 3 * DAY,
    tags,
  });
  const soon = await postEvent(ctx, token, {
    title: "Soon",
    start_datetime: NOW + DAY,
    tags,
  });
  const hidden = await postEvent(ctx, token, {
    title: "Hidden",
    start_datetime: NOW + DAY,
    tags,
  });
  await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, { token });
  await postEvent(ctx, token, {
    title: "Untagged",
    start_datetime: NOW + DAY,
  });

  const results = [];
  for (const spelling of ["TAG", "tag", " Tag ", "tAg"]) {
    const res = await call(
      ctx,
      "GET",
      `/api/events/tag/${encodeURIComponent(spelling)}`,
    );
    assert.equal(res.status, 200);
    results.push(await res.json());
  }
  for (const r of results) assert.deepEqual(r, results[0]);
  const { events, pastEvents } = results[0];
  assert.deepEqual(events.map((e: { id: number }) => e.id), [
    ongoing.id,
    soon.id,
    later.id,
  ]);
  assert.deepEqual(pastEvents.map((e: { id: number }) => e.id), [
    finished.id,
    older.id,
  ]);
  assert.deepEqual(events[0].tags, ["Tag"]);

  const limited =
    await (await call(ctx, "GET", "/api/events/tag/tag?past_limit=1&limit=2"))
      .json();
  assert.equal(limited.events.length, 2);
  assert.deepEqual(limited.pastEvents.map((e: { id: number }) => e.id), [
    finished.id,
  ]);
  await expectError(
    await call(ctx, "GET", "/api/events/tag/tag?past_limit=501"),
    400,
  );
  await expectError(
    await call(ctx, "GET", "/api/events/tag/tag?show_recurrent=maybe"),
    400,
  );
  const none = await (await call(ctx, "GET", "/api/events/tag/nothing")).json();
  assert.deepEqual(none, { events: [], pastEvents: [] });

  // The clock moves: the ongoing festival ends and becomes past.
  ctx.clock.advance(3 * DAY * 1000);
  const moved = await (await call(ctx, "GET", "/api/events/tag/tag")).json();
  assert.deepEqual(moved.events.map((e: { id: number }) => e.id), [later.id]);
  // Past: descending by start.
  assert.deepEqual(moved.pastEvents.map((e: { id: number }) => e.id), [
    soon.id,
    finished.id,
    ongoing.id,
    older.id,
  ]);
  ctx.close();
});

Deno.test("series: parent never listed, occurrences are; show_recurrent=false hides them", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { instance_timezone: "Europe/Rome" },
  });
  // Monday 8 June 2026, 08:00 in Rome (06:00Z, summer time).
  const start = Date.parse("2026-06-08T06:00:00Z") / 1000;
  const series = await postEvent(ctx, admin.token, {
    title: "Yoga",
    start_datetime: start,
    end_datetime: start + HOUR,
    tags: ["Weekly"],
    recurrent: { frequency: "1w", type: "ordinal" },
  });
  assert.deepEqual(series.recurrent.frequency, "1w");
  assert.ok(series.children.length >= 8, `children: ${series.children.length}`);
  assert.equal(series.children[0].start_datetime, start);
  assert.equal(series.children[1].start_datetime, start + 7 * DAY);
  assert.deepEqual(series.children[0].tags, ["Weekly"]);
  assert.equal(series.children[0].slug, "yoga-2026-06-08");

  const list = await (await call(ctx, "GET", "/api/events/tag/weekly")).json();
  const ids = list.events.map((e: { id: number }) => e.id);
  assert.ok(!ids.includes(series.id), "the parent was listed");
  assert.ok(ids.length >= 8);
  const child = await (await call(ctx, "GET", `/api/events/${ids[0]}`)).json();
  assert.equal(child.parentId, series.id);
  assert.equal(child.parent.id, series.id);
  assert.equal(child.title, "Yoga");

  const hiddenOcc = await (await call(
    ctx,
    "GET",
    "/api/events/tag/weekly?show_recurrent=false",
  )).json();
  assert.deepEqual(hiddenOcc.events, []);
  // The instance default applies when the query says nothing.
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { recurrent_event_visible: false },
  });
  assert.deepEqual(
    (await (await call(ctx, "GET", "/api/events/tag/weekly")).json()).events,
    [],
  );
  ctx.close();
});

Deno.test("series: editing the parent updates unedited future occurrences; deletes handle the series", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const start = NOW + DAY;
  const series = await postEvent(ctx, owner.token, {
    title: "Choir",
    start_datetime: start,
    end_datetime: start + HOUR,
    tags: ["Music"],
    recurrent: { frequency: "1w" },
  });
  const [first, second, third] = series.children;
  // One occurrence edited on its own, one cancelled on its own.
  await call(ctx, "PATCH", `/api/events/${second.id}`, {
    token: owner.token,
    json: { title: "Choir (special guest)" },
  });
  await call(ctx, "PATCH", `/api/events/${third.id}`, {
    token: owner.token,
    json: { status: "EventCancelled" },
  });
  const put = await call(ctx, "PUT", `/api/events/${series.id}`, {
    token: owner.token,
    json: {
      title: "Choir rehearsal",
      start_datetime: start,
      end_datetime: start + HOUR,
      tags: ["Singing"],
    },
  });
  assert.equal(put.status, 200);
  const get = async (id: number) =>
    await (await call(ctx, "GET", `/api/events/${id}`, { token: owner.token }))
      .json();
  const f = await get(first.id);
  assert.equal(f.title, "Choir rehearsal");
  assert.deepEqual(f.tags.map((t: { tag: string }) => t.tag), ["Singing"]);
  assert.equal((await get(second.id)).title, "Choir (special guest)");
  assert.equal((await get(third.id)).status, "EventCancelled");

  // Deleting an occurrence removes its date from the series for good.
  assert.equal(
    (await call(ctx, "DELETE", `/api/events/${first.id}`, {
      token: owner.token,
    })).status,
    204,
  );
  const parent = await get(series.id);
  assert.ok(parent.recurrent.exclude.includes(first.start_datetime));
  const { materializeOccurrences } = await import("../lib/events/series.ts");
  const { getSettings } = await import("../lib/settings.ts");
  await materializeOccurrences({
    db: ctx.database.db,
    clock: ctx.clock,
    settings: await getSettings(ctx.database.db),
  });
  const again = await get(series.id);
  assert.ok(
    !again.children.some((c: { start_datetime: number }) =>
      c.start_datetime === first.start_datetime
    ),
  );

  // Time passes; one occurrence is in the past; deleting the series keeps it as a single event.
  ctx.clock.advance((8 * DAY + 2 * HOUR) * 1000);
  owner.token = await loginToken(ctx, owner.email, owner.password);
  const before = await countRows(ctx, "events");
  assert.equal(
    (await call(ctx, "DELETE", `/api/events/${series.id}`, {
      token: owner.token,
    })).status,
    204,
  );
  const kept = await get(second.id);
  assert.equal(kept.parentId, null);
  assert.equal(kept.title, "Choir (special guest)");
  assert.ok(await countRows(ctx, "events") < before - 5);
  await expectError(await call(ctx, "GET", `/api/events/${series.id}`), 404);
  ctx.close();
});

Deno.test("the periodic job extends a series as time passes, without duplicates", async () => {
  const ctx = await createTestApp({ now: "2026-06-01T12:00:00Z" });
  const { token } = await userWithToken(ctx, "user");
  const series = await postEvent(ctx, token, {
    title: "Market",
    start_datetime: NOW + DAY,
    recurrent: { frequency: "1w" },
  });
  const { materializeOccurrences } = await import("../lib/events/series.ts");
  const { getSettings } = await import("../lib/settings.ts");
  const run = async () =>
    materializeOccurrences({
      db: ctx.database.db,
      clock: ctx.clock,
      settings: await getSettings(ctx.database.db),
    });
  assert.equal(await run(), 0);
  const before = await countRows(ctx, "events");
  ctx.clock.advance(30 * DAY * 1000);
  const created = await run();
  assert.ok(created >= 4 && created <= 5, `created ${created}`);
  assert.equal(await countRows(ctx, "events"), before + created);
  assert.equal(await run(), 0);
  const full = await (await call(ctx, "GET", `/api/events/${series.id}`))
    .json();
  const starts: number[] = full.children.map((c: { start_datetime: number }) =>
    c.start_datetime
  );
  assert.deepEqual(starts, [...new Set(starts)].sort((a, b) => a - b));
  ctx.close();
});

Deno.test("GET /api/events: range, tags, places, query, paging; /api/events/mine", async () => {
  const ctx = await createTestApp();
  const alice = await userWithToken(ctx, "user");
  const bob = await userWithToken(ctx, "user");
  const a = await postEvent(ctx, alice.token, {
    title: "Jazz night",
    start_datetime: NOW + DAY,
    tags: ["jazz"],
  });
  const b = await postEvent(ctx, alice.token, {
    title: "Rock night",
    start_datetime: NOW + 2 * DAY,
    tags: ["rock"],
    place_name: "Stadio",
  });
  const c = await postEvent(ctx, bob.token, {
    title: "Folk",
    start_datetime: NOW + 10 * DAY,
    tags: ["folk"],
  });
  await postEvent(ctx, bob.token, {
    title: "Old",
    start_datetime: NOW - 10 * DAY,
  });
  const ids = async (q: string) =>
    (await (await call(ctx, "GET", `/api/events${q}`)).json()).map((
      e: { id: number },
    ) => e.id);
  assert.deepEqual(await ids(""), [a.id, b.id, c.id]);
  assert.deepEqual(await ids(`?end=${NOW + 3 * DAY}`), [a.id, b.id]);
  assert.deepEqual(await ids("?tags=JAZZ,folk"), [a.id, c.id]);
  assert.deepEqual(await ids(`?places=${b.placeId}`), [b.id]);
  assert.deepEqual(await ids("?query=night"), [a.id, b.id]);
  assert.deepEqual(await ids("?query=stadio"), [b.id]);
  assert.deepEqual(await ids("?max=2&page=2"), [c.id]);
  assert.deepEqual(await ids(`?start=${NOW - 20 * DAY}&max=1`), [
    (await ids(`?start=${NOW - 20 * DAY}`))[0],
  ]);
  for (
    const q of [
      "?max=501",
      "?max=0",
      "?page=0",
      "?places=x",
      "?start=yesterday",
    ]
  ) {
    await expectError(await call(ctx, "GET", `/api/events${q}`), 400);
  }
  const mine =
    await (await call(ctx, "GET", "/api/events/mine", { token: alice.token }))
      .json();
  assert.deepEqual(mine.map((e: { id: number }) => e.id), [b.id, a.id]);
  // Hidden events are still the owner's to see.
  await call(ctx, "PUT", `/api/events/${a.id}/toggle`, { token: alice.token });
  const mineHidden =
    await (await call(ctx, "GET", "/api/events/mine", { token: alice.token }))
      .json();
  assert.deepEqual(mineHidden.map((e: { id: number }) => e.id), [b.id, a.id]);
  const bobs =
    await (await call(ctx, "GET", "/api/events/mine", { token: bob.token }))
      .json();
  assert.ok(!bobs.some((e: { id: number }) => e.id === a.id || e.id === b.id));
  await expectError(await call(ctx, "GET", "/api/events/mine"), 401);
  ctx.close();
});

Deno.test("messages: moderators see all, the owner those marked visible, others 403", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const other = await userWithToken(ctx, "user");
  const editor = await userWithToken(ctx, "editor");
  const { id } = await postEvent(ctx, owner.token);
  const post = (token: string, json: unknown) =>
    call(ctx, "POST", `/api/events/${id}/messages`, { token, json });
  const m1 = await post(editor.token, { message: "Internal note" });
  assert.equal(m1.status, 201);
  const body = await m1.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "author",
    "createdAt",
    "eventId",
    "id",
    "is_author_visible",
    "message",
    "updatedAt",
  ]);
  assert.equal(
    (await post(editor.token, {
      message: "Please add a photo",
      is_author_visible: true,
    })).status,
    201,
  );
  assert.equal((await post(owner.token, { message: "Done" })).status, 201);
  await expectError(await post(other.token, { message: "spam" }), 403);
  await expectError(await post(owner.token, { message: "" }), 400);
  await expectError(
    await call(ctx, "POST", `/api/events/${id}/messages`, {
      json: { message: "x" },
    }),
    401,
  );
  await expectError(
    await call(ctx, "POST", "/api/events/999/messages", {
      token: editor.token,
      json: { message: "x" },
    }),
    404,
  );

  const list = async (token: string) =>
    (await (await call(ctx, "GET", `/api/events/${id}/messages`, { token }))
      .json())
      .map((m: { message: string }) => m.message);
  assert.deepEqual(await list(editor.token), [
    "Internal note",
    "Please add a photo",
    "Done",
  ]);
  assert.deepEqual(await list(owner.token), ["Please add a photo", "Done"]);
  await expectError(
    await call(ctx, "GET", `/api/events/${id}/messages`, {
      token: other.token,
    }),
    403,
  );
  const publicView = await (await call(ctx, "GET", `/api/events/${id}`)).json();
  assert.deepEqual(publicView.messages, []);
  const ownerView =
    await (await call(ctx, "GET", `/api/events/${id}`, { token: owner.token }))
      .json();
  assert.equal(ownerView.messages.length, 2);
  assert.equal(await countRows(ctx, "messages"), 3);
  ctx.close();
});

Deno.test("an OAuth token with scope event:write writes events but is refused elsewhere (403 insufficient_scope)", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const access_token = await oauthAccessToken(ctx, admin);
  const event = await postEvent(ctx, access_token);
  assert.equal(event.userId, admin.user.id);
  const patched = await call(ctx, "PATCH", `/api/events/${event.id}`, {
    token: access_token,
    json: { status: "EventPostponed" },
  });
  assert.equal(patched.status, 200);
  const put = await call(ctx, "PUT", `/api/events/${event.id}`, {
    token: access_token,
    json: {
      title: "Renamed through OAuth",
      start_datetime: event.start_datetime,
    },
  });
  assert.equal(put.status, 200);
  const toggled = await call(ctx, "PUT", `/api/events/${event.id}/toggle`, {
    token: access_token,
  });
  assert.equal(toggled.status, 200);
  for (
    const [method, path] of [
      ["GET", "/api/users"],
      ["GET", "/api/settings"],
      ["GET", "/api/users/me"],
      ["GET", `/api/events/${event.id}/messages`],
    ]
  ) {
    const res = await call(ctx, method, path, { token: access_token });
    await expectError(res, 403, "insufficient_scope");
    assert.match(
      res.headers.get("www-authenticate") ?? "",
      /insufficient_scope/,
    );
  }
  const deleted = await call(ctx, "DELETE", `/api/events/${event.id}`, {
    token: access_token,
  });
  assert.equal(deleted.status, 204);
  ctx.close();
});

Deno.test("an admin's or editor's OAuth token acts as an ordinary user: others' events as the public sees them, no moderation", async () => {
  const ctx = await createTestApp();
  const owner = await userWithToken(ctx, "user");
  const admin = await userWithToken(ctx, "admin");
  const editor = await userWithToken(ctx, "editor");
  const visible = await postEvent(ctx, owner.token, { title: "Visible" });
  const hidden = await postEvent(ctx, owner.token, {
    title: "Hidden",
    is_visible: false,
  });
  // What only moderators see: a note and a hidden comment.
  assert.equal(
    (await call(ctx, "POST", `/api/events/${visible.id}/messages`, {
      token: admin.token,
      json: { message: "Moderators only" },
    })).status,
    201,
  );
  const at = new Date((NOW - HOUR) * 1000);
  await ctx.database.db.insert(resources).values(
    [false, true].map((isHidden, i) => ({
      activitypub_id: `https://remote.example/notes/${i}`,
      data: { type: "Note", content: isHidden ? "hidden" : "shown" },
      eventId: visible.id,
      hidden: isHidden,
      createdAt: at,
      updatedAt: at,
    })),
  );
  const anonymous = await (await call(ctx, "GET", `/api/events/${visible.id}`))
    .json();
  assert.deepEqual(anonymous.messages, []);
  assert.equal(anonymous.resources.length, 1);
  assert.equal(anonymous.user.email, undefined);
  // The same accounts' login tokens do moderate (the test is not vacuous).
  const moderated = await (await call(ctx, "GET", `/api/events/${visible.id}`, {
    token: admin.token,
  })).json();
  assert.equal(moderated.messages.length, 1);
  assert.equal(moderated.resources.length, 2);
  assert.equal(moderated.user.email, owner.email);
  assert.equal(
    (await call(ctx, "GET", `/api/events/${hidden.id}`, {
      token: editor.token,
    })).status,
    200,
  );

  for (const who of [admin, editor]) {
    const label = who.user.role;
    const token = await oauthAccessToken(ctx, who);
    const seen = await call(ctx, "GET", `/api/events/${visible.id}`, {
      token,
    });
    assert.equal(seen.status, 200, label);
    assert.deepEqual(await seen.json(), anonymous, label);
    await expectError(
      await call(ctx, "GET", `/api/events/${hidden.id}`, { token }),
      404,
      "not_found",
    );
    const writes: [string, string, unknown?][] = [
      ["PUT", "/toggle"],
      ["PUT", "", { title: "Taken over", start_datetime: NOW + DAY }],
      ["PATCH", "", { status: "EventCancelled" }],
      ["DELETE", ""],
    ];
    for (const [method, suffix, json] of writes) {
      await expectError(
        await call(ctx, method, `/api/events/${visible.id}${suffix}`, {
          token,
          json,
        }),
        403,
        "forbidden",
      );
      await expectError(
        await call(ctx, method, `/api/events/${hidden.id}${suffix}`, {
          token,
          json,
        }),
        404,
        "not_found",
      );
    }
    // Its own events it still writes, and /mine lists only those.
    const own = await postEvent(ctx, token, { title: `By ${label}` });
    assert.equal(
      (await call(ctx, "PUT", `/api/events/${own.id}/toggle`, { token }))
        .status,
      200,
    );
    const mine = await (await call(ctx, "GET", "/api/events/mine", { token }))
      .json();
    assert.deepEqual(mine.map((e: { id: number }) => e.id), [own.id], label);
  }
  // Nothing of the owner's changed.
  const after = await (await call(ctx, "GET", `/api/events/${visible.id}`, {
    token: owner.token,
  })).json();
  assert.equal(after.title, "Visible");
  assert.equal(after.status, "EventScheduled");
  assert.equal(after.is_visible, true);
  const stillHidden =
    await (await call(ctx, "GET", `/api/events/${hidden.id}`, {
      token: owner.token,
    })).json();
  assert.equal(stillHidden.is_visible, false);
  ctx.close();
});

Deno.test("listing queries use indexes and a bounded number of queries", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  // deno-lint-ignore no-explicit-any -- reaching the libSQL client under Drizzle to count calls
  const client = (ctx.database.db as any).$client;
  // Settings reads and PRAGMAs aside: the settings are reused for a while and
  // the public-read cache checks a change marker, so whether a request issues
  // them depends on timing, not on the size of the table. So are the fills of
  // kept event answers (lib/events/bodies.ts), made after a read.
  const incidental = (text: string) =>
    /^\s*pragma\b/i.test(text) ||
    /^\s*insert or replace into "event_bodies"/i.test(text) ||
    (/\bfrom "settings"/.test(text) && !/\bunion all\b/i.test(text));
  let calls = 0;
  let statements: { sql: string; args: unknown[] }[] = [];
  const record = (stmt: string | { sql: string; args?: unknown[] }) => {
    const s = typeof stmt === "string"
      ? { sql: stmt, args: [] }
      : { sql: stmt.sql, args: stmt.args ?? [] };
    if (incidental(s.sql)) return false;
    statements.push(s);
    return true;
  };
  const execute = client.execute.bind(client);
  client.execute = (stmt: string | { sql: string }, ...rest: unknown[]) => {
    if (record(stmt)) calls++;
    return execute(stmt, ...rest);
  };
  const batch = client.batch.bind(client);
  client.batch = (stmts: { sql: string }[], ...rest: unknown[]) => {
    if (stmts.map(record).some(Boolean)) calls++;
    return batch(stmts, ...rest);
  };
  const queriesFor = async (path: string) => {
    calls = 0;
    statements = [];
    assert.equal((await call(ctx, "GET", path)).status, 200);
    return { calls, statements };
  };
  const paths = [
    "/api/events/tag/bulk",
    `/api/events?start=${NOW}&max=50`,
    "/api/events/1",
    "/feed/ics",
    "/feed/rss/tag/bulk",
  ];
  await postEvent(ctx, token, { tags: ["bulk"], start_datetime: NOW + DAY });
  // A series with an occurrence edited on its own (an override the calendar
  // reads in full).
  const series = await postEvent(ctx, token, {
    title: "Weekly",
    tags: ["bulk"],
    start_datetime: NOW - 2 * DAY,
    recurrent: { frequency: "1w" },
  });
  const patched = await call(
    ctx,
    "PATCH",
    `/api/events/${series.children[1].id}`,
    { token, json: { title: "Weekly (special)" } },
  );
  assert.equal(patched.status, 200);
  // Without kept bodies (lib/events/bodies.ts): an event's read then runs the
  // statement that assembles it, which is the one to count and plan here.
  const forgetBodies = () => execute("delete from event_bodies");
  await forgetBodies();
  const small = [];
  for (const path of paths) small.push((await queriesFor(path)).calls);
  for (let i = 0; i < 30; i++) {
    const start = NOW + (i % 2 ? DAY : -DAY) * (i + 1);
    await postEvent(ctx, token, {
      tags: ["bulk", `t${i}`],
      start_datetime: start,
      // Every third one is long: those in the past are still running.
      end_datetime: start + (i % 3 === 0 ? (i + 3) * DAY : 2 * HOUR),
      place_name: `Place ${i}`,
    });
  }
  await forgetBodies();
  const large: Record<string, Awaited<ReturnType<typeof queriesFor>>> = {};
  for (const path of paths) large[path] = await queriesFor(path);
  assert.deepEqual(paths.map((p) => large[p].calls), small);

  const explain = async (s: { sql: string; args: unknown[] }) => {
    const rows = await execute({
      sql: `explain query plan ${s.sql}`,
      args: s.args,
    });
    return rows.rows.map((r: { detail: string }) => r.detail).join("\n");
  };
  const plans = async (path: string) => {
    const out: string[] = [];
    for (const s of large[path].statements) {
      // Selects merged into one statement (UNION ALL) are checked arm by arm.
      if (/^\s*select/i.test(s.sql)) {
        out.push(...(await explain(s)).split(/\nUNION ALL\n/));
      }
    }
    return out;
  };
  const all: Record<string, string[]> = {};
  for (const path of paths) {
    all[path] = await plans(path);
    assert.ok(all[path].length > 0, `${path}: no statement recorded`);
    for (const plan of all[path]) {
      assert.doesNotMatch(plan, /SCAN events\b/, `${path}: ${plan}`);
    }
  }
  // The tag listing: ranges on the event_tags copies of the times, the
  // starting and past halves in index order (no sort of the tag's history).
  const byTag = all["/api/events/tag/bulk"].filter((p) =>
    /event_tags_tag_(last|start)_idx/.test(p)
  );
  assert.equal(byTag.length, 3, byTag.join("\n---\n"));
  const [ongoingByTag, startingByTag, pastByTag] = byTag;
  assert.match(
    ongoingByTag,
    /SEARCH event_tags USING INDEX event_tags_tag_last_idx \(tagId=\? AND last_moment>\?\)/,
  );
  assert.match(
    startingByTag,
    /event_tags_tag_start_idx \(tagId=\? AND start_datetime>\?\)/,
  );
  assert.match(pastByTag, /event_tags_tag_start_idx \(tagId=\?\)/);
  for (const plan of [startingByTag, pastByTag]) {
    // The rows' tag lists (a correlated subquery per row) sort each event's
    // few tags; the listing itself must not sort.
    const listing = plan.split("CORRELATED SCALAR SUBQUERY")[0];
    assert.doesNotMatch(listing, /TEMP B-TREE/, plan);
    assert.match(plan, /SEARCH events USING INTEGER PRIMARY KEY/, plan);
  }
  // GET /api/events?start: still running = a day of starts plus the long
  // events (two index ranges), then the starts from now on.
  const [ongoing, starting] = all[`/api/events?start=${NOW}&max=50`];
  assert.match(ongoing, /MULTI-INDEX OR/, ongoing);
  assert.match(
    ongoing,
    /events_start_idx \(start_datetime>\? AND start_datetime<\?\)/,
  );
  assert.match(ongoing, /events_long_last_idx/);
  assert.match(starting, /events_start_idx \(start_datetime>\?\)/);
  assert.doesNotMatch(
    starting.split("CORRELATED SCALAR SUBQUERY")[0],
    /TEMP B-TREE/,
  );
  // The calendar's series templates: the partial index, newest first.
  const parents = all["/feed/ics"].find((p) => /events_series_idx/.test(p));
  assert.ok(parents, all["/feed/ics"].join("\n---\n"));
  assert.doesNotMatch(
    parents.split("CORRELATED SCALAR SUBQUERY")[0],
    /TEMP B-TREE/,
    parents,
  );
  for (const [path, list] of Object.entries(all)) {
    console.log(`EXPLAIN QUERY PLAN ${path}:\n${list.join("\n---\n")}`);
  }
  ctx.close();
});

Deno.test("the tag listing follows start and end changes made through PUT and PATCH", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const anchor = await postEvent(ctx, token, {
    title: "Anchor",
    start_datetime: NOW + DAY,
    tags: ["Shift"],
  });
  const moving = await postEvent(ctx, token, {
    title: "Moving",
    start_datetime: NOW + 2 * DAY,
    tags: ["Shift"],
  });
  const listing = async (tag = "shift") => {
    const body = await (await call(ctx, "GET", `/api/events/tag/${tag}`))
      .json();
    return {
      events: body.events.map((e: { id: number }) => e.id),
      pastEvents: body.pastEvents.map((e: { id: number }) => e.id),
      times: Object.fromEntries(
        [...body.events, ...body.pastEvents].map((
          e: { id: number; start_datetime: number; end_datetime: number },
        ) => [e.id, [e.start_datetime, e.end_datetime]]),
      ),
    };
  };
  const put = async (fields: Record<string, unknown>) => {
    const res = await call(ctx, "PUT", `/api/events/${moving.id}`, {
      token,
      json: { title: "Moving", ...fields },
    });
    assert.equal(res.status, 200, await res.text());
  };
  const same = (a: Awaited<ReturnType<typeof listing>>, expected: {
    events: number[];
    pastEvents: number[];
  }) => {
    assert.deepEqual(
      { events: a.events, pastEvents: a.pastEvents },
      expected,
    );
  };
  same(await listing(), { events: [anchor.id, moving.id], pastEvents: [] });

  // Ended three days ago: past.
  await put({
    start_datetime: NOW - 3 * DAY,
    end_datetime: NOW - 3 * DAY + HOUR,
  });
  let now = await listing();
  same(now, { events: [anchor.id], pastEvents: [moving.id] });
  assert.deepEqual(now.times[moving.id], [NOW - 3 * DAY, NOW - 3 * DAY + HOUR]);

  // Only the end moves, to next week: running since three days, listed first.
  await put({ start_datetime: NOW - 3 * DAY, end_datetime: NOW + 7 * DAY });
  same(await listing(), { events: [moving.id, anchor.id], pastEvents: [] });

  // No end: an event without one is over once it has started.
  await put({ start_datetime: NOW - 3 * DAY, end_datetime: null });
  same(await listing(), { events: [anchor.id], pastEvents: [moving.id] });

  // Started an hour ago, ends in an hour.
  await put({ start_datetime: NOW - HOUR, end_datetime: NOW + HOUR });
  same(await listing(), { events: [moving.id, anchor.id], pastEvents: [] });

  // A tag added by PUT lists the event under its times at once.
  await put({
    start_datetime: NOW + 3 * DAY,
    end_datetime: NOW + 3 * DAY + HOUR,
    tags: ["Shift", "Added"],
  });
  same(await listing(), { events: [anchor.id, moving.id], pastEvents: [] });
  now = await listing("added");
  same(now, { events: [moving.id], pastEvents: [] });
  assert.deepEqual(now.times[moving.id], [NOW + 3 * DAY, NOW + 3 * DAY + HOUR]);

  // PATCH moves it too.
  const patched = await call(ctx, "PATCH", `/api/events/${moving.id}`, {
    token,
    json: { start_datetime: NOW - 2 * DAY, end_datetime: NOW - DAY },
  });
  assert.equal(patched.status, 200, await patched.text());
  same(await listing("added"), { events: [], pastEvents: [moving.id] });
  same(await listing(), { events: [anchor.id], pastEvents: [moving.id] });

  // The clock moves: the anchor ends.
  ctx.clock.advance(2 * DAY * 1000);
  same(await listing(), { events: [], pastEvents: [anchor.id, moving.id] });
  ctx.close();
});

Deno.test("the tag listing follows a series: occurrences created, moved on their own, re-laid out", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const series = await postEvent(ctx, token, {
    title: "Choir",
    start_datetime: NOW + DAY,
    end_datetime: NOW + DAY + HOUR,
    tags: ["Sing"],
    recurrent: { frequency: "1w" },
  });
  const listed = async () =>
    (await (await call(ctx, "GET", "/api/events/tag/sing")).json()).events
      .map((e: { id: number; start_datetime: number }) => [
        e.id,
        e.start_datetime,
      ]);
  const children = series.children.map((
    c: { id: number; start_datetime: number },
  ) => [c.id, c.start_datetime]);
  assert.deepEqual((await listed()).slice(0, children.length), children);

  // The second occurrence moves to before the first.
  const [first, second] = series.children;
  const res = await call(ctx, "PATCH", `/api/events/${second.id}`, {
    token,
    json: { start_datetime: NOW + HOUR, end_datetime: NOW + 2 * HOUR },
  });
  assert.equal(res.status, 200, await res.text());
  const moved = await listed();
  assert.deepEqual(moved.slice(0, 2), [[second.id, NOW + HOUR], [
    first.id,
    first.start_datetime,
  ]]);

  // The series starts a day later: its future occurrences are laid out again.
  const put = await call(ctx, "PUT", `/api/events/${series.id}`, {
    token,
    json: {
      title: "Choir",
      start_datetime: NOW + 2 * DAY,
      end_datetime: NOW + 2 * DAY + HOUR,
    },
  });
  assert.equal(put.status, 200, await put.text());
  const full = await (await call(ctx, "GET", `/api/events/${series.id}`))
    .json();
  const expected = full.children.map((
    c: { id: number; start_datetime: number },
  ) => [c.id, c.start_datetime]).sort((
    a: number[],
    b: number[],
  ) => a[1] - b[1] || a[0] - b[0]);
  const relaid = await listed();
  assert.deepEqual(relaid.slice(0, expected.length), expected);
  assert.ok(relaid.some(([, s]: number[]) => s === NOW + 2 * DAY));
  ctx.close();
});

Deno.test("events running for days are upcoming in GET /api/events?start and the tag listing", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "user");
  const tags = ["Expo"];
  const make = (title: string, start: number, end: number | null) =>
    postEvent(ctx, token, {
      title,
      start_datetime: start,
      end_datetime: end,
      tags,
    });
  // Still running at NOW, by start.
  const fortnight = await make("Fortnight", NOW - 7 * DAY, NOW + 7 * DAY);
  // A day and a second long, ends exactly now: still running.
  const edge = await make("Edge", NOW - DAY - 1, NOW);
  const evening = await make("Evening", NOW - 20 * HOUR, NOW + 3 * HOUR);
  const hour = await make("Hour", NOW - HOUR, NOW + HOUR);
  // Upcoming.
  const tomorrow = await make("Tomorrow", NOW + DAY, NOW + DAY + HOUR);
  const nextWeek = await make("Next week", NOW + 7 * DAY, NOW + 9 * DAY);
  // Over.
  const ended = await make("Ended", NOW - 10 * DAY, NOW - DAY);
  const openEnded = await make("Open-ended", NOW - 2 * DAY, null);
  const justOver = await make("Just over", NOW - 2 * HOUR, NOW - 1);
  // A long one hidden, and a long one of another tag.
  const hidden = await make("Hidden", NOW - 3 * DAY, NOW + 3 * DAY);
  await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, { token });
  const other = await postEvent(ctx, token, {
    title: "Other",
    start_datetime: NOW - 3 * DAY,
    end_datetime: NOW + 3 * DAY,
    tags: ["Elsewhere"],
  });

  const ids = (list: { id: number }[]) => list.map((e) => e.id);
  const running = [fortnight.id, edge.id, evening.id, hour.id];
  const upcoming = [...running, tomorrow.id, nextWeek.id];
  const byTag = await (await call(ctx, "GET", "/api/events/tag/expo")).json();
  assert.deepEqual(ids(byTag.events), upcoming);
  assert.deepEqual(ids(byTag.pastEvents), [
    justOver.id,
    openEnded.id,
    ended.id,
  ]);
  assert.deepEqual(
    ids(
      (await (await call(ctx, "GET", "/api/events/tag/expo?limit=3")).json())
        .events,
    ),
    upcoming.slice(0, 3),
  );

  const search = async (q: string) =>
    ids(await (await call(ctx, "GET", `/api/events?${q}`)).json());
  const all = [fortnight.id, other.id, ...upcoming.slice(1)];
  assert.deepEqual(await search(`start=${NOW}`), all);
  assert.deepEqual(await search(""), all);
  assert.deepEqual(await search(`start=${NOW}&tags=expo`), upcoming);
  // Pages across the running ones and those to come.
  assert.deepEqual(await search(`start=${NOW}&max=3&page=2`), all.slice(3, 6));
  // Another moment: what runs then, and all that starts after it.
  assert.deepEqual(await search(`start=${NOW - 5 * DAY}&tags=expo`), [
    ended.id,
    fortnight.id,
    openEnded.id,
    edge.id,
    evening.id,
    justOver.id,
    hour.id,
    tomorrow.id,
    nextWeek.id,
  ]);
  assert.deepEqual(
    (await search(`start=${NOW - 8 * DAY}&tags=expo`)).slice(0, 3),
    [ended.id, fortnight.id, openEnded.id],
  );
  assert.deepEqual(await search(`start=${NOW + 8 * DAY}&tags=expo`), [
    nextWeek.id,
  ]);
  ctx.close();
});
