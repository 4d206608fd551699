/**
 * The public HTML pages through `app.request()`, parsed with a real HTML
 * parser (linkedom): microformats, JSON-LD, OpenGraph, feed links, webcal,
 * listings, 404s, escaping and headers.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { png } from "./images.ts";
import {
  bolognaInstance,
  call,
  type El,
  postEvent,
  type TestContext,
  text,
} from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Doc extends El {
  documentElement: El;
  title: string;
}

interface Page {
  res: Response;
  html: string;
  doc: Doc;
  $(selector: string): El | null;
  $$(selector: string): El[];
}

const MAY_30 = Date.parse("2026-05-30T10:00:00Z") / 1000;
/** 19:00 in Rome (CEST, UTC+2). */
const JUNE_6_EVENING = Date.parse("2026-06-06T17:00:00Z") / 1000;
/** 00:30 on June 7 in Rome, still June 6 in UTC. */
const JUNE_7_SMALL_HOURS = Date.parse("2026-06-06T22:30:00Z") / 1000;
const HOUR = 3600;
const DAY = 86_400;

async function getPage(
  ctx: TestContext,
  path: string,
  headers: Record<string, string> = {},
): Promise<Page> {
  const res = await ctx.app.request(path, { headers });
  const html = await res.text();
  const { document } = parseHTML(html) as unknown as { document: Doc };
  return {
    res,
    html,
    doc: document,
    $: (s) => document.querySelector(s),
    $$: (s) => [...document.querySelectorAll(s)],
  };
}

async function world() {
  return await bolognaInstance();
}

function createEvent(
  ctx: TestContext,
  token: string,
  body: Record<string, unknown>,
): Promise<Json> {
  // An event needs a place or an online location.
  const where = body.place_id || body.place_name || body.online_locations
    ? {}
    : { place_name: "Town hall" };
  return postEvent(ctx, token, {
    end_datetime: undefined,
    place_name: undefined,
    place_address: undefined,
    ...where,
    ...body,
  });
}

function jsonLd(page: Page): Json {
  const blocks = page.$$('script[type="application/ld+json"]');
  assert.equal(blocks.length, 1, "one JSON-LD block");
  return JSON.parse(blocks[0].textContent ?? "");
}

function assertHtmlHeaders(res: Response, status = 200) {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("content-type"), "text/html; charset=UTF-8");
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /style-src 'nonce-[A-Za-z0-9_-]+'/);
  assert.match(csp, /img-src 'self' https: data:/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.doesNotMatch(csp, /script-src/, "no script source at all");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
}

function feedLinks(page: Page): Record<string, string> {
  const out: Record<string, string> = {};
  for (const link of page.$$('head link[rel="alternate"]')) {
    out[link.getAttribute("type") ?? ""] = link.getAttribute("href") ?? "";
  }
  return out;
}

