/**
 * Languages through `app.request()`: the public pages in English, Italian,
 * French, Spanish and German, chosen by `?lang=` (then remembered in a
 * cookie), `Accept-Language` or the instance's locale, each page in one
 * language, dates included; the language switch; the public-read cache never
 * hands one language's page to a reader of another; the signed-in
 * interface's pages fall back to English or Italian.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import * as publicPages from "../lib/i18n/public.ts";
import * as publicEvent from "../lib/i18n/public-event.ts";
import * as publicEmbed from "../lib/i18n/public-embed.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import { eq } from "drizzle-orm";
import { events } from "../db/schema.ts";
import { upsertActor } from "../lib/federation/actors.ts";
import * as publicSearch from "../lib/i18n/public-search.ts";
import * as publicBrowse from "../lib/i18n/public-browse.ts";
import { LANGUAGE_NAMES, PUBLIC_LANGUAGES, translator } from "../lib/i18n.ts";
import {
  call,
  createTestApp,
  type El,
  statementsDuring,
  type TestContext,
  text,
  userWithToken,
} from "./helpers.ts";

interface Doc extends El {
  documentElement: El;
  title: string;
  body: El;
}

interface Page {
  res: Response;
  html: string;
  doc: Doc;
  lang: string | null;
  h1: string;
  /** Every word a reader meets: body, title, descriptions, labels, feed titles. */
  words: string;
  $$(selector: string): El[];
}

const TZ = "Europe/Rome";
/** 19:00 in Rome. */
const START = Date.parse("2026-06-06T17:00:00Z") / 1000;
const DAY = 86_400;

async function get(
  ctx: TestContext,
  path: string,
  headers: Record<string, string> = {},
): Promise<Page> {
  const res = await ctx.app.request(path, { headers });
  const html = await res.text();
  const { document } = parseHTML(html) as unknown as { document: Doc };
  const $$ = (s: string) => [...document.querySelectorAll(s)];
  const attributes = (selector: string, name: string) =>
    $$(selector).map((e) => e.getAttribute(name) ?? "");
  // Elements are written without whitespace between them: spaced, so that
  // the text of one never runs into the next ("Participation" + "Either way").
  // Code is not prose: the snippets to copy (`<quando-events>`) are left out.
  const spaced = (parseHTML(
    html.replace(/></g, "> <").replace(
      /(<textarea[^>]*>)[\s\S]*?(<\/textarea>)/g,
      "$1$2",
    ),
  ) as unknown as {
    document: Doc;
  }).document;
  const words = [
    document.title,
    text(spaced.body),
    ...attributes("meta[name=description]", "content"),
    ...attributes("meta[property='og:description']", "content"),
    ...attributes("[aria-label]", "aria-label"),
    ...attributes("link[rel=alternate]", "title"),
  ].join("\n");
  return {
    res,
    html,
    doc: document,
    lang: document.documentElement.getAttribute("lang"),
    h1: text(document.querySelector("h1")),
    words,
    $$,
  };
}

/** English words other languages write the same way (all else must differ). */
const SHARED: Record<string, string[]> = {
  it: ["Online"],
  fr: ["Pages", "(page", "Dates"],
  es: [],
  de: ["Online"],
};

/** Names of products, written the same in every language where they are not translated. */
const BRANDS = /Google Calendar|Outlook\.com/g;

/**
 * The English a page in `lang` must not show: each fragment (between
 * placeholders) of the English strings but those the language shares, and
 * the English names of the event's weekday and month.
 */
function englishFor(lang: string): string[] {
  const fragments = new Set<string>();
  for (
    const english of [
      ...Object.values(publicPages.en),
      ...Object.values(publicEvent.en),
      ...Object.values(publicEmbed.en),
      ...Object.values(publicSearch.en),
      ...Object.values(publicBrowse.en),
    ]
  ) {
    for (const part of english.split(/\{\w+\}/)) {
      const fragment = part.trim();
      if (fragment.length >= 4 && !SHARED[lang].includes(fragment)) {
        fragments.add(fragment);
      }
    }
  }
  // The English names of every weekday and month (the calendar shows them all).
  for (let i = 0; i < 12; i++) {
    const date = new Date(Date.UTC(2026, i, 1 + (i % 7), 12));
    for (const option of [{ weekday: "long" }, { month: "long" }] as const) {
      fragments.add(
        new Intl.DateTimeFormat("en", { ...option, timeZone: TZ }).format(date),
      );
    }
  }
  return [...fragments];
}

