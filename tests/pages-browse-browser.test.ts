/**
 * The browse pages in a real browser (headless Chromium through
 * playwright-core) against a running server: the empty instance's home,
 * then, filled, the home (a weekly series shown once), the month calendar,
 * a day, past events and the tags and places indexes, at 1280 px and on a
 * 390 px phone (home and month also in dark). axe-core finds no serious or
 * critical problem, nothing scrolls sideways, and a visitor reaches an event
 * from the navigation and the calendar without typing a URL. Screenshots
 * go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  ADMIN,
  inspectPage,
  launchChromium,
  phoneContext,
  requireChromium,
} from "./browser.ts";
import { apiOk, loginAt, startServerProcess } from "./helpers.ts";

const DAY = 86_400;

/** A town's calendar: a weekly series, a monthly one, single events, past ones. */
async function fill(base: string, token: string) {
  const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
  // 18:00 UTC: 19:00 or 20:00 in Rome, the same day.
  const evening = today + DAY + 18 * 3600;
  const create = (body: Record<string, unknown>) =>
    apiOk(base, "POST", "/api/events", token, body) as Promise<
      { slug: string; title: string }
    >;
  const jam = await create({
    title: "Jam session",
    start_datetime: evening,
    end_datetime: evening + 3 * 3600,
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4/b, Bologna",
    tags: ["Jazz", "Live music"],
    recurrent: { frequency: "1w" },
  });
  await create({
    title: "Book club: the last Friday's novel",
    start_datetime: evening + 2 * DAY,
    place_name: "Biblioteca Salaborsa",
    place_address: "Piazza del Nettuno 3, Bologna",
    tags: ["Books"],
    recurrent: { frequency: "1m", type: "-1" },
  });
  const talks = [
    ["Repair café", "Centro sociale Croce del Biacco", ["Community", "Repair"]],
    ["Open-air cinema: Casablanca", "Piazza Maggiore", ["Cinema"]],
    ["Python meetup", "Cowork Bologna", ["Tech"]],
    ["Choir rehearsal open to all", "Chiesa di San Martino", ["Music"]],
    [
      "Donaudampfschifffahrtsgesellschaftskapitänsmützenausstellungseröffnung",
      "Museo della Musica",
      ["Museum"],
    ],
  ] as const;
  for (const [i, [title, place, tags]] of talks.entries()) {
    await create({
      title,
      start_datetime: evening + (i + 1) * DAY - 2 * 3600,
      end_datetime: evening + (i + 1) * DAY,
      place_name: place,
      tags: [...tags],
    });
  }
  for (let i = 1; i <= 4; i++) {
    await create({
      title: `Neighbourhood assembly #${i}`,
      start_datetime: today - i * 9 * DAY + 17 * 3600,
      end_datetime: today - i * 9 * DAY + 19 * 3600,
      place_name: "Piazza Maggiore",
      tags: ["Community"],
    });
  }
  return { jam, evening };
}

async function visit(page: Page, url: string) {
  const res = await page.goto(url);
  assert.equal(res?.status(), 200, url);
}

async function bodyText(page: Page): Promise<string> {
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}

