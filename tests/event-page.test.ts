/**
 * The event page (single, series, occurrence, cancelled, remote, online-only)
 * and the place and tag pages through `app.request()`: how a series repeats
 * in words (five languages), the links to the series and its dates, adding
 * to a calendar (the .ics files parsed with ical.js, the Google Calendar and
 * Outlook.com links' UTC times), directions, joining online, where a remote
 * event comes from, plain-text descriptions, and on every page: no HTML
 * parser error (parse5), h-event / h-card read by a microformats parser and
 * JSON-LD parsed back.
 */
import assert from "node:assert/strict";
import ICAL from "ical.js";
import { parseHTML } from "linkedom";
import { mf2 } from "microformats-parser";
import { eq } from "drizzle-orm";
import { events } from "../db/schema.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import { upsertActor } from "../lib/federation/actors.ts";
import { translator } from "../lib/i18n.ts";
import { repeatsInWords, seriesRule } from "../lib/pages/repeats.ts";
import {
  call,
  createTestApp,
  type El,
  parseErrors,
  type TestContext,
  text,
  userWithToken,
} from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Page {
  res: Response;
  html: string;
  $(selector: string): El | null;
  $$(selector: string): El[];
  /** The page's JSON-LD block, parsed. */
  ld: Json;
  /** The page's microformats (microformats-parser). */
  mf: Json;
}

const TZ = "Europe/Rome";
const BASE = "http://quando.test";
const HOUR = 3600;
const DAY = 86_400;
/** Saturday 6 June 2026, 19:00 in Rome (CEST, UTC+2). */
const JUNE_6_EVENING = Date.parse("2026-06-06T17:00:00Z") / 1000;
/** Tuesday 2 June 2026, 19:00 in Rome: the first date of a weekly series. */
const JUNE_2_EVENING = Date.parse("2026-06-02T17:00:00Z") / 1000;
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/;

/** The page, checked for HTML parser errors, with its microformats and JSON-LD. */
async function getPage(
  ctx: TestContext,
  path: string,
  status = 200,
): Promise<Page> {
  const res = await ctx.app.request(path);
  const html = await res.text();
  assert.equal(res.status, status, `${path}: ${html.slice(0, 300)}`);
  assert.deepEqual(parseErrors(html), [], `${path}: HTML parser errors`);
  const { document } = parseHTML(html) as unknown as { document: El };
  const $$ = (s: string) => [...document.querySelectorAll(s)];
  const blocks = $$('script[type="application/ld+json"]');
  assert.ok(blocks.length <= 1, "at most one JSON-LD block");
  return {
    res,
    html,
    $: (s) => document.querySelector(s),
    $$,
    ld: blocks.length ? JSON.parse(blocks[0].textContent ?? "") : null,
    mf: mf2(html, { baseUrl: `${BASE}${path}` }),
  };
}

/** The page's one top-level h-event (microformats-parser's reading). */
function hEvent(page: Page): Json {
  const items = page.mf.items.filter((i: Json) => i.type.includes("h-event"));
  assert.equal(items.length, 1, "one top-level h-event");
  return items[0].properties;
}

/** Checks what every event page's JSON-LD must have. */
function assertEventLd(page: Page, start: number) {
  const ld = page.ld;
  assert.equal(ld["@context"], "https://schema.org");
  assert.equal(ld["@type"], "Event");
  assert.match(ld.startDate, ISO_WITH_OFFSET);
  assert.equal(Date.parse(ld.startDate) / 1000, start);
  assert.match(ld.eventStatus, /^https:\/\/schema\.org\/Event[A-Za-z]+$/);
  assert.match(
    ld.eventAttendanceMode,
    /^https:\/\/schema\.org\/(Offline|Online|Mixed)EventAttendanceMode$/,
  );
  assert.ok(ld.location, "a location");
  // The h-event agrees with the JSON-LD.
  const mf = hEvent(page);
  assert.equal(mf.name[0], ld.name);
  assert.equal(Date.parse(mf.start[0]) / 1000, start);
}

async function world() {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Bologna Events",
      instance_timezone: TZ,
      instance_locale: "en-GB",
    },
  });
  assert.equal(res.status, 200, await res.text());
  const create = async (body: Record<string, unknown>): Promise<Json> => {
    const where = body.place_id || body.place_name || body.online_locations
      ? {}
      : { place_name: "Town hall" };
    const created = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: { ...where, ...body },
    });
    const out = await created.text();
    assert.equal(created.status, 201, out);
    return JSON.parse(out);
  };
  return { ctx, admin, create };
}

