/**
 * Feeds (ICS, RSS, Atom, JSON Feed): what is served is parsed with
 * independent parsers (ical.js, fast-xml-parser, JSON), never string-matched.
 */
import assert from "node:assert/strict";
import ICAL from "ical.js";
import { XMLParser } from "fast-xml-parser";
import { SaxesParser } from "saxes";
import { apUsers } from "../db/schema.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import {
  call,
  createTestApp,
  expectError,
  loginToken,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { png } from "./images.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const HOUR = 3600;
const DAY = 24 * HOUR;
const HOST = "quando.test";
const BASE = `http://${HOST}`;

type Json = Record<string, unknown>;
type Who = { token: string };

async function expectStatus(res: Response, status: number) {
  const text = await res.text();
  assert.equal(res.status, status, `${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

function createEvent(
  ctx: TestContext,
  who: Who,
  fields: Json,
): Promise<Json> {
  return postEvent(ctx, who.token, fields);
}

async function setSettings(ctx: TestContext, admin: Who, settings: Json) {
  await expectStatus(
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: settings,
    }),
    200,
  );
}

async function fetchText(
  ctx: TestContext,
  path: string,
  contentType?: string,
): Promise<string> {
  const res = await call(ctx, "GET", path);
  const text = await res.text();
  assert.equal(res.status, 200, `${path}: ${text}`);
  if (contentType) assert.equal(res.headers.get("content-type"), contentType);
  return text;
}

// ---------------------------------------------------------------- iCalendar

function parseIcs(text: string): ICAL.Component {
  return new ICAL.Component(ICAL.parse(text));
}

function vevents(cal: ICAL.Component): ICAL.Component[] {
  return cal.getAllSubcomponents("vevent");
}

function prop(c: ICAL.Component, name: string): unknown {
  return c.getFirstPropertyValue(name);
}

function timeOf(c: ICAL.Component, name: string): number {
  return (c.getFirstPropertyValue(name) as ICAL.Time).toUnixTime();
}

/** X- and RFC 7986 properties are unknown to ical.js: decode them as TEXT. */
function textProp(c: ICAL.Component, name: string): string {
  return ICAL.design.icalendar.value.text.fromICAL(String(prop(c, name)));
}

function uids(cal: ICAL.Component): string[] {
  return vevents(cal).map((v) => String(prop(v, "uid"))).sort();
}

/** The master VEVENT of a UID (the one without RECURRENCE-ID). */
function master(cal: ICAL.Component, uid: string): ICAL.Component {
  const found = vevents(cal).filter((v) =>
    prop(v, "uid") === uid && !v.hasProperty("recurrence-id")
  );
  assert.equal(found.length, 1, `one master VEVENT for ${uid}`);
  return found[0];
}

function overridesOf(cal: ICAL.Component, uid: string): ICAL.Component[] {
  return vevents(cal).filter((v) =>
    prop(v, "uid") === uid && v.hasProperty("recurrence-id")
  );
}

/** Starts (Unix seconds) of a series' occurrences up to `until`, overrides applied. */
function expand(cal: ICAL.Component, uid: string, until: number): number[] {
  const event = new ICAL.Event(master(cal, uid), {
    strictExceptions: true,
    exceptions: overridesOf(cal, uid),
  });
  const out: number[] = [];
  const it = event.iterator();
  for (let next = it.next(); next; next = it.next()) {
    if (next.toUnixTime() > until) break;
    out.push(event.getOccurrenceDetails(next).startDate.toUnixTime());
  }
  return out.sort((a, b) => a - b);
}

function exdates(vevent: ICAL.Component): number[] {
  return vevent.getAllProperties("exdate").flatMap((p) =>
    p.getValues().map((t) => (t as ICAL.Time).toUnixTime())
  ).sort((a, b) => a - b);
}

function localHour(unix: number, timeZone: string): number {
  return Number(
    new Intl.DateTimeFormat("en-GB", {
      timeZone,
      hour: "numeric",
      hourCycle: "h23",
    }).format(new Date(unix * 1000)),
  );
}

function utcOffsetHours(unix: number, timeZone: string): number {
  return (localHour(unix, timeZone) - new Date(unix * 1000).getUTCHours() +
    24) % 24;
}

/** The occurrences GET /api/events/{id} lists for a series, starts ascending. */
async function childStarts(ctx: TestContext, parentId: unknown) {
  const body = await expectStatus(
    await call(ctx, "GET", `/api/events/${parentId}`),
    200,
  );
  return (body.children as Json[]);
}

Deno.test("ICS feed: one VEVENT per event with stable UIDs and every documented property", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await setSettings(ctx, admin, { instance_title: "Città, eventi; tutti" });
    const a = await createEvent(ctx, admin, {
      title: "Jazz night",
      description: "<p>Bring <b>friends</b> &amp; family</p>",
      tags: ["Jazz", "Live music"],
      place_name: "Circolo",
      place_address: "Via Roma 1, Torino",
      place_latitude: 45.07,
      place_longitude: 7.68,
    });
    const b = await createEvent(ctx, admin, {
      title: "Online talk",
      start_datetime: NOW + 2 * DAY,
      place_name: undefined,
      place_address: undefined,
      online_locations: ["https://stream.example/talk"],
      end_datetime: null,
    });

    const res = await call(ctx, "GET", "/feed/ics");
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      "text/calendar; charset=utf-8",
    );
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const first = parseIcs(await res.text());
    const second = parseIcs(await fetchText(ctx, "/feed/ics"));
    assert.deepEqual(uids(first), [`${a.id}@${HOST}`, `${b.id}@${HOST}`]);
    assert.deepEqual(uids(second), uids(first));
    assert.equal(textProp(first, "x-wr-calname"), "Città, eventi; tutti");
    assert.equal(prop(first, "version"), "2.0");

    const va = master(first, `${a.id}@${HOST}`);
    assert.equal(prop(va, "summary"), "Jazz night");
    assert.equal(timeOf(va, "dtstart"), a.start_datetime);
    assert.equal(timeOf(va, "dtend"), a.end_datetime);
    assert.equal(
      timeOf(va, "dtstamp"),
      Date.parse(a.updatedAt as string) / 1000,
    );
    assert.equal(
      timeOf(va, "last-modified"),
      Date.parse(a.updatedAt as string) / 1000,
    );
    assert.equal(prop(va, "sequence"), 0);
    assert.equal(prop(va, "status"), "CONFIRMED");
    assert.equal(prop(va, "url"), `${BASE}/event/${a.slug}`);
    assert.deepEqual(
      va.getAllProperties("categories").flatMap((p) => p.getValues()),
      ["Jazz", "Live music"],
    );
    assert.equal(prop(va, "location"), "Circolo\nVia Roma 1, Torino");
    assert.deepEqual(prop(va, "geo"), [45.07, 7.68]);
    assert.equal(prop(va, "description"), "Bring friends & family");

    const vb = master(first, `${b.id}@${HOST}`);
    assert.equal(prop(vb, "location"), "https://stream.example/talk");
    assert.ok(
      String(prop(vb, "description")).includes("https://stream.example/talk"),
    );
    assert.equal(vb.hasProperty("dtend"), false);
  } finally {
    ctx.close();
  }
});

Deno.test("ICS: a weekly series is one VEVENT whose expansion equals the API's occurrences across a DST change", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const tz = "Europe/Rome";
    await setSettings(ctx, admin, { instance_timezone: tz });
    // Thursdays 19:00 in Rome from 8 October 2026; DST ends on 25 October.
    const start = Date.parse("2026-10-08T17:00:00Z") / 1000;
    const series = await createEvent(ctx, admin, {
      title: "Weekly jam",
      start_datetime: start,
      end_datetime: start + 2 * HOUR,
      tags: ["Jazz"],
      recurrent: { frequency: "1w" },
    });
    const uid = `${series.id}@${HOST}`;
    const children = await childStarts(ctx, series.id);
    assert.ok(children.length >= 5, JSON.stringify(children));
    const apiStarts = children.map((c) => c.start_datetime as number);
    const last = apiStarts.at(-1)!;

    let cal = parseIcs(await fetchText(ctx, "/feed/ics"));
    // One VEVENT for the series, none for its occurrences.
    assert.deepEqual(uids(cal), [uid]);
    const m = master(cal, uid);
    assert.equal(m.getFirstProperty("dtstart")!.getParameter("tzid"), tz);
    assert.equal(cal.getAllSubcomponents("vtimezone").length, 1);
    const rule = prop(m, "rrule") as ICAL.Recur;
    assert.equal(rule.freq, "WEEKLY");
    assert.deepEqual(expand(cal, uid, last), apiStarts);
    // The series crosses the change: same wall-clock time, two UTC offsets.
    assert.ok(apiStarts.every((s) => localHour(s, tz) === 19));
    assert.deepEqual(
      [...new Set(apiStarts.map((s) => utcOffsetHours(s, tz)))].sort(),
      [1, 2],
    );

    // Hide one occurrence, delete one, cancel one, move one on its own.
    const [, hidden, deleted, cancelled, moved] = children;
    await expectStatus(
      await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, {
        token: admin.token,
      }),
      200,
    );
    await expectStatus(
      await call(ctx, "DELETE", `/api/events/${deleted.id}`, {
        token: admin.token,
      }),
      204,
    );
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${cancelled.id}`, {
        token: admin.token,
        json: { status: "EventCancelled" },
      }),
      200,
    );
    const movedStart = (moved.start_datetime as number) + HOUR;
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${moved.id}`, {
        token: admin.token,
        json: {
          title: "Weekly jam (late)",
          start_datetime: movedStart,
          end_datetime: movedStart + 2 * HOUR,
        },
      }),
      200,
    );

    cal = parseIcs(await fetchText(ctx, "/feed/ics"));
    assert.deepEqual([...new Set(uids(cal))], [uid]);
    const after = master(cal, uid);
    const skipped = [hidden, deleted, cancelled].map(
      (c) => c.start_datetime as number,
    ).sort((x, y) => x - y);
    assert.deepEqual(exdates(after), skipped);
    const exceptions = overridesOf(cal, uid);
    assert.equal(exceptions.length, 1);
    assert.equal(timeOf(exceptions[0], "recurrence-id"), moved.start_datetime);
    assert.equal(timeOf(exceptions[0], "dtstart"), movedStart);
    assert.equal(prop(exceptions[0], "summary"), "Weekly jam (late)");

    // What the API lists now (visible occurrences, the cancelled one aside).
    const listed = (await childStarts(ctx, series.id))
      .filter((c) => c.status !== "EventCancelled")
      .map((c) => c.start_datetime as number);
    const expansion = expand(cal, uid, last);
    assert.deepEqual(expansion, listed);
    for (const s of skipped) assert.ok(!expansion.includes(s));
    assert.ok(expansion.includes(movedStart));
  } finally {
    ctx.close();
  }
});

Deno.test("ICS: monthly series by n-th and last weekday expand like the API in a DST zone", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const tz = "America/New_York";
    await setSettings(ctx, admin, { instance_timezone: tz });
    // 2nd Tuesday (13 Oct 2026, 18:30 EDT) and last Friday (30 Oct 2026, 20:00 EDT);
    // DST ends on 1 November in New York.
    const cases = [
      {
        type: "2",
        start: Date.parse("2026-10-13T22:30:00Z") / 1000,
        byDay: "2TU",
      },
      {
        type: "-1",
        start: Date.parse("2026-10-31T00:00:00Z") / 1000,
        byDay: "-1FR",
      },
      {
        type: "ordinal",
        start: Date.parse("2026-10-15T16:00:00Z") / 1000,
        byDay: null,
      },
    ];
    for (const c of cases) {
      const series = await createEvent(ctx, admin, {
        title: `Monthly ${c.type}`,
        start_datetime: c.start,
        recurrent: { frequency: "1m", type: c.type },
      });
      const uid = `${series.id}@${HOST}`;
      const apiStarts = (await childStarts(ctx, series.id)).map(
        (x) => x.start_datetime as number,
      );
      assert.ok(apiStarts.length >= 4);
      const cal = parseIcs(
        await fetchText(
          ctx,
          `/api/events/${series.id}.ics`,
          "text/calendar; charset=utf-8",
        ),
      );
      const rule = prop(master(cal, uid), "rrule") as ICAL.Recur;
      assert.equal(rule.freq, "MONTHLY");
      if (c.byDay) assert.deepEqual(rule.parts.BYDAY, [c.byDay]);
      else assert.deepEqual(rule.parts.BYMONTHDAY, [15]);
      assert.deepEqual(expand(cal, uid, apiStarts.at(-1)!), apiStarts);
      assert.equal(
        new Set(apiStarts.map((s) => localHour(s, tz))).size,
        1,
        "same wall-clock hour all year",
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("ICS: STATUS follows the event status and SEQUENCE increases on each update", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const event = await createEvent(ctx, admin, { title: "Concert" });
    const path = `/api/events/${event.id}.ics`;
    const read = async () =>
      master(parseIcs(await fetchText(ctx, path)), `${event.id}@${HOST}`);

    let v = await read();
    assert.equal(prop(v, "sequence"), 0);
    assert.equal(prop(v, "status"), "CONFIRMED");

    await expectStatus(
      await call(ctx, "PUT", `/api/events/${event.id}`, {
        token: admin.token,
        json: {
          title: "Concert (new hall)",
          start_datetime: event.start_datetime,
        },
      }),
      200,
    );
    v = await read();
    assert.equal(prop(v, "sequence"), 1);
    assert.equal(prop(v, "summary"), "Concert (new hall)");

    const statuses: [string, string][] = [
      ["EventCancelled", "CANCELLED"],
      ["EventPostponed", "TENTATIVE"],
      ["EventRescheduled", "CONFIRMED"],
      ["EventMovedOnline", "CONFIRMED"],
      ["EventScheduled", "CONFIRMED"],
    ];
    let sequence = 1;
    for (const [status, ical] of statuses) {
      await expectStatus(
        await call(ctx, "PATCH", `/api/events/${event.id}`, {
          token: admin.token,
          json: { status },
        }),
        200,
      );
      v = await read();
      assert.equal(prop(v, "status"), ical, status);
      assert.equal(prop(v, "sequence"), ++sequence);
    }

    // The feed says the same as the single-event file.
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${event.id}`, {
        token: admin.token,
        json: { status: "EventCancelled" },
      }),
      200,
    );
    const feed = parseIcs(await fetchText(ctx, "/feed/ics"));
    assert.equal(
      prop(master(feed, `${event.id}@${HOST}`), "status"),
      "CANCELLED",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("single-event ICS: by slug and by id; an occurrence alone, a template as its series; 404 for hidden and unknown", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const event = await createEvent(ctx, admin, { title: "Book fair" });
    for (
      const path of [`/event/${event.slug}.ics`, `/api/events/${event.id}.ics`]
    ) {
      const res = await call(ctx, "GET", path);
      assert.equal(res.status, 200, path);
      assert.equal(
        res.headers.get("content-type"),
        "text/calendar; charset=utf-8",
      );
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      const cal = parseIcs(await res.text());
      assert.deepEqual(uids(cal), [`${event.id}@${HOST}`]);
      assert.equal(textProp(cal, "x-wr-calname"), "Book fair");
    }

    const series = await createEvent(ctx, admin, {
      title: "Reading group",
      start_datetime: NOW + 3 * DAY,
      recurrent: { frequency: "2w" },
    });
    const [child] = await childStarts(ctx, series.id);
    let cal = parseIcs(await fetchText(ctx, `/event/${child.slug}.ics`));
    assert.deepEqual(uids(cal), [`${child.id}@${HOST}`]);
    assert.equal(timeOf(vevents(cal)[0], "dtstart"), child.start_datetime);
    assert.equal(vevents(cal)[0].hasProperty("rrule"), false);
    cal = parseIcs(await fetchText(ctx, `/event/${series.slug}.ics`));
    assert.deepEqual(uids(cal), [`${series.id}@${HOST}`]);
    assert.equal(
      (prop(master(cal, `${series.id}@${HOST}`), "rrule") as ICAL.Recur)
        .interval,
      2,
    );

    await expectStatus(
      await call(ctx, "PUT", `/api/events/${event.id}/toggle`, {
        token: admin.token,
      }),
      200,
    );
    // Hidden: 404 for everyone (even the owner: these are public URLs).
    await expectError(
      await call(ctx, "GET", `/event/${event.slug}.ics`),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "GET", `/api/events/${event.id}.ics`, {
        token: admin.token,
      }),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "GET", "/event/no-such-event.ics"),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "GET", "/api/events/999999.ics"),
      404,
      "not_found",
    );
    // The JSON endpoint for the id is still the JSON endpoint.
    const plain = await call(ctx, "GET", `/api/events/${series.id}`);
    assert.equal(plain.status, 200);
    assert.match(plain.headers.get("content-type") ?? "", /application\/json/);
    await plain.body?.cancel();
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------------ RSS, Atom, JSON

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
});
const asArray = <T>(v: T | T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

async function uploadImage(ctx: TestContext, who: Who): Promise<string> {
  const form = new FormData();
  form.append("file", new File([png(800, 600)], "poster.png"));
  const res = await ctx.app.request("/api/media", {
    method: "POST",
    headers: { authorization: `Bearer ${who.token}` },
    body: form,
  });
  const body = await expectStatus(res, 201);
  return body.url as string;
}

/** A little instance: two visible events (one with an image) and a hidden one. */
async function smallWorld(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  await setSettings(ctx, admin, {
    instance_title: "Quando Torino",
    instance_timezone: "Europe/Rome",
    instance_locale: "it",
  });
  const image = await uploadImage(ctx, admin);
  const jazz = await createEvent(ctx, admin, {
    title: "Jazz & wine",
    description: "<p>A <em>warm</em> evening</p>",
    tags: ["Jazz", "Wine"],
    media: [{ url: image, name: "The poster" }],
  });
  const talk = await createEvent(ctx, admin, {
    title: "Talk",
    start_datetime: NOW + 2 * DAY,
    tags: ["Books"],
    place_name: "Biblioteca",
    place_address: "Via Po 2",
  });
  const hidden = await createEvent(ctx, admin, {
    title: "Secret",
    start_datetime: NOW + 3 * DAY,
    tags: ["Jazz"],
    is_visible: false,
  });
  return { admin, image, jazz, talk, hidden };
}

Deno.test("RSS 2.0 and Atom 1.0: titles, items, links, categories, image enclosure", async () => {
  const ctx = await createTestApp();
  try {
    const { image, jazz, talk } = await smallWorld(ctx);
    const imageUrl = `${BASE}/media/${image}`;

    const rss = xml.parse(
      await fetchText(ctx, "/feed/rss", "application/rss+xml; charset=utf-8"),
    );
    assert.equal(rss.rss["@version"], "2.0");
    const channel = rss.rss.channel;
    assert.equal(channel.title, "Quando Torino");
    assert.equal(channel.link, `${BASE}/`);
    const items = asArray(channel.item) as Json[];
    assert.deepEqual(items.map((i) => i.title), ["Jazz & wine", "Talk"]);
    assert.deepEqual(items.map((i) => i.link), [
      `${BASE}/event/${jazz.slug}`,
      `${BASE}/event/${talk.slug}`,
    ]);
    assert.deepEqual(asArray(items[0].category), ["Jazz", "Wine"]);
    const enclosure = items[0].enclosure as Json;
    assert.equal(enclosure["@url"], imageUrl);
    assert.equal(enclosure["@type"], "image/png");
    assert.equal(items[1].enclosure, undefined);
    assert.ok(
      !Number.isNaN(Date.parse(items[0].pubDate as string)),
      "pubDate is a date",
    );
    // Date, time and place in words, in the instance's locale and zone.
    const words = String(items[0].description);
    assert.ok(words.includes("Circolo"), words);
    assert.ok(words.includes("giugno"), words);
    assert.ok(String(items[0]["content:encoded"]).includes("<em>warm</em>"));

    const atom = xml.parse(
      await fetchText(ctx, "/feed/atom", "application/atom+xml; charset=utf-8"),
    );
    const feed = atom.feed;
    assert.equal(feed["@xmlns"], "http://www.w3.org/2005/Atom");
    assert.equal(feed.title, "Quando Torino");
    const entries = asArray(feed.entry) as Json[];
    assert.equal(entries.length, 2);
    assert.deepEqual(entries.map((e) => e.id), [
      `${BASE}/event/${jazz.slug}`,
      `${BASE}/event/${talk.slug}`,
    ]);
    const links = asArray(entries[0].link) as Json[];
    assert.ok(
      links.some((l) =>
        l["@href"] === `${BASE}/event/${jazz.slug}` && !l["@rel"]
      ),
    );
    assert.ok(
      links.some((l) => l["@rel"] === "enclosure" && l["@href"] === imageUrl),
    );
    assert.deepEqual(
      asArray(entries[0].category).map((c) => (c as Json)["@term"]),
      ["Jazz", "Wine"],
    );
    assert.ok(!Number.isNaN(Date.parse(entries[0].published as string)));
    assert.ok(!Number.isNaN(Date.parse(entries[0].updated as string)));
  } finally {
    ctx.close();
  }
});

Deno.test("JSON Feed 1.1: required and documented fields", async () => {
  const ctx = await createTestApp();
  try {
    const { image, jazz, talk } = await smallWorld(ctx);
    const res = await call(ctx, "GET", "/feed/json");
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      "application/feed+json; charset=utf-8",
    );
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const doc = await res.json();
    assert.equal(doc.version, "https://jsonfeed.org/version/1.1");
    assert.equal(doc.title, "Quando Torino");
    assert.equal(doc.home_page_url, `${BASE}/`);
    assert.equal(doc.feed_url, `${BASE}/feed/json`);
    assert.equal(doc.language, "it");
    assert.equal(doc.items.length, 2);
    const [a, b] = doc.items;
    assert.equal(a.id, `${BASE}/event/${jazz.slug}`);
    assert.equal(a.url, `${BASE}/event/${jazz.slug}`);
    assert.equal(a.title, "Jazz & wine");
    assert.equal(typeof a.content_html, "string");
    assert.ok(a.content_html.includes("<em>warm</em>"));
    assert.equal(
      new Date(a.date_published).toISOString(),
      jazz.createdAt,
    );
    assert.deepEqual(a.tags, ["Jazz", "Wine"]);
    assert.equal(a.image, `${BASE}/media/${image}`);
    assert.equal(b.id, `${BASE}/event/${talk.slug}`);
    assert.equal(b.image, undefined);
    for (const item of doc.items) assert.equal(typeof item.id, "string");

    // Scripts that send their own If-None-Match get through the preflight.
    const preflight = await call(ctx, "OPTIONS", "/feed/json", {
      headers: {
        origin: "https://reader.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.match(
      preflight.headers.get("access-control-allow-headers") ?? "",
      /If-None-Match/i,
    );
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------- hostile content

/** An element of a document read by a conforming (strict) XML parser. */
interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/**
 * Parses with saxes, which enforces XML 1.0 well-formedness (fast-xml-parser's
 * validator lets `<` in attribute values and control characters through).
 */
function parseStrictXml(text: string, label: string): XmlNode {
  const parser = new SaxesParser();
  const errors: string[] = [];
  const document: XmlNode = {
    name: "#document",
    attributes: {},
    children: [],
    text: "",
  };
  const open = [document];
  parser.on("error", (err) => errors.push(err.message));
  parser.on("opentag", (tag) => {
    const node: XmlNode = {
      name: tag.name,
      attributes: { ...tag.attributes } as Record<string, string>,
      children: [],
      text: "",
    };
    open[open.length - 1].children.push(node);
    open.push(node);
  });
  parser.on("closetag", () => open.pop());
  parser.on("text", (t) => open[open.length - 1].text += t);
  parser.on("cdata", (t) => open[open.length - 1].text += t);
  parser.write(text).close();
  assert.deepEqual(errors, [], `${label} is not well-formed XML`);
  assert.equal(document.children.length, 1, label);
  return document.children[0];
}

function xmlChildren(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((c) => c.name === name);
}

function xmlChild(node: XmlNode, name: string): XmlNode {
  const [found] = xmlChildren(node, name);
  assert.ok(found, `<${node.name}> has no <${name}>`);
  return found;
}

/** Text of an Atom text construct as a reader shows it (RFC 4287 3.1). */
function atomText(node: XmlNode): string {
  assert.notEqual(
    node.attributes.type,
    "xhtml",
    `${node.name} is not plain text`,
  );
  if (node.attributes.type !== "html") return node.text;
  // Escaped HTML: it must hold no markup, only character references.
  assert.ok(!node.text.includes("<"), `${node.name} carries markup`);
  return node.text.replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

/** Characters XML 1.0 cannot carry (ICS forbids them in TEXT too). */
// deno-lint-ignore no-control-regex -- these are what the test looks for
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const HOSTILE = {
  instance: `Q <&> "]]>" &amp; 'x'`,
  title: `Fest ]]> <b>bold</b> & &amp; &lt; "q" 'a' ]]> \\;, end`,
  // Not ending in a backslash: ical.js splits `\\,` (an escaped backslash,
  // then the separator) as an escaped comma, though RFC 5545 says otherwise.
  tags: ["t]]><x>", `a &amp; <b>"q"</b>`, "semi;colon,back\\slash"],
  placeName: "P]]><p>&lt;",
  placeAddress: `1 <Main> & "St" ]]>`,
  description:
    `<p>x ]]> y &lt;z&gt; <em>ok</em> & "q"</p><script>alert(1)</script><p>]]&gt;</p>`,
  imageName: `<img src=x onerror=alert(1)> & "poster" ]]>`,
};

Deno.test("feeds stay well-formed with hostile titles, tags, places, descriptions and names, which come back as text", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await setSettings(ctx, admin, {
      instance_title: HOSTILE.instance,
      instance_description: HOSTILE.instance,
    });
    const image = await uploadImage(ctx, admin);
    const event = await createEvent(ctx, admin, {
      title: HOSTILE.title,
      description: HOSTILE.description,
      tags: HOSTILE.tags,
      place_name: HOSTILE.placeName,
      place_address: HOSTILE.placeAddress,
      media: [{ url: image, name: HOSTILE.imageName }],
    });
    // Control characters cannot be carried by XML: they are left out there.
    const bell = await createEvent(ctx, admin, {
      title: "Bell\u0007 and\u000b tab\tend",
      start_datetime: NOW + 2 * DAY,
      tags: ["t]]><x>"],
      place_name: HOSTILE.placeName,
      place_address: HOSTILE.placeAddress,
    });
    const bellTitle = "Bell and tab\tend";
    // What the API stores is what the feeds must carry.
    const stored = await expectStatus(
      await call(ctx, "GET", `/api/events/${event.id}`),
      200,
    );
    assert.equal(stored.title, HOSTILE.title);
    const description = stored.description as string;
    assert.ok(description.includes("<em>ok</em>"), description);
    assert.ok(!description.includes("<script"), description);
    const placeId = (stored.place as Json).id;
    // Tags come in the API's order (normalised), every spelling kept.
    const tags = (stored.tags as Json[]).map((t) => t.tag);
    assert.deepEqual([...tags].sort(), [...HOSTILE.tags].sort());
    const tagPath = `/tag/${encodeURIComponent(HOSTILE.tags[0])}`;
    const placeWords = `${HOSTILE.placeName}, ${HOSTILE.placeAddress}`;
    const escapedPlace = placeWords.replace(/&/g, "&amp;")
      .replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");

    for (
      const [scope, feedTitle] of [
        ["", HOSTILE.instance],
        [tagPath, `${HOSTILE.instance} — #${HOSTILE.tags[0]}`],
        [`/place/${placeId}`, `${HOSTILE.instance} — ${HOSTILE.placeName}`],
      ]
    ) {
      // RSS 2.0: titles and categories are text; description and
      // content:encoded are HTML.
      const rssText = await fetchText(ctx, `/feed/rss${scope}`);
      assert.ok(!CONTROL.test(rssText), `control character in RSS ${scope}`);
      const rss = parseStrictXml(rssText, `RSS ${scope}`);
      const channel = xmlChild(rss, "channel");
      assert.equal(xmlChild(channel, "title").text, feedTitle);
      const items = xmlChildren(channel, "item");
      assert.deepEqual(
        items.map((i) => xmlChild(i, "title").text),
        [HOSTILE.title, bellTitle],
      );
      assert.deepEqual(
        xmlChildren(items[0], "category").map((c) => c.text),
        tags,
      );
      assert.ok(
        xmlChild(items[0], "description").text.includes(escapedPlace),
        xmlChild(items[0], "description").text,
      );
      assert.ok(
        xmlChild(items[0], "content:encoded").text.includes(description),
      );

      // Atom 1.0: every text construct reads back as the original text.
      const atomText_ = await fetchText(ctx, `/feed/atom${scope}`);
      assert.ok(!CONTROL.test(atomText_), `control character in Atom ${scope}`);
      const atom = parseStrictXml(atomText_, `Atom ${scope}`);
      assert.equal(atomText(xmlChild(atom, "title")), feedTitle);
      const entries = xmlChildren(atom, "entry");
      assert.deepEqual(
        entries.map((e) => atomText(xmlChild(e, "title"))),
        [HOSTILE.title, bellTitle],
      );
      const categories = xmlChildren(entries[0], "category");
      assert.deepEqual(categories.map((c) => c.attributes.term), tags);
      assert.deepEqual(categories.map((c) => c.attributes.label), tags);
      assert.ok(
        atomText(xmlChild(entries[0], "summary")).includes(placeWords),
      );
      assert.equal(xmlChild(entries[0], "content").attributes.type, "html");
      assert.ok(xmlChild(entries[0], "content").text.includes(description));
      const enclosure = xmlChildren(entries[0], "link").find((l) =>
        l.attributes.rel === "enclosure"
      );
      assert.equal(enclosure?.attributes.title, HOSTILE.imageName);

      // JSON Feed: title, tags and summary are plain text.
      const json = JSON.parse(await fetchText(ctx, `/feed/json${scope}`));
      assert.equal(json.title, feedTitle);
      assert.deepEqual(
        json.items.map((i: Json) => i.title),
        [HOSTILE.title, "Bell\u0007 and\u000b tab\tend"],
      );
      assert.deepEqual(json.items[0].tags, tags);
      assert.ok(json.items[0].summary.includes(placeWords));
      assert.ok(json.items[0].content_html.includes(description));

      // iCalendar: the same strings, TEXT-escaped.
      const ics = parseIcs(await fetchText(ctx, `/feed/ics${scope}`));
      assert.equal(textProp(ics, "x-wr-calname"), feedTitle);
      const byUid = new Map(
        vevents(ics).map((v) => [String(prop(v, "uid")), v]),
      );
      const vevent = byUid.get(`${event.id}@${HOST}`)!;
      assert.equal(prop(vevent, "summary"), HOSTILE.title);
      assert.deepEqual(
        vevent.getAllProperties("categories").flatMap((p) => p.getValues()),
        tags,
      );
      assert.equal(
        prop(vevent, "location"),
        `${HOSTILE.placeName}\n${HOSTILE.placeAddress}`,
      );
      assert.ok(
        !CONTROL.test(
          String(prop(byUid.get(`${bell.id}@${HOST}`)!, "summary")),
        ),
      );
    }
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------- conditional requests

Deno.test("conditional GET: 304 on a matching If-None-Match or If-Modified-Since, 200 after a change", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const event = await createEvent(ctx, admin, { title: "Market" });
    for (const format of ["ics", "rss", "atom", "json"]) {
      const path = `/feed/${format}`;
      const first = await call(ctx, "GET", path);
      assert.equal(first.status, 200);
      await first.body?.cancel();
      const etag = first.headers.get("etag")!;
      const lastModified = first.headers.get("last-modified")!;
      assert.match(etag, /^"[^"]+"$/);
      assert.ok(!Number.isNaN(Date.parse(lastModified)));

      const again = await call(ctx, "GET", path, {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304, format);
      assert.equal(await again.text(), "");
      assert.equal(again.headers.get("etag"), etag);

      const weak = await call(ctx, "GET", path, {
        headers: { "if-none-match": `"other", W/${etag}` },
      });
      assert.equal(weak.status, 304);
      await weak.body?.cancel();

      const since = await call(ctx, "GET", path, {
        headers: { "if-modified-since": lastModified },
      });
      assert.equal(since.status, 304);
      await since.body?.cancel();

      const stale = await call(ctx, "GET", path, {
        headers: { "if-none-match": '"something-else"' },
      });
      assert.equal(stale.status, 200);
      await stale.body?.cancel();
    }

    const before = await call(ctx, "GET", "/feed/ics");
    const etag = before.headers.get("etag")!;
    const lastModified = before.headers.get("last-modified")!;
    await before.body?.cancel();
    ctx.clock.advance(60_000);
    await expectStatus(
      await call(ctx, "PUT", `/api/events/${event.id}`, {
        token: admin.token,
        json: { title: "Market (moved)", start_datetime: event.start_datetime },
      }),
      200,
    );
    const after = await call(ctx, "GET", "/feed/ics", {
      headers: { "if-none-match": etag },
    });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get("etag"), etag);
    const cal = parseIcs(await after.text());
    assert.equal(
      prop(master(cal, `${event.id}@${HOST}`), "summary"),
      "Market (moved)",
    );
    const since = await call(ctx, "GET", "/feed/ics", {
      headers: { "if-modified-since": lastModified },
    });
    assert.equal(since.status, 200);
    await since.body?.cancel();

    // The single-event files too.
    const one = await call(ctx, "GET", `/api/events/${event.id}.ics`);
    await one.body?.cancel();
    const cached = await call(ctx, "GET", `/event/${event.slug}.ics`, {
      headers: { "if-none-match": one.headers.get("etag")! },
    });
    assert.equal(cached.status, 304);
    await cached.body?.cancel();
  } finally {
    ctx.close();
  }
});

// ------------------------------------------------------ scopes and bounds

const ACTOR = "https://remote.example/u/alice";

async function remoteEvent(ctx: TestContext, title: string, tags: string[]) {
  const at = ctx.clock.now();
  await ctx.database.db.insert(apUsers).values({
    ap_id: ACTOR,
    trusted: true,
    following: true,
    blocked: false,
    createdAt: at,
    updatedAt: at,
  }).onConflictDoNothing();
  const { id } = await upsertRemoteEvent(
    { db: ctx.database.db, clock: ctx.clock },
    {
      ap_id: `${ACTOR}/events/${encodeURIComponent(title)}`,
      apUserApId: ACTOR,
      title,
      description: "",
      start_datetime: NOW + 4 * DAY,
      end_datetime: NOW + 4 * DAY + 2 * HOUR,
      status: "EventScheduled",
      place: null,
      online_locations: ["https://remote.example/live"],
      tags,
      media: [],
      ap_object: { type: "Event", name: title },
      ld_signature: null,
    },
  );
  return id;
}

/** The titles of a JSON feed, in order. */
async function titles(ctx: TestContext, path: string): Promise<string[]> {
  const doc = JSON.parse(
    await fetchText(ctx, path, "application/feed+json; charset=utf-8"),
  );
  return doc.items.map((i: Json) => i.title);
}

/** The titles (SUMMARY) of an ICS feed, sorted. */
async function icsTitles(ctx: TestContext, path: string): Promise<string[]> {
  const cal = parseIcs(await fetchText(ctx, path));
  return vevents(cal).map((v) => String(prop(v, "summary"))).sort();
}

Deno.test("tag, place and collection feeds hold exactly their events; hidden events never appear", async () => {
  const ctx = await createTestApp();
  try {
    const { admin, talk } = await smallWorld(ctx);
    await remoteEvent(ctx, "Remote jazz", ["jazz"]);

    // Tags match whatever their case; the hidden "Secret" is never there.
    for (const tag of ["jazz", "JAZZ", "Jazz"]) {
      assert.deepEqual(await titles(ctx, `/feed/json/tag/${tag}`), [
        "Jazz & wine",
      ]);
    }
    assert.deepEqual(await icsTitles(ctx, "/feed/ics/tag/jAzZ"), [
      "Jazz & wine",
    ]);
    const tagFeed = JSON.parse(await fetchText(ctx, "/feed/json/tag/jazz"));
    assert.equal(tagFeed.title, "Quando Torino — #Jazz");
    assert.deepEqual(await titles(ctx, "/feed/json/tag/nothing-here"), []);
    const emptyRss = xml.parse(await fetchText(ctx, "/feed/rss/tag/nothing"));
    assert.equal(asArray(emptyRss.rss.channel.item).length, 0);

    // Places.
    const placeId = (talk.place as Json).id;
    assert.deepEqual(await titles(ctx, `/feed/json/place/${placeId}`), [
      "Talk",
    ]);
    const atom = xml.parse(
      await fetchText(ctx, `/feed/atom/place/${placeId}`),
    );
    assert.equal(atom.feed.title, "Quando Torino — Biblioteca");
    assert.equal(asArray(atom.feed.entry).length, 1);
    await expectError(
      await call(ctx, "GET", "/feed/rss/place/999999"),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "GET", "/feed/rss/place/abc"),
      400,
      "invalid_request",
    );

    // The instance feed is local only; a collection follows its filters.
    assert.deepEqual(await titles(ctx, "/feed/json"), ["Jazz & wine", "Talk"]);
    const collection = await expectStatus(
      await call(ctx, "POST", "/api/collections", {
        token: admin.token,
        json: { name: "Jazz everywhere" },
      }),
      201,
    );
    await expectStatus(
      await call(ctx, "POST", "/api/filters", {
        token: admin.token,
        json: {
          collectionId: collection.id,
          tags: ["JAZZ"],
          actors: [{ ap_id: null }, { ap_id: ACTOR }],
        },
      }),
      201,
    );
    const name = encodeURIComponent("Jazz everywhere");
    assert.deepEqual(await titles(ctx, `/feed/json/collection/${name}`), [
      "Jazz & wine",
      "Remote jazz",
    ]);
    assert.deepEqual(await icsTitles(ctx, `/feed/ics/collection/${name}`), [
      "Jazz & wine",
      "Remote jazz",
    ]);
    const rss = xml.parse(await fetchText(ctx, `/feed/rss/collection/${name}`));
    assert.equal(rss.rss.channel.title, "Quando Torino — Jazz everywhere");
    await expectError(
      await call(ctx, "GET", "/feed/ics/collection/nope"),
      404,
      "not_found",
    );

    // No feed ever shows the hidden event.
    for (
      const path of [
        "/feed/json",
        "/feed/json/tag/jazz",
        `/feed/json/collection/${name}`,
      ]
    ) assert.ok(!(await titles(ctx, path)).includes("Secret"), path);
    assert.ok(!(await icsTitles(ctx, "/feed/ics")).includes("Secret"));
  } finally {
    ctx.close();
  }
});

Deno.test("a tag feed of a series: one VEVENT, occurrences without the tag in EXDATE", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const series = await createEvent(ctx, admin, {
      title: "Choir",
      start_datetime: NOW + 2 * DAY,
      tags: ["Music"],
      recurrent: { frequency: "1w" },
    });
    const children = await childStarts(ctx, series.id);
    // One occurrence loses the tag; it stays in the instance feed.
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${children[1].id}`, {
        token: admin.token,
        json: { tags: ["Other"] },
      }),
      200,
    );
    const uid = `${series.id}@${HOST}`;
    const last = children.at(-1)!.start_datetime as number;
    const tagged = parseIcs(await fetchText(ctx, "/feed/ics/tag/music"));
    assert.deepEqual(exdates(master(tagged, uid)), [
      children[1].start_datetime,
    ]);
    assert.deepEqual(
      expand(tagged, uid, last),
      children.filter((_, i) => i !== 1).map((c) => c.start_datetime),
    );
    const all = parseIcs(await fetchText(ctx, "/feed/ics"));
    assert.deepEqual(exdates(master(all, uid)), []);
    assert.deepEqual(
      expand(all, uid, last),
      children.map((c) => c.start_datetime),
    );
    // Edited on its own (its tags): an override in the instance feed.
    assert.equal(overridesOf(all, uid).length, 1);
  } finally {
    ctx.close();
  }
});

Deno.test("bounds: recent events within past_days, bad past_days and unknown formats refused", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await createEvent(ctx, admin, {
      title: "Early",
      start_datetime: NOW + DAY,
    });
    await createEvent(ctx, admin, {
      title: "Later",
      start_datetime: NOW + 20 * DAY,
    });
    await createEvent(ctx, admin, {
      title: "Far",
      start_datetime: NOW + 60 * DAY,
    });
    // Fifteen days after "Early" ended.
    ctx.clock.set(new Date((NOW + 16 * DAY) * 1000));
    assert.deepEqual(await titles(ctx, "/feed/json"), [
      "Later",
      "Far",
      "Early",
    ]);
    assert.deepEqual(await titles(ctx, "/feed/json?past_days=10"), [
      "Later",
      "Far",
    ]);
    assert.deepEqual(await icsTitles(ctx, "/feed/ics?past_days=0"), [
      "Far",
      "Later",
    ]);
    assert.deepEqual(await icsTitles(ctx, "/feed/ics?past_days=365"), [
      "Early",
      "Far",
      "Later",
    ]);

    for (const bad of ["366", "-1", "abc", "1.5"]) {
      const res = await call(ctx, "GET", `/feed/rss?past_days=${bad}`);
      const body = await expectError(res, 400, "invalid_request");
      assert.ok(JSON.stringify(body.details).includes("past_days"));
    }
    await expectError(await call(ctx, "GET", "/feed/xml"), 404, "not_found");
    await expectError(
      await call(ctx, "GET", "/feed/pdf/tag/jazz"),
      404,
      "not_found",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("ICS: overrides and strays carry their own details; occurrence changes move Last-Modified", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await setSettings(ctx, admin, { instance_timezone: "Europe/Rome" });
    const start = NOW + HOUR;
    const series = await createEvent(ctx, admin, {
      title: "Reading",
      description: "<p>Series</p>",
      start_datetime: start,
      end_datetime: start + HOUR,
      tags: ["Books"],
      place_name: "Library",
      place_address: "Via Verdi 2",
      recurrent: { frequency: "1w" },
    });
    const uid = `${series.id}@${HOST}`;
    const { events } = await import("../db/schema.ts");
    const { eq } = await import("drizzle-orm");
    const occurrences = async () =>
      (await ctx.database.db.select().from(events).where(
        eq(events.parentId, series.id as number),
      )).sort((a, b) => a.start_datetime - b.start_datetime);
    // Two weeks later: three occurrences in the past, inside the window.
    const now = NOW + 15 * DAY;
    const guest = (await occurrences()).find((o) =>
      o.start_datetime > now + DAY
    )!;
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${guest.id}`, {
        token: admin.token,
        json: {
          title: "Reading (guest)",
          description: "<p>A guest reads</p>",
          tags: ["Guest"],
          place_name: "Town hall",
          place_address: "Piazza 1",
          // 16 significant digits: JSON in SQLite keeps only 15.
          place_latitude: 45.46420350000001,
          place_longitude: -0.1,
        },
      }),
      200,
    );
    ctx.clock.advance(15 * DAY * 1000);
    admin.token = await loginToken(ctx, admin.email, admin.password);
    const past = (await occurrences()).filter((o) => o.start_datetime < now);
    assert.equal(past.length, 3);
    // The series moves a day later: the past occurrences and the one edited
    // on its own keep their dates, which the rule no longer gives (strays).
    await expectStatus(
      await call(ctx, "PUT", `/api/events/${series.id}`, {
        token: admin.token,
        json: {
          title: "Reading",
          start_datetime: start + DAY,
          end_datetime: start + DAY + HOUR,
        },
      }),
      200,
    );
    const after = await occurrences();
    const special = after.find((o) =>
      o.start_datetime > now + DAY && o.id !== guest.id
    )!;
    await expectStatus(
      await call(ctx, "PATCH", `/api/events/${special.id}`, {
        token: admin.token,
        json: { title: "Reading (special)", tags: ["Books", "Special"] },
      }),
      200,
    );

    for (const path of ["/feed/ics", `/event/${series.slug}.ics`]) {
      const cal = parseIcs(await fetchText(ctx, path));
      const m = master(cal, uid);
      assert.equal(prop(m, "summary"), "Reading", path);
      // The override: its own title and tags, the series' place.
      const [override] = overridesOf(cal, uid);
      assert.ok(override, `${path}: no override`);
      assert.equal(prop(override, "summary"), "Reading (special)");
      assert.equal(timeOf(override, "recurrence-id"), special.start_datetime);
      assert.deepEqual(
        override.getAllProperties("categories").flatMap((p) => p.getValues()),
        ["Books", "Special"],
      );
      assert.match(String(prop(override, "location")), /^Library/);
      // The strays: single entries with their own UIDs and details.
      for (const o of [...past, guest]) {
        const found = vevents(cal).filter((v) =>
          prop(v, "uid") === `${o.id}@${HOST}`
        );
        assert.equal(found.length, 1, `${path}: stray ${o.id}`);
        assert.equal(timeOf(found[0], "dtstart"), o.start_datetime);
        const mine = o.id === guest.id;
        assert.equal(
          prop(found[0], "summary"),
          mine ? "Reading (guest)" : "Reading",
        );
        assert.deepEqual(
          found[0].getAllProperties("categories").flatMap((p) => p.getValues()),
          [mine ? "Guest" : "Books"],
        );
        assert.match(
          String(prop(found[0], "location")),
          mine ? /^Town hall/ : /^Library/,
        );
        assert.match(
          String(prop(found[0], "description")),
          mine ? /A guest reads/ : /Series/,
        );
        if (mine) {
          assert.deepEqual(found[0].getFirstPropertyValue("geo"), [
            45.46420350000001,
            -0.1,
          ]);
        }
      }
    }

    // Hiding one occurrence: an EXDATE, and Last-Modified is its change.
    const feed = await call(ctx, "GET", "/feed/ics");
    await feed.body?.cancel();
    const hidden = after.findLast((o) => o.id !== special.id)!;
    ctx.clock.advance(3_600_000);
    await expectStatus(
      await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, {
        token: admin.token,
      }),
      200,
    );
    const [row] = await ctx.database.db.select().from(events).where(
      eq(events.id, hidden.id),
    );
    const changed = await call(ctx, "GET", "/feed/ics");
    const cal = parseIcs(await changed.text());
    assert.ok(exdates(master(cal, uid)).includes(hidden.start_datetime));
    assert.equal(
      changed.headers.get("last-modified"),
      row.updatedAt.toUTCString(),
    );
    assert.notEqual(
      changed.headers.get("last-modified"),
      feed.headers.get("last-modified"),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("ICS: content is written in the time zone and window it was selected for", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await createEvent(ctx, admin, {
      title: "Weekly",
      recurrent: { frequency: "1w" },
    });
    const { calendarContent } = await import("../lib/feeds/calendar.ts");
    const { instanceScope } = await import("../lib/feeds/select.ts");
    const { renderCalendar } = await import("../lib/feeds/ics.ts");
    const windowStart = NOW - 30 * DAY;
    const content = await calendarContent(
      ctx.database.db,
      instanceScope(),
      NOW,
      windowStart,
      "Europe/Rome",
    );
    assert.equal(content.timeZone, "Europe/Rome");
    assert.equal(content.series.length, 1);
    const options = {
      baseUrl: BASE,
      name: "Test",
      now: NOW,
      windowStart,
      timeZone: "Europe/Rome",
    };
    assert.match(renderCalendar(content, options), /TZID=Europe\/Rome/);
    assert.throws(
      () => renderCalendar(content, { ...options, timeZone: "UTC" }),
      /selected for Europe\/Rome/,
    );
    assert.throws(() =>
      renderCalendar(content, { ...options, windowStart: windowStart - DAY })
    );
    // Without a zone, the instance's (UTC by default).
    const utc = await calendarContent(
      ctx.database.db,
      instanceScope(),
      NOW,
      windowStart,
    );
    assert.equal(utc.timeZone, "UTC");
  } finally {
    ctx.close();
  }
});