function assertOneLanguage(page: Page, lang: string, what: string) {
  if (lang === "en") return;
  // Whole words only: "Calendar" is not English inside "Calendario".
  const left = englishFor(lang).filter((f) =>
    new RegExp(
      `(?<![\\p{L}\\p{N}])${
        f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }(?![\\p{L}\\p{N}])`,
      "u",
    ).test(page.words.replace(BRANDS, ""))
  );
  assert.deepEqual(left, [], `${what} in ${lang} shows English`);
}

/** An instance in Rome's time zone with a concert (place, map, link, tag) and a cancelled film. */
async function world(locale = "en") {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const settings = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Quando Bologna",
      instance_description: "",
      instance_timezone: TZ,
      instance_locale: locale,
    },
  });
  assert.equal(settings.status, 200, await settings.text());
  const create = async (json: Record<string, unknown>) => {
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json,
    });
    const body = await res.text();
    assert.equal(res.status, 201, body);
    return JSON.parse(body) as { id: number; slug: string };
  };
  const concert = await create({
    title: "Trio Bentivoglio",
    description: "<p>Trio Bentivoglio, Cantina Bentivoglio.</p>",
    start_datetime: START,
    end_datetime: START + 2 * 3600,
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4, Bologna",
    place_latitude: 44.4989,
    place_longitude: 11.3479,
    online_locations: ["https://stream.example.org/trio"],
    tags: ["jazz"],
  });
  const film = await create({
    title: "Cineforum Casablanca",
    start_datetime: START + DAY,
    place_name: "Piazza Maggiore",
    tags: ["cinema"],
    status: "EventCancelled",
  });
  return { ctx, admin, concert, film };
}

function dayOf(locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "full", timeZone: TZ })
    .format(new Date(START * 1000));
}

function momentOf(locale: string): string {
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "full",
    timeStyle: "short",
    timeZone: TZ,
  }).format(new Date(START * 1000));
}

/** Checks the home page and the concert's page are wholly in `lang`. */
async function assertPagesIn(
  ctx: TestContext,
  concert: { slug: string },
  lang: string,
  locale: string,
  query: string,
  headers: Record<string, string>,
  how: string,
) {
  const t = translator(lang);
  const home = await get(ctx, `/${query}`, headers);
  assert.equal(home.res.status, 200, `${how}: home`);
  assert.equal(home.lang, locale, `${how}: home's <html lang>`);
  assert.equal(home.h1, t("public.home.heading"), how);
  assert.ok(home.words.includes(dayOf(locale)), `${how}: ${dayOf(locale)}`);
  assert.ok(
    home.words.includes(t("public.status.EventCancelled.badge")),
    `${how}: the cancelled badge`,
  );
  assert.equal(
    home.$$("nav.languages")[0]?.getAttribute("aria-label"),
    t("public.language"),
    how,
  );
  assert.ok(home.words.includes(t("public.subscribe.all")), how);
  assertOneLanguage(home, lang, `${how}: home`);

  const event = await get(ctx, `/event/${concert.slug}${query}`, headers);
  assert.equal(event.res.status, 200, `${how}: event`);
  assert.equal(event.lang, locale, `${how}: event's <html lang>`);
  assert.equal(event.h1, "Trio Bentivoglio");
  assert.deepEqual(event.$$(".facts dt").map(text), [
    t("public.event.when"),
    t("public.event.where"),
    t("public.event.online"),
  ], how);
  assert.ok(
    event.words.includes(momentOf(locale)),
    `${how}: ${momentOf(locale)} in ${event.words}`,
  );
  for (
    const key of [
      "public.event.addToCalendar",
      "public.event.about",
      "public.map",
      "public.event.link",
    ] as const
  ) {
    assert.ok(event.words.includes(t(key)), `${how}: ${t(key)}`);
  }
  assertOneLanguage(event, lang, `${how}: event page`);
}