function link(page: Page, selector: string): string {
  const href = page.$(selector)?.getAttribute("href");
  assert.ok(href, `a link ${selector}`);
  return href;
}

async function ics(ctx: TestContext, path: string): Promise<ICAL.Component> {
  const res = await ctx.app.request(path);
  assert.equal(res.status, 200, path);
  assert.match(res.headers.get("content-type") ?? "", /^text\/calendar/);
  return new ICAL.Component(ICAL.parse(await res.text()));
}

Deno.test("a single event: calendar file, Google Calendar and Outlook.com links in UTC, directions, join online; valid HTML, h-event, JSON-LD", async () => {
  const { ctx, create } = await world();
  try {
    const event = await create({
      title: "Jazz & Blues Night",
      description:
        '<p>Live <strong>jazz</strong>, see <a href="https://band.example">the band</a>.</p>',
      start_datetime: JUNE_6_EVENING,
      end_datetime: JUNE_6_EVENING + 3 * HOUR,
      place_name: "Cantina Bentivoglio",
      place_address: "Via Mascarella 4/b, Bologna",
      place_latitude: 44.4989,
      place_longitude: 11.3479,
      online_locations: ["https://stream.example/jazz"],
      tags: ["Jazz"],
    });
    const page = await getPage(ctx, `/event/${event.slug}`);
    assertEventLd(page, JUNE_6_EVENING);
    assert.equal(
      page.ld.eventAttendanceMode,
      "https://schema.org/MixedEventAttendanceMode",
    );
    assert.equal(page.ld.location[0]["@type"], "Place");
    assert.equal(page.ld.location[1]["@type"], "VirtualLocation");
    assert.equal(page.ld.eventSchedule, undefined, "a single event");
    assert.equal(page.ld.superEvent, undefined);
    const mf = hEvent(page);
    assert.equal(mf.start[0], "2026-06-06T19:00:00+02:00");
    assert.equal(mf.end[0], "2026-06-06T22:00:00+02:00");
    assert.equal(mf.location[0].properties.name[0], "Cantina Bentivoglio");
    assert.equal(
      mf.location[0].properties["street-address"][0],
      "Via Mascarella 4/b, Bologna",
    );
    assert.deepEqual(mf.category, ["#Jazz"]);
    assert.ok(mf.url.includes(`${BASE}/event/${event.slug}`));
    assert.match(mf.content[0].html, /<strong>jazz<\/strong>/);
    // No rule, no series: nothing says it repeats.
    assert.equal(page.$("dd.repeats"), null);
    assert.doesNotMatch(page.html, /Every /);

    // The .ics file is this one event.
    const file = link(page, "a.ics");
    assert.equal(file, `/event/${event.slug}.ics`);
    assert.equal(text(page.$("a.ics")), "Calendar file (.ics)");
    assert.equal(page.$("a.ics-series"), null);
    const cal = await ics(ctx, file);
    const [vevent] = cal.getAllSubcomponents("vevent");
    assert.equal(
      (vevent.getFirstPropertyValue("dtstart") as ICAL.Time).toUnixTime(),
      JUNE_6_EVENING,
    );
    assert.equal(vevent.getFirstPropertyValue("rrule"), null);

    // Google Calendar: times in UTC, title, place, description and the page.
    const google = new URL(link(page, "a.google"));
    assert.equal(google.origin, "https://calendar.google.com");
    assert.equal(google.searchParams.get("action"), "TEMPLATE");
    assert.equal(google.searchParams.get("text"), "Jazz & Blues Night");
    assert.equal(
      google.searchParams.get("dates"),
      "20260606T170000Z/20260606T200000Z",
    );
    assert.equal(
      google.searchParams.get("location"),
      "Cantina Bentivoglio, Via Mascarella 4/b, Bologna",
    );
    const details = google.searchParams.get("details") ?? "";
    assert.match(details, /^Live jazz, see the band\./);
    assert.ok(details.includes("https://stream.example/jazz"));
    assert.ok(details.endsWith(`${BASE}/event/${event.slug}`));
    // Outlook.com: the same times, ISO in UTC.
    const outlook = new URL(link(page, "a.outlook"));
    assert.equal(outlook.origin, "https://outlook.live.com");
    assert.equal(outlook.searchParams.get("rru"), "addevent");
    assert.equal(outlook.searchParams.get("subject"), "Jazz & Blues Night");
    assert.equal(outlook.searchParams.get("startdt"), "2026-06-06T17:00:00Z");
    assert.equal(outlook.searchParams.get("enddt"), "2026-06-06T20:00:00Z");
    assert.equal(
      outlook.searchParams.get("location"),
      "Cantina Bentivoglio, Via Mascarella 4/b, Bologna",
    );
    // Both open in the visitor's browser: the page asks nothing of them.
    assert.doesNotMatch(page.html, /<(script|iframe|img)[^>]+google/i);

    // Directions to the coordinates, the map, joining online.
    const directions = new URL(link(page, "a.directions"));
    assert.equal(directions.origin, "https://www.openstreetmap.org");
    assert.equal(directions.pathname, "/directions");
    assert.equal(directions.searchParams.get("to"), "44.4989,11.3479");
    assert.equal(
      text(page.$("a.directions")),
      "Directions (OpenStreetMap)",
    );
    assert.equal(
      link(page, "a.map"),
      "https://www.openstreetmap.org/?mlat=44.4989&mlon=11.3479#map=17/44.4989/11.3479",
    );
    const join = page.$("a.join")!;
    assert.equal(join.getAttribute("href"), "https://stream.example/jazz");
    assert.equal(text(join), "Join online stream.example");
    assert.match(join.getAttribute("rel") ?? "", /nofollow/);
  } finally {
    ctx.close();
  }
});

