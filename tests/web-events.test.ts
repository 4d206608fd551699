/**
 * The event pages at the HTTP level: /submit's extras (all-day, a known
 * place by name, tags, an image with alt text and focal point, repetition
 * until a day), /my, the edit page (a single event, a series, one date of
 * it), cancel and reinstate, delete after a confirmation; CSRF, cross-site
 * and role refusals; bad input answered 400 with the form again and nothing
 * written. What the pages did is checked through the API.
 */
import assert from "node:assert/strict";
import { EMPTY_EVENT_FORM } from "../lib/events/form.ts";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { csrfFrom, csrfOf, get, postForm, signIn } from "./web-helpers.ts";
import { png } from "./images.ts";

/** Unix seconds of an ISO time. */
const unix = (iso: string) => Date.parse(iso) / 1000;

/** Posts the event form as a browser of this site does (multipart), with an optional image. */
function postEventForm(
  ctx: TestContext,
  path: string,
  fields: Record<string, string>,
  options: {
    cookie?: string;
    origin?: string;
    image?: { bytes: Uint8Array<ArrayBuffer>; name: string; type: string };
  } = {},
) {
  const body = new FormData();
  for (
    const [name, value] of Object.entries({ ...EMPTY_EVENT_FORM, ...fields })
  ) {
    body.append(name, value);
  }
  body.append(
    "image",
    options.image
      ? new File([options.image.bytes], options.image.name, {
        type: options.image.type,
      })
      : new File([], "", { type: "application/octet-stream" }),
  );
  return ctx.app.request(path, {
    method: "POST",
    headers: {
      origin: options.origin ?? new URL(ctx.config.baseUrl).origin,
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body,
  });
}

async function apiEvent(
  ctx: TestContext,
  id: number,
  token?: string,
  // deno-lint-ignore no-explicit-any -- tests read arbitrary response fields
): Promise<any> {
  const res = await call(ctx, "GET", `/api/events/${id}`, { token });
  assert.equal(res.status, 200, `event ${id}`);
  return await res.json();
}

/** An app in Rome's time zone with an admin (token) and a member (cookie). */
async function setup() {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const settings = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { instance_timezone: "Europe/Rome" },
  });
  assert.equal(settings.status, 200);
  const member = await userWithToken(ctx, "user");
  const cookie = await signIn(ctx, member);
  return { ctx, admin, member, cookie };
}

