/**
 * The search page (/search) and the filtered feeds through `app.request()`:
 * each filter alone and combined, canonical URLs, paging and counts, bad
 * input (a 400 with the form and nothing leaked), the full-text limits, the
 * feeds of a filter in all four formats (parsed with ical.js,
 * fast-xml-parser and JSON) holding exactly the filtered events, the
 * public-read cache (one entry per canonical filter, filtered answers apart),
 * HTML validity (parse5) and the page in other languages.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import ICAL from "ical.js";
import { XMLParser } from "fast-xml-parser";
import { Hono } from "hono";
import { translator } from "../lib/i18n.ts";
import { ResponseCache } from "../lib/response-cache.ts";
import { FixedClock } from "../lib/clock.ts";
import { publicReadCache } from "../routes/middleware/cache.ts";
import { CACHE_RULES, CACHED_ROUTES } from "../routes/mod.ts";
import { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../db/client.ts";
import { events } from "../db/schema.ts";
import type { AppEnv, RouteDeps } from "../routes/env.ts";
import {
  bolognaInstance,
  call,
  createTestApp,
  type El,
  parseErrors,
  sqlDuring,
  statementsDuring,
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
  /** The titles of the listed events, in order. */
  titles: string[];
  h1: string;
}

const TZ = "Europe/Rome";
const DAY = 86_400;
/** A day heading as the page writes it (en-GB, full). */
const dayHeading = (iso: string) =>
  new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeZone: TZ })
    .format(new Date(iso));
const at = (iso: string) => Date.parse(iso) / 1000;
const BASE = "http://quando.test";

async function get(
  ctx: TestContext,
  path: string,
  headers: Record<string, string> = {},
): Promise<Page> {
  const res = await ctx.app.request(path, { headers, redirect: "manual" });
  const html = await res.text();
  const { document } = parseHTML(html) as unknown as { document: El };
  const $$ = (s: string) => [...document.querySelectorAll(s)];
  return {
    res,
    html,
    $: (s) => document.querySelector(s),
    $$,
    titles: $$(".h-event .p-name").map(text),
    h1: text(document.querySelector("h1")),
  };
}

async function world() {
  const { ctx, admin } = await bolognaInstance(TZ);
  const create = async (body: Record<string, unknown>) => {
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: body,
    });
    const out = await res.text();
    assert.equal(res.status, 201, out);
    return JSON.parse(out) as Json;
  };
  const jazz = await create({
    title: "Jazz night at the Cantina",
    description: "<p>The Bentivoglio Quartet plays standards.</p>",
    // 19:00 in Rome.
    start_datetime: at("2026-06-06T17:00:00Z"),
    end_datetime: at("2026-06-06T20:00:00Z"),
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4/b",
    online_locations: ["https://stream.example.org/cantina"],
    tags: ["Jazz", "Live music"],
  });
  const blues = await create({
    title: "Blues jam",
    // 00:30 on June 7 in Rome, still June 6 in UTC.
    start_datetime: at("2026-06-06T22:30:00Z"),
    place_id: jazz.place.id,
    tags: ["Blues"],
  });
  const python = await create({
    title: "Python meetup",
    start_datetime: at("2026-06-10T16:00:00Z"),
    online_locations: ["https://meet.example.org/python"],
    tags: ["Python", "Tech"],
  });
  const film = await create({
    title: "Film: Casablanca",
    description: "<p>With its jazz soundtrack, under the stars.</p>",
    start_datetime: at("2026-06-20T19:00:00Z"),
    place_name: "Piazza Maggiore",
    tags: ["Cinema"],
  });
  const hidden = await create({
    title: "Secret jazz rehearsal",
    start_datetime: at("2026-06-08T17:00:00Z"),
    place_id: jazz.place.id,
    tags: ["Jazz"],
  });
  const toggled = await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, {
    token: admin.token,
  });
  assert.equal(toggled.status, 200);
  const past = await create({
    title: "Old jazz concert",
    start_datetime: at("2026-05-20T18:00:00Z"),
    place_id: jazz.place.id,
    tags: ["Jazz"],
  });
  const readings: Json[] = [];
  for (let i = 0; i < 25; i++) {
    readings.push(
      await create({
        title: `Reading group ${String(i + 1).padStart(2, "0")}`,
        // 12:00 in Rome, from June 2.
        start_datetime: at("2026-06-02T10:00:00Z") + i * DAY,
        place_name: "Biblioteca Salaborsa",
        tags: ["Books"],
      }),
    );
  }
  return { ctx, admin, jazz, blues, python, film, hidden, past, readings };
}

/** Every title in upcoming order over all the pages of a search. */
async function allTitles(ctx: TestContext, path: string): Promise<string[]> {
  const titles: string[] = [];
  let next: string | null = path;
  for (let n = 0; next && n < 10; n++) {
    const page = await get(ctx, next);
    assert.equal(page.res.status, 200, `${next}: ${page.html.slice(0, 300)}`);
    titles.push(...page.titles);
    next = page.$(".pager a.next")?.getAttribute("href") ?? null;
  }
  return titles;
}