Deno.test("public pages in five languages: by ?lang=, by Accept-Language, by the instance's locale; dates and labels in one language", async () => {
  const { ctx, admin, concert } = await world();
  try {
    for (const lang of PUBLIC_LANGUAGES) {
      await assertPagesIn(
        ctx,
        concert,
        lang,
        lang,
        `?lang=${lang}`,
        {},
        `?lang=${lang}`,
      );
      // An unknown language first: skipped; q values rank the rest.
      await assertPagesIn(ctx, concert, lang, lang, "", {
        "accept-language": `pt-BR, ${lang}-XX;q=0.8, en;q=0.5`,
      }, `Accept-Language ${lang}`);
    }
    // No preference the pages know: the instance's locale (with its region).
    for (
      const locale of ["it-IT", "fr-CH", "es-ES", "de-AT", "en-GB", "de"]
    ) {
      const res = await call(ctx, "PUT", "/api/settings", {
        token: admin.token,
        json: { instance_locale: locale },
      });
      assert.equal(res.status, 200);
      const lang = locale.split("-")[0];
      await assertPagesIn(ctx, concert, lang, locale, "", {
        "accept-language": "pt-BR, ja;q=0.5",
      }, `instance locale ${locale}`);
      await assertPagesIn(ctx, concert, lang, locale, "", {}, `${locale}`);
    }
    // A visitor's language on an instance of another keeps its own dates.
    await assertPagesIn(ctx, concert, "fr", "fr", "", {
      "accept-language": "fr",
    }, "French on a German instance");
  } finally {
    ctx.close();
  }
});

Deno.test("tag, place, collection and error pages are in the page's language too", async () => {
  const { ctx, admin, concert } = await world();
  try {
    const created = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Bologna Jazz" },
    });
    assert.equal(created.status, 201);
    const collection = await created.json();
    assert.equal(
      (await call(ctx, "POST", "/api/filters", {
        token: admin.token,
        json: { collectionId: collection.id, tags: ["jazz"] },
      })).status,
      201,
    );
    const placeId = (await (await call(
      ctx,
      "GET",
      `/api/events/${concert.id}`,
    )).json()).place.id;
    for (const lang of PUBLIC_LANGUAGES) {
      const t = translator(lang);
      const headers = { "accept-language": lang };
      const tag = await get(ctx, "/tag/jazz", headers);
      assert.equal(tag.lang, lang);
      assert.equal(tag.h1, t("public.tag.heading", { tag: "jazz" }));
      assert.ok(tag.words.includes(t("public.upcoming")));
      assert.ok(tag.words.includes(t("public.subscribe.tag", { tag: "jazz" })));
      assert.ok(tag.words.includes(
        t("public.tag.description", {
          count: t("public.count.one"),
          tag: "jazz",
          site: "Quando Bologna",
        }),
      ));
      assertOneLanguage(tag, lang, "tag page");

      const place = await get(ctx, `/place/${placeId}`, headers);
      assert.equal(place.h1, "Cantina Bentivoglio");
      assert.ok(place.words.includes(t("public.map")));
      assert.ok(
        place.words.includes(
          t("public.subscribe.place", { place: "Cantina Bentivoglio" }),
        ),
      );
      assertOneLanguage(place, lang, "place page");

      const listing = await get(ctx, "/collection/Bologna%20Jazz", headers);
      assert.equal(listing.h1, "Bologna Jazz");
      assert.ok(
        listing.words.includes(
          t("public.subscribe.collection", { name: "Bologna Jazz" }),
        ),
      );
      assertOneLanguage(listing, lang, "collection page");

      const missing = await get(ctx, "/event/no-such-event", headers);
      assert.equal(missing.res.status, 404);
      assert.equal(missing.res.headers.get("cache-control"), "no-store");
      assert.equal(missing.lang, lang);
      assert.equal(missing.h1, t("public.notFound.title"));
      assert.ok(missing.words.includes(t("public.notFound.text")));
      assert.ok(missing.words.includes(t("public.seeUpcoming")));
      assertOneLanguage(missing, lang, "404 page");

      const bad = await get(ctx, "/?page=0", headers);
      assert.equal(bad.res.status, 400);
      assert.equal(bad.h1, t("public.badPage.title"));
      assert.ok(bad.words.includes(t("public.badPage.text", { max: 500 })));
      assertOneLanguage(bad, lang, "400 page");

      const second = await get(ctx, "/?page=2", headers);
      assert.ok(second.words.includes(t("public.home.noMore")));
      assert.ok(
        second.words.includes(t("public.home.pageNumber", { page: 2 })),
      );
      assertOneLanguage(second, lang, "home page 2");
    }
  } finally {
    ctx.close();
  }
});

