/**
 * Calendar subscriptions (`/api/sources`) and the .ics import: a local HTTP
 * server serves an iCalendar feed that changes between syncs (new, changed,
 * removed and cancelled events, a series with an exception and an EXDATE, a
 * floating time, another time zone, a file's own VTIMEZONE) and the instance
 * follows every change; conditional GETs, fetch rules and roles are checked.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { sources } from "../db/schema.ts";
import { readIcs } from "../lib/imports/ics.ts";
import { feedUrl } from "../lib/imports/sources.ts";
import { runScheduledJobs } from "../lib/jobs.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { png } from "./images.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

/** A feed server whose body the test changes; it records conditional requests. */
function feedServer() {
  let body = "";
  let etag = '"v0"';
  const requests: { ifNoneMatch: string | null }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const ifNoneMatch = request.headers.get("if-none-match");
      requests.push({ ifNoneMatch });
      if (ifNoneMatch === etag) return new Response(null, { status: 304 });
      return new Response(body, {
        headers: { "content-type": "text/calendar", etag },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/calendar.ics`,
    requests,
    set(next: string) {
      body = next;
      etag = `"v${requests.length + 1}-${next.length}"`;
    },
    close: () => server.shutdown(),
  };
}

const calendar = (...events: string[]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Quando tests//EN",
    "BEGIN:VTIMEZONE",
    "TZID:Custom Central Europe",
    "BEGIN:STANDARD",
    "DTSTART:16010101T030000",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:16010101T020000",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
    "END:DAYLIGHT",
    "END:VTIMEZONE",
    ...events,
    "END:VCALENDAR",
  ].join("\r\n");

const vevent = (...lines: string[]) =>
  ["BEGIN:VEVENT", ...lines, "END:VEVENT"].join("\r\n");

const CONCERT = vevent(
  "UID:concert@feed",
  "DTSTART;TZID=Europe/Rome:20260612T210000",
  "DTEND;TZID=Europe/Rome:20260612T230000",
  "SUMMARY:Jazz concert",
  "DESCRIPTION:Bring friends.\\n\\nhttps://jazz.example/tickets",
  "LOCATION:Cantina Bentivoglio, Via Mascarella 4/b, Bologna",
  "GEO:44.4977;11.3485",
  "CATEGORIES:music,jazz",
);
const WALK = vevent(
  "UID:walk@feed",
  "DTSTART;TZID=America/New_York:20260602T180000",
  "DURATION:PT1H",
  "SUMMARY:Evening walk",
  "LOCATION:Central Park",
  "RRULE:FREQ=WEEKLY;UNTIL=20260707T220000Z",
  "EXDATE;TZID=America/New_York:20260616T180000",
);
const WALK_EXCEPTION = vevent(
  "UID:walk@feed",
  "RECURRENCE-ID;TZID=America/New_York:20260623T180000",
  "DTSTART;TZID=America/New_York:20260623T190000",
  "DURATION:PT1H",
  "SUMMARY:Evening walk (late start)",
  "LOCATION:Central Park",
);
const FLOATING = vevent(
  "UID:market@feed",
  "DTSTART:20260620T090000",
  "SUMMARY:Farmers market",
  "LOCATION:Piazza Santo Stefano",
);
const OUTLOOK = vevent(
  "UID:talk@feed",
  "DTSTART;TZID=Custom Central Europe:20260625T180000",
  "DTEND;TZID=Custom Central Europe:20260625T193000",
  "SUMMARY:Talk",
  "LOCATION:https://meet.example/talk",
);

interface Summary {
  id: number;
  title: string;
  status: string;
  start_datetime: number;
  end_datetime: number | null;
  place: { name: string; address: string; latitude: number | null } | null;
  tags: string[];
}

/** Every event the source made, by title (series occurrences included). */
async function imported(ctx: TestContext) {
  return await ctx.database.db.all<
    {
      id: number;
      title: string;
      status: string;
      start_datetime: number;
      parentId: number | null;
      is_visible: number;
      recurrent: string | null;
    }
  >(
    sql`SELECT id, title, status, start_datetime, parentId, is_visible, recurrent FROM events ORDER BY start_datetime, id`,
  );
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

Deno.test("sources: a feed's events are created, then follow every change of the feed; conditional GETs; one sync at a time", async () => {
  const feed = feedServer();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  try {
    await call(ctx, "PUT", "/api/settings", {
      token: (await userWithToken(ctx, "admin")).token,
      json: { instance_timezone: "Europe/Rome" },
    });
    const editor = await userWithToken(ctx, "editor");
    feed.set(calendar(CONCERT, WALK, WALK_EXCEPTION, FLOATING, OUTLOOK));
    const created = await call(ctx, "POST", "/api/sources", {
      token: editor.token,
      json: {
        url: feed.url,
        name: "Città",
        default_tags: ["city"],
      },
    });
    const first = await created.json();
    assert.equal(created.status, 201, JSON.stringify(first));
    assert.equal(first.result, "synced");
    assert.deepEqual(first.problems, []);
    assert.equal(first.counts.created, 4);
    assert.equal(first.source.last_counts.created, 4);
    assert.equal(first.source.last_error, null);

    // The concert: the zone's time, the place with its coordinates, tags.
    const list = await (await call(
      ctx,
      "GET",
      "/api/events?start=0&max=50",
    )).json() as Summary[];
    const concert = list.find((e) => e.title === "Jazz concert")!;
    assert.equal(iso(concert.start_datetime), "2026-06-12T19:00:00.000Z");
    assert.equal(iso(concert.end_datetime!), "2026-06-12T21:00:00.000Z");
    assert.equal(concert.place?.name, "Cantina Bentivoglio");
    assert.equal(concert.place?.address, "Via Mascarella 4/b, Bologna");
    assert.equal(concert.place?.latitude, 44.4977);
    assert.deepEqual([...concert.tags].sort(), ["city", "jazz", "music"]);
    const full = await (await call(ctx, "GET", `/api/events/${concert.id}`))
      .json();
    assert.match(
      full.description,
      /<a href="https:\/\/jazz\.example\/tickets"/,
    );
    assert.equal(full.user.id, editor.user.id);
    // Floating: the instance's zone (09:00 in Rome is 07:00 UTC in June).
    const market = list.find((e) => e.title === "Farmers market")!;
    assert.equal(iso(market.start_datetime), "2026-06-20T07:00:00.000Z");
    // The file's own VTIMEZONE: 18:00 at +02:00.
    const talk = list.find((e) => e.title === "Talk")!;
    assert.equal(iso(talk.start_datetime), "2026-06-25T16:00:00.000Z");
    const talkFull = await (await call(ctx, "GET", `/api/events/${talk.id}`))
      .json();
    assert.deepEqual(talkFull.online_locations, ["https://meet.example/talk"]);
    // The series: weekly in New York's time, until July 7, June 16 skipped,
    // June 23 moved to 19:00.
    let rows = await imported(ctx);
    const walks = rows.filter((r) => r.parentId !== null);
    assert.deepEqual(
      walks.map((w) => [iso(w.start_datetime), w.status, w.title]),
      [
        ["2026-06-02T22:00:00.000Z", "EventScheduled", "Evening walk"],
        ["2026-06-09T22:00:00.000Z", "EventScheduled", "Evening walk"],
        ["2026-06-16T22:00:00.000Z", "EventCancelled", "Evening walk"],
        [
          "2026-06-23T23:00:00.000Z",
          "EventScheduled",
          "Evening walk (late start)",
        ],
        ["2026-06-30T22:00:00.000Z", "EventScheduled", "Evening walk"],
        ["2026-07-07T22:00:00.000Z", "EventScheduled", "Evening walk"],
      ],
    );

    // Unchanged feed: a conditional GET, 304, nothing written.
    const sourceId = first.source.id;
    const before = rows.length;
    const again = await (await call(
      ctx,
      "POST",
      `/api/sources/${sourceId}/sync`,
      { token: editor.token },
    )).json();
    // An explicit sync reads the whole feed: every item unchanged.
    assert.equal(again.result, "synced");
    assert.equal(again.counts.unchanged, 5);
    assert.equal(again.counts.created + again.counts.updated, 0);
    // The hourly job asks conditionally.
    ctx.clock.advance(3_600_000);
    const jobs = () =>
      runScheduledJobs({
        db: ctx.database.db,
        clock: ctx.clock,
        log: silentLogger,
        media: createDbMediaStore(ctx.database.db, ctx.clock),
        federation: ctx.federation,
        fetching: { allowPrivateAddresses: true, baseUrl: ctx.config.baseUrl },
      });
    const hourly = await jobs();
    assert.equal(hourly.sourcesSynced, 1);
    assert.deepEqual(hourly.failed, []);
    assert.equal(feed.requests.at(-1)!.ifNoneMatch !== null, true);
    const afterHour = await (await call(
      ctx,
      "GET",
      `/api/sources/${sourceId}`,
      { token: editor.token },
    )).json();
    assert.equal(afterHour.last_counts.unchanged, 0);
    assert.equal((await imported(ctx)).length, before);

    // The feed changes: the concert moves, the market is cancelled, the talk
    // disappears, a new event arrives.
    feed.set(calendar(
      CONCERT.replace("T210000", "T200000").replace(
        "Jazz concert",
        "Jazz concert (early)",
      ),
      WALK,
      WALK_EXCEPTION,
      FLOATING.replace("SUMMARY:", "STATUS:CANCELLED\r\nSUMMARY:"),
      vevent(
        "UID:new@feed",
        "DTSTART:20260628T160000Z",
        "SUMMARY:Book swap",
        "LOCATION:Library",
      ),
    ));
    ctx.clock.advance(3_600_000);
    const changed = await jobs();
    assert.equal(changed.sourcesSynced, 1);
    const status = await (await call(
      ctx,
      "GET",
      `/api/sources/${sourceId}`,
      { token: editor.token },
    )).json();
    assert.deepEqual(status.last_counts, {
      created: 1,
      updated: 1,
      cancelled: 2,
      unchanged: 2,
      skipped: 0,
    });
    rows = await imported(ctx);
    const byTitle = (title: string) => rows.find((r) => r.title === title)!;
    assert.equal(
      iso(byTitle("Jazz concert (early)").start_datetime),
      "2026-06-12T18:00:00.000Z",
    );
    assert.equal(byTitle("Jazz concert (early)").id, concert.id);
    assert.equal(byTitle("Farmers market").status, "EventCancelled");
    assert.equal(byTitle("Talk").status, "EventCancelled");
    assert.equal(byTitle("Book swap").status, "EventScheduled");
    assert.equal(
      rows.filter((r) => r.title === "Jazz concert (early)").length,
      1,
    );

    // A sync already running: the second one answers busy.
    const [a, b] = await Promise.all([
      call(ctx, "POST", `/api/sources/${sourceId}/sync`, {
        token: editor.token,
      }),
      call(ctx, "POST", `/api/sources/${sourceId}/sync`, {
        token: editor.token,
      }),
    ]);
    const results = [(await a.json()).result, (await b.json()).result].sort();
    assert.ok(
      results.join() === "busy,synced" || results.join() === "synced,synced",
      results.join(),
    );
    assert.equal((await imported(ctx)).length, rows.length);
  } finally {
    ctx.close();
    await feed.close();
  }
});

Deno.test("sources: a feed that fails is recorded, never a 500; private addresses need the flag; roles and input are checked", async () => {
  const feed = feedServer();
  const open = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  const closed = await createTestApp();
  try {
    const editor = await userWithToken(open, "editor");
    // Not a calendar.
    feed.set("<html>hello</html>");
    const bad = await (await call(open, "POST", "/api/sources", {
      token: editor.token,
      json: { url: feed.url },
    })).json();
    assert.equal(bad.result, "failed");
    assert.match(bad.source.last_error, /not an iCalendar file/);
    // An event without a place and no default place: skipped, said why.
    feed.set(calendar(vevent(
      "UID:x@feed",
      "DTSTART:20260610T100000Z",
      "SUMMARY:Nowhere",
    )));
    const skipped = await (await call(
      open,
      "POST",
      `/api/sources/${bad.source.id}/sync`,
      { token: editor.token },
    )).json();
    assert.equal(skipped.counts.skipped, 1);
    assert.match(skipped.source.last_error, /no LOCATION/);

    // Loopback is refused without ALLOW_PRIVATE_ADDRESSES.
    const admin = await userWithToken(closed, "admin");
    const refused = await (await call(closed, "POST", "/api/sources", {
      token: admin.token,
      json: { url: feed.url },
    })).json();
    assert.equal(refused.result, "failed");
    assert.match(refused.source.last_error, /could not be read/);
    assert.equal(feed.requests.length, 2);

    // Roles: users and OAuth-less anonymous callers are refused.
    const member = await userWithToken(open, "user");
    await expectError(
      await call(open, "GET", "/api/sources", { token: member.token }),
      403,
    );
    await expectError(await call(open, "GET", "/api/sources"), 401);
    await expectError(
      await call(open, "POST", "/api/sources", {
        token: member.token,
        json: { url: feed.url },
      }),
      403,
    );
    // Bad input: 400, nothing written.
    for (
      const body of [
        { url: "ftp://example.org/x.ics" },
        { url: "not a url" },
        { url: "https://user:pw@example.org/x.ics" },
        { url: feed.url, default_place_id: 999 },
        { url: feed.url, surprise: true },
      ]
    ) {
      await expectError(
        await call(open, "POST", "/api/sources", {
          token: editor.token,
          json: body,
        }),
        400,
        "invalid_request",
      );
    }
    const listed = await (await call(open, "GET", "/api/sources", {
      token: editor.token,
    })).json();
    assert.equal(listed.length, 1);
    await expectError(
      await call(open, "POST", "/api/sources/99/sync", {
        token: editor.token,
      }),
      404,
    );
    // Unsubscribing keeps the events as ordinary ones.
    assert.equal(
      (await call(open, "DELETE", `/api/sources/${bad.source.id}`, {
        token: editor.token,
      })).status,
      204,
    );
    assert.equal(
      (await call(open, "GET", "/api/sources", { token: editor.token })).status,
      200,
    );
  } finally {
    open.close();
    closed.close();
    await feed.close();
  }
});

Deno.test("events import: an .ics file's events are created as the caller; the same file again updates instead of duplicating", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const file = calendar(CONCERT, FLOATING);
    const form = new FormData();
    form.append("file", new File([file], "events.ics"));
    const first = await ctx.app.request("/api/events/import", {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}` },
      body: form,
    });
    const outcome = await first.json();
    assert.equal(first.status, 200, JSON.stringify(outcome));
    assert.equal(outcome.counts.created, 2);
    const mine = await (await call(ctx, "GET", "/api/events/mine", {
      token: member.token,
    })).json();
    assert.equal(mine.length ?? mine.events?.length, 2);
    // As text/calendar, changed: one update, one unchanged, no copies.
    const again = await ctx.app.request("/api/events/import", {
      method: "POST",
      headers: {
        authorization: `Bearer ${member.token}`,
        "content-type": "text/calendar",
      },
      body: calendar(CONCERT.replace("Jazz concert", "Jazz night"), FLOATING),
    });
    const second = await again.json();
    assert.equal(again.status, 200, JSON.stringify(second));
    assert.deepEqual(second.counts, {
      created: 0,
      updated: 1,
      cancelled: 0,
      unchanged: 1,
      skipped: 0,
    });
    assert.equal((await imported(ctx)).length, 2);
    // Not a calendar, no file, another type, anonymous.
    await expectError(
      await ctx.app.request("/api/events/import", {
        method: "POST",
        headers: {
          authorization: `Bearer ${member.token}`,
          "content-type": "text/calendar",
        },
        body: "hello",
      }),
      400,
    );
    await expectError(
      await ctx.app.request("/api/events/import", {
        method: "POST",
        headers: {
          authorization: `Bearer ${member.token}`,
          "content-type": "application/json",
        },
        body: "{}",
      }),
      415,
    );
    await expectError(
      await ctx.app.request("/api/events/import", {
        method: "POST",
        headers: { "content-type": "text/calendar" },
        body: file,
      }),
      401,
    );
    assert.equal((await imported(ctx)).length, 2);
  } finally {
    ctx.close();
  }
});