Deno.test("search: no query and no filter lists the upcoming events, paged, by day in the instance zone, with a count", async () => {
  const { ctx } = await world();
  try {
    const page = await get(ctx, "/search");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    assert.equal(page.h1, "Search events");
    assert.equal(text(page.$("#result-count")), "29 events found.");
    assert.equal(page.titles.length, 20);
    assert.equal(
      page.$("nav.browse a[aria-current=page]"),
      null,
      "no browse item is the search",
    );
    assert.equal(
      page.$(".pager a.next")?.getAttribute("href"),
      "/search?page=2",
    );
    assert.equal(page.$(".pager a.prev"), null);
    assert.equal(
      page.$("link[rel=canonical]")?.getAttribute("href"),
      `${BASE}/search`,
    );
    // The plain page may be indexed; the footer offers every event's feeds.
    assert.equal(page.$("meta[name=robots]"), null);
    assert.equal(
      page.$("footer a.webcal")?.getAttribute("href"),
      "webcal://quando.test/feed/ics",
    );
    // Days in Rome: the blues jam (00:30 on June 7) is under Sunday 7 June.
    const sunday = page.$$("section.day").find((s) =>
      text(s.querySelector("h2")) === dayHeading("2026-06-07T12:00:00Z")
    );
    assert.ok(sunday, page.$$("section.day h2").map(text).join(" | "));
    assert.deepEqual(
      [...sunday.querySelectorAll(".p-name")].map(text),
      ["Blues jam", "Reading group 06"],
    );
    const all = await allTitles(ctx, "/search");
    assert.equal(all.length, 29);
    assert.ok(!all.includes("Secret jazz rehearsal"), "hidden never listed");
    assert.ok(!all.includes("Old jazz concert"), "past not upcoming");
    const second = await get(ctx, "/search?page=2");
    assert.equal(second.titles.length, 9);
    assert.equal(second.$(".pager a.prev")?.getAttribute("href"), "/search");
    assert.equal(second.$(".pager a.next"), null);
    assert.equal(second.h1, "Search events, page 2");
    const beyond = await get(ctx, "/search?page=3");
    assert.equal(beyond.res.status, 200);
    assert.deepEqual(beyond.titles, []);
    assert.match(text(beyond.$("main")), /There are no more results\./);
    // A page past the results still says how many there are.
    assert.equal(text(beyond.$("#result-count")), "29 events found.");
  } finally {
    ctx.close();
  }
});

Deno.test("search: each filter alone finds exactly its events", async () => {
  const { ctx, jazz } = await world();
  try {
    const cases: [string, string[]][] = [
      // Words: title, description, place and tags, any case, word starts.
      ["q=jazz", ["Jazz night at the Cantina", "Film: Casablanca"]],
      ["q=BENTIVOG", ["Jazz night at the Cantina", "Blues jam"]],
      ["q=blues", ["Blues jam"]],
      ["q=live+music", ["Jazz night at the Cantina"]],
      ["q=%21%21%21", []],
      ["tags=jazz", ["Jazz night at the Cantina"]],
      ["tags=blues&tags=jazz", ["Jazz night at the Cantina", "Blues jam"]],
      [`places=${jazz.place.id}`, ["Jazz night at the Cantina", "Blues jam"]],
      ["from=2026-06-07&to=2026-06-07", ["Blues jam", "Reading group 06"]],
      ["online=true", ["Jazz night at the Cantina", "Python meetup"]],
    ];
    for (const [query, expected] of cases) {
      const titles = await allTitles(ctx, `/search?${query}`);
      assert.deepEqual(titles, expected, query);
      const page = await get(ctx, `/search?${query}`);
      assert.equal(
        text(page.$("#result-count")),
        expected.length === 0
          ? "No events found."
          : expected.length === 1
          ? "1 event found."
          : `${expected.length} events found.`,
        query,
      );
      assert.deepEqual(parseErrors(page.html), [], query);
    }
    // In person: every event held at a place (the hybrid jazz night too).
    const inPerson = await allTitles(ctx, "/search?online=false");
    assert.equal(inPerson.length, 28);
    assert.ok(!inPerson.includes("Python meetup"));
    assert.ok(inPerson.includes("Jazz night at the Cantina"));
    // From a past day on: what still ran then, past events included.
    const since = await allTitles(ctx, "/search?q=jazz&from=2026-05-01");
    assert.deepEqual(since, [
      "Old jazz concert",
      "Jazz night at the Cantina",
      "Film: Casablanca",
    ]);
    // Until a day: nothing that starts after it.
    const until = await allTitles(ctx, "/search?to=2026-06-03");
    assert.deepEqual(until, ["Reading group 01", "Reading group 02"]);
  } finally {
    ctx.close();
  }
});