Deno.test("submit: an all-day event at a known place picked by its name; a weekly series until a day with an image, its alt text and focal point; monthly on the n-th weekday", async () => {
  const { ctx, admin, member, cookie } = await setup();
  try {
    const known = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Concert",
        start_datetime: unix("2026-06-20T19:00:00Z"),
        place_name: "Community hall",
        place_address: "Via Verdi 2",
        tags: ["Music"],
      },
    });
    assert.equal(known.status, 201);
    const placeId = (await known.json()).place.id;

    const form = await get(ctx, "/submit", cookie);
    const html = await form.text();
    assert.match(html, /enctype="multipart\/form-data"/);
    assert.match(
      html,
      /<datalist id="known-places"><option value="Community hall" data-address="Via Verdi 2">/,
    );
    assert.match(html, /<datalist id="known-tags"><option value="Music">/);
    assert.match(
      html,
      /<input id="place_name" name="place_name"[^>]*list="known-places"/,
    );
    const csrf = csrfOf(html);

    // All day: from midnight of the first day to midnight after the last,
    // in the instance's zone; the place named alone is the known one.
    const allDay = await postEventForm(ctx, "/submit", {
      csrf_token: csrf,
      title: "Harvest fair",
      start: "2026-07-10",
      end: "2026-07-11",
      all_day: "on",
      place_name: "community hall",
      tags: "fair, music",
    }, { cookie });
    assert.equal(allDay.status, 303, await allDay.text());
    const mine = await (await call(ctx, "GET", "/api/events/mine", {
      token: member.token,
    })).json();
    const fair = await apiEvent(ctx, mine[0].id);
    assert.equal(fair.start_datetime, unix("2026-07-09T22:00:00Z"));
    assert.equal(fair.end_datetime, unix("2026-07-11T22:00:00Z"));
    assert.equal(fair.place.id, placeId);
    assert.deepEqual(fair.tags.map((t: { tag: string }) => t.tag).sort(), [
      "Music",
      "fair",
    ]);

    // A weekly series until 1 July, with an image.
    const weekly = await postEventForm(ctx, "/submit", {
      csrf_token: csrf,
      title: "Garden work",
      start: "2026-06-03T19:00",
      end: "2026-06-03T21:00",
      place_name: "Allotments",
      place_address: "Via dei Campi",
      recurrence: "1w",
      until: "2026-07-01",
      image_alt: "A spade in the soil",
      focal_x: "0.5",
      focal_y: "-0.25",
      description: "Bring gloves.\n\nhttps://example.org/garden",
    }, {
      cookie,
      image: { bytes: png(40, 30, 64), name: "spade.png", type: "image/png" },
    });
    assert.equal(weekly.status, 303, await weekly.text());
    assert.match(
      weekly.headers.get("location") ?? "",
      /^\/event\/garden-work$/,
    );
    const list = await (await call(ctx, "GET", "/api/events/mine", {
      token: member.token,
    })).json();
    const parent = list.find((e: { slug: string }) => e.slug === "garden-work");
    const series = await apiEvent(ctx, parent.id, member.token);
    assert.deepEqual(series.recurrent, {
      frequency: "1w",
      type: "ordinal",
      // The end of 1 July in Rome.
      until: unix("2026-07-01T21:59:59Z"),
      exclude: [],
    });
    // 3, 10, 17, 24 June and 1 July; nothing after the last day.
    assert.deepEqual(
      series.children.map((c: { start_datetime: number }) => c.start_datetime),
      ["03", "10", "17", "24"].map((d) => unix(`2026-06-${d}T17:00:00Z`))
        .concat(unix("2026-07-01T17:00:00Z")),
    );
    assert.equal(series.media.length, 1);
    assert.equal(series.media[0].name, "A spade in the soil");
    assert.deepEqual(series.media[0].focalpoint, [0.5, -0.25]);
    assert.equal(series.media[0].width, 40);
    assert.match(
      series.description,
      /<p>Bring gloves\.<\/p><p><a href="https:\/\/example\.org\/garden"/,
    );
    const image = await get(ctx, `/media/${series.media[0].url}`);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get("content-type"), "image/png");
    assert.deepEqual(
      new Uint8Array(await image.arrayBuffer()),
      png(40, 30, 64),
    );
    // The ICS feed carries the end of the rule.
    const ics = await (await get(ctx, "/feed/ics")).text();
    assert.match(
      ics,
      /RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=WE;UNTIL=20260701T215959Z/,
    );

    // Monthly on the same weekday: 9 June 2026 is the 2nd Tuesday.
    const monthly = await postEventForm(ctx, "/submit", {
      csrf_token: csrf,
      title: "Book club",
      start: "2026-06-09T18:00",
      online_link: "https://meet.example/books",
      recurrence: "1m-nth",
    }, { cookie });
    assert.equal(monthly.status, 303, await monthly.text());
    const club = (await (await call(ctx, "GET", "/api/events/mine", {
      token: member.token,
    })).json()).find((e: { slug: string }) => e.slug === "book-club");
    const clubFull = await apiEvent(ctx, club.id, member.token);
    assert.equal(clubFull.recurrent.type, "2");
    assert.equal(
      clubFull.children[1].start_datetime,
      unix("2026-07-14T16:00:00Z"),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("submit: bad input is answered 400 with the form again, each problem by its field, what was typed kept, nothing written", async () => {
  const { ctx, cookie } = await setup();
  try {
    const csrf = await csrfFrom(ctx, "/submit", cookie);
    const fields = {
      csrf_token: csrf,
      title: "Repair café",
      start: "2026-06-30T18:00",
      place_name: "Library",
      description: "Bring something broken.",
    };
    const cases: [Record<string, string>, string, RegExp, boolean?][] = [
      [{ focal_x: "2" }, "focal", /two numbers from -1 to 1/],
      [{ end: "2026-06-30T17:00" }, "end", /after the start/],
      [{ start: "2026-02-30T10:00" }, "start", /day and time it starts/],
      [
        { recurrence: "1w", until: "2026-06-01" },
        "until",
        /cannot come before/,
      ],
      // 23 June is a Tuesday, not the last of its month (30 June is).
      [
        { recurrence: "1m-last", start: "2026-06-23T18:00" },
        "recurrence",
        /not the last such weekday/,
      ],
      [{ recurrence: "3y" }, "recurrence", /how it repeats/],
      [{ online_link: "javascript:alert(1)" }, "online_link", /web address/],
      [
        { tags: Array.from({ length: 21 }, (_, i) => `t${i}`).join(",") },
        "tags",
        /At most 20 tags/,
      ],
      [
        { place_name: "", online_link: "" },
        "place_name",
        /a place, an online link/,
      ],
      [{ title: "   " }, "title", /Give a title/],
    ];
    const before = await countRows(ctx, "events");
    for (const [change, field, message] of cases) {
      const res = await postEventForm(
        ctx,
        "/submit",
        { ...fields, ...change },
        {
          cookie,
        },
      );
      const html = await res.text();
      assert.equal(
        res.status,
        400,
        `${JSON.stringify(change)}: ${html.slice(0, 300)}`,
      );
      const error = new RegExp(
        `<p class="field-error" id="${field}-error">([^<]*)<`,
      ).exec(html);
      assert.ok(error, `${field} error shown for ${JSON.stringify(change)}`);
      assert.match(error[1], message);
      assert.match(html, /Bring something broken\./);
      if (change.title === undefined) assert.match(html, /value="Repair café"/);
    }
    // An image that is not one: shown by the image field, nothing stored.
    const notImage = await postEventForm(ctx, "/submit", fields, {
      cookie,
      image: {
        bytes: new TextEncoder().encode("<svg></svg>"),
        name: "x.svg",
        type: "image/svg+xml",
      },
    });
    assert.equal(notImage.status, 400);
    assert.match(
      await notImage.text(),
      /id="image-error">Only JPEG, PNG, WebP and GIF/,
    );
    // A file beyond the size limit (PNG header, then padding).
    const big = await postEventForm(ctx, "/submit", fields, {
      cookie,
      image: {
        bytes: png(10, 10, ctx.config.mediaMaxBytes),
        name: "big.png",
        type: "image/png",
      },
    });
    assert.equal(big.status, 400);
    assert.match(await big.text(), /id="image-error">The image is larger than/);
    // A valid image with a bad focal point: nothing stored either.
    const badFocal = await postEventForm(ctx, "/submit", {
      ...fields,
      focal_y: "-3",
    }, {
      cookie,
      image: { bytes: png(10, 10), name: "a.png", type: "image/png" },
    });
    assert.equal(badFocal.status, 400);
    assert.equal(await countRows(ctx, "events"), before);
    assert.equal(await countRows(ctx, "media_files"), 0);
    assert.equal(await countRows(ctx, "places"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("my events: signed in only; a user's own events and series with their next dates, paged; others' events not shown", async () => {
  const { ctx, admin, member, cookie } = await setup();
  try {
    assert.equal(
      (await get(ctx, "/my")).headers.get("location"),
      "/login?next=%2Fmy",
    );
    const empty = await (await get(ctx, "/my", cookie)).text();
    assert.match(empty, /You have not submitted any events yet\./);
    assert.match(empty, /<a href="\/my" aria-current="page">/);
    await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Admin event",
        start_datetime: unix("2026-06-10T10:00:00Z"),
        place_name: "X",
      },
    });
    for (let i = 1; i <= 21; i++) {
      const res = await call(ctx, "POST", "/api/events", {
        token: member.token,
        json: {
          title: `Talk ${i}`,
          start_datetime: unix(
            `2026-07-${String(i).padStart(2, "0")}T08:00:00Z`,
          ),
          place_name: "Hall",
        },
      });
      assert.equal(res.status, 201);
    }
    const weekly = await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Yoga",
        start_datetime: unix("2026-08-05T17:00:00Z"),
        place_name: "Park",
        recurrent: { frequency: "1w" },
      },
    });
    const yoga = await weekly.json();
    const page1 = await (await get(ctx, "/my", cookie)).text();
    // Newest start first: the series, then the talks.
    assert.ok(page1.indexOf(">Yoga<") < page1.indexOf(">Talk 21<"));
    assert.match(page1, /Every week · /);
    assert.match(page1, /<h3 id="dates-\d+">Next dates<\/h3>/);
    assert.ok(yoga.children.length >= 8);
    for (const child of yoga.children.slice(0, 3)) {
      assert.match(page1, new RegExp(`href="/events/${child.id}/edit"`));
      assert.match(page1, new RegExp(`href="/events/${child.id}/delete"`));
    }
    assert.match(
      page1,
      new RegExp(`href="/events/${yoga.id}/edit"[^>]*>Edit the series<`),
    );
    assert.doesNotMatch(page1, /Admin event/);
    assert.doesNotMatch(page1, />Talk 2</);
    assert.match(page1, /href="\/my\?page=2">Next page</);
    const page2 = await (await get(ctx, "/my?page=2", cookie)).text();
    assert.match(page2, />Talk 2</);
    assert.match(page2, />Talk 1</);
    assert.doesNotMatch(page2, />Yoga</);
    assert.match(page2, /href="\/my\?page=1">Previous page</);
    assert.doesNotMatch(page2, /Next page/);
    // In Italian, the same list.
    const italian = await (await get(ctx, "/my?lang=it", cookie)).text();
    assert.match(italian, /<h1>I miei eventi<\/h1>/);
    assert.match(italian, /Ogni settimana · /);
    assert.doesNotMatch(italian, />Edit</);
  } finally {
    ctx.close();
  }
});