Deno.test("sources: webcal URLs are fetched over https; other schemes and credentials are refused", () => {
  assert.equal(
    feedUrl("webcal://calendar.example.org/a.ics"),
    "https://calendar.example.org/a.ics",
  );
  assert.equal(
    feedUrl(" WEBCALS://calendar.example.org/a.ics"),
    "https://calendar.example.org/a.ics",
  );
  assert.equal(feedUrl("http://example.org/a.ics"), "http://example.org/a.ics");
  for (
    const bad of ["ftp://x/a.ics", "javascript:alert(1)", "https://u:p@x/"]
  ) {
    assert.throws(() => feedUrl(bad), /Invalid source/);
  }
});

Deno.test("ics: hostile rules and zones are refused at once, never looping or filling the memory", async () => {
  const started = performance.now();
  const file = calendar(
    // Never gives a date (ical.js would look for one for ever).
    vevent(
      "UID:loop@x",
      "DTSTART:20260601T100000Z",
      "SUMMARY:Loop",
      "LOCATION:Here",
      "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
    ),
    vevent(
      "UID:daily-loop@x",
      "DTSTART:20260602T100000Z",
      "SUMMARY:Daily loop",
      "LOCATION:Here",
      "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=MO",
    ),
    // A million dates: the series ends after 1,000.
    vevent(
      "UID:count@x",
      "DTSTART:20260601T100000Z",
      "SUMMARY:Count",
      "LOCATION:Here",
      "RRULE:FREQ=DAILY;COUNT=1000000",
    ),
    vevent(
      "UID:exdates@x",
      "DTSTART:20260601T100000Z",
      "SUMMARY:Exdates",
      "LOCATION:Here",
      "RRULE:FREQ=WEEKLY",
      ...Array.from(
        { length: 1001 },
        (_, i) =>
          `EXDATE:${
            new Date(Date.UTC(2026, 5, 1 + 7 * i, 10)).toISOString()
              .replace(/[-:]/g, "").slice(0, 15)
          }Z`,
      ),
    ),
  ).replace(
    // A zone that changes every hour since 1970.
    "END:VTIMEZONE",
    [
      "END:VTIMEZONE",
      "BEGIN:VTIMEZONE",
      "TZID:Hourly",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "TZOFFSETFROM:+0000",
      "TZOFFSETTO:+0100",
      "RRULE:FREQ=HOURLY",
      "END:STANDARD",
      "END:VTIMEZONE",
    ].join("\r\n"),
  ) + "";
  const withZone = file.replace(
    "END:VCALENDAR",
    vevent(
      "UID:zone@x",
      "DTSTART;TZID=Hourly:20300101T100000",
      "SUMMARY:Zone",
      "LOCATION:Here",
    ) + "\r\nEND:VCALENDAR",
  );
  const reading = await readIcs(withZone, "UTC");
  assert.ok(performance.now() - started < 5_000, "took too long");
  const problems = reading.problems.join("\n");
  assert.match(problems, /loop@x: its rule \(SECONDLY/);
  assert.match(problems, /daily-loop@x: its rule never gives a date/);
  assert.match(problems, /exdates@x: more than 1000 EXDATE values/);
  assert.match(problems, /time zone Hourly: its changes are not yearly/);
  const count = reading.items.find((i) => i.uid === "count@x")!;
  assert.equal(iso(count.until!), "2029-02-24T10:00:00.000Z");
  // The zone is ignored, the time read in the instance's zone.
  const zoned = reading.items.find((i) => i.uid === "zone@x")!;
  assert.equal(iso(zoned.start), "2030-01-01T10:00:00.000Z");
});

Deno.test("events import: at most 20 files an hour per user (429 with Retry-After); images fetched at most 50 per run", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const send = () =>
      ctx.app.request("/api/events/import", {
        method: "POST",
        headers: {
          authorization: `Bearer ${member.token}`,
          "content-type": "text/calendar",
        },
        body: calendar(CONCERT),
      });
    for (let i = 0; i < 20; i++) {
      const res = await send();
      assert.equal(res.status, 200, await res.text());
    }
    const refused = await send();
    await expectError(refused, 429, "rate_limited");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal((await imported(ctx)).length, 1);
  } finally {
    ctx.close();
  }
  // The image cap: 60 events with an image each, fetched by one run.
  const images = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(png(2, 2), { headers: { "content-type": "image/png" } }),
  );
  const open = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  try {
    const member = await userWithToken(open, "user");
    const file = calendar(
      ...Array.from({ length: 60 }, (_, i) =>
        vevent(
          `UID:img${i}@x`,
          `DTSTART:202607${String(1 + (i % 28)).padStart(2, "0")}T100000Z`,
          `SUMMARY:Poster ${i}`,
          "LOCATION:Hall",
          `IMAGE;VALUE=URI:http://127.0.0.1:${images.addr.port}/${i}.png`,
        )),
    );
    const outcome = await (await open.app.request("/api/events/import", {
      method: "POST",
      headers: {
        authorization: `Bearer ${member.token}`,
        "content-type": "text/calendar",
      },
      body: file,
    })).json();
    assert.equal(outcome.counts.created, 60);
    const left = outcome.problems.filter((p: string) =>
      /image left for the next run/.test(p)
    );
    assert.equal(left.length, 10);
    assert.equal(await countRows(open, "media_files"), 50);
  } finally {
    open.close();
    await images.shutdown();
  }
});