Deno.test("search: filters combine; the chips remove one filter each; the form shows them chosen", async () => {
  const { ctx, jazz } = await world();
  try {
    const query =
      `q=jazz&tags=cinema&tags=jazz&places=${jazz.place.id}&from=2026-06-02&to=2026-06-30&online=false`;
    const page = await get(ctx, `/search?${query}`);
    assert.equal(page.res.status, 200, page.html);
    assert.deepEqual(page.titles, ["Jazz night at the Cantina"]);
    assert.equal(page.h1, "Events matching “jazz”");
    assert.equal(
      page.$("meta[name=robots]")?.getAttribute("content"),
      "noindex",
    );
    const chips = page.$$(".chips a").map((a) => ({
      label: text(a),
      href: a.getAttribute("href"),
    }));
    const without = (drop: string) =>
      `/search?${query.split("&").filter((p) => p !== drop).join("&")}`;
    assert.deepEqual(chips, [
      { label: "Remove filter: “jazz” ×", href: without("q=jazz") },
      { label: "Remove filter: #Cinema ×", href: without("tags=cinema") },
      { label: "Remove filter: #Jazz ×", href: without("tags=jazz") },
      {
        label: "Remove filter: Cantina Bentivoglio ×",
        href: without(`places=${jazz.place.id}`),
      },
      {
        label: `Remove filter: from ${dayHeading("2026-06-02T12:00:00Z")} ×`,
        href: without("from=2026-06-02"),
      },
      {
        label: `Remove filter: until ${dayHeading("2026-06-30T12:00:00Z")} ×`,
        href: without("to=2026-06-30"),
      },
      { label: "Remove filter: In person ×", href: without("online=false") },
    ]);
    // Every chip's link is itself a canonical search (answered, not redirected).
    for (const chip of chips) {
      const res = await ctx.app.request(chip.href!, { redirect: "manual" });
      assert.equal(res.status, 200, chip.href!);
      await res.body?.cancel();
    }
    // The form shows the filter.
    assert.equal(page.$("#search-q")?.getAttribute("value"), "jazz");
    const checked = page.$$("input[type=checkbox]").filter((i) =>
      i.hasAttribute("checked")
    ).map((i) => `${i.getAttribute("name")}=${i.getAttribute("value")}`);
    assert.deepEqual(checked, [
      "tags=cinema",
      "tags=jazz",
      `places=${jazz.place.id}`,
    ]);
    assert.equal(page.$("#search-from")?.getAttribute("value"), "2026-06-02");
    assert.equal(page.$("#search-to")?.getAttribute("value"), "2026-06-30");
    assert.ok(
      page.$("input[name=online][value=false]")?.hasAttribute("checked"),
    );
    assert.ok(page.$("details.refine")?.hasAttribute("open"));
    // Every field is labelled.
    for (const id of ["search-q", "search-from", "search-to"]) {
      assert.ok(page.$(`label[for=${id}]`), id);
    }
    // The tags and places offered: the most used among upcoming events.
    const offered = page.$$("input[name=tags]").map((i) =>
      i.getAttribute("value")
    );
    assert.deepEqual(offered.slice(0, 3), ["cinema", "jazz", "books"]);
    assert.ok(!offered.includes("secret"), "nothing from hidden events");
    // Any of the tags, any of the places: with a second tag, more.
    const either = await allTitles(ctx, "/search?tags=blues&tags=cinema");
    assert.deepEqual(either, ["Blues jam", "Film: Casablanca"]);
  } finally {
    ctx.close();
  }
});