Deno.test("a series: its rule in words, its next dates linked, the whole series as one .ics with its RRULE, eventSchedule; an occurrence links its series", async () => {
  const { ctx, create } = await world();
  try {
    const series = await create({
      title: "Swing dance class",
      description: "<p>Beginners welcome.</p>",
      start_datetime: JUNE_2_EVENING,
      end_datetime: JUNE_2_EVENING + 2 * HOUR,
      place_name: "Sala Biagi",
      place_address: "Via Santo Stefano 119, Bologna",
      tags: ["Dance"],
      recurrent: {
        frequency: "1w",
        until: Date.parse("2026-07-28T17:00:00Z") / 1000,
      },
    });
    assert.ok(series.children.length >= 8);
    // One date cancelled on its own.
    const cancelled = series.children[2];
    const patch = await call(ctx, "PATCH", `/api/events/${cancelled.id}`, {
      token: (await userWithToken(ctx, "admin")).token,
      json: { status: "EventCancelled" },
    });
    assert.equal(patch.status, 200);

    // The series' page.
    const page = await getPage(ctx, `/event/${series.slug}`);
    assert.equal(
      text(page.$("dd.repeats")),
      "Every Tuesday, until 28 July 2026",
    );
    assert.equal(page.$("a.series"), null, "the series is this page");
    const dates = page.$$("ul.dates li");
    assert.equal(dates.length, series.children.length);
    const children = series.children as Json[];
    assert.deepEqual(
      dates.map((li) => li.querySelector("a")?.getAttribute("href")),
      children.map((c) => `/event/${c.slug}`),
    );
    assert.equal(text(dates[0]), "Tue, 2 Jun 2026, 19:00");
    assert.match(text(dates[2]), /Cancelled$/);
    // The next date is the first to come (2 June: now is 1 June).
    assert.equal(
      text(page.$$(".facts dt")[1]),
      "Next date",
    );
    assertEventLd(page, JUNE_2_EVENING);
    const schedule = page.ld.eventSchedule;
    assert.equal(schedule["@type"], "Schedule");
    assert.equal(schedule.repeatFrequency, "P1W");
    assert.equal(schedule.byDay, "https://schema.org/Tuesday");
    assert.equal(schedule.startDate, "2026-06-02");
    assert.equal(schedule.endDate, "2026-07-28");
    assert.equal(schedule.startTime, "19:00:00");
    assert.equal(schedule.endTime, "21:00:00");
    assert.equal(schedule.scheduleTimezone, TZ);
    assert.equal(page.ld.location.name, "Sala Biagi");

    // The whole series as one VEVENT with its rule; no single .ics link.
    assert.equal(page.$("a.ics"), null);
    assert.equal(
      text(page.$("a.ics-series")),
      "Every date of the series (.ics)",
    );
    const cal = await ics(ctx, link(page, "a.ics-series"));
    const [vevent] = cal.getAllSubcomponents("vevent").filter((v) =>
      !v.hasProperty("recurrence-id")
    );
    const rrule = vevent.getFirstPropertyValue("rrule") as ICAL.Recur;
    assert.equal(rrule.freq, "WEEKLY");
    assert.deepEqual(rrule.parts.BYDAY, ["TU"]);
    assert.ok(rrule.until, "the rule's end");
    assert.equal(
      (vevent.getFirstPropertyValue("dtstart") as ICAL.Time).toUnixTime(),
      JUNE_2_EVENING,
    );
    // The cancelled date is left out of the expansion.
    const exdates = vevent.getAllProperties("exdate").map((p) =>
      (p.getFirstValue() as ICAL.Time).toUnixTime()
    );
    assert.ok(exdates.includes(cancelled.start_datetime));
    // Web calendars take one date: the next one.
    assert.equal(
      text(page.$("a.google")),
      "Next date in Google Calendar",
    );
    assert.equal(
      new URL(link(page, "a.google")).searchParams.get("dates"),
      "20260602T170000Z/20260602T190000Z",
    );

    // An occurrence: its date, the rule, and a link to its series.
    const second = children[1];
    const occurrence = await getPage(ctx, `/event/${second.slug}`);
    assertEventLd(occurrence, JUNE_2_EVENING + 7 * DAY);
    assert.equal(
      text(occurrence.$("dd.repeats")),
      "Every Tuesday, until 28 July 2026All dates of this series",
    );
    assert.equal(text(occurrence.$("a.series")), "All dates of this series");
    assert.equal(link(occurrence, "a.series"), `/event/${series.slug}`);
    assert.equal(occurrence.$("ul.dates"), null);
    assert.equal(text(occurrence.$("a.ics")), "This date (.ics)");
    assert.equal(link(occurrence, "a.ics"), `/event/${second.slug}.ics`);
    assert.equal(link(occurrence, "a.ics-series"), `/event/${series.slug}.ics`);
    const one = await ics(ctx, `/event/${second.slug}.ics`);
    const [single] = one.getAllSubcomponents("vevent");
    assert.equal(single.getFirstPropertyValue("rrule"), null);
    assert.equal(
      (single.getFirstPropertyValue("dtstart") as ICAL.Time).toUnixTime(),
      JUNE_2_EVENING + 7 * DAY,
    );
    assert.equal(
      new URL(link(occurrence, "a.outlook")).searchParams.get("startdt"),
      "2026-06-09T17:00:00Z",
    );
    assert.equal(occurrence.ld.eventSchedule, undefined);
    assert.equal(occurrence.ld.superEvent.url, `${BASE}/event/${series.slug}`);
    assert.equal(occurrence.ld.superEvent.eventSchedule.repeatFrequency, "P1W");
    // Without coordinates: a search for the address.
    const search = new URL(link(occurrence, "a.directions"));
    assert.equal(search.pathname, "/search");
    assert.equal(
      search.searchParams.get("query"),
      "Via Santo Stefano 119, Bologna",
    );
    assert.equal(
      text(occurrence.$("a.directions")),
      "Find the address on OpenStreetMap",
    );
    assert.equal(occurrence.$("a.map"), null);

    // The cancelled occurrence: marked, nothing to add to a calendar.
    const off = await getPage(ctx, `/event/${cancelled.slug}`);
    assert.equal(text(off.$(".status")), "This event has been cancelled.");
    assert.equal(off.ld.eventStatus, "https://schema.org/EventCancelled");
    assert.equal(off.$("#add-title"), null);
    assert.equal(link(off, "a.series"), `/event/${series.slug}`);
  } finally {
    ctx.close();
  }
});