Deno.test("GET /api/sources and /admin/sources are paged: oldest first, pageSize up to 200 (50 by default); bad paging is a 400", async () => {
  const ctx = await createTestApp();
  try {
    const { user, token } = await userWithToken(ctx, "editor");
    const at = ctx.clock.now();
    const rows = Array.from({ length: 55 }, (_, i) => ({
      url: `https://calendars.example/${i + 1}.ics`,
      name: `Calendar ${i + 1}`,
      userId: user.id,
      createdAt: at,
      updatedAt: at,
    }));
    await ctx.database.db.insert(sources).values(rows);
    const names = async (query: string) => {
      const res = await call(ctx, "GET", `/api/sources${query}`, { token });
      const body = await res.text();
      assert.equal(res.status, 200, body);
      return (JSON.parse(body) as { name: string }[]).map((s) => s.name);
    };
    const first = await names("");
    assert.equal(first.length, 50);
    assert.equal(first[0], "Calendar 1");
    assert.deepEqual(await names("?page=2"), [
      "Calendar 51",
      "Calendar 52",
      "Calendar 53",
      "Calendar 54",
      "Calendar 55",
    ]);
    assert.deepEqual(await names("?pageSize=2&page=3"), [
      "Calendar 5",
      "Calendar 6",
    ]);
    assert.equal((await names("?pageSize=200")).length, 55);
    for (
      const query of ["?pageSize=201", "?pageSize=0", "?page=0", "?page=x"]
    ) {
      await expectError(
        await call(ctx, "GET", `/api/sources${query}`, { token }),
        400,
        "invalid_request",
      );
    }
  } finally {
    ctx.close();
  }
});
