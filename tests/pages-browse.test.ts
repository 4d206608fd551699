/**
 * The browse pages through `app.request()`: the home page (each series once
 * with its rule in words, paging, the empty instance), the month calendar
 * and its days, past events, the tags and places indexes (their counts
 * checked against the API), bad input (400 pages), the navigation, HTML
 * validity (parse5) and h-event microformats (microformats-parser); and the
 * calendar arithmetic on its own (the rule in words: tests/event-page.test.ts).
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { mf2 } from "microformats-parser";
import {
  firstWeekday,
  monthWeeks,
  parseDay,
  parseMonth,
  startOfDay,
} from "../lib/pages/calendar.ts";
import { CACHED_ROUTES } from "../routes/mod.ts";
import {
  bolognaInstance,
  call,
  type El,
  parseErrors,
  postEvent,
  type TestContext,
  text,
  userWithToken,
} from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const HOUR = 3600;
const DAY = 86_400;
/** The tests' "now": Monday 1 June 2026, 14:00 in Rome. */
const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
/** Tuesday 2 June 2026, 19:00 in Rome. */
const TUESDAY_EVENING = Date.parse("2026-06-02T17:00:00Z") / 1000;

async function getPage(ctx: TestContext, path: string, lang?: string) {
  const res = await ctx.app.request(
    path,
    lang ? { headers: { "accept-language": lang } } : {},
  );
  const html = await res.text();
  const { document } = parseHTML(html) as unknown as { document: El };
  return {
    res,
    html,
    $: (s: string) => document.querySelector(s),
    $$: (s: string) => [...document.querySelectorAll(s)],
  };
}

/** The names of the page's h-event items (microformats2, parsed by a library). */
function hEventNames(html: string): string[] {
  const parsed = mf2(html, { baseUrl: "http://quando.test/" });
  const names: string[] = [];
  const walk = (items: Json[]) => {
    for (const item of items) {
      if (item.type?.includes("h-event")) names.push(item.properties.name[0]);
      if (item.children) walk(item.children);
    }
  };
  walk(parsed.items);
  return names;
}

function createEvent(
  ctx: TestContext,
  token: string,
  body: Record<string, unknown>,
): Promise<Json> {
  return postEvent(ctx, token, {
    end_datetime: undefined,
    place_name: "Town hall",
    place_address: undefined,
    ...body,
  });
}

async function world() {
  return await bolognaInstance();
}

/** A town with a weekly series, single events, a hidden and a past one. */
async function town() {
  const { ctx, admin } = await world();
  const series = await createEvent(ctx, admin.token, {
    title: "Weekly jam",
    start_datetime: TUESDAY_EVENING,
    end_datetime: TUESDAY_EVENING + 2 * HOUR,
    place_name: "Cantina",
    tags: ["Jazz"],
    recurrent: { frequency: "1w" },
  });
  const concert = await createEvent(ctx, admin.token, {
    title: "Big concert",
    start_datetime: TUESDAY_EVENING + 4 * DAY,
    end_datetime: TUESDAY_EVENING + 4 * DAY + 3 * HOUR,
    place_name: "Cantina",
    tags: ["jazz", "Live"],
  });
  const fair = await createEvent(ctx, admin.token, {
    title: "Book fair",
    start_datetime: TUESDAY_EVENING + 4 * DAY - 5 * HOUR,
    place_name: "Piazza Maggiore",
    tags: ["Books"],
  });
  const hidden = await createEvent(ctx, admin.token, {
    title: "Secret party",
    start_datetime: TUESDAY_EVENING + 4 * DAY,
    place_name: "Hideout",
    tags: ["Secret"],
  });
  const hide = await call(ctx, "PATCH", `/api/events/${hidden.id}`, {
    token: admin.token,
    json: { is_visible: false },
  });
  assert.equal(hide.status, 200, await hide.text());
  const past = await createEvent(ctx, admin.token, {
    title: "Last month's lecture",
    start_datetime: NOW - 10 * DAY,
    end_datetime: NOW - 10 * DAY + HOUR,
    place_name: "Library",
    tags: ["Books"],
  });
  const older = await createEvent(ctx, admin.token, {
    title: "Older lecture",
    start_datetime: NOW - 40 * DAY,
    place_name: "Library",
  });
  return { ctx, admin, series, concert, fair, hidden, past, older };
}