Deno.test({
  name:
    "browse pages in Chromium: empty home, home with a series, month, day, past, tags, places; phone and desktop, light and dark",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();
    const dir = await Deno.makeTempDir({ prefix: "quando-browse-" });
    const server = await startServerProcess(dir, {
      DATABASE_URL: `file:${dir}/quando.db`,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PUBLIC_CACHE_MS: "0",
    });
    let browser: Browser | null = null;
    try {
      const base = server.base;
      const token = await loginAt(base, ADMIN);
      await apiOk(base, "PUT", "/api/settings", token, {
        instance_title: "Quando Bologna",
        instance_description:
          "Concerts, talks and gatherings around Bologna, put together by its neighbourhoods.",
        instance_timezone: "Europe/Rome",
        instance_locale: "en-GB",
      });
      browser = await launchChromium();
      const phone = await phoneContext(browser);
      const phoneDark = await phoneContext(browser, true);
      const desktop = await browser.newContext({
        viewport: { width: 1280, height: 900 },
      });

      // The empty instance: what it is, and where to go.
      // Its own context: browsers keep pages a minute (max-age=60).
      const before = await phoneContext(browser);
      const empty = await before.newPage();
      await visit(empty, `${base}/`);
      assert.equal(
        await empty.locator("h1").innerText(),
        "Quando Bologna",
      );
      const welcome = await bodyText(empty);
      assert.match(welcome, /Concerts, talks and gatherings around Bologna/);
      assert.match(welcome, /No events are planned at the moment\./);
      assert.ok(
        await empty.getByRole("link", { name: "Sign in to publish an event" })
          .isVisible(),
      );
      assert.ok(
        await empty.getByRole("link", { name: "See past events" }).isVisible(),
      );
      await inspectPage(empty, "empty home", "home-empty-phone.png");
      await before.close();

      const { jam, evening } = await fill(base, token);
      const weekday = new Intl.DateTimeFormat("en-GB", {
        weekday: "long",
        timeZone: "Europe/Rome",
      }).format(new Date(evening * 1000));

      // Home: the weekly series once, with its rule and next dates (with
      // "List each occurrence" off; on, each date is an entry).
      await apiOk(base, "PUT", "/api/settings", token, {
        recurrent_event_visible: false,
      });
      for (
        const [context, shot] of [
          [desktop, "home-desktop.png"],
          [phone, "home-phone.png"],
          [phoneDark, "home-phone-dark.png"],
        ] as const
      ) {
        const page = await context.newPage();
        await visit(page, `${base}/`);
        const jams = page.locator(".h-event", {
          hasText: "Jam session",
        });
        assert.equal(await jams.count(), 1, shot);
        assert.equal(
          await jams.locator(".rule").innerText(),
          `Every ${weekday}`,
        );
        assert.equal(await jams.locator(".following a time").count(), 3);
        assert.ok(
          await page.locator(".series .rule", {
            hasText: "On the last",
          }).isVisible(),
        );
        assert.equal(
          await page.locator('nav.browse a[aria-current="page"]').innerText(),
          "Upcoming",
        );
        await inspectPage(page, shot, shot);
        await page.close();
      }
      await apiOk(base, "PUT", "/api/settings", token, {
        recurrent_event_visible: true,
      });

      // From the navigation to the month, then to a day, then to the event.
      const month = new Intl.DateTimeFormat("en-GB", {
        month: "long",
        year: "numeric",
        timeZone: "Europe/Rome",
      }).format(new Date(evening * 1000));
      const dayKey = new Intl.DateTimeFormat("en-CA", {
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        timeZone: "Europe/Rome",
      }).format(new Date(evening * 1000));
      const eveningMonth = dayKey.slice(0, 7);
      for (
        const [context, shot] of [
          [desktop, "calendar-month-desktop.png"],
          [phone, "calendar-month-phone.png"],
          [phoneDark, "calendar-month-phone-dark.png"],
        ] as const
      ) {
        const page = await context.newPage();
        await visit(page, `${base}/`);
        await page.getByRole("link", { name: "Calendar", exact: true }).click();
        await page.waitForURL(/\/calendar\/\d{4}-\d{2}$/);
        // Tomorrow may be next month: then its month is one link away.
        if (!page.url().endsWith(eveningMonth)) {
          await page.locator('nav.steps a[rel="next"]').click();
          await page.waitForURL(new RegExp(`${eveningMonth}$`));
        }
        assert.equal(await page.locator("h1").innerText(), month);
        assert.equal(
          await page.locator("table.month thead th").count(),
          7,
        );
        assert.ok(await page.locator("table.month td.has a").count() >= 1);
        // On the phone the count is a number in a pill; on a desktop, words.
        const first = page.locator("table.month td.has a").first();
        const words = await first.locator(".w").boundingBox();
        const pill = await first.locator(".n").isVisible();
        if (context === desktop) {
          assert.ok(words && words.width > 20, "words shown on a desktop");
          assert.equal(pill, false);
        } else {
          assert.ok(!words || words.width <= 1, "words hidden on a phone");
          assert.equal(pill, true);
        }
        await inspectPage(page, shot, shot);
        await page.close();
      }
      const dayPage = await phone.newPage();
      await visit(dayPage, `${base}/calendar/${dayKey.slice(0, 7)}`);
      await dayPage.locator(`a[href="/calendar/${dayKey}"]`).click();
      await dayPage.waitForURL(new RegExp(`/calendar/${dayKey}$`));
      assert.match(await dayPage.locator("h1").innerText(), /^Events on /);
      await inspectPage(dayPage, "day", "calendar-day-phone.png");
      await dayPage.getByRole("link", { name: "Jam session" }).click();
      // An occurrence of the series: the series' slug and its date.
      await dayPage.waitForURL(new RegExp(`/event/${jam.slug}-${dayKey}$`));
      assert.equal(
        await dayPage.locator("h1").innerText(),
        "Jam session",
      );
      await dayPage.close();

      // Past events, newest first.
      const past = await phone.newPage();
      await visit(past, `${base}/`);
      await past.getByRole("link", { name: "Past events" }).click();
      await past.waitForURL(/\/past$/);
      const titles = await past.locator(".h-event .p-name").allInnerTexts();
      assert.deepEqual(titles, [
        "Neighbourhood assembly #1",
        "Neighbourhood assembly #2",
        "Neighbourhood assembly #3",
        "Neighbourhood assembly #4",
      ]);
      await inspectPage(past, "past", "past-phone.png");
      await past.close();

      // Tags and places, with counts, leading to their pages.
      const tags = await phone.newPage();
      await visit(tags, `${base}/tags`);
      const jazz = tags.locator(".tag-index li", { hasText: "#Jazz" });
      assert.match(await jazz.innerText(), /#Jazz \d+ upcoming events/);
      await inspectPage(tags, "tags", "tags-phone.png");
      await jazz.locator("a").click();
      await tags.waitForURL(/\/tag\/Jazz$/);
      await tags.close();

      const places = await phone.newPage();
      await visit(places, `${base}/places`);
      const cantina = places.locator(".place-index li", {
        hasText: "Cantina Bentivoglio",
      });
      assert.match(await cantina.innerText(), /Via Mascarella 4\/b/);
      await inspectPage(places, "places", "places-phone.png");
      await cantina.locator("a").click();
      await places.waitForURL(/\/place\/\d+$/);
      await places.close();

      // A tag with more than a page of events: its upcoming list is paged.
      for (let i = 1; i <= 52; i++) {
        await apiOk(base, "POST", "/api/events", token, {
          title: `Reading aloud ${i}`,
          start_datetime: evening + i * 3600,
          place_name: "Biblioteca Salaborsa",
          tags: ["Reading"],
        });
      }
      const paged = await phone.newPage();
      await visit(paged, `${base}/tag/Reading`);
      const listed = paged.locator(
        "section[aria-labelledby=upcoming-title] .h-event",
      );
      assert.equal(await listed.count(), 50);
      await inspectPage(paged, "tag, paged", "tag-paged-phone.png");
      await paged.getByRole("navigation", { name: "More upcoming events" })
        .getByRole("link", { name: "Next page" }).click();
      await paged.waitForURL(/\/tag\/Reading\?page=2$/);
      assert.deepEqual(
        await listed.locator(".p-name").allInnerTexts(),
        ["Reading aloud 51", "Reading aloud 52"],
      );
      await inspectPage(paged, "tag, page 2", "tag-page2-phone.png");
      await paged.close();

      // The about page: the description's paragraphs and line breaks as
      // written, found from the footer of any page.
      await apiOk(base, "PUT", "/api/settings", token, {
        instance_description:
          "Concerts and talks around Bologna.\n\nWrite to us:\ncalendar@example.org",
      });
      const about = await phone.newPage();
      await visit(about, `${base}/past`);
      await about.getByRole("link", { name: "About this calendar" }).click();
      await about.waitForURL(/\/about$/);
      assert.equal(
        await about.locator("h1").innerText(),
        "About Quando Bologna",
      );
      assert.deepEqual(await about.locator("main p").allInnerTexts(), [
        "Concerts and talks around Bologna.",
        "Write to us:\ncalendar@example.org",
        `Follow this calendar from Mastodon or any other fediverse account: search for @relay@${
          new URL(base).host
        }.`,
        "Upcoming events",
      ]);
      await inspectPage(about, "about", "about-phone.png");
      await about.close();

      // Dark: the desktop month and tags too (axe checks contrast).
      const dark = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        colorScheme: "dark",
      });
      for (const path of ["/tags", "/places", "/past"]) {
        const page = await dark.newPage();
        await visit(page, `${base}${path}`);
        await inspectPage(page, `${path} dark`);
        await page.close();
      }
    } finally {
      await browser?.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