Deno.test("the search page is in the page's language: form, filters, count, results, problems", async () => {
  const { ctx } = await world();
  try {
    for (const lang of PUBLIC_LANGUAGES) {
      const t = translator(lang);
      const headers = { "accept-language": lang };
      // Every filter at once, so that every chip and choice shows.
      const search = await get(
        ctx,
        "/search?q=trio&tags=jazz&from=2026-06-01&to=2026-06-30&online=true",
        headers,
      );
      assert.equal(search.res.status, 200);
      assert.equal(search.lang, lang);
      assert.equal(search.h1, t("public.search.titleFor", { q: "trio" }));
      assert.ok(search.words.includes(t("public.search.count.one")));
      assert.ok(search.words.includes(dayOf(lang)), `${lang}: ${dayOf(lang)}`);
      assert.ok(search.words.includes(t("public.search.subscribe")));
      assertOneLanguage(search, lang, "search page");

      const plain = await get(ctx, "/search", headers);
      assert.equal(plain.h1, t("public.search.title"));
      assertOneLanguage(plain, lang, "search page without a filter");

      const none = await get(ctx, "/search?q=nothing", headers);
      assert.ok(none.words.includes(t("public.search.count.none")));
      assert.ok(none.words.includes(t("public.search.tryLess")));
      assertOneLanguage(none, lang, "search page without results");

      const bad = await get(
        ctx,
        `/search?q=a+b+c+d+e+f+g+h+i&from=2026-02-30&places=99999&online=x`,
        headers,
      );
      assert.equal(bad.res.status, 400);
      assert.equal(bad.h1, t("public.search.badTitle"));
      assertOneLanguage(bad, lang, "search page with problems");
      const unknown = await get(ctx, "/search?places=99999", headers);
      assert.equal(unknown.res.status, 400);
      assert.ok(
        unknown.words.includes(t("public.search.problem.unknownPlace")),
      );
      assertOneLanguage(unknown, lang, "search page, unknown place");
    }
  } finally {
    ctx.close();
  }
});

Deno.test("the browse pages (home with a series, calendar, day, past, tags, places, empty home) are in one language", async () => {
  const { ctx, admin } = await world();
  const empty = await createTestApp();
  try {
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Jam session",
        start_datetime: START - DAY,
        place_name: "Cantina Bentivoglio",
        tags: ["jazz"],
        recurrent: { frequency: "1m", type: "-1" },
      },
    });
    assert.equal(res.status, 201, await res.text());
    // Each series once on the home page, with its rule and following dates.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { recurrent_event_visible: false },
    });
    await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Old film",
        start_datetime: START - 60 * DAY,
        place_name: "Piazza Maggiore",
      },
    });
    for (const lang of PUBLIC_LANGUAGES) {
      const t = translator(lang);
      const headers = { "accept-language": lang };
      const home = await get(ctx, "/", headers);
      assert.equal(home.lang, lang);
      assert.equal(home.$$(".series .rule").length, 1, lang);
      assert.ok(home.words.includes(t("public.browse.series.following")));
      assertOneLanguage(home, lang, "home page with a series");
      for (
        const [path, what] of [
          ["/calendar/2026-06", "month calendar"],
          ["/calendar/2026-06-06", "day"],
          ["/calendar/2026-06-08", "empty day"],
          ["/past", "past events"],
          ["/tags", "tags index"],
          ["/places", "places index"],
          ["/calendar/2026-13", "bad month"],
          ["/calendar/2026-02-30", "bad day"],
        ]
      ) {
        const page = await get(ctx, path, headers);
        assert.equal(page.lang, lang, `${what} in ${lang}`);
        assertOneLanguage(page, lang, what);
      }
      const welcome = await get(empty, "/", headers);
      assert.ok(welcome.words.includes(t("public.browse.empty.text")));
      assertOneLanguage(welcome, lang, "empty home");
    }
  } finally {
    ctx.close();
    empty.close();
  }
});