Deno.test('home: with "List each occurrence" off, a series is shown once, with its rule in words and its next dates; on, each date is an entry', async () => {
  const { ctx, series } = await town();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { recurrent_event_visible: false },
    });
    const occurrences = series.children.length;
    assert.ok(occurrences >= 8, `occurrences: ${occurrences}`);
    const page = await getPage(ctx, "/");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    // Every h-event of the page: the series once, the two visible singles.
    assert.deepEqual(hEventNames(page.html), [
      "Weekly jam",
      "Book fair",
      "Big concert",
    ]);
    const items = page.$$(".series");
    assert.equal(items.length, 1);
    const item = items[0];
    assert.equal(text(item.querySelector(".rule")), "Every Tuesday");
    assert.equal(
      item.querySelector(".p-name")?.getAttribute("href"),
      "/event/weekly-jam-2026-06-02",
    );
    // The event page says it in the same words.
    const occurrence = await getPage(ctx, "/event/weekly-jam-2026-06-02");
    assert.match(
      text(occurrence.$(".repeats")),
      /^Every Tuesday(All dates of this series)?$/,
    );
    const following = [...item.querySelectorAll(".following time")].map((t) =>
      t.getAttribute("datetime")
    );
    assert.deepEqual(following, [
      "2026-06-09T19:00:00+02:00",
      "2026-06-16T19:00:00+02:00",
      "2026-06-23T19:00:00+02:00",
    ]);
    assert.match(text(item.querySelector(".following")), /^Next dates: Tue/);
    // Under its first date's day, in the page's language.
    assert.equal(text(page.$("#day-2026-06-02")), "Tuesday, 2 June 2026");
    assert.equal(
      page.$('nav.browse a[aria-current="page"]')?.getAttribute("href"),
      "/",
    );
    assert.equal(page.$("h1")?.textContent, "Upcoming events");
    assert.equal(text(page.$(".intro")), "What happens in town");

    // In Italian and German, the rule in those words.
    const it = await getPage(ctx, "/?lang=it");
    assert.equal(text(it.$(".series .rule")), "Ogni martedì");
    const de = await getPage(ctx, "/?lang=de");
    assert.equal(text(de.$(".series .rule")), "Jeden Dienstag");
    assert.match(text(de.$(".series .following")), /^Nächste Termine:/);

    // With each occurrence listed (the default), every date is an entry.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { recurrent_event_visible: true },
    });
    const each = await getPage(ctx, "/");
    assert.equal(each.$$(".series").length, 0);
    const names = hEventNames(each.html);
    // Every visible date still to come (one of them is hidden).
    assert.equal(
      names.filter((n) => n === "Weekly jam").length,
      names.length - 2,
    );
    assert.ok(names.length - 2 >= 8, names.join());
    assert.deepEqual(names.filter((n) => n !== "Weekly jam"), [
      "Book fair",
      "Big concert",
    ]);
  } finally {
    ctx.close();
  }
});