Deno.test("event page: h-event microformats, JSON-LD, OpenGraph, feeds, calendar and map links", async () => {
  const { ctx, admin } = await world();
  try {
    const upload = new FormData();
    upload.append("file", new File([png(1200, 630, 64)], "poster.png"));
    upload.append("name", "The band on stage");
    const mediaRes = await ctx.app.request("/api/media", {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}` },
      body: upload,
    });
    assert.equal(mediaRes.status, 201);
    const media = await mediaRes.json();

    const event = await createEvent(ctx, admin.token, {
      title: "Jazz & Blues Night",
      description:
        '<p>Live <strong>jazz</strong> with <a href="https://band.example">the band</a>.</p>',
      start_datetime: JUNE_6_EVENING,
      end_datetime: JUNE_6_EVENING + 3 * HOUR,
      place_name: "Cantina Bentivoglio",
      place_address: "Via Mascarella 4/b, Bologna",
      place_latitude: 44.4989,
      place_longitude: 11.3479,
      online_locations: ["https://stream.example/jazz"],
      tags: ["Jazz", "Live music"],
      media: [{ url: media.url, name: "The band on stage" }],
    });
    const page = await getPage(ctx, `/event/${event.slug}`);
    assertHtmlHeaders(page.res);
    assert.equal(page.res.headers.get("cache-control"), "public, max-age=60");
    assert.match(page.res.headers.get("vary") ?? "", /Accept/);
    // The stylesheet carries the response's nonce.
    const nonce = /'nonce-([^']+)'/.exec(
      page.res.headers.get("content-security-policy")!,
    )![1];
    assert.equal(page.$("style")?.getAttribute("nonce"), nonce);
    assert.equal(page.doc.documentElement.getAttribute("lang"), "en-GB");
    assert.equal(page.$$("h1").length, 1);
    assert.equal(page.$("main")?.getAttribute("id"), "main");

    // Microformats 2: h-event and its properties.
    const hEvent = page.$(".h-event")!;
    assert.ok(hEvent, "an h-event");
    assert.equal(text(hEvent.querySelector(".p-name")), "Jazz & Blues Night");
    const start = hEvent.querySelector(".dt-start")!;
    assert.equal(start.tagName.toLowerCase(), "time");
    assert.equal(start.getAttribute("datetime"), "2026-06-06T19:00:00+02:00");
    assert.match(text(start), /Saturday.*6 June 2026.*19:00/);
    const end = hEvent.querySelector(".dt-end")!;
    assert.equal(end.getAttribute("datetime"), "2026-06-06T22:00:00+02:00");
    assert.equal(text(end), "22:00");
    const location = hEvent.querySelector(".p-location")!;
    assert.match(text(location), /Cantina Bentivoglio/);
    assert.match(text(location), /Via Mascarella 4\/b, Bologna/);
    const content = hEvent.querySelector(".e-content")!;
    assert.ok(content.querySelector("strong"), "the description is HTML");
    assert.equal(
      content.querySelector("a")?.getAttribute("href"),
      "https://band.example",
    );
    assert.equal(
      // The h-event's own u-url (the place's h-card has its own).
      hEvent.querySelector(".permalink .u-url")?.getAttribute("href"),
      `http://quando.test/event/${event.slug}`,
    );
    assert.deepEqual(
      [...hEvent.querySelectorAll(".p-category")].map((a) => [
        text(a),
        a.getAttribute("href"),
      ]),
      [["#Jazz", "/tag/Jazz"], ["#Live music", "/tag/Live%20music"]],
    );
    const img = hEvent.querySelector("img.u-photo")!;
    assert.equal(
      img.getAttribute("src"),
      `http://quando.test/media/${media.url}`,
    );
    assert.equal(img.getAttribute("alt"), "The band on stage");

    // Map, online location, "add to calendar".
    const map = page.$("a.map")!;
    const mapUrl = new URL(map.getAttribute("href")!);
    assert.equal(mapUrl.host, "www.openstreetmap.org");
    assert.equal(mapUrl.searchParams.get("mlat"), "44.4989");
    assert.equal(mapUrl.searchParams.get("mlon"), "11.3479");
    assert.ok(
      page.$$("a").some((a) =>
        a.getAttribute("href") === "https://stream.example/jazz"
      ),
    );
    assert.equal(text(page.$("#add-title")), "Add to calendar");
    const addToCalendar = page.$$("a").find((a) =>
      text(a) === "Calendar file (.ics)"
    );
    assert.equal(
      addToCalendar?.getAttribute("href"),
      `/event/${event.slug}.ics`,
    );

    // schema.org Event.
    const ld = jsonLd(page);
    assert.equal(ld["@context"], "https://schema.org");
    assert.equal(ld["@type"], "Event");
    assert.equal(ld.name, "Jazz & Blues Night");
    assert.equal(ld.url, `http://quando.test/event/${event.slug}`);
    assert.equal(Date.parse(ld.startDate) / 1000, JUNE_6_EVENING);
    assert.match(
      ld.startDate,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/,
    );
    assert.equal(Date.parse(ld.endDate) / 1000, JUNE_6_EVENING + 3 * HOUR);
    assert.equal(ld.eventStatus, "https://schema.org/EventScheduled");
    assert.equal(
      ld.eventAttendanceMode,
      "https://schema.org/MixedEventAttendanceMode",
    );
    const [place, virtual] = ld.location;
    assert.equal(place["@type"], "Place");
    assert.equal(place.name, "Cantina Bentivoglio");
    assert.equal(place.address["@type"], "PostalAddress");
    assert.equal(place.address.streetAddress, "Via Mascarella 4/b, Bologna");
    assert.deepEqual(place.geo, {
      "@type": "GeoCoordinates",
      latitude: 44.4989,
      longitude: 11.3479,
    });
    assert.deepEqual(virtual, {
      "@type": "VirtualLocation",
      url: "https://stream.example/jazz",
    });
    assert.deepEqual(ld.image, [`http://quando.test/media/${media.url}`]);
    assert.equal(ld.description, "Live jazz with the band.");
    assert.deepEqual(ld.organizer, {
      "@type": "Organization",
      name: "Bologna Events",
      url: "http://quando.test/",
    });

    // OpenGraph and Twitter card.
    const meta = (attr: string, name: string) =>
      page.$(`meta[${attr}="${name}"]`)?.getAttribute("content");
    assert.equal(meta("property", "og:title"), "Jazz & Blues Night");
    assert.equal(meta("property", "og:type"), "website");
    assert.equal(
      meta("property", "og:url"),
      `http://quando.test/event/${event.slug}`,
    );
    assert.equal(
      meta("property", "og:image"),
      `http://quando.test/media/${media.url}`,
    );
    assert.match(meta("property", "og:description") ?? "", /6 June 2026/);
    assert.match(meta("property", "og:description") ?? "", /Cantina/);
    assert.equal(meta("name", "twitter:card"), "summary_large_image");
    assert.equal(meta("name", "twitter:title"), "Jazz & Blues Night");
    assert.equal(
      page.$('link[rel="canonical"]')?.getAttribute("href"),
      `http://quando.test/event/${event.slug}`,
    );
    assert.equal(text(page.$("title")), "Jazz & Blues Night · Bologna Events");

    // Feeds in <head>, and a visible webcal link.
    assert.deepEqual(feedLinks(page), {
      "application/rss+xml": "/feed/rss",
      "application/atom+xml": "/feed/atom",
      "application/feed+json": "/feed/json",
      "text/calendar": "/feed/ics",
    });
    assert.equal(
      page.$('a[href^="webcal:"]')?.getAttribute("href"),
      "webcal://quando.test/feed/ics",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("event page: statuses are marked; an event without place is online-only", async () => {
  const { ctx, admin } = await world();
  try {
    const cancelled = await createEvent(ctx, admin.token, {
      title: "Open-air cinema",
      start_datetime: JUNE_6_EVENING,
      place_name: "Piazza Maggiore",
      status: "EventCancelled",
    });
    const page = await getPage(ctx, `/event/${cancelled.slug}`);
    assert.equal(page.res.status, 200);
    const notice = page.$(".status")!;
    assert.equal(text(notice), "This event has been cancelled.");
    assert.ok(page.$(".h-event")!.classList.contains("is-cancelled"));
    const ld = jsonLd(page);
    assert.equal(ld.eventStatus, "https://schema.org/EventCancelled");
    assert.equal(
      ld.eventAttendanceMode,
      "https://schema.org/OfflineEventAttendanceMode",
    );
    assert.equal(ld.endDate, undefined);
    assert.equal(page.$(".dt-end"), null);
    assert.equal(page.$("a.map"), null, "no coordinates, no map link");
    assert.equal(
      page.$('meta[name="twitter:card"]')?.getAttribute("content"),
      "summary",
    );
    assert.equal(page.$('meta[property="og:image"]'), null);

    const postponed = await createEvent(ctx, admin.token, {
      title: "Webinar",
      start_datetime: JUNE_6_EVENING,
      online_locations: ["https://meet.example/room"],
      status: "EventPostponed",
    });
    const second = await getPage(ctx, `/event/${postponed.slug}`);
    assert.match(text(second.$(".status")), /postponed/);
    const ld2 = jsonLd(second);
    assert.equal(ld2.eventStatus, "https://schema.org/EventPostponed");
    assert.equal(
      ld2.eventAttendanceMode,
      "https://schema.org/OnlineEventAttendanceMode",
    );
    assert.deepEqual(ld2.location, {
      "@type": "VirtualLocation",
      url: "https://meet.example/room",
    });

    // Badges in lists too.
    const home = await getPage(ctx, "/");
    const item = home.$$(".h-event").find((e) =>
      text(e.querySelector(".p-name")) === "Open-air cinema"
    )!;
    assert.equal(text(item.querySelector(".badge")), "Cancelled");
  } finally {
    ctx.close();
  }
});

Deno.test("event page: a title with </script> cannot break out of JSON-LD or inject markup", async () => {
  const { ctx, admin } = await world();
  try {
    const title =
      `Party </script><script>alert(1)</script> "quoted" & <b>bold</b>`;
    const event = await createEvent(ctx, admin.token, {
      title,
      description:
        `<p>Hi</p><script>alert(2)</script><img src=x onerror="alert(3)">`,
      start_datetime: JUNE_6_EVENING,
      place_name: `</script><script>alert(4)</script>`,
      tags: ["</script><script>alert(5)</script>"],
    });
    const page = await getPage(ctx, `/event/${event.slug}`);
    assert.equal(page.res.status, 200);
    // The only script element is the JSON-LD data block, and it parses back to the title.
    const scripts = page.$$("script");
    assert.equal(scripts.length, 1);
    assert.equal(scripts[0].getAttribute("type"), "application/ld+json");
    const ld = JSON.parse(scripts[0].textContent ?? "");
    assert.equal(ld.name, title);
    assert.equal(ld.location.name, `</script><script>alert(4)</script>`);
    assert.doesNotMatch(scripts[0].textContent ?? "", /<\/script/i);
    // Text stays text everywhere else.
    assert.equal(text(page.$("h1")), title);
    assert.equal(page.$("h1 b"), null);
    assert.equal(page.$("[onerror]"), null);
    assert.doesNotMatch(page.html, /<script>alert/);
    assert.equal(
      page.$('meta[property="og:title"]')?.getAttribute("content"),
      title,
    );
    // And the home page's list escapes it as well.
    const home = await getPage(ctx, "/");
    assert.equal(home.$$("script").length, 0);
    assert.equal(text(home.$(".h-event .p-name")), title);
  } finally {
    ctx.close();
  }
});

Deno.test("hidden events and unknown slugs answer a 404 HTML page; ActivityPub clients are still redirected", async () => {
  const { ctx, admin } = await world();
  try {
    const hidden = await createEvent(ctx, admin.token, {
      title: "Secret rehearsal",
      start_datetime: JUNE_6_EVENING,
      tags: ["secret"],
      place_name: "Back room",
      is_visible: false,
    });
    assert.equal(hidden.is_visible, false);
    for (const path of [`/event/${hidden.slug}`, "/event/no-such-event"]) {
      const page = await getPage(ctx, path);
      assertHtmlHeaders(page.res, 404);
      assert.equal(page.res.headers.get("cache-control"), "no-store");
      assert.equal(text(page.$("h1")), "Page not found");
      assert.doesNotMatch(page.html, /Secret rehearsal/);
      assert.equal(
        page.$('meta[name="robots"]')?.getAttribute("content"),
        "noindex",
      );
    }
    // A tag carried only by hidden events does not exist publicly.
    const tag = await getPage(ctx, "/tag/secret");
    assert.equal(tag.res.status, 404);
    assert.doesNotMatch(tag.html, /Secret rehearsal/);
    // Nor does the home page list it.
    const home = await getPage(ctx, "/");
    assert.doesNotMatch(home.html, /Secret rehearsal/);

    // Content negotiation stays with the federation layer.
    const visible = await createEvent(ctx, admin.token, {
      title: "Public talk",
      start_datetime: JUNE_6_EVENING,
    });
    const ap = await ctx.app.request(`/event/${visible.slug}`, {
      headers: { accept: "application/activity+json" },
    });
    assert.equal(ap.status, 302);
    assert.equal(
      ap.headers.get("location"),
      `http://quando.test/federation/m/${visible.id}`,
    );
    await ap.body?.cancel();

    for (const path of ["/place/999", "/place/abc", "/collection/nope"]) {
      const page = await getPage(ctx, path);
      assertHtmlHeaders(page.res, 404);
      assert.equal(text(page.$("h1")), "Page not found");
    }
  } finally {
    ctx.close();
  }
});

Deno.test("home page: upcoming visible local events by day in the instance time zone, with paging", async () => {
  const { ctx, admin } = await world();
  try {
    // Before now and over: not listed.
    await createEvent(ctx, admin.token, {
      title: "Last week's market",
      start_datetime: MAY_30,
      end_datetime: MAY_30 + 2 * HOUR,
    });
    // Started before now (12:00Z), still running: listed first.
    const running = await createEvent(ctx, admin.token, {
      title: "Photo exhibition",
      start_datetime: MAY_30,
      end_datetime: Date.parse("2026-06-10T18:00:00Z") / 1000,
      place_name: "Palazzo Re Enzo",
    });
    const evening = await createEvent(ctx, admin.token, {
      title: "Jazz night",
      start_datetime: JUNE_6_EVENING,
      end_datetime: JUNE_6_EVENING + 3 * HOUR,
      place_name: "Cantina Bentivoglio",
      tags: ["jazz"],
    });
    const late = await createEvent(ctx, admin.token, {
      title: "Late DJ set",
      start_datetime: JUNE_7_SMALL_HOURS,
      end_datetime: JUNE_7_SMALL_HOURS + 4 * HOUR,
      place_name: "Cassero",
    });
    await createEvent(ctx, admin.token, {
      title: "Unconfirmed gig",
      start_datetime: JUNE_6_EVENING,
      is_visible: false,
    });

    const page = await getPage(ctx, "/");
    assertHtmlHeaders(page.res);
    assert.equal(page.res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(text(page.$("h1")), "Upcoming events");
    const days = page.$$("section.day").map((s) => ({
      id: s.getAttribute("aria-labelledby"),
      heading: text(s.querySelector("h2")).replace(/,/g, ""),
      events: [...s.querySelectorAll(".h-event .p-name")].map(text),
    }));
    assert.deepEqual(days, [
      {
        id: "day-ongoing",
        heading: "Happening now",
        events: ["Photo exhibition"],
      },
      {
        id: "day-2026-06-06",
        heading: "Saturday 6 June 2026", // commas vary with the ICU data
        events: ["Jazz night"],
      },
      // 22:30 UTC on June 6 is 00:30 on June 7 in Rome.
      {
        id: "day-2026-06-07",
        heading: "Sunday 7 June 2026",
        events: ["Late DJ set"],
      },
    ]);
    // Each item: title link, time, place, tags.
    const item = page.$$(".h-event").find((e) =>
      text(e.querySelector(".p-name")) === "Jazz night"
    )!;
    assert.equal(
      item.querySelector("a.p-name")?.getAttribute("href"),
      `/event/${evening.slug}`,
    );
    assert.equal(
      item.querySelector(".dt-start")?.getAttribute("datetime"),
      "2026-06-06T19:00:00+02:00",
    );
    assert.equal(text(item.querySelector(".dt-start")), "19:00");
    assert.equal(text(item.querySelector(".dt-end")), "22:00");
    assert.equal(
      text(item.querySelector(".p-location")),
      "Cantina Bentivoglio",
    );
    assert.equal(
      item.querySelector(".p-location")?.getAttribute("href"),
      `/place/${evening.place.id}`,
    );
    assert.equal(
      item.querySelector(".p-category")?.getAttribute("href"),
      "/tag/jazz",
    );
    // An end on another day says which day.
    const lateItem = page.$$(".h-event").find((e) =>
      text(e.querySelector(".p-name")) === "Late DJ set"
    )!;
    assert.equal(text(lateItem.querySelector(".dt-start")), "00:30");
    assert.equal(text(lateItem.querySelector(".dt-end")), "04:30");
    const runningItem = page.$$(".h-event").find((e) =>
      text(e.querySelector(".p-name")) === "Photo exhibition"
    )!;
    assert.match(text(runningItem.querySelector(".dt-start")), /30 May 2026/);
    assert.match(text(runningItem.querySelector(".dt-end")), /10 Jun/);
    assert.equal(running.slug, "photo-exhibition");
    assert.equal(late.is_visible, true);

    // Head: the instance feeds, webcal link, canonical.
    assert.deepEqual(feedLinks(page), {
      "application/rss+xml": "/feed/rss",
      "application/atom+xml": "/feed/atom",
      "application/feed+json": "/feed/json",
      "text/calendar": "/feed/ics",
    });
    assert.equal(
      page.$('a[href^="webcal:"]')?.getAttribute("href"),
      "webcal://quando.test/feed/ics",
    );
    assert.equal(
      page.$('link[rel="canonical"]')?.getAttribute("href"),
      "http://quando.test/",
    );
    assert.equal(
      page.$('meta[property="og:description"]')?.getAttribute("content"),
      "What happens in town",
    );
    assert.equal(page.$("nav.pager"), null, "one page only");

    // 20 more events: 23 upcoming, so two pages of 20.
    for (let i = 0; i < 20; i++) {
      await createEvent(ctx, admin.token, {
        title: `Workshop ${String(i + 1).padStart(2, "0")}`,
        start_datetime: JUNE_6_EVENING + 2 * DAY + i * HOUR,
      });
    }
    const first = await getPage(ctx, "/?page=1");
    const firstTitles = first.$$(".h-event .p-name").map(text);
    assert.equal(firstTitles.length, 20);
    assert.equal(firstTitles[0], "Photo exhibition");
    assert.equal(firstTitles[19], "Workshop 17");
    assert.equal(
      first.$('nav.pager a[rel="next"]')?.getAttribute("href"),
      "/?page=2",
    );
    assert.equal(first.$('nav.pager a[rel="prev"]'), null);
    assert.equal(first.$('link[rel="next"]')?.getAttribute("href"), "/?page=2");

    const second = await getPage(ctx, "/?page=2");
    assert.equal(second.res.status, 200);
    assert.deepEqual(second.$$(".h-event .p-name").map(text), [
      "Workshop 18",
      "Workshop 19",
      "Workshop 20",
    ]);
    assert.equal(
      second.$('nav.pager a[rel="prev"]')?.getAttribute("href"),
      "/",
    );
    assert.equal(second.$('nav.pager a[rel="next"]'), null);
    assert.equal(
      second.$('link[rel="canonical"]')?.getAttribute("href"),
      "http://quando.test/?page=2",
    );

    // Past the end: an empty page that links back.
    const third = await getPage(ctx, "/?page=3");
    assert.equal(third.res.status, 200);
    assert.equal(third.$$(".h-event").length, 0);
    assert.match(text(third.$(".empty")), /no more upcoming events/);
    assert.equal(
      third.$('nav.pager a[rel="prev"]')?.getAttribute("href"),
      "/?page=2",
    );

    // Bad page numbers: a 400 page.
    for (const bad of ["0", "-1", "abc", "1.5", "501", "", "99999999"]) {
      const res = await getPage(ctx, `/?page=${bad}`);
      assertHtmlHeaders(res.res, 400);
      assert.equal(text(res.$("h1")), "No such page");
    }
  } finally {
    ctx.close();
  }
});

Deno.test("tag page: exactly the visible events with the tag, case-insensitively, upcoming and past", async () => {
  const { ctx, admin } = await world();
  try {
    const upcoming = await createEvent(ctx, admin.token, {
      title: "Jazz night",
      start_datetime: JUNE_6_EVENING,
      tags: ["Jazz"],
    });
    const past = await createEvent(ctx, admin.token, {
      title: "Jazz brunch",
      start_datetime: MAY_30,
      end_datetime: MAY_30 + 2 * HOUR,
      tags: ["JAZZ", "food"],
    });
    await createEvent(ctx, admin.token, {
      title: "Rock concert",
      start_datetime: JUNE_6_EVENING,
      tags: ["rock"],
    });
    await createEvent(ctx, admin.token, {
      title: "Hidden jam",
      start_datetime: JUNE_6_EVENING,
      tags: ["jazz"],
      is_visible: false,
    });

    for (const spelling of ["jazz", "JAZZ", "Jazz"]) {
      const page = await getPage(ctx, `/tag/${spelling}`);
      assertHtmlHeaders(page.res);
      assert.equal(text(page.$("h1")), "Events tagged #Jazz");
      const sections = page.$$("main section").map((s) => ({
        heading: text(s.querySelector("h2")),
        events: [...s.querySelectorAll(".h-event .p-name")].map(text),
      }));
      assert.deepEqual(sections, [
        { heading: "Upcoming", events: ["Jazz night"] },
        { heading: "Past", events: ["Jazz brunch"] },
      ]);
      assert.deepEqual(feedLinks(page), {
        "application/rss+xml": "/feed/rss/tag/Jazz",
        "application/atom+xml": "/feed/atom/tag/Jazz",
        "application/feed+json": "/feed/json/tag/Jazz",
        "text/calendar": "/feed/ics/tag/Jazz",
      });
      assert.equal(
        page.$('a[href^="webcal:"]')?.getAttribute("href"),
        "webcal://quando.test/feed/ics/tag/Jazz",
      );
      assert.equal(
        page.$('link[rel="canonical"]')?.getAttribute("href"),
        "http://quando.test/tag/Jazz",
      );
    }
    const pastItem = (await getPage(ctx, "/tag/jazz")).$$(".h-event").find((
      e,
    ) => text(e.querySelector(".p-name")) === "Jazz brunch")!;
    assert.equal(
      pastItem.querySelector("a.p-name")?.getAttribute("href"),
      `/event/${past.slug}`,
    );
    assert.match(text(pastItem.querySelector(".dt-start")), /30 May 2026/);
    assert.ok(upcoming.id);

    // Tags with spaces and non-ASCII letters round-trip through the URL.
    await createEvent(ctx, admin.token, {
      title: "Caffè letterario",
      start_datetime: JUNE_6_EVENING,
      tags: ["Caffè Letterario"],
    });
    const encoded = await getPage(
      ctx,
      `/tag/${encodeURIComponent("caffè letterario")}`,
    );
    assert.equal(encoded.res.status, 200);
    assert.deepEqual(encoded.$$(".h-event .p-name").map(text), [
      "Caffè letterario",
    ]);
    assert.equal(
      feedLinks(encoded)["text/calendar"],
      "/feed/ics/tag/Caff%C3%A8%20Letterario",
    );

    assert.equal((await getPage(ctx, "/tag/unknown")).res.status, 404);
  } finally {
    ctx.close();
  }
});

Deno.test("place page: the place's details, map link and exactly its events", async () => {
  const { ctx, admin } = await world();
  try {
    const here = await createEvent(ctx, admin.token, {
      title: "Poetry reading",
      start_datetime: JUNE_6_EVENING,
      place_name: "Libreria Modo Infoshop",
      place_address: "Via Mascarella 24/b, Bologna",
      place_latitude: 44.4986,
      place_longitude: 11.3488,
    });
    const placeId = here.place.id;
    await createEvent(ctx, admin.token, {
      title: "Book swap",
      start_datetime: MAY_30,
      end_datetime: MAY_30 + HOUR,
      place_id: placeId,
    });
    await createEvent(ctx, admin.token, {
      title: "Elsewhere",
      start_datetime: JUNE_6_EVENING,
      place_name: "Another place",
    });
    await createEvent(ctx, admin.token, {
      title: "Hidden signing",
      start_datetime: JUNE_6_EVENING,
      place_id: placeId,
      is_visible: false,
    });

    const page = await getPage(ctx, `/place/${placeId}`);
    assertHtmlHeaders(page.res);
    assert.equal(text(page.$("h1")), "Libreria Modo Infoshop");
    const card = page.$("main > .h-card")!;
    assert.match(text(card), /Via Mascarella 24\/b, Bologna/);
    assert.equal(
      card.querySelector(".p-latitude")?.getAttribute("value"),
      "44.4986",
    );
    assert.match(
      card.querySelector("a.map")?.getAttribute("href") ?? "",
      /^https:\/\/www\.openstreetmap\.org\/\?mlat=44\.4986&mlon=11\.3488/,
    );
    const sections = page.$$("main section").map((s) => ({
      heading: text(s.querySelector("h2")),
      events: [...s.querySelectorAll(".h-event .p-name")].map(text),
    }));
    assert.deepEqual(sections, [
      { heading: "Upcoming", events: ["Poetry reading"] },
      { heading: "Past", events: ["Book swap"] },
    ]);
    assert.equal(
      feedLinks(page)["application/rss+xml"],
      `/feed/rss/place/${placeId}`,
    );
    assert.equal(
      page.$('a[href^="webcal:"]')?.getAttribute("href"),
      `webcal://quando.test/feed/ics/place/${placeId}`,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("collection page: the events its filters select", async () => {
  const { ctx, admin } = await world();
  try {
    await createEvent(ctx, admin.token, {
      title: "Jazz night",
      start_datetime: JUNE_6_EVENING,
      tags: ["jazz"],
    });
    await createEvent(ctx, admin.token, {
      title: "Blues night",
      start_datetime: JUNE_6_EVENING + DAY,
      tags: ["Blues"],
    });
    await createEvent(ctx, admin.token, {
      title: "Rock night",
      start_datetime: JUNE_6_EVENING,
      tags: ["rock"],
    });
    const created = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Jazz & Blues" },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const collection = await created.json();
    const filter = await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: { collectionId: collection.id, tags: ["JAZZ", "blues"] },
    });
    assert.equal(filter.status, 201, await filter.text());

    const path = `/collection/${encodeURIComponent("Jazz & Blues")}`;
    const page = await getPage(ctx, path);
    assertHtmlHeaders(page.res);
    assert.equal(text(page.$("h1")), "Jazz & Blues");
    assert.deepEqual(page.$$(".h-event .p-name").map(text), [
      "Jazz night",
      "Blues night",
    ]);
    assert.deepEqual(feedLinks(page), {
      "application/rss+xml": "/feed/rss/collection/Jazz%20%26%20Blues",
      "application/atom+xml": "/feed/atom/collection/Jazz%20%26%20Blues",
      "application/feed+json": "/feed/json/collection/Jazz%20%26%20Blues",
      "text/calendar": "/feed/ics/collection/Jazz%20%26%20Blues",
    });
    assert.equal(
      page.$('a[href^="webcal:"]')?.getAttribute("href"),
      "webcal://quando.test/feed/ics/collection/Jazz%20%26%20Blues",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("tag, place and collection pages are paged: 50 upcoming events a page (?page=, to 10), 20 past a page (?past=, to 50), each list with its own links; bad pages are a 400", async () => {
  const { ctx, admin } = await world();
  try {
    // Now is 2026-06-01T12:00Z. 120 upcoming and 45 past events, all at one
    // place with one tag; the titles give their order.
    const now = Date.parse("2026-06-01T12:00:00Z") / 1000;
    const first = await createEvent(ctx, admin.token, {
      title: "Up 000",
      start_datetime: now + HOUR,
      place_name: "Salaborsa",
      tags: ["Reading"],
    });
    const pad = (i: number) => String(i).padStart(3, "0");
    for (let i = 1; i < 120; i++) {
      await createEvent(ctx, admin.token, {
        title: `Up ${pad(i)}`,
        start_datetime: now + (i + 1) * HOUR,
        place_id: first.place.id,
        tags: ["Reading"],
      });
    }
    for (let i = 0; i < 45; i++) {
      await createEvent(ctx, admin.token, {
        title: `Past ${pad(i)}`,
        // Past 000 is the latest.
        start_datetime: now - (i + 1) * DAY,
        place_id: first.place.id,
        tags: ["Reading"],
      });
    }
    const created = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Readings" },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const filter = await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: { collectionId: (await created.json()).id, tags: ["reading"] },
    });
    assert.equal(filter.status, 201, await filter.text());

    const up = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `Up ${pad(from + i)}`);
    const past = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `Past ${pad(from + i)}`);
    const titles = (page: Page, section: string) =>
      page.$$(`section[aria-labelledby=${section}-title] .h-event .p-name`)
        .map(text);
    const link = (page: Page, section: string, which: "prev" | "next") =>
      page.$(`section[aria-labelledby=${section}-title] .pager a.${which}`)
        ?.getAttribute("href") ?? null;

    for (
      const path of [
        // The tag's page is written with its stored spelling.
        "/tag/Reading",
        `/place/${first.place.id}`,
        "/collection/Readings",
      ]
    ) {
      // The first page: both lists' first pages, each with a link on.
      const one = await getPage(ctx, path);
      assertHtmlHeaders(one.res);
      assert.deepEqual(titles(one, "upcoming"), up(0, 50), path);
      assert.deepEqual(titles(one, "past"), past(0, 20), path);
      assert.equal(link(one, "upcoming", "next"), `${path}?page=2`);
      assert.equal(link(one, "upcoming", "prev"), null);
      assert.equal(link(one, "past", "next"), `${path}?past=2`);
      assert.equal(
        one.$('head link[rel="next"]')?.getAttribute("href"),
        `${path}?page=2`,
      );
      if (path !== "/collection/Readings") {
        assert.match(text(one.$("p.count")), /^50\+ upcoming events$/);
      }
      // Two navigations, each named for its list.
      assert.deepEqual(
        one.$$("nav.pager").map((n) => n.getAttribute("aria-label")),
        ["More upcoming events", "More past events"],
      );

      // Later pages of the upcoming list: that list only.
      const three = await getPage(ctx, `${path}?page=3`);
      assert.equal(three.res.status, 200);
      assert.deepEqual(titles(three, "upcoming"), up(100, 20), path);
      assert.deepEqual(titles(three, "past"), []);
      assert.equal(three.$("section[aria-labelledby=past-title]"), null);
      assert.equal(link(three, "upcoming", "prev"), `${path}?page=2`);
      assert.equal(link(three, "upcoming", "next"), null);
      assert.equal(
        three.$('head link[rel="canonical"]')?.getAttribute("href"),
        `http://quando.test${path}?page=3`,
      );
      assert.equal(
        three.$('meta[name="robots"]')?.getAttribute("content"),
        "noindex",
      );
      const two = await getPage(ctx, `${path}?page=2`);
      assert.deepEqual(titles(two, "upcoming"), up(50, 50), path);
      assert.equal(link(two, "upcoming", "prev"), path);

      // Later pages of the past list, latest first.
      const pastTwo = await getPage(ctx, `${path}?past=2`);
      assert.deepEqual(titles(pastTwo, "past"), past(20, 20), path);
      assert.equal(pastTwo.$("section[aria-labelledby=upcoming-title]"), null);
      assert.equal(link(pastTwo, "past", "prev"), path);
      assert.equal(link(pastTwo, "past", "next"), `${path}?past=3`);
      const pastThree = await getPage(ctx, `${path}?past=3`);
      assert.deepEqual(titles(pastThree, "past"), past(40, 5), path);
      assert.equal(link(pastThree, "past", "next"), null);
      // Past the end: the page says there is nothing more.
      const beyond = await getPage(ctx, `${path}?page=4`);
      assert.equal(beyond.res.status, 200);
      assert.deepEqual(titles(beyond, "upcoming"), []);
      assert.match(
        text(beyond.$("main")),
        /There is nothing more to show here\./,
      );

      // Page 1 of either list is the first page; bad values are a 400.
      assert.deepEqual(
        titles(await getPage(ctx, `${path}?page=1`), "upcoming"),
        up(0, 50),
      );
      for (
        const query of [
          "page=0",
          "page=11",
          "page=x",
          "past=51",
          "past=",
          "page=2&past=2",
        ]
      ) {
        const bad = await getPage(ctx, `${path}?${query}`);
        assert.equal(bad.res.status, 400, `${path}?${query}`);
        assert.match(text(bad.$("h1")), /No such page/);
      }
    }
  } finally {
    ctx.close();
  }
});