Deno.test("edit page: prefilled in the instance's zone; owner, editors and admins only; CSRF and cross-site refused; bad input 400 with nothing changed; a change saved, the place taken away, an untouched description kept as it was", async () => {
  const { ctx, member, cookie } = await setup();
  try {
    const created = await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Choir",
        start_datetime: unix("2026-07-10T19:00:00Z"),
        end_datetime: unix("2026-07-10T21:00:00Z"),
        place_name: "Parish hall",
        place_address: "Via Roma 1",
        tags: ["music"],
        description: "<p>Scores:</p><ul><li>Bach</li><li>Fauré</li></ul>",
      },
    });
    const event = await created.json();
    const path = `/events/${event.id}/edit`;
    assert.equal(
      (await get(ctx, path)).headers.get("location"),
      `/login?next=${encodeURIComponent(path)}`,
    );
    const page = await get(ctx, path, cookie);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<h1>Edit “Choir”<\/h1>/);
    assert.match(
      html,
      /id="start" name="start" type="datetime-local" required value="2026-07-10T21:00"/,
    );
    assert.match(html, /value="2026-07-10T23:00"/);
    assert.match(html, /value="Parish hall"/);
    assert.match(html, /value="Via Roma 1"/);
    assert.match(html, /value="music"/);
    assert.match(html, /Scores:\n\nBach\nFauré/);
    // A single event may become a series: "does not repeat" is offered.
    assert.match(
      html,
      /<option value="" selected>Does not repeat<\/option>/,
    );
    const csrf = csrfOf(html);

    // Another member: refused, on every route; unknown events 404.
    const other = await createTestUser(ctx, { role: "user" });
    const otherCookie = await signIn(ctx, other);
    const otherCsrf = await csrfFrom(ctx, "/my", otherCookie);
    assert.equal((await get(ctx, path, otherCookie)).status, 403);
    assert.equal(
      (await get(ctx, `/events/${event.id}/delete`, otherCookie)).status,
      403,
    );
    const taken = await postEventForm(ctx, path, {
      csrf_token: otherCsrf,
      title: "Mine now",
      start: "2026-07-10T21:00",
      place_name: "X",
    }, { cookie: otherCookie });
    assert.equal(taken.status, 403);
    assert.equal(
      (await postForm(ctx, `/events/${event.id}/status`, {
        csrf_token: otherCsrf,
        status: "EventCancelled",
      }, { cookie: otherCookie })).status,
      403,
    );
    assert.equal(
      (await postForm(ctx, `/events/${event.id}/delete`, {
        csrf_token: otherCsrf,
      }, { cookie: otherCookie })).status,
      403,
    );
    assert.equal((await get(ctx, "/events/999999/edit", cookie)).status, 404);
    assert.equal(
      (await postForm(
        ctx,
        "/events/999999/delete",
        { csrf_token: csrf },
        { cookie },
      )).status,
      404,
    );

    const fields = {
      csrf_token: csrf,
      title: "Choir rehearsal",
      start: "2026-07-10T20:30",
      end: "2026-07-10T23:00",
      place_name: "Parish hall",
      place_address: "Via Roma 1",
      tags: "music, choir",
      description: "Scores:\n\nBach\nFauré",
    };
    // Without the token, or from another site: refused.
    assert.equal(
      (await postEventForm(ctx, path, { ...fields, csrf_token: "" }, {
        cookie,
      })).status,
      403,
    );
    assert.equal(
      (await postEventForm(ctx, path, fields, {
        cookie,
        origin: "https://evil.example",
      })).status,
      403,
    );
    // Bad input: the form again, what was typed kept, nothing changed.
    const bad = await postEventForm(ctx, path, {
      ...fields,
      end: "2026-07-10T20:00",
    }, { cookie });
    assert.equal(bad.status, 400);
    const badHtml = await bad.text();
    assert.match(badHtml, /id="end-error"/);
    assert.match(badHtml, /value="Choir rehearsal"/);
    assert.match(badHtml, /value="music, choir"/);
    const unchanged = await apiEvent(ctx, event.id);
    assert.equal(unchanged.title, "Choir");
    assert.equal(unchanged.updatedAt, event.updatedAt);

    const ok = await postEventForm(ctx, path, fields, { cookie });
    assert.equal(ok.status, 303, await ok.text());
    assert.equal(ok.headers.get("location"), "/my?done=saved");
    const saved = await apiEvent(ctx, event.id);
    assert.equal(saved.title, "Choir rehearsal");
    assert.equal(saved.start_datetime, unix("2026-07-10T18:30:00Z"));
    assert.deepEqual(saved.tags.map((t: { tag: string }) => t.tag).sort(), [
      "choir",
      "music",
    ]);
    // The description was not touched: its list stays.
    assert.equal(saved.description, event.description);
    assert.match(
      await (await get(ctx, "/my?done=saved", cookie)).text(),
      /role="status">Saved\./,
    );

    // The place taken away (an online link instead); an image added.
    const online = await postEventForm(ctx, path, {
      ...fields,
      place_name: "",
      place_address: "",
      online_link: "https://stream.example/choir",
      image_alt: "The choir",
    }, {
      cookie,
      image: { bytes: png(20, 20), name: "c.png", type: "image/png" },
    });
    assert.equal(online.status, 303, await online.text());
    const moved = await apiEvent(ctx, event.id);
    assert.equal(moved.place, null);
    assert.deepEqual(moved.online_locations, ["https://stream.example/choir"]);
    assert.equal(moved.media[0].name, "The choir");
    // Its alt text and focal point changed in place; then removed.
    const refocus = await postEventForm(ctx, path, {
      ...fields,
      place_name: "",
      online_link: "https://stream.example/choir",
      image_alt: "The choir singing",
      focal_x: "-1",
      focal_y: "1",
    }, { cookie });
    assert.equal(refocus.status, 303);
    const refocused = await apiEvent(ctx, event.id);
    assert.equal(refocused.media[0].url, moved.media[0].url);
    assert.deepEqual(refocused.media[0].focalpoint, [-1, 1]);
    assert.equal(refocused.media[0].name, "The choir singing");
    const removed = await postEventForm(ctx, path, {
      ...fields,
      place_name: "",
      online_link: "https://stream.example/choir",
      image_remove: "on",
    }, { cookie });
    assert.equal(removed.status, 303);
    assert.deepEqual((await apiEvent(ctx, event.id)).media, []);

    // An editor may edit it too (the API's rule), and goes back to the queue.
    const editor = await createTestUser(ctx, { role: "editor" });
    const editorCookie = await signIn(ctx, editor);
    const editorPage = await get(ctx, path, editorCookie);
    assert.equal(editorPage.status, 200);
    const byEditor = await postEventForm(ctx, path, {
      ...fields,
      csrf_token: csrfOf(await editorPage.text()),
      title: "Choir (edited)",
    }, { cookie: editorCookie });
    assert.equal(byEditor.status, 303);
    assert.equal(byEditor.headers.get("location"), "/admin");
    assert.equal((await apiEvent(ctx, event.id)).title, "Choir (edited)");
  } finally {
    ctx.close();
  }
});