Deno.test("home: pages of 20 entries, in order, none twice; a series listed once counts once", async () => {
  const { ctx, admin } = await world();
  try {
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { recurrent_event_visible: false },
    });
    await createEvent(ctx, admin.token, {
      title: "Weekly jam",
      start_datetime: NOW + 30 * HOUR,
      recurrent: { frequency: "1w" },
    });
    for (let i = 0; i < 24; i++) {
      await createEvent(ctx, admin.token, {
        title: `Talk ${String(i).padStart(2, "0")}`,
        start_datetime: NOW + (i + 1) * 5 * HOUR,
      });
    }
    const first = await getPage(ctx, "/");
    const second = await getPage(ctx, "/?page=2");
    const one = hEventNames(first.html);
    const two = hEventNames(second.html);
    assert.equal(one.length, 20);
    assert.equal(two.length, 5, two.join());
    assert.equal(new Set([...one, ...two]).size, 25);
    assert.equal(one.filter((n) => n === "Weekly jam").length, 1);
    assert.ok(!two.includes("Weekly jam"));
    // Talk 05 starts at +30 h, after the series' first date (same start, lower id).
    assert.deepEqual(one.slice(0, 7), [
      "Talk 00",
      "Talk 01",
      "Talk 02",
      "Talk 03",
      "Talk 04",
      "Weekly jam",
      "Talk 05",
    ]);
    assert.equal(
      first.$('link[rel="next"]')?.getAttribute("href"),
      "/?page=2",
    );
    assert.equal(first.$(".pager .next")?.getAttribute("href"), "/?page=2");
    assert.equal(second.$(".pager .prev")?.getAttribute("href"), "/");
    assert.equal(second.$(".pager .next"), null);
    const beyond = await getPage(ctx, "/?page=3");
    assert.equal(beyond.res.status, 200);
    assert.equal(
      text(beyond.$(".empty")),
      "There are no more upcoming events.",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("home of an empty instance: what it is, that nothing is planned, where to go", async () => {
  const { ctx, admin } = await world();
  try {
    const page = await getPage(ctx, "/");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    assert.equal(text(page.$("h1")), "Bologna Events");
    assert.equal(text(page.$(".welcome .intro")), "What happens in town");
    assert.match(
      text(page.$(".welcome")),
      /No events are planned at the moment\./,
    );
    assert.doesNotMatch(page.html, /No upcoming events yet/);
    // Members only: sign in to publish; no account to create.
    const steps = page.$$(".next-steps a").map((a) => a.getAttribute("href"));
    assert.ok(steps.includes("/login?next=%2Fsubmit"), steps.join());
    assert.ok(!steps.includes("/register"));
    assert.ok(steps.includes("webcal://quando.test/feed/ics"));
    assert.ok(steps.includes("/feed/rss"));
    assert.ok(steps.includes("/past"));

    // Anonymous submissions and registration open: the form itself.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: {
        allow_anon_event: true,
        allow_registration: true,
        instance_description: "",
      },
    });
    const open = await getPage(ctx, "/?lang=fr");
    const links = open.$$(".next-steps a").map((a) => a.getAttribute("href"));
    assert.ok(links.includes("/submit"), links.join());
    assert.ok(!links.includes("/login?next=%2Fsubmit"));
    // No description: the page says what the instance is in its own words.
    assert.equal(
      text(open.$(".welcome .intro")),
      "Bologna Events est un calendrier d'événements : ce qui est prévu s'affiche ici, jour par jour.",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("calendar: /calendar goes to this month; a month grid with its days' counts and links", async () => {
  const { ctx, series } = await town();
  try {
    const redirect = await ctx.app.request("/calendar");
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get("location"), "/calendar/2026-06");
    const kept = await ctx.app.request("/calendar?lang=de");
    assert.equal(kept.headers.get("location"), "/calendar/2026-06?lang=de");

    const page = await getPage(ctx, "/calendar/2026-06");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    assert.equal(text(page.$("h1")), "June 2026");
    assert.match(text(page.$("table.month caption")), /^June 2026/);
    // en-GB weeks start on Monday; June 2026 begins on a Monday.
    const heads = page.$$("table.month thead th abbr").map((a) =>
      a.getAttribute("title")
    );
    assert.deepEqual(heads, [
      "Monday",
      "Tuesday",
      "Wednesday",
      "Thursday",
      "Friday",
      "Saturday",
      "Sunday",
    ]);
    const rows = page.$$("table.month tbody tr");
    assert.equal(rows.length, 5);
    assert.equal(text(rows[0].querySelector("td")), "1");
    // Days with events: the series' Tuesdays, the 6th (fair and concert).
    // Each link says its day and count (the column says the weekday).
    const linked = page.$$("table.month td.has a").map((a) => [
      a.getAttribute("href"),
      `${text(a.querySelector(".d"))} ${text(a.querySelector(".w"))}`,
    ]);
    const juneTuesdays = series.children.filter((c: Json) =>
      c.start_datetime < Date.parse("2026-07-01T00:00:00+02:00") / 1000
    ).length;
    assert.equal(juneTuesdays, 5);
    assert.deepEqual(linked, [
      ["/calendar/2026-06-02", "2 1 event"],
      ["/calendar/2026-06-06", "6 2 events"],
      ["/calendar/2026-06-09", "9 1 event"],
      ["/calendar/2026-06-16", "16 1 event"],
      ["/calendar/2026-06-23", "23 1 event"],
      ["/calendar/2026-06-30", "30 1 event"],
    ]);
    // Today is marked, without events: not a link.
    assert.equal(
      text(page.$('table.month [aria-current="date"]')),
      "1",
    );
    assert.match(text(page.$("main > p.muted")), /^7 events in June 2026\./);
    assert.equal(
      page.$('nav.steps a[rel="prev"]')?.getAttribute("href"),
      "/calendar/2026-05",
    );
    assert.equal(
      page.$('nav.steps a[rel="next"]')?.getAttribute("href"),
      "/calendar/2026-07",
    );
    assert.equal(
      page.$('nav.browse a[aria-current="page"]')?.getAttribute("href"),
      "/calendar",
    );
    // May: the past events count too; a link back to this month.
    const may = await getPage(ctx, "/calendar/2026-05");
    assert.deepEqual(
      may.$$("table.month td.has a").map((a) =>
        a.getAttribute("href")
      ),
      ["/calendar/2026-05-22"],
    );
    assert.equal(
      may.$("nav.steps a.current")?.getAttribute("href"),
      "/calendar/2026-06",
    );
    // In German the weeks start on Monday too, with German names.
    const de = await getPage(ctx, "/calendar/2026-06?lang=de");
    assert.equal(text(de.$("h1")), "Juni 2026");
    assert.equal(
      de.$("table.month thead th abbr")?.getAttribute("title"),
      "Montag",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("calendar day: that day's events as h-events, with the days around it", async () => {
  const { ctx } = await town();
  try {
    const page = await getPage(ctx, "/calendar/2026-06-06");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    assert.equal(text(page.$("h1")), "Events on Saturday, 6 June 2026");
    assert.deepEqual(hEventNames(page.html), ["Book fair", "Big concert"]);
    assert.equal(
      page.$("nav.steps a.prev")?.getAttribute("href"),
      "/calendar/2026-06-05",
    );
    assert.equal(
      page.$("nav.steps a.next")?.getAttribute("href"),
      "/calendar/2026-06-07",
    );
    assert.equal(
      page.$("nav.steps a.current")?.getAttribute("href"),
      "/calendar/2026-06",
    );
    // A day without events says so.
    const empty = await getPage(ctx, "/calendar/2026-06-07");
    assert.equal(text(empty.$(".empty")), "No events on this day.");
    const tuesday = await getPage(ctx, "/calendar/2026-06-09");
    assert.deepEqual(hEventNames(tuesday.html), ["Weekly jam"]);
  } finally {
    ctx.close();
  }
});

Deno.test("past events: newest first, hidden ones never, paged", async () => {
  const { ctx, admin } = await town();
  try {
    const page = await getPage(ctx, "/past");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    assert.deepEqual(hEventNames(page.html), [
      "Last month's lecture",
      "Older lecture",
    ]);
    assert.equal(
      page.$('nav.browse a[aria-current="page"]')?.getAttribute("href"),
      "/past",
    );
    for (let i = 0; i < 20; i++) {
      await createEvent(ctx, admin.token, {
        title: `Old talk ${i}`,
        start_datetime: NOW - 100 * DAY - i * DAY,
      });
    }
    const first = hEventNames((await getPage(ctx, "/past")).html);
    const second = await getPage(ctx, "/past?page=2");
    assert.equal(first.length, 20);
    assert.deepEqual(hEventNames(second.html), ["Old talk 18", "Old talk 19"]);
    assert.equal(second.$(".pager .prev")?.getAttribute("href"), "/past");
  } finally {
    ctx.close();
  }
});

Deno.test("tags and places indexes: their upcoming counts, as the API counts them", async () => {
  const { ctx, series } = await town();
  try {
    const page = await getPage(ctx, "/tags");
    assert.equal(page.res.status, 200);
    assert.deepEqual(parseErrors(page.html), []);
    const tags = page.$$(".tag-index li").map((li) => [
      li.querySelector("a")?.getAttribute("href"),
      text(li.querySelector(".count")),
    ]);
    const api = async (query: string) =>
      (await (await call(ctx, "GET", `/api/events?max=500&${query}`)).json())
        .length;
    const jazz = await api("tags=jazz");
    // The series' occurrences not over, and the concert.
    assert.equal(jazz, series.children.length + 1);
    assert.deepEqual(tags, [
      ["/tag/Jazz", `${jazz} upcoming events`],
      ["/tag/Books", "1 upcoming event"],
      ["/tag/Live", "1 upcoming event"],
    ]);
    assert.ok(!page.html.includes("Secret"), "a hidden event's tag");
    assert.equal(
      page.$('nav.browse a[aria-current="page"]')?.getAttribute("href"),
      "/tags",
    );

    const places = await getPage(ctx, "/places");
    assert.deepEqual(parseErrors(places.html), []);
    const rows = places.$$(".place-index li").map((li) => [
      text(li.querySelector("a")),
      text(li.querySelector(".count")),
    ]);
    assert.deepEqual(rows, [
      ["Cantina", `${jazz} upcoming events`],
      ["Piazza Maggiore", "1 upcoming event"],
    ]);
    const cantina = places.$(".place-index a")?.getAttribute("href") ?? "";
    assert.match(cantina, /^\/place\/\d+$/);
    assert.equal(await api(`places=${cantina.split("/")[2]}`), jazz);
    // The links lead to the tag and place pages.
    assert.equal((await ctx.app.request(cantina)).status, 200);
    assert.equal((await ctx.app.request("/tag/Jazz")).status, 200);
    // In Spanish.
    const es = await getPage(ctx, "/places?lang=es");
    assert.equal(text(es.$("h1")), "Lugares");
    assert.match(text(es.$(".place-index .count")), /eventos próximos$/);
  } finally {
    ctx.close();
  }
});

Deno.test("browse pages: bad months, days and page numbers answer a 400 page", async () => {
  const { ctx } = await world();
  try {
    for (
      const path of [
        "/calendar/2026-13",
        "/calendar/2026-00",
        "/calendar/1969-12",
        "/calendar/2200-01",
        "/calendar/2026-6",
        "/calendar/june",
        "/calendar/2026-02-30",
        "/calendar/2026-02-29",
        "/calendar/2026-06-00",
        "/calendar/2026-06-1",
        "/calendar/2026-06-01-01",
        "/calendar/2026-06-01?page=0",
        "/?page=0",
        "/?page=501",
        "/?page=x",
        "/past?page=-1",
        "/past?page=501",
        "/tags?page=1.5",
        "/places?page=101",
      ]
    ) {
      const page = await getPage(ctx, path);
      assert.equal(page.res.status, 400, path);
      assert.equal(
        page.res.headers.get("content-type"),
        "text/html; charset=UTF-8",
      );
      assert.equal(page.res.headers.get("cache-control"), "no-store", path);
      assert.deepEqual(parseErrors(page.html), [], path);
      assert.ok(text(page.$("h1")).length > 0, path);
    }
    assert.equal(
      text((await getPage(ctx, "/calendar/2026-13")).$("h1")),
      "No such month",
    );
    assert.equal(
      text((await getPage(ctx, "/calendar/2026-02-30")).$("h1")),
      "No such day",
    );
    // A leap day exists.
    assert.equal((await ctx.app.request("/calendar/2028-02-29")).status, 200);
    assert.equal((await ctx.app.request("/calendar/1970-01")).status, 200);
    assert.equal((await ctx.app.request("/calendar/2199-12")).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("browse pages are public-read cached per language; a write ends them", async () => {
  for (const path of ["/past", "/tags", "/places", "/calendar/*"]) {
    assert.ok(CACHED_ROUTES.includes(path), path);
  }
  const { ctx, admin } = await world();
  try {
    const before = await getPage(ctx, "/tags");
    assert.equal(before.res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(text(before.$(".empty")), "No upcoming event has a tag yet.");
    const it = await getPage(ctx, "/tags?lang=it");
    assert.equal(
      text(it.$(".empty")),
      "Nessun evento in programma ha un'etichetta.",
    );
    await createEvent(ctx, admin.token, {
      title: "New",
      start_datetime: NOW + DAY,
      tags: ["Fresh"],
      recurrent: { frequency: "1w" },
    });
    // Reading a page is no write: what is cached stays (the change marker
    // counts statements that do not start with SELECT as writes).
    for (
      const path of [
        "/",
        "/calendar/2026-06",
        "/calendar/2026-06-02",
        "/past",
        "/tags",
        "/places",
      ]
    ) {
      const marker = ctx.database.changeMarker();
      assert.equal((await ctx.app.request(path)).status, 200, path);
      assert.equal(ctx.database.changeMarker(), marker, path);
    }
    const after = await getPage(ctx, "/tags");
    assert.equal(text(after.$(".tag-index a")), "#Fresh");
  } finally {
    ctx.close();
  }
});

Deno.test("calendar arithmetic: days across DST, weeks from the locale's first day, bounds", () => {
  // The last Sunday of March 2026 has 23 hours in Rome, the last of October 25.
  const march29 = startOfDay({ year: 2026, month: 3, day: 29 }, "Europe/Rome");
  const march30 = startOfDay({ year: 2026, month: 3, day: 30 }, "Europe/Rome");
  assert.equal(march29, Date.parse("2026-03-28T23:00:00Z") / 1000);
  assert.equal(march30 - march29, 23 * HOUR);
  const oct25 = startOfDay({ year: 2026, month: 10, day: 25 }, "Europe/Rome");
  const oct26 = startOfDay({ year: 2026, month: 10, day: 26 }, "Europe/Rome");
  assert.equal(oct26 - oct25, 25 * HOUR);
  // A day past the month's end rolls over.
  assert.equal(
    startOfDay({ year: 2026, month: 6, day: 31 }, "UTC"),
    Date.parse("2026-07-01T00:00:00Z") / 1000,
  );
  assert.equal(firstWeekday("en-GB"), 1);
  assert.equal(firstWeekday("en-US"), 7);
  assert.equal(firstWeekday("it"), 1);
  // June 2026 from Sunday: the 1st (a Monday) in the second column.
  const weeks = monthWeeks(2026, 6, 7);
  assert.deepEqual(weeks[0], [null, 1, 2, 3, 4, 5, 6]);
  assert.equal(weeks.length, 5);
  assert.deepEqual(weeks[4], [28, 29, 30, null, null, null, null]);
  assert.deepEqual(parseMonth("2026-06"), { year: 2026, month: 6 });
  assert.equal(parseMonth("2026-13"), null);
  assert.equal(parseDay("2026-02-29"), null);
  assert.deepEqual(parseDay("2028-02-29"), { year: 2028, month: 2, day: 29 });
});

Deno.test("about: the description's paragraphs and line breaks as written, the fediverse address, linked from every page's footer, cached per language", async () => {
  const { ctx, admin } = await world();
  try {
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: {
        instance_description:
          "Concerts in Bologna.\r\n\r\nWrite to us:\ncalendar@example.org\n\n\n<b>not bold</b>",
      },
    });
    const about = await getPage(ctx, "/about");
    assert.equal(about.res.status, 200);
    assert.deepEqual(parseErrors(about.html), []);
    assert.match(about.res.headers.get("cache-control") ?? "", /public/);
    const paragraphs = about.$$("main p").map((p) => (p as El).innerHTML);
    assert.deepEqual(paragraphs.slice(0, 3), [
      "Concerts in Bologna.",
      "Write to us:<br>calendar@example.org",
      "&lt;b&gt;not bold&lt;/b&gt;",
    ]);
    assert.match(text(about.$("main")), /search for @relay@quando\.test\./);
    assert.equal(
      about.$("link[rel=canonical]")?.getAttribute("href"),
      "http://quando.test/about",
    );
    assert.ok(CACHED_ROUTES.includes("/about"));
    const home = await getPage(ctx, "/");
    assert.ok(home.$('footer a[href="/about"]'));
    const it = await getPage(ctx, "/about?lang=it");
    assert.match(text(it.$("h1")), /^Informazioni su /);

    // No description, no federation: says so, and no address to follow.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_description: "", enable_federation: false },
    });
    const bare = await getPage(ctx, "/about");
    assert.match(text(bare.$("main")), /not described it yet/);
    assert.doesNotMatch(text(bare.$("main")), /fediverse/);
  } finally {
    ctx.close();
  }
});