Deno.test("how a series repeats, in five languages (the home page and the event page say it alike)", () => {
  const at = (iso: string) => Date.parse(iso) / 1000;
  const words = (
    lang: string,
    recurrent: Record<string, unknown>,
    start: number,
  ) => {
    const rule = seriesRule(
      recurrent as { frequency: string; type: string },
      start,
      TZ,
    );
    assert.ok(rule);
    return repeatsInWords(
      rule,
      start,
      { locale: lang === "en" ? "en-GB" : lang, timezone: TZ },
      translator(lang),
    );
  };
  // In Rome: Tuesday 2 June 2026, Monday 8 June, Wednesday 3 June, Monday
  // 1 June, Friday 26 June, Sunday 28 June, Tuesday 9 June, Sunday 7 June.
  const tuesday = at("2026-06-02T17:00:00Z");
  const monday = at("2026-06-08T17:00:00Z");
  const third = at("2026-06-03T17:00:00Z");
  const first = at("2026-06-01T08:00:00Z");
  const lastFriday = at("2026-06-26T17:00:00Z");
  const lastSunday = at("2026-06-28T17:00:00Z");
  const secondTuesday = at("2026-06-09T17:00:00Z");
  const firstSunday = at("2026-06-07T08:00:00Z");
  const until = { until: at("2026-06-30T17:00:00Z") };
  const rules: [Record<string, unknown>, number][] = [
    [{ frequency: "1w" }, tuesday],
    [{ frequency: "2w", type: "ordinal" }, monday],
    [{ frequency: "1m" }, third],
    [{ frequency: "1m", type: -1 }, lastFriday],
    [{ frequency: "1m", type: "-1" }, lastSunday],
    [{ frequency: "1m", type: "2" }, secondTuesday],
    [{ frequency: "1m", type: "ordinal" }, first],
    [{ frequency: "1d" }, first],
    [{ frequency: "1y" }, tuesday],
    [{ frequency: "1w", ...until }, tuesday],
  ];
  const expected: Record<string, string[]> = {
    en: [
      "Every Tuesday",
      "Every 2 weeks on Monday",
      "Monthly on the 3rd",
      "On the last Friday of every month",
      "On the last Sunday of every month",
      "On the second Tuesday of every month",
      "Monthly on the 1st",
      "Every day",
      "Every year on 2 June",
      "Every Tuesday, until 30 June 2026",
    ],
    it: [
      "Ogni martedì",
      "Ogni 2 settimane, di lunedì",
      "Ogni mese, il giorno 3",
      "L'ultimo venerdì di ogni mese",
      "L'ultima domenica di ogni mese",
      "Il secondo martedì di ogni mese",
      "Ogni mese, il giorno 1",
      "Ogni giorno",
      "Ogni anno, il 2 giugno",
      "Ogni martedì, fino al giorno 30 giugno 2026",
    ],
    fr: [
      "Chaque mardi",
      "Toutes les 2 semaines, le lundi",
      "Tous les mois, le 3",
      "Le dernier vendredi de chaque mois",
      "Le dernier dimanche de chaque mois",
      "Le deuxième mardi de chaque mois",
      "Tous les mois, le 1er",
      "Tous les jours",
      "Tous les ans, le 2 juin",
      "Chaque mardi, jusqu'au 30 juin 2026",
    ],
    es: [
      "Cada martes",
      "Cada 2 semanas, el lunes",
      "Todos los meses, el día 3",
      "El último viernes de cada mes",
      "El último domingo de cada mes",
      "El segundo martes de cada mes",
      "Todos los meses, el día 1",
      "Todos los días",
      "Todos los años, el 2 de junio",
      "Cada martes, hasta el 30 de junio de 2026",
    ],
    de: [
      "Jeden Dienstag",
      "Alle 2 Wochen am Montag",
      "Monatlich am 3.",
      "Jeden letzten Freitag im Monat",
      "Jeden letzten Sonntag im Monat",
      "Jeden zweiten Dienstag im Monat",
      "Monatlich am 1.",
      "Täglich",
      "Jährlich am 2. Juni",
      "Jeden Dienstag, bis zum 30. Juni 2026",
    ],
  };
  for (const [lang, sentences] of Object.entries(expected)) {
    assert.deepEqual(
      rules.map(([recurrent, start]) => words(lang, recurrent, start)),
      sentences,
      lang,
    );
  }
  // Intervals, and the first Sunday (feminine in Italian).
  const cases: [string, Record<string, unknown>, number, string][] = [
    ["en", { frequency: "3m" }, third, "Every 3 months on the 3rd"],
    ["it", { frequency: "2m" }, first, "Ogni 2 mesi, il giorno 1"],
    [
      "en",
      { frequency: "2m", type: -1 },
      lastFriday,
      "Every 2 months on the last Friday",
    ],
    [
      "it",
      { frequency: "2m", type: -1 },
      lastFriday,
      "Ogni 2 mesi, l'ultimo venerdì",
    ],
    [
      "fr",
      { frequency: "2m", type: -1 },
      lastFriday,
      "Tous les 2 mois, le dernier vendredi",
    ],
    [
      "en",
      { frequency: "1m", type: 1 },
      firstSunday,
      "On the first Sunday of every month",
    ],
    [
      "it",
      { frequency: "1m", type: 1 },
      firstSunday,
      "La prima domenica di ogni mese",
    ],
    [
      "it",
      { frequency: "3m", type: 1 },
      firstSunday,
      "Ogni 3 mesi, la prima domenica",
    ],
    [
      "es",
      { frequency: "3m", type: 1 },
      firstSunday,
      "Cada 3 meses, el primer domingo",
    ],
    [
      "de",
      { frequency: "2m", type: 1 },
      firstSunday,
      "Alle 2 Monate am ersten Sonntag",
    ],
    ["fr", { frequency: "3d" }, tuesday, "Tous les 3 jours"],
    ["de", { frequency: "2y" }, tuesday, "Alle 2 Jahre am 2. Juni"],
  ];
  for (const [lang, recurrent, start, sentence] of cases) {
    assert.equal(
      words(lang, recurrent, start),
      sentence,
      `${lang} ${JSON.stringify(recurrent)}`,
    );
  }
  // No rule, or one that cannot be read: nothing to say.
  assert.equal(seriesRule(null, tuesday, TZ), null);
  assert.equal(
    seriesRule({ frequency: "every day", type: "x" }, tuesday, TZ),
    null,
  );
  assert.equal(seriesRule({ frequency: "bogus", type: "" }, tuesday, TZ), null);
});