Deno.test("series: one date edited on its own (the others not), the whole series edited (the edited date kept), a date cancelled and reinstated, a date and the series deleted after a confirmation", async () => {
  const { ctx, member, cookie } = await setup();
  try {
    const created = await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Yoga",
        start_datetime: unix("2026-06-03T17:00:00Z"),
        end_datetime: unix("2026-06-03T18:00:00Z"),
        place_name: "Park",
        recurrent: { frequency: "1w" },
      },
    });
    const series = await created.json();
    const [first, second, third] = series.children;
    const csrf = await csrfFrom(ctx, "/my", cookie);

    // One date: its own form, no repetition, a link to the whole series.
    const datePath = `/events/${second.id}/edit`;
    const datePage = await (await get(ctx, datePath, cookie)).text();
    assert.match(datePage, /<h1>Edit one date of “Yoga”<\/h1>/);
    assert.match(
      datePage,
      new RegExp(
        `href="/events/${series.id}/edit">Edit the whole series instead`,
      ),
    );
    assert.doesNotMatch(datePage, /id="recurrence"/);
    assert.match(datePage, /value="2026-06-10T19:00"/);
    const own = await postEventForm(ctx, datePath, {
      csrf_token: csrf,
      title: "Yoga by the lake",
      start: "2026-06-10T20:00",
      end: "2026-06-10T21:00",
      place_name: "Lake",
    }, { cookie });
    assert.equal(own.status, 303, await own.text());
    const afterOwn = await apiEvent(ctx, series.id, member.token);
    const byId = new Map(
      afterOwn.children.map((c: { id: number }) => [c.id, c]),
    );
    // deno-lint-ignore no-explicit-any -- API summaries
    const changed = byId.get(second.id) as any;
    assert.equal(changed.title, "Yoga by the lake");
    assert.equal(changed.start_datetime, unix("2026-06-10T18:00:00Z"));
    assert.equal(changed.place.name, "Lake");
    for (const other of [first, third]) {
      // deno-lint-ignore no-explicit-any -- API summaries
      const kept = byId.get(other.id) as any;
      assert.equal(kept.title, "Yoga");
      assert.equal(kept.start_datetime, other.start_datetime);
      assert.equal(kept.place.name, "Park");
    }

    // The whole series: the form keeps its rule (no "does not repeat").
    const seriesPath = `/events/${series.id}/edit`;
    const seriesPage = await (await get(ctx, seriesPath, cookie)).text();
    assert.match(
      seriesPage,
      /<option value="1w" selected>Every week<\/option>/,
    );
    assert.doesNotMatch(seriesPage, /Does not repeat/);
    const whole = await postEventForm(ctx, seriesPath, {
      csrf_token: csrf,
      title: "Morning yoga",
      start: "2026-06-03T19:00",
      end: "2026-06-03T20:00",
      place_name: "Park",
      recurrence: "1w",
    }, { cookie });
    assert.equal(whole.status, 303, await whole.text());
    const afterWhole = await apiEvent(ctx, series.id, member.token);
    assert.equal(afterWhole.title, "Morning yoga");
    const titles = new Map(
      afterWhole.children.map((
        c: { id: number; title: string },
      ) => [c.id, c.title]),
    );
    assert.equal(titles.get(second.id), "Yoga by the lake");
    assert.equal(titles.get(third.id), "Morning yoga");

    // Cancel one date, then reinstate it.
    const cancel = await postForm(ctx, `/events/${third.id}/status`, {
      csrf_token: csrf,
      status: "EventCancelled",
      page: "1",
    }, { cookie });
    assert.equal(cancel.status, 303);
    assert.equal(cancel.headers.get("location"), "/my?page=1&done=cancelled");
    assert.equal((await apiEvent(ctx, third.id)).status, "EventCancelled");
    const my = await (await get(ctx, "/my?page=1&done=cancelled", cookie))
      .text();
    assert.match(my, /Marked as cancelled\./);
    assert.match(my, /<span class="badge">Cancelled<\/span>/);
    assert.match(my, />Reinstate</);
    assert.equal((await apiEvent(ctx, first.id)).status, "EventScheduled");
    assert.equal(
      (await postForm(ctx, `/events/${third.id}/status`, {
        csrf_token: csrf,
        status: "EventPostponed",
      }, { cookie })).status,
      400,
    );
    assert.equal(
      (await postForm(ctx, `/events/${third.id}/status`, {
        status: "EventScheduled",
      }, { cookie })).status,
      403,
    );
    const back = await postForm(ctx, `/events/${third.id}/status`, {
      csrf_token: csrf,
      status: "EventScheduled",
    }, { cookie });
    assert.equal(back.status, 303);
    assert.equal((await apiEvent(ctx, third.id)).status, "EventScheduled");

    // Delete one date: a confirmation page first, then the post.
    const confirm = await get(ctx, `/events/${third.id}/delete`, cookie);
    assert.equal(confirm.status, 200);
    const confirmHtml = await confirm.text();
    assert.match(confirmHtml, /<h1>Delete “Morning yoga”\?<\/h1>/);
    assert.match(confirmHtml, /Only this date is deleted/);
    assert.match(
      confirmHtml,
      new RegExp(`action="/events/${third.id}/delete"`),
    );
    assert.equal(
      (await postForm(
        ctx,
        `/events/${third.id}/delete`,
        { csrf_token: csrf },
        { cookie, origin: "https://evil.example" },
      )).status,
      403,
    );
    assert.equal(
      (await call(ctx, "GET", `/api/events/${third.id}`)).status,
      200,
      "still there",
    );
    const gone = await postForm(ctx, `/events/${third.id}/delete`, {
      csrf_token: csrfOf(confirmHtml),
    }, { cookie });
    assert.equal(gone.status, 303);
    assert.equal(gone.headers.get("location"), "/my?done=deleted");
    assert.equal(
      (await call(ctx, "GET", `/api/events/${third.id}`)).status,
      404,
    );
    const parent = await apiEvent(ctx, series.id, member.token);
    assert.deepEqual(parent.recurrent.exclude, [third.start_datetime]);
    assert.ok(parent.children.some((c: { id: number }) => c.id === second.id));

    // The series: its confirmation says what goes.
    const seriesConfirm =
      await (await get(ctx, `/events/${series.id}/delete`, cookie)).text();
    assert.match(seriesConfirm, /its dates to come are deleted/);
    const seriesGone = await postForm(ctx, `/events/${series.id}/delete`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(seriesGone.status, 303);
    assert.equal(
      (await call(ctx, "GET", `/api/events/${series.id}`)).status,
      404,
    );
    assert.equal(
      (await call(ctx, "GET", `/api/events/${first.id}`)).status,
      404,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("edit page: an anonymous submission is edited by a moderator only; remote events are refused; the API's until is checked", async () => {
  const { ctx, admin, member, cookie } = await setup();
  try {
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const anon = await (await call(ctx, "POST", "/api/events", {
      json: {
        title: "Anonymous party",
        start_datetime: unix("2026-07-01T18:00:00Z"),
        place_name: "Square",
      },
    })).json();
    // Hidden and not theirs: a member gets a 404, as from the API.
    assert.equal(
      (await get(ctx, `/events/${anon.id}/edit`, cookie)).status,
      404,
    );
    const editor = await createTestUser(ctx, { role: "editor" });
    const editorCookie = await signIn(ctx, editor);
    const page = await get(
      ctx,
      `/events/${anon.id}/edit?next=/admin`,
      editorCookie,
    );
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<input type="hidden" name="next" value="\/admin"/);
    const saved = await postEventForm(ctx, `/events/${anon.id}/edit`, {
      csrf_token: csrfOf(html),
      next: "https://evil.example/",
      title: "Street party",
      start: "2026-07-01T20:00",
      place_name: "Square",
    }, { cookie: editorCookie });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get("location"), "/my", "never another site");
    const after = await apiEvent(ctx, anon.id, admin.token);
    assert.equal(after.title, "Street party");
    assert.equal(after.is_visible, false, "editing does not confirm");

    // The API refuses an until before the start, and a malformed one.
    for (const until of [unix("2026-06-01T00:00:00Z"), "tomorrow"]) {
      const res = await call(ctx, "POST", "/api/events", {
        token: member.token,
        json: {
          title: "Bad series",
          start_datetime: unix("2026-07-01T18:00:00Z"),
          place_name: "Square",
          recurrent: { frequency: "1w", until },
        },
      });
      assert.equal(res.status, 400);
      assert.match(
        JSON.stringify((await res.json()).details),
        /recurrent\.until/,
      );
    }
  } finally {
    ctx.close();
  }
});