/** The language cookie an answer sets, or null. */
function languageCookie(res: Response): string | null {
  const cookie = res.headers.getSetCookie().find((c) =>
    c.startsWith("quando_lang=")
  );
  return cookie ?? null;
}

Deno.test("a series, its occurrence and a remote event's pages are in the page's language too", async () => {
  const { ctx, admin } = await world();
  try {
    // Tuesdays at 19:00 in Rome, until the end of July.
    const tuesday = Date.parse("2026-06-02T17:00:00Z") / 1000;
    const created = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Swing Bentivoglio",
        description: "Swing Bentivoglio.\n\nhttps://swing.example.org",
        start_datetime: tuesday,
        end_datetime: tuesday + 2 * 3600,
        place_name: "Sala Biagi",
        place_address: "Via Santo Stefano 119, Bologna",
        recurrent: {
          frequency: "1w",
          until: Date.parse("2026-07-28T17:00:00Z") / 1000,
        },
      },
    });
    assert.equal(created.status, 201);
    const series = await created.json();
    const occurrence = series.children[1];
    const actor = "https://gancio.example/federation/u/relay";
    await upsertActor(ctx.database.db, ctx.clock, actor, {
      type: "Application",
      name: "Gancio Bologna",
    }, { trusted: true, following: true });
    await upsertRemoteEvent({ db: ctx.database.db, clock: ctx.clock }, {
      ap_id: "https://gancio.example/federation/m/7",
      apUserApId: actor,
      title: "Punk Bentivoglio",
      description: "",
      start_datetime: START,
      end_datetime: START + 3600,
      status: "EventScheduled",
      place: {
        name: "XM24",
        address: "Via Fioravanti 24, Bologna",
        latitude: null,
        longitude: null,
        postal_address: null,
      },
      online_locations: [],
      tags: [],
      media: [],
      ap_object: { type: "Event", url: "https://gancio.example/event/punk" },
      ld_signature: null,
    });
    const [{ slug: remoteSlug }] = await ctx.database.db.select({
      slug: events.slug,
    }).from(events).where(
      eq(events.ap_id, "https://gancio.example/federation/m/7"),
    );
    for (const lang of PUBLIC_LANGUAGES) {
      const t = translator(lang);
      const headers = { "accept-language": lang };
      const weekday = new Intl.DateTimeFormat(lang, {
        weekday: "long",
        timeZone: TZ,
      }).format(new Date(tuesday * 1000));
      const rule = t("public.event.repeats.until", {
        rule: t("public.event.repeats.weekly", { weekday }),
        date: new Intl.DateTimeFormat(lang, {
          dateStyle: "long",
          timeZone: TZ,
        }).format(new Date(Date.parse("2026-07-28T17:00:00Z"))),
      });
      const page = await get(ctx, `/event/${series.slug}`, headers);
      assert.equal(page.res.status, 200);
      assert.equal(page.lang, lang);
      assert.ok(page.words.includes(rule), `${lang}: ${rule}`);
      for (
        const key of [
          "public.event.repeats",
          "public.event.nextDate",
          "public.event.nextDates",
          "public.event.cal.series",
          "public.event.cal.googleNext",
          "public.event.findAddress",
        ] as const
      ) {
        assert.ok(page.words.includes(t(key)), `${lang}: ${t(key)}`);
      }
      assertOneLanguage(page, lang, "series page");
      if (lang !== "en") {
        assert.doesNotMatch(page.words, /Tuesday|July/, `${lang} series page`);
      }

      const date = await get(ctx, `/event/${occurrence.slug}`, headers);
      assert.ok(date.words.includes(rule), `${lang}: ${rule}`);
      for (
        const key of [
          "public.event.seriesLink",
          "public.event.cal.thisDate",
          "public.event.cal.google",
          "public.event.cal.outlook",
        ] as const
      ) {
        assert.ok(date.words.includes(t(key)), `${lang}: ${t(key)}`);
      }
      assertOneLanguage(date, lang, "occurrence page");

      const origin = await get(ctx, `/event/${remoteSlug}`, headers);
      assert.equal(origin.res.status, 200);
      assert.ok(
        origin.words.includes(
          t("public.event.fromActor", {
            host: "gancio.example",
            actor: "Gancio Bologna",
          }),
        ),
        `${lang}: remote origin`,
      );
      assert.ok(origin.words.includes(t("public.event.seeOriginal")));
      assertOneLanguage(origin, lang, "remote event page");
    }
  } finally {
    ctx.close();
  }
});