Deno.test("plain-text descriptions keep their paragraphs, line breaks and links; HTML ones stay as they are", async () => {
  const { ctx, create } = await world();
  try {
    const plain = await create({
      title: "Book club",
      description:
        "We read Calvino.\nBring the book & a friend.\n\nDetails: https://club.example/calvino?a=1&b=2 — see you!\n\n\nThird paragraph",
      start_datetime: JUNE_6_EVENING,
    });
    const page = await getPage(ctx, `/event/${plain.slug}`);
    const content = page.$(".e-content")!;
    const paragraphs = [...content.querySelectorAll("p")];
    assert.equal(paragraphs.length, 3);
    assert.equal(
      paragraphs[0].innerHTML,
      "We read Calvino.<br>Bring the book &amp; a friend.",
    );
    const a = paragraphs[1].querySelector("a")!;
    assert.equal(
      a.getAttribute("href"),
      "https://club.example/calvino?a=1&b=2",
    );
    assert.equal(text(a), "https://club.example/calvino?a=1&b=2");
    assert.match(a.getAttribute("rel") ?? "", /nofollow/);
    assert.equal(text(paragraphs[2]), "Third paragraph");
    const mf = hEvent(page);
    assert.match(mf.content[0].value, /We read Calvino/);
    // The JSON-LD and the calendar links carry the text, decoded.
    assert.match(page.ld.description, /Bring the book & a friend/);
    assert.match(
      new URL(link(page, "a.google")).searchParams.get("details") ?? "",
      /^We read Calvino\.\nBring the book & a friend\.\n\nDetails:/,
    );

    const html = await create({
      title: "Poetry",
      description: "<p>One <em>line</em></p><ul><li>two</li></ul>",
      start_datetime: JUNE_6_EVENING,
    });
    const second = await getPage(ctx, `/event/${html.slug}`);
    assert.equal(
      second.$(".e-content")!.innerHTML,
      "<p>One <em>line</em></p><ul><li>two</li></ul>",
    );
    // Inline markup only, with line breaks: the breaks are kept.
    const inline = await create({
      title: "Open mic",
      description: "<strong>Sign up</strong> at the bar\nfrom 20:00",
      start_datetime: JUNE_6_EVENING,
    });
    const third = await getPage(ctx, `/event/${inline.slug}`);
    assert.equal(
      third.$(".e-content")!.innerHTML,
      "<strong>Sign up</strong> at the bar<br>from 20:00",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("an online-only event: join buttons, online attendance in JSON-LD, the link as the calendars' location", async () => {
  const { ctx, create } = await world();
  try {
    const event = await create({
      title: "Webinar: federated calendars",
      start_datetime: JUNE_6_EVENING,
      online_locations: [
        "https://meet.example/room-42",
        "https://stream.example/live",
      ],
    });
    const page = await getPage(ctx, `/event/${event.slug}`);
    assertEventLd(page, JUNE_6_EVENING);
    assert.equal(
      page.ld.eventAttendanceMode,
      "https://schema.org/OnlineEventAttendanceMode",
    );
    assert.deepEqual(page.ld.location, [
      { "@type": "VirtualLocation", url: "https://meet.example/room-42" },
      { "@type": "VirtualLocation", url: "https://stream.example/live" },
    ]);
    assert.deepEqual(
      page.$$("a.join").map((a) => [a.getAttribute("href"), text(a)]),
      [
        ["https://meet.example/room-42", "Join online meet.example"],
        ["https://stream.example/live", "Join online stream.example"],
      ],
    );
    assert.equal(page.$("a.directions"), null);
    assert.deepEqual(page.$$(".facts dt").map(text), ["When", "Online"]);
    const google = new URL(link(page, "a.google"));
    assert.equal(
      google.searchParams.get("location"),
      "https://meet.example/room-42",
    );
    // No end: an hour in the web calendars.
    assert.equal(
      google.searchParams.get("dates"),
      "20260606T170000Z/20260606T180000Z",
    );
    assert.equal(hEvent(page).location, undefined);

    // Moved online: the place is no longer where it happens.
    const moved = await create({
      title: "Assembly",
      start_datetime: JUNE_6_EVENING,
      place_name: "Town hall",
      online_locations: ["https://meet.example/assembly"],
      status: "EventMovedOnline",
    });
    const movedPage = await getPage(ctx, `/event/${moved.slug}`);
    assert.equal(
      movedPage.ld.eventAttendanceMode,
      "https://schema.org/OnlineEventAttendanceMode",
    );
    assert.deepEqual(movedPage.ld.location, {
      "@type": "VirtualLocation",
      url: "https://meet.example/assembly",
    });
  } finally {
    ctx.close();
  }
});

Deno.test("a remote event says where it comes from and links to the original (http(s) only)", async () => {
  const { ctx } = await world();
  try {
    const actor = "https://gancio.example/federation/u/relay";
    await upsertActor(ctx.database.db, ctx.clock, actor, {
      type: "Application",
      id: actor,
      name: "Gancio Bologna",
      preferredUsername: "relay",
    }, { trusted: true, following: true });
    const remote = async (
      title: string,
      apId: string,
      apObject: Record<string, unknown>,
      online: string[] = [],
    ) => {
      const { id } = await upsertRemoteEvent(
        { db: ctx.database.db, clock: ctx.clock },
        {
          ap_id: apId,
          apUserApId: actor,
          title,
          description: "<p>Shared from another calendar.</p>",
          start_datetime: JUNE_6_EVENING,
          end_datetime: JUNE_6_EVENING + 2 * HOUR,
          status: "EventScheduled",
          place: {
            name: "XM24",
            address: "Via Fioravanti 24, Bologna",
            latitude: 44.5101,
            longitude: 11.3444,
            postal_address: null,
          },
          online_locations: online,
          tags: ["Punk"],
          media: [],
          ap_object: { type: "Event", name: title, ...apObject },
          ld_signature: null,
        },
      );
      const [row] = await ctx.database.db.select({ slug: events.slug }).from(
        events,
      ).where(eq(events.id, id));
      return row.slug;
    };
    const slug = await remote(
      "Punk night",
      "https://gancio.example/federation/m/12",
      { url: "https://gancio.example/event/punk-night" },
    );
    const page = await getPage(ctx, `/event/${slug}`);
    assert.equal(
      text(page.$(".origin")),
      "From gancio.example, published by Gancio Bologna · See the original",
    );
    assert.equal(
      link(page, "a.original"),
      "https://gancio.example/event/punk-night",
    );
    assertEventLd(page, JUNE_6_EVENING);
    assert.deepEqual(page.ld.organizer, {
      "@type": "Organization",
      name: "Gancio Bologna",
      url: actor,
    });
    assert.equal(page.ld.sameAs, "https://gancio.example/event/punk-night");
    assert.equal(
      hEvent(page).location[0].properties.name[0],
      "XM24",
    );

    // A url that is no web address: the id is the original.
    const second = await remote(
      "Punk night II",
      "https://gancio.example/federation/m/13",
      { url: "javascript:alert(1)" },
    );
    const page2 = await getPage(ctx, `/event/${second}`);
    assert.equal(
      link(page2, "a.original"),
      "https://gancio.example/federation/m/13",
    );
    assert.doesNotMatch(page2.html, /javascript:/);
    // A Link object is read too.
    const third = await remote(
      "Punk night III",
      "https://gancio.example/federation/m/14",
      { url: [{ type: "Link", href: "https://gancio.example/e/3" }] },
    );
    assert.equal(
      link(await getPage(ctx, `/event/${third}`), "a.original"),
      "https://gancio.example/e/3",
    );
    // Online locations from elsewhere: only http(s) ones become buttons.
    const fourth = await remote(
      "Punk night online",
      "https://gancio.example/federation/m/15",
      {},
      ["javascript:alert(1)", "https://stream.gancio.example/live"],
    );
    const page4 = await getPage(ctx, `/event/${fourth}`);
    assert.deepEqual(
      page4.$$("a.join").map((a) => a.getAttribute("href")),
      ["https://stream.gancio.example/live"],
    );
    assert.equal(page4.$('a[href^="javascript:"]'), null);
    assert.deepEqual(
      page4.$$("ul.online li").map(text),
      ["javascript:alert(1)", "Join online stream.gancio.example"],
    );
    assert.deepEqual(page4.ld.location[1], {
      "@type": "VirtualLocation",
      url: "https://stream.gancio.example/live",
    });
    assert.equal(page4.ld.location.length, 2);
  } finally {
    ctx.close();
  }
});

Deno.test("place page: name and address once, coordinates with map and directions links (no tiles), h-card/h-adr and schema.org Place; without coordinates a search", async () => {
  const { ctx, create } = await world();
  try {
    const here = await create({
      title: "Poetry reading",
      start_datetime: JUNE_6_EVENING,
      place_name: "Libreria Modo Infoshop",
      place_address: "Via Mascarella 24/b, Bologna",
      place_latitude: 44.4986,
      place_longitude: 11.3488,
      tags: ["Books"],
    });
    await create({
      title: "Book swap",
      start_datetime: JUNE_6_EVENING + DAY,
      place_id: here.place.id,
    });
    const page = await getPage(ctx, `/place/${here.place.id}`);
    assert.equal(text(page.$("h1")), "Libreria Modo Infoshop");
    // Named once: the entries do not repeat the place.
    assert.equal(page.$$(".event-item").length, 2);
    assert.equal(page.$$(".event-item .p-location").length, 0);
    const main = text(page.$("main"));
    assert.equal(main.split("Libreria Modo Infoshop").length - 1, 1);
    assert.equal(main.split("Via Mascarella 24/b, Bologna").length - 1, 1);
    assert.equal(text(page.$(".count")), "2 upcoming events");
    assert.equal(text(page.$(".p-geo")), "Coordinates: 44.4986, 11.3488");
    assert.equal(
      link(page, "a.map"),
      "https://www.openstreetmap.org/?mlat=44.4986&mlon=11.3488#map=17/44.4986/11.3488",
    );
    assert.equal(
      new URL(link(page, "a.directions")).searchParams.get("to"),
      "44.4986,11.3488",
    );
    assert.ok(page.$("svg.pin"), "the marker is drawn inline");
    assert.doesNotMatch(page.html, /<(img|iframe)\b/, "no map tiles");
    // Microformats: an h-card with its h-adr and coordinates.
    const cards = page.mf.items.filter((i: Json) => i.type.includes("h-card"));
    assert.equal(cards.length, 1);
    const card = cards[0].properties;
    assert.equal(card.name[0], "Libreria Modo Infoshop");
    assert.equal(
      card.adr[0].properties["street-address"][0],
      "Via Mascarella 24/b, Bologna",
    );
    assert.equal(card.geo[0].properties.latitude[0], "44.4986");
    assert.equal(card.geo[0].properties.longitude[0], "11.3488");
    assert.deepEqual(card.url, [`${BASE}/place/${here.place.id}`]);
    // schema.org Place.
    assert.equal(page.ld["@context"], "https://schema.org");
    assert.equal(page.ld["@type"], "Place");
    assert.equal(page.ld.name, "Libreria Modo Infoshop");
    assert.equal(page.ld.address.streetAddress, "Via Mascarella 24/b, Bologna");
    assert.deepEqual(page.ld.geo, {
      "@type": "GeoCoordinates",
      latitude: 44.4986,
      longitude: 11.3488,
    });
    assert.equal(page.ld.url, `${BASE}/place/${here.place.id}`);

    // Without coordinates: no map, no coordinates, a search for the address.
    const there = await create({
      title: "Film club",
      start_datetime: JUNE_6_EVENING,
      place_name: "Cinema Galliera",
      place_address: "Via Matteotti 25, Bologna",
    });
    const plain = await getPage(ctx, `/place/${there.place.id}`);
    assert.equal(plain.$("a.map"), null);
    assert.equal(plain.$(".p-geo"), null);
    assert.equal(plain.$("svg.pin"), null);
    assert.equal(
      new URL(link(plain, "a.directions")).searchParams.get("query"),
      "Via Matteotti 25, Bologna",
    );
    assert.equal(plain.ld.geo, undefined);
    assert.equal(text(plain.$(".count")), "1 upcoming event");
    // Bad ids answer 404 pages.
    await getPage(ctx, "/place/0", 404);
    await getPage(ctx, "/place/12abc", 404);
  } finally {
    ctx.close();
  }
});

Deno.test("tag page: the tag named once with its count; the entries keep their other tags", async () => {
  const { ctx, create } = await world();
  try {
    await create({
      title: "Jam session",
      start_datetime: JUNE_6_EVENING,
      tags: ["Jazz", "Open stage"],
    });
    await create({
      title: "Big band",
      start_datetime: JUNE_6_EVENING + DAY,
      tags: ["jazz"],
    });
    const page = await getPage(ctx, "/tag/JAZZ");
    assert.equal(text(page.$("h1")), "Events tagged #Jazz");
    assert.equal(text(page.$(".count")), "2 upcoming events");
    assert.deepEqual(
      page.$$(".event-item .p-category").map(text),
      ["#Open stage"],
    );
    // Still an h-feed of h-events with their places.
    const mfEvents = page.mf.items.filter((i: Json) =>
      i.type.includes("h-event")
    );
    assert.equal(mfEvents.length, 2);
  } finally {
    ctx.close();
  }
});