Deno.test("search: one canonical URL per search; the form's empty fields and any order redirect to it", async () => {
  const { ctx } = await world();
  try {
    const cases: [string, string][] = [
      ["q=jazz&from=&to=&online=", "/search?q=jazz"],
      ["online=&q=+jazz++night+&tags=", "/search?q=jazz+night"],
      [
        "tags=Live+Music&tags=JAZZ&tags=jazz",
        "/search?tags=jazz&tags=live+music",
      ],
      ["tags=jazz,blues", "/search?tags=blues&tags=jazz"],
      ["places=3&places=1,3", "/search?places=1&places=3"],
      ["page=1&q=jazz", "/search?q=jazz"],
      ["lang=it&q=jazz&utm_source=x", "/search?q=jazz&lang=it"],
      [
        "to=2026-06-30&from=2026-06-01&online=true",
        "/search?from=2026-06-01&to=2026-06-30&online=true",
      ],
      ["q=", "/search"],
    ];
    for (const [query, location] of cases) {
      const res = await ctx.app.request(`/search?${query}`, {
        redirect: "manual",
      });
      assert.equal(res.status, 302, query);
      assert.equal(res.headers.get("location"), location, query);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("search: bad values answer 400 with the form and the problem next to its field, and nothing else", async () => {
  const { ctx, jazz } = await world();
  try {
    const long = `${"<script>alert(1)</script>".repeat(4)}xx`;
    assert.ok(long.length > 100);
    const cases: [string, string, string][] = [
      [
        `places=${jazz.place.id}&places=99999`,
        "places",
        "There is no such place.",
      ],
      ["places=abc", "places", "Places are given by their number."],
      ["from=2026-13-01", "from", "Enter a date as YYYY-MM-DD."],
      ["from=2026-02-30", "from", "Enter a date as YYYY-MM-DD."],
      ["to=tomorrow", "to", "Enter a date as YYYY-MM-DD."],
      [
        "from=2026-06-10&to=2026-06-01",
        "to",
        "The last day comes before the first day.",
      ],
      [`q=${encodeURIComponent(long)}`, "q", "Use at most 100 characters."],
      ["q=a+b+c+d+e+f+g+h+i", "q", "Use at most 8 words."],
      ["online=maybe", "online", "Choose online, in person or either way."],
      [
        `tags=${Array.from({ length: 11 }, (_, i) => `t${i}`).join(",")}`,
        "tags",
        "Choose at most 10 tags.",
      ],
    ];
    for (const [query, field, problem] of cases) {
      const page = await get(ctx, `/search?${query}`);
      assert.equal(page.res.status, 400, query);
      assert.equal(page.res.headers.get("cache-control"), "no-store", query);
      assert.equal(page.h1, "Check your search", query);
      assert.equal(text(page.$(`#${field}-error`)), problem, query);
      assert.ok(
        page.$(".problems")?.textContent?.includes(problem),
        `${query}: the summary names the problem`,
      );
      // The form again, no results, nothing that is not the visitor's.
      assert.ok(page.$("form.search #search-q"), query);
      assert.deepEqual(page.titles, [], query);
      assert.equal(page.$("#result-count"), null, query);
      assert.doesNotMatch(page.html, /Secret jazz rehearsal/);
      assert.doesNotMatch(page.html, /<script>alert/);
      assert.doesNotMatch(page.html, /select |sqlite|Error:|at .*\.ts:\d+/i);
      assert.deepEqual(parseErrors(page.html), [], query);
      if (field === "q" || field === "from" || field === "to") {
        assert.equal(
          page.$(`#search-${field}`)?.getAttribute("aria-invalid"),
          "true",
        );
        assert.match(
          page.$(`#search-${field}`)?.getAttribute("aria-describedby") ?? "",
          new RegExp(`${field}-error`),
        );
      }
    }
    for (const query of ["page=0", "page=abc", "page=51", "page=-1"]) {
      const page = await get(ctx, `/search?${query}`);
      assert.equal(page.res.status, 400, query);
      assert.match(
        text(page.$(".problems")),
        /There is no such page \(1 to 50\)\./,
      );
    }
    // The header's box holds 100 characters: 100 are a search.
    const hundred = "x".repeat(100);
    assert.equal((await get(ctx, `/search?q=${hundred}`)).res.status, 200);
    assert.equal(
      (await get(ctx, "/search?q=a+b+c+d+e+f+g+h")).res.status,
      200,
      "eight words",
    );
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- feeds

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
});
const asArray = <T>(v: T | T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

async function fetchFeed(ctx: TestContext, path: string): Promise<string> {
  const res = await call(ctx, "GET", path);
  const body = await res.text();
  assert.equal(res.status, 200, `${path}: ${body}`);
  return body;
}

/** The event titles of a feed in each format, sorted. */
async function feedTitles(
  ctx: TestContext,
  query: string,
): Promise<Record<string, string[]>> {
  const suffix = query ? `?${query}` : "";
  const ics = new ICAL.Component(
    ICAL.parse(await fetchFeed(ctx, `/feed/ics${suffix}`)),
  );
  const rss = xml.parse(await fetchFeed(ctx, `/feed/rss${suffix}`));
  const atom = xml.parse(await fetchFeed(ctx, `/feed/atom${suffix}`));
  const json = JSON.parse(await fetchFeed(ctx, `/feed/json${suffix}`));
  const titleOf = (v: unknown) =>
    typeof v === "object" && v !== null ? (v as Json)["#text"] : String(v);
  return {
    ics: ics.getAllSubcomponents("vevent").map((v) =>
      String(v.getFirstPropertyValue("summary"))
    ).sort(),
    rss: asArray(rss.rss.channel.item).map((i: Json) => titleOf(i.title))
      .sort(),
    atom: asArray(atom.feed.entry).map((e: Json) => titleOf(e.title)).sort(),
    json: json.items.map((i: Json) => i.title).sort(),
  };
}

Deno.test("filtered feeds: the search page's filters in all four formats hold exactly the filtered events", async () => {
  const { ctx, jazz } = await world();
  try {
    const cases: [string, string[]][] = [
      ["q=jazz", [
        "Film: Casablanca",
        "Jazz night at the Cantina",
        "Old jazz concert",
      ]],
      ["tags=blues&tags=jazz", [
        "Blues jam",
        "Jazz night at the Cantina",
        "Old jazz concert",
      ]],
      [`places=${jazz.place.id}&online=true`, ["Jazz night at the Cantina"]],
      ["from=2026-06-07&to=2026-06-07", ["Blues jam", "Reading group 06"]],
      ["q=jazz&from=2026-06-10", ["Film: Casablanca"]],
      ["online=true", ["Jazz night at the Cantina", "Python meetup"]],
    ];
    for (const [query, expected] of cases) {
      const titles = await feedTitles(ctx, query);
      for (const [format, found] of Object.entries(titles)) {
        assert.deepEqual(found, expected, `${format} ?${query}`);
      }
    }
    // The search page links to those very feeds, and subscribes by webcal.
    const query = "q=jazz&tags=jazz";
    const page = await get(ctx, `/search?${query}`);
    const links = Object.fromEntries(
      page.$$("head link[rel=alternate]").map((l) => [
        l.getAttribute("type"),
        l.getAttribute("href"),
      ]),
    );
    assert.deepEqual(links, {
      "application/rss+xml": `/feed/rss?${query}`,
      "application/atom+xml": `/feed/atom?${query}`,
      "application/feed+json": `/feed/json?${query}`,
      "text/calendar": `/feed/ics?${query}`,
    });
    assert.equal(
      page.$("footer a.webcal")?.getAttribute("href"),
      `webcal://quando.test/feed/ics?${query}`,
    );
    assert.equal(
      text(page.$("footer h2")),
      "Subscribe to these search results",
    );
    assert.equal(page.$("a[href='#subscribe']") !== null, true);
    const footerFeeds = page.$$("footer .feeds a").map((a) =>
      a.getAttribute("href")
    );
    assert.deepEqual(footerFeeds, [
      `/feed/ics?${query}`,
      `/feed/rss?${query}`,
      `/feed/atom?${query}`,
      `/feed/json?${query}`,
    ]);
    // The feeds name themselves by their filtered URL and link to the page.
    const json = JSON.parse(await fetchFeed(ctx, `/feed/json?${query}`));
    assert.equal(json.feed_url, `${BASE}/feed/json?${query}`);
    assert.equal(json.home_page_url, `${BASE}/search?${query}`);
    assert.equal(json.title, 'Bologna Events — "jazz" · #jazz');
    const atom = xml.parse(await fetchFeed(ctx, `/feed/atom?${query}`));
    const self = asArray(atom.feed.link).find((l: Json) =>
      l["@rel"] === "self"
    );
    assert.equal(self["@href"], `${BASE}/feed/atom?${query}`);
    const ics = new ICAL.Component(
      ICAL.parse(await fetchFeed(ctx, `/feed/ics?${query}&past_days=5`)),
    );
    assert.equal(
      ics.getFirstPropertyValue("source")?.toString() ??
        ics.getFirstProperty("source")?.getFirstValue(),
      `${BASE}/feed/ics?${query}&past_days=5`,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("filtered feeds: bad values are a 400 in the API's error shape; the parameters are documented", async () => {
  const { ctx } = await world();
  try {
    for (
      const [query, field] of [
        ["places=99999", "places"],
        ["places=x", "places"],
        ["from=2026-02-30", "from"],
        ["from=2026-06-10&to=2026-06-01", "to"],
        [`q=${"x".repeat(101)}`, "q"],
        ["q=a+b+c+d+e+f+g+h+i", "q"],
        ["online=yes", "online"],
      ]
    ) {
      for (const format of ["ics", "json"]) {
        const res = await call(ctx, "GET", `/feed/${format}?${query}`);
        const body = await res.json();
        assert.equal(res.status, 400, `${format} ${query}`);
        assert.equal(body.error, "invalid_request");
        assert.equal(body.details[0].field, field, query);
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
      }
    }
    const doc = await (await call(ctx, "GET", "/api/openapi.json")).json();
    const params = doc.paths["/feed/{format}"].get.parameters.map((
      p: Json,
    ) => p.name);
    for (
      const name of [
        "format",
        "past_days",
        "q",
        "tags",
        "places",
        "from",
        "to",
        "online",
      ]
    ) {
      assert.ok(params.includes(name), `${name} in ${params}`);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("filtered ICS feed: a series is one RRULE entry by tag, its occurrences one by one within a range of days", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_timezone: TZ, instance_locale: "en-GB" },
    });
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Yoga in the park",
        start_datetime: at("2026-06-03T06:00:00Z"),
        end_datetime: at("2026-06-03T07:00:00Z"),
        place_name: "Giardini Margherita",
        tags: ["Yoga"],
        recurrent: { frequency: "1w" },
      },
    });
    assert.equal(res.status, 201, await res.text());
    const byTag = new ICAL.Component(
      ICAL.parse(await fetchFeed(ctx, "/feed/ics?tags=yoga")),
    ).getAllSubcomponents("vevent");
    assert.equal(byTag.length, 1);
    assert.ok(byTag[0].hasProperty("rrule"));
    const ranged = new ICAL.Component(
      ICAL.parse(
        await fetchFeed(
          ctx,
          "/feed/ics?tags=yoga&from=2026-06-08&to=2026-06-24",
        ),
      ),
    ).getAllSubcomponents("vevent");
    assert.deepEqual(
      ranged.map((v) => [
        v.hasProperty("rrule"),
        (v.getFirstPropertyValue("dtstart") as ICAL.Time).toUnixTime(),
      ]),
      [
        [false, at("2026-06-10T06:00:00Z")],
        [false, at("2026-06-17T06:00:00Z")],
        [false, at("2026-06-24T06:00:00Z")],
      ],
    );
    // The search page says the same.
    const page = await get(
      ctx,
      "/search?tags=yoga&from=2026-06-08&to=2026-06-24",
    );
    assert.equal(page.titles.length, 3);
    assert.equal(text(page.$("#result-count")), "3 events found.");
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- cache

Deno.test("cache: a canonical search or filtered feed is answered from memory; distinct filters never share an entry; non-canonical ones are never kept", async () => {
  const { ctx } = await world();
  try {
    const fetchOk = async (path: string) => {
      const res = await ctx.app.request(path);
      assert.equal(res.status, 200, path);
      return await res.text();
    };
    for (
      const path of [
        "/search?q=jazz",
        "/search?tags=jazz&online=true",
        "/feed/json?tags=jazz",
        "/feed/ics?q=jazz&from=2026-06-01",
        "/search",
      ]
    ) {
      // Kept once asked for again.
      await fetchOk(path);
      const first = await fetchOk(path);
      let second = "";
      const statements = await statementsDuring(ctx, async () => {
        second = await fetchOk(path);
      });
      assert.equal(statements, 0, `${path} served from memory`);
      if (!path.startsWith("/search")) assert.equal(second, first);
    }
    // Distinct filters: their own answers.
    const jazz = JSON.parse(await fetchOk("/feed/json?tags=jazz"));
    const blues = JSON.parse(await fetchOk("/feed/json?tags=blues"));
    assert.deepEqual(jazz.items.map((i: Json) => i.title).sort(), [
      "Jazz night at the Cantina",
      "Old jazz concert",
    ]);
    assert.deepEqual(blues.items.map((i: Json) => i.title), ["Blues jam"]);
    const jazzPage = await get(ctx, "/search?q=jazz");
    const bluesPage = await get(ctx, "/search?q=blues");
    assert.notDeepEqual(jazzPage.titles, bluesPage.titles);
    // Non-canonical (an unknown parameter, another order): answered, not kept.
    for (
      const path of [
        "/feed/json?tags=jazz&x=1",
        "/feed/json?online=true&tags=jazz",
        "/feed/rss?tags=JAZZ",
      ]
    ) {
      await fetchOk(path);
      await fetchOk(path);
      const statements = await statementsDuring(ctx, async () => {
        await fetchOk(path);
      });
      assert.ok(statements > 0, `${path} is not kept`);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("cache: random filtered answers push out only each other, never the plain pages and feeds", async () => {
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const deps = {
    database: { changeMarker: () => "m", embedded: true },
    config: { publicCacheMs: 60_000 },
  } as unknown as RouteDeps;
  const main = new ResponseCache({ ttlMs: 60_000, maxBytes: 400_000, clock });
  const filtered = new ResponseCache({
    ttlMs: 60_000,
    maxBytes: 100_000,
    clock,
  });
  const cache = publicReadCache(deps, CACHE_RULES, main, filtered);
  const app = new Hono<AppEnv>();
  app.on("GET", CACHED_ROUTES, cache.middleware);
  let built = 0;
  const body = "x".repeat(10_000);
  app.get("*", (c) => {
    built++;
    return c.html(body);
  });
  const fetchPath = async (path: string) => {
    const res = await app.request(path);
    assert.equal(res.status, 200);
    await res.text();
  };
  // Asked for twice: kept.
  for (let twice = 0; twice < 2; twice++) {
    await fetchPath("/");
    await fetchPath("/feed/ics");
  }
  const before = built;
  await fetchPath("/");
  await fetchPath("/feed/ics");
  assert.equal(built, before, "kept");
  for (let i = 0; i < 60; i++) {
    for (let twice = 0; twice < 2; twice++) {
      await fetchPath(`/search?q=random${i}`);
      await fetchPath(`/feed/json?q=random${i}`);
    }
  }
  const afterRandom = built;
  assert.equal(afterRandom, before + 240);
  await fetchPath("/");
  await fetchPath("/feed/ics");
  assert.equal(built, afterRandom, "the plain answers are still kept");
  // The filtered ones are bounded: the oldest were pushed out.
  await fetchPath("/search?q=random0");
  assert.equal(built, afterRandom + 1);
  // And the latest are kept.
  await fetchPath("/feed/json?q=random59");
  assert.equal(built, afterRandom + 1);
});

// ---------------------------------------------------------------- languages

Deno.test("search page in other languages: form, count, chips and problems in the page's language", async () => {
  const { ctx } = await world();
  try {
    for (const lang of ["it", "fr", "es", "de"]) {
      const t = translator(lang);
      const headers = { "accept-language": lang };
      const page = await get(ctx, "/search?q=jazz&online=true", headers);
      assert.equal(page.res.status, 200);
      assert.equal(page.h1, t("public.search.titleFor", { q: "jazz" }));
      assert.equal(
        text(page.$("#result-count")),
        t("public.search.count.one"),
      );
      assert.equal(
        text(page.$("label[for=search-q]")),
        t("public.search.words"),
      );
      assert.equal(
        page.$(".chips")?.getAttribute("aria-label"),
        t("public.search.active"),
      );
      assert.match(
        text(page.$(".chips")),
        new RegExp(t("public.search.online")),
      );
      assert.equal(text(page.$("footer h2")), t("public.search.subscribe"));
      assert.deepEqual(parseErrors(page.html), []);
      const bad = await get(ctx, "/search?from=2026-99-01", headers);
      assert.equal(bad.res.status, 400);
      assert.equal(bad.h1, t("public.search.badTitle"));
      assert.equal(
        text(bad.$("#from-error")),
        t("public.search.problem.badDate"),
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("search: cheap whatever the table: a fixed number of statements per page", async () => {
  const { ctx } = await world();
  try {
    for (
      const path of [
        "/search?q=jazz&tags=jazz&places=1&from=2026-06-01&to=2026-07-01&online=false&page=2",
        "/search",
        "/search?places=99999",
      ]
    ) {
      const statements = await statementsDuring(ctx, async () => {
        const res = await ctx.app.request(path, {
          headers: { authorization: "Bearer none" },
        });
        await res.body?.cancel();
      });
      // The settings (read once a second) and one batch for the page.
      assert.ok(statements <= 2, `${path}: ${statements} statements`);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("search: what still runs first (for weeks or since this morning), then by start; counted up to 1,000, then 'more than'; 50 pages at most", async () => {
  const { ctx } = await bolognaInstance(TZ);
  try {
    // Now is 2026-06-01T12:00Z (the test clock).
    const now = at("2026-06-01T12:00:00Z");
    const HOUR = 3600;
    const stamp = new Date(now * 1000);
    const row = (title: string, slug: string, start: number, end: number) => ({
      title,
      slug,
      start_datetime: start,
      end_datetime: end,
      createdAt: stamp,
      updatedAt: stamp,
    });
    const concerts = Array.from({ length: 1004 }, (_, i) =>
      row(
        `Concert ${String(i).padStart(4, "0")} in Bologna`,
        `concert-${i}`,
        now + (i + 1) * HOUR,
        now + (i + 1) * HOUR + HOUR,
      ));
    const rows = [
      // Started twenty days ago, on for thirty more: runs now, and ends
      // after the festival though it began before (the long events' index
      // gives them by end; the listing is by start).
      row(
        "Art biennale in Bologna",
        "biennale",
        now - 20 * DAY,
        now + 30 * DAY,
      ),
      // Started five days ago, on for nine more: runs now.
      row(
        "Summer festival in Bologna",
        "festival",
        now - 5 * DAY,
        now + 9 * DAY,
      ),
      // Began an hour ago, ends in an hour.
      row("Morning talk in Bologna", "talk", now - HOUR, now + HOUR),
      // Over: yesterday's, and one that ran for days until yesterday.
      row("Party in Bologna", "party", now - 20 * HOUR, now - 18 * HOUR),
      row("Exhibition in Bologna", "exhibition", now - 10 * DAY, now - DAY),
      ...concerts,
    ];
    for (let i = 0; i < rows.length; i += 250) {
      await ctx.database.db.insert(events).values(rows.slice(i, i + 250));
    }
    const concert = (i: number) =>
      `Concert ${String(i).padStart(4, "0")} in Bologna`;

    const first = await get(ctx, "/search?q=bologna");
    assert.equal(first.res.status, 200);
    assert.equal(
      text(first.$("#result-count")),
      "More than 1,000 events found.",
    );
    assert.deepEqual(first.titles, [
      "Art biennale in Bologna",
      "Summer festival in Bologna",
      "Morning talk in Bologna",
      ...Array.from({ length: 17 }, (_, i) => concert(i)),
    ]);
    // Ranks 981 to 1,000 on the deepest page, which links no further.
    const last = await get(ctx, "/search?q=bologna&page=50");
    assert.deepEqual(
      last.titles,
      Array.from({ length: 20 }, (_, i) => concert(977 + i)),
    );
    assert.equal(last.$(".pager a.next"), null);
    assert.equal(
      last.$(".pager a.prev")?.getAttribute("href"),
      "/search?q=bologna&page=49",
    );
    assert.equal(
      text(last.$("#result-count")),
      "More than 1,000 events found.",
    );

    // Each part alone, and exactly counted below the bound.
    for (
      const [query, titles] of [
        ["festival", ["Summer festival in Bologna"]],
        ["biennale", ["Art biennale in Bologna"]],
        ["talk", ["Morning talk in Bologna"]],
        ["party", []],
        ["exhibition", []],
        ["concert+0999", [concert(999)]],
      ] as const
    ) {
      const page = await get(ctx, `/search?q=${query}`);
      assert.deepEqual(page.titles, titles, query);
      assert.equal(
        text(page.$("#result-count")),
        titles.length ? "1 event found." : "No events found.",
        query,
      );
    }
    // Without words, until the end of today in Rome (22:00Z): what runs,
    // then nine concerts.
    const plain = await get(ctx, "/search?to=2026-06-01");
    assert.equal(text(plain.$("#result-count")), "12 events found.");
    assert.deepEqual(plain.titles.slice(0, 4), [
      "Art biennale in Bologna",
      "Summer festival in Bologna",
      "Morning talk in Bologna",
      concert(0),
    ]);
    // From a day in the past: what still ran then, in start order.
    const since = await allTitles(
      ctx,
      "/search?q=in+bologna&from=2026-05-31&to=2026-06-01",
    );
    assert.deepEqual(since, [
      "Art biennale in Bologna",
      "Exhibition in Bologna",
      "Summer festival in Bologna",
      "Party in Bologna",
      "Morning talk in Bologna",
      ...Array.from({ length: 9 }, (_, i) => concert(i)),
    ]);

    // The page's statement builds the words' set of events once.
    const recorded = await sqlDuring(
      ctx,
      () => get(ctx, "/search?q=bologna&page=2"),
    );
    assert.equal(
      recorded.join("\n").match(/event_search match/g)?.length,
      1,
      recorded.join("\n"),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("search: the tags and places offered follow every write at once, and are not read again until one", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "0" } });
  try {
    const { token } = await userWithToken(ctx, "admin");
    const create = async (title: string, tag: string, place: string) => {
      const res = await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title,
          start_datetime: at("2026-06-05T18:00:00Z"),
          tags: [tag],
          place_name: place,
          place_address: "Via Zamboni 1",
        },
      });
      assert.equal(res.status, 201, await res.text());
    };
    /** The tags and places offered, and whether the page read them. */
    const offered = async () => {
      let page: Page | undefined;
      const statements = await sqlDuring(ctx, async () => {
        page = await get(ctx, "/search");
      });
      return {
        tags: page!.$$("input[name=tags]").map((i) => i.getAttribute("value")),
        places: page!.$$("input[name=places] + span").map(text),
        read: statements.some((q) => /"sample"/.test(q)),
      };
    };

    await create("Opera gala", "Opera", "Teatro Comunale");
    let seen = await offered();
    assert.deepEqual(seen.tags, ["opera"]);
    assert.ok(seen.places.some((p) => p.includes("Teatro Comunale")));
    assert.ok(seen.read);
    // Kept under the embedded database's change marker; a remote database's
    // misses other isolates' writes, so there they are read every time.
    assert.equal(
      (await offered()).read,
      !ctx.database.embedded,
      "nothing written: the choices are kept (embedded)",
    );

    await create("Tango night", "Tango", "Cassero");
    seen = await offered();
    assert.ok(seen.read, "a write: read again");
    assert.deepEqual(seen.tags.sort(), ["opera", "tango"]);
    assert.ok(seen.places.some((p) => p.includes("Cassero")));

    // Read from now on: after a minute they are read again.
    ctx.clock.advance(61_000);
    assert.ok((await offered()).read, "a minute later: read again");
  } finally {
    ctx.close();
  }
});

Deno.test("search: a commit by another connection to the database file (the CLI, a second server) renews the tags offered at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "quando-choices-" });
  const url = `file:${dir}/quando.db`;
  const ctx = await createTestApp({
    database: await openDatabase(url),
    env: { DATABASE_URL: url, PUBLIC_CACHE_MS: "0" },
  });
  try {
    const { token } = await userWithToken(ctx, "admin");
    const res = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Opera gala",
        start_datetime: at("2026-06-05T18:00:00Z"),
        tags: ["Opera"],
        place_name: "Teatro Comunale",
      },
    });
    assert.equal(res.status, 201, await res.clone().text());
    const { id } = await res.json();
    const offered = async () =>
      (await get(ctx, "/search")).$$("input[name=tags]")
        .map((i) => i.getAttribute("value"));
    assert.deepEqual(await offered(), ["opera"]);
    assert.deepEqual(await offered(), ["opera"]);
    // Another connection tags the event.
    const other = new DatabaseSync(`${dir}/quando.db`);
    try {
      other.exec("PRAGMA busy_timeout = 5000");
      other.prepare(
        "insert into tags (tag, normalizedTag) values ('Choir', 'choir')",
      ).run();
      other.prepare(
        "insert into event_tags (eventId, tagId) values (?, (select id from tags where normalizedTag = 'choir'))",
      ).run(id);
    } finally {
      other.close();
    }
    // The change marker reads the file's version at most once a millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual((await offered()).sort(), ["choir", "opera"]);
  } finally {
    ctx.close();
    await Deno.remove(dir, { recursive: true });
  }
});