Deno.test("the visitor's choice: ?lang= is remembered in a cookie and read before Accept-Language; an unknown choice changes nothing", async () => {
  const { ctx } = await world("it");
  try {
    const chosen = await get(ctx, "/?lang=de", { "accept-language": "fr" });
    assert.equal(chosen.lang, "de");
    assert.equal(
      languageCookie(chosen.res),
      "quando_lang=de; Max-Age=31536000; Path=/; HttpOnly; SameSite=Lax",
    );
    // That answer is this visitor's own: shared caches must not keep it.
    assert.equal(
      chosen.res.headers.get("cache-control"),
      "private, max-age=60",
    );
    // The next pages: the cookie before Accept-Language and the instance's.
    const next = await get(ctx, "/tag/jazz", {
      cookie: "quando_session=x; quando_lang=de",
      "accept-language": "fr",
    });
    assert.equal(next.lang, "de");
    assert.equal(languageCookie(next.res), null);
    assert.equal(next.res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(next.res.headers.get("vary"), "Accept-Language, Cookie");
    // A choice the visitor already made is not set again.
    const again = await get(ctx, "/?lang=de", { cookie: "quando_lang=de" });
    assert.equal(again.lang, "de");
    assert.equal(languageCookie(again.res), null);
    // ?lang= beats the cookie, and replaces it.
    const changed = await get(ctx, "/?lang=es", { cookie: "quando_lang=de" });
    assert.equal(changed.lang, "es");
    assert.match(languageCookie(changed.res) ?? "", /^quando_lang=es;/);
    // Unknown or malformed choices and cookies are ignored, never stored.
    for (const query of ["?lang=xx", "?lang=", "?lang=%E0%A4%A", "?lang=pt"]) {
      const ignored = await get(ctx, `/${query}`, {
        "accept-language": "fr",
        cookie: "quando_lang=zz",
      });
      assert.equal(ignored.res.status, 200, query);
      assert.equal(ignored.lang, "fr", query);
      assert.equal(languageCookie(ignored.res), null, query);
    }
    assert.equal(
      (await get(ctx, "/", { cookie: "quando_lang=zz" })).lang,
      "it",
    );
    // Behind https the cookie is Secure.
    const secure = await createTestApp({
      env: { BASE_URL: "https://quando.test" },
    });
    try {
      const res = await secure.app.request("/?lang=fr");
      assert.match(languageCookie(res) ?? "", /; Secure$/);
    } finally {
      secure.close();
    }
  } finally {
    ctx.close();
  }
});

Deno.test("the language switch: links to this page in each language, each named in its own, the current one marked; following one switches and remembers", async () => {
  const { ctx, concert } = await world();
  try {
    const page = await get(ctx, "/?page=1", { "accept-language": "it" });
    const links = page.$$("nav.languages a");
    assert.deepEqual(
      links.map((a) => ({
        text: text(a),
        href: a.getAttribute("href"),
        hreflang: a.getAttribute("hreflang"),
        lang: a.getAttribute("lang"),
        current: a.getAttribute("aria-current"),
      })),
      PUBLIC_LANGUAGES.map((lang) => ({
        text: LANGUAGE_NAMES[lang],
        href: `/?page=1&lang=${lang}`,
        hreflang: lang,
        lang,
        current: lang === "it" ? "true" : null,
      })),
    );
    // Following "Français" from the event's page.
    const event = await get(ctx, `/event/${concert.slug}`);
    const french = event.$$("nav.languages a").find((a) =>
      text(a) === "Français"
    );
    const href = french?.getAttribute("href") ?? "";
    assert.equal(href, `/event/${concert.slug}?lang=fr`);
    const followed = await get(ctx, href, { "accept-language": "en" });
    assert.equal(followed.lang, "fr");
    assert.equal(followed.$$(".facts dt").map(text)[0], "Quand");
    const cookie = (languageCookie(followed.res) ?? "").split(";")[0];
    assert.equal(cookie, "quando_lang=fr");
    // The choice holds on the next page, without ?lang=.
    const home = await get(ctx, "/", { cookie, "accept-language": "en" });
    assert.equal(home.h1, "Événements à venir");
  } finally {
    ctx.close();
  }
});

Deno.test("the public-read cache keeps each language's page apart: one URL, two languages, in either order", async () => {
  for (const order of [["fr", "it"], ["it", "fr"]]) {
    const { ctx, admin, concert } = await world();
    try {
      for (const path of ["/", `/event/${concert.slug}`, "/tag/jazz"]) {
        const heading = (lang: string, page: Page) =>
          path === "/"
            ? page.h1 === translator(lang)("public.home.heading")
            : page.$$("nav.languages a[aria-current]").map(text)[0] ===
              LANGUAGE_NAMES[lang];
        // Each language's page is kept on its second request, so the third
        // round is answered from memory.
        for (let round = 0; round < 3; round++) {
          for (const lang of order) {
            let page: Page | undefined;
            const statements = await statementsDuring(ctx, async () => {
              page = await get(ctx, path, {
                "accept-language": `${lang}-XX,${lang};q=0.9`,
              });
            });
            assert.equal(page!.res.status, 200);
            assert.equal(page!.lang, lang, `${path} ${order} round ${round}`);
            assert.ok(heading(lang, page!), `${path} in ${lang}`);
            assertOneLanguage(page!, lang, `${path} (cache, ${order})`);
            // The third round is answered from memory: the cache holds both.
            if (round === 2) assert.equal(statements, 0, `${path} ${lang}`);
          }
        }
      }
      // The cookie is a language as well: a French reader by cookie after
      // an Italian one by header, then one who asks for nothing the pages
      // have (the instance's language) after both.
      assert.equal(
        (await get(ctx, "/", { cookie: "quando_lang=it" })).lang,
        "it",
      );
      assert.equal(
        (await get(ctx, "/", {
          cookie: "quando_lang=fr",
          "accept-language": "it",
        })).lang,
        "fr",
      );
      assert.equal(
        (await get(ctx, "/", { "accept-language": "pt" })).lang,
        "en",
      );
      assert.equal((await get(ctx, "/")).lang, "en");
      // A new instance language ends the entries of readers without one.
      await call(ctx, "PUT", "/api/settings", {
        token: admin.token,
        json: { instance_locale: "de-DE" },
      });
      const german = await get(ctx, "/", { "accept-language": "pt" });
      assert.equal(german.lang, "de-DE");
      assert.equal(german.h1, "Kommende Veranstaltungen");
      // ...while a reader asking for French still gets French.
      assert.equal(
        (await get(ctx, "/", { "accept-language": "fr" })).h1,
        "Événements à venir",
      );
      // The answers tell shared caches what they depend on.
      const res = await ctx.app.request(`/event/${concert.slug}`, {
        headers: { "accept-language": "fr" },
      });
      assert.equal(res.headers.get("vary"), "Accept, Accept-Language, Cookie");
      await res.body?.cancel();
    } finally {
      ctx.close();
    }
  }
});

Deno.test("the signed-in interface offers English and Italian only: other languages fall back, and its switch lists the two", async () => {
  const { ctx } = await world();
  try {
    const login = async (headers: Record<string, string>, query = "") => {
      const res = await ctx.app.request(`/login${query}`, { headers });
      assert.equal(res.status, 200);
      const html = await res.text();
      const { document } = parseHTML(html) as unknown as { document: Doc };
      return {
        res,
        lang: document.documentElement.getAttribute("lang"),
        h1: text(document.querySelector("h1")),
        switch: [...document.querySelectorAll("nav.languages a")].map((a) =>
          `${text(a)} ${a.getAttribute("href")}`
        ),
      };
    };
    // French is not offered: the next language the visitor reads, else the instance's.
    assert.equal((await login({ "accept-language": "fr" })).h1, "Sign in");
    assert.equal((await login({ "accept-language": "fr" })).lang, "en");
    assert.equal(
      (await login({ "accept-language": "fr-FR, fr;q=0.9, it;q=0.5" })).h1,
      "Accedi",
    );
    // A French choice made on the public pages does not apply here...
    const remembered = await login({
      cookie: "quando_lang=fr",
      "accept-language": "it",
    });
    assert.equal(remembered.lang, "it");
    // ...nor does ?lang=fr, which is not remembered from here.
    const asked = await login({}, "?lang=fr");
    assert.equal(asked.lang, "en");
    assert.equal(languageCookie(asked.res), null);
    // The switch: English and Italian, keeping the page's query.
    assert.deepEqual((await login({}, "?next=%2Fmy")).switch, [
      "English /login?next=%2Fmy&lang=en",
      "Italiano /login?next=%2Fmy&lang=it",
    ]);
    // Italian chosen here holds on the public pages too.
    const chosen = await login({ "accept-language": "fr" }, "?lang=it");
    assert.equal(chosen.h1, "Accedi");
    const cookie = (languageCookie(chosen.res) ?? "").split(";")[0];
    assert.equal(cookie, "quando_lang=it");
    assert.equal(
      (await get(ctx, "/", { cookie, "accept-language": "fr" })).h1,
      "Prossimi eventi",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("the embedded list (/embed) and the snippets page (/embed/new) are in one language, dates included", async () => {
  const { ctx } = await world();
  try {
    for (const lang of PUBLIC_LANGUAGES) {
      const t = translator(lang);
      const when = new Intl.DateTimeFormat(lang, {
        weekday: "short",
        day: "numeric",
        month: "short",
        year: "numeric",
        hour: "numeric",
        minute: "2-digit",
        timeZone: TZ,
      }).format(new Date(START * 1000));
      // By the list's own `lang`, and by the visitor's language.
      for (
        const [query, headers] of [
          [`?lang=${lang}`, {}],
          ["", { "accept-language": lang }],
        ] as const
      ) {
        const embed = await get(ctx, `/embed${query}`, headers);
        assert.equal(embed.res.status, 200);
        assert.equal(embed.lang, lang);
        assert.equal(embed.h1, t("public.embed.heading"));
        assert.ok(embed.words.includes(when), `${lang}: ${when}`);
        assert.ok(
          embed.words.includes(t("public.status.EventCancelled.badge")),
        );
        assert.ok(
          embed.words.includes(
            t("public.embed.more", { site: "Quando Bologna" }),
          ),
        );
        assertOneLanguage(embed, lang, `/embed${query}`);
      }
      const page = await get(ctx, `/embed/new?lang=${lang}`);
      assert.equal(page.res.status, 200);
      assert.equal(page.lang, lang);
      assert.equal(page.h1, t("public.embed.new.title"));
      for (
        const key of [
          "public.embed.new.tags",
          "public.embed.new.places",
          "public.embed.new.theme.auto",
          "public.embed.new.lang.visitor",
          "public.embed.new.element",
          "public.embed.new.iframe",
          "public.embed.new.copy",
        ] as const
      ) {
        assert.ok(page.words.includes(t(key)), `${lang}: ${t(key)}`);
      }
      assertOneLanguage(page, lang, "/embed/new");
      const bad = await get(ctx, `/embed?max=0&lang=${lang}`);
      assert.equal(bad.res.status, 400);
      assert.equal(bad.h1, t("public.embed.bad.title"));
      assertOneLanguage(bad, lang, "/embed's 400 page");
    }
  } finally {
    ctx.close();
  }
});
