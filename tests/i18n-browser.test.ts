/**
 * The language switch in a real browser (Debian's Chromium, driven by
 * playwright-core) on a phone, in light and in dark: a visitor whose browser
 * asks for English picks French on the home page, follows an event (still
 * French, remembered), picks German there; the sign-in page offers English
 * and Italian. Each page is in the chosen language, axe-core finds no
 * serious or critical problem, nothing scrolls sideways; screenshots go to
 * tests/artifacts/.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  ADMIN,
  ARTIFACTS,
  axeViolations,
  keepScreenshot,
  scrollsSideways,
  withServerAndBrowser,
} from "./browser.ts";
import { apiOk } from "./helpers.ts";

const TZ = "Europe/Rome";

async function bodyText(page: Page): Promise<string> {
  return (await page.locator("body").innerText()).replace(/\s+/g, " ");
}

/** The link of the language switch named `name`. */
function switchTo(page: Page, name: string) {
  return page.locator("nav.languages").getByRole("link", {
    name,
    exact: true,
  });
}

Deno.test({
  name:
    "the language switch in Chromium: French on the home page, remembered on an event's page, then German; the sign-in page in Italian; light and dark; axe clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const base = quando.base;
      const { access_token: token } = await apiOk(
        base,
        "POST",
        "/api/login/token",
        undefined,
        ADMIN,
      );
      await apiOk(base, "PUT", "/api/settings", token, {
        instance_title: "Quando Bologna",
        instance_description: "",
        instance_timezone: TZ,
        instance_locale: "en",
      });
      // The day after tomorrow, 19:00 in Rome (17:00 or 18:00 UTC: either is fine).
      const day = 86_400;
      const start = Math.floor(Date.now() / 1000 / day) * day + 2 * day +
        17 * 3600;
      const concert = await apiOk(base, "POST", "/api/events", token, {
        title: "Trio Bentivoglio",
        description: "<p>Trio Bentivoglio, Cantina Bentivoglio.</p>",
        start_datetime: start,
        end_datetime: start + 2 * 3600,
        place_name: "Cantina Bentivoglio",
        place_address: "Via Mascarella 4, Bologna",
        place_latitude: 44.4989,
        place_longitude: 11.3479,
        tags: ["jazz"],
      });
      await apiOk(base, "POST", "/api/events", token, {
        title: "Cineforum Casablanca",
        start_datetime: start + day,
        place_name: "Piazza Maggiore",
        tags: ["cinema"],
        status: "EventCancelled",
      });
      const dayIn = (locale: string) =>
        new Intl.DateTimeFormat(locale, { dateStyle: "full", timeZone: TZ })
          .format(new Date(start * 1000));
      await Deno.mkdir(ARTIFACTS, { recursive: true });

      for (const scheme of ["light", "dark"] as const) {
        const suffix = scheme === "dark" ? "-dark" : "";
        const context = await browser.newContext({
          colorScheme: scheme,
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          locale: "en-US",
        });
        try {
          const page = await context.newPage();
          await page.goto(`${base}/`);
          assert.equal(await page.getAttribute("html", "lang"), "en");
          assert.equal(
            await page.locator("h1").innerText(),
            "Upcoming events",
          );

          // French, with the switch.
          await Promise.all([
            page.waitForURL(`${base}/?lang=fr`),
            switchTo(page, "Français").click(),
          ]);
          assert.equal(await page.getAttribute("html", "lang"), "fr");
          assert.equal(
            await page.locator("h1").innerText(),
            "Événements à venir",
          );
          let text = await bodyText(page);
          for (
            const expected of [
              dayIn("fr"),
              "Annulé",
              "S'abonner à tous les événements",
              "Les heures sont indiquées dans le fuseau horaire Europe/Rome.",
            ]
          ) {
            assert.ok(text.includes(expected), `${scheme}: ${expected}`);
          }
          for (const english of ["Upcoming", "Cancelled", "Subscribe"]) {
            assert.ok(!text.includes(english), `${scheme}: ${english}`);
          }
          assert.equal(
            await switchTo(page, "Français").getAttribute("aria-current"),
            "true",
          );
          assert.deepEqual(await axeViolations(page), [], `home fr ${scheme}`);
          assert.equal(await scrollsSideways(page), false, "home fr");
          await keepScreenshot(page, `home-fr-phone${suffix}.png`);

          // An event's page by its link: still French, without ?lang=.
          await Promise.all([
            page.waitForURL(`${base}/event/${concert.slug}`),
            page.getByRole("link", { name: "Trio Bentivoglio" }).click(),
          ]);
          assert.equal(await page.getAttribute("html", "lang"), "fr");
          assert.equal(
            await page.locator(".facts dt").first().innerText(),
            "Quand",
          );
          assert.deepEqual(await axeViolations(page), [], `event fr ${scheme}`);

          // German, with the switch on the event's page.
          await Promise.all([
            page.waitForURL(`${base}/event/${concert.slug}?lang=de`),
            switchTo(page, "Deutsch").click(),
          ]);
          assert.equal(await page.getAttribute("html", "lang"), "de");
          assert.deepEqual(
            await page.locator(".facts dt").allInnerTexts(),
            ["Wann", "Wo"],
          );
          text = await bodyText(page);
          for (
            const expected of [
              dayIn("de"),
              "Zum Kalender hinzufügen",
              "Über diese Veranstaltung",
              "Auf der Karte zeigen (OpenStreetMap)",
            ]
          ) {
            assert.ok(text.includes(expected), `${scheme}: ${expected}`);
          }
          assert.deepEqual(await axeViolations(page), [], `event de ${scheme}`);
          assert.equal(await scrollsSideways(page), false, "event de");
          await keepScreenshot(page, `event-de-phone${suffix}.png`);
          // The home page keeps German.
          await page.goto(`${base}/`);
          assert.equal(
            await page.locator("h1").innerText(),
            "Kommende Veranstaltungen",
          );

          // The sign-in page has no German: the browser's English, and a
          // switch with English and Italian.
          await page.goto(`${base}/login`);
          assert.equal(await page.getAttribute("html", "lang"), "en");
          assert.deepEqual(
            await page.locator("nav.languages a").allInnerTexts(),
            ["English", "Italiano"],
          );
          await Promise.all([
            page.waitForURL(`${base}/login?lang=it`),
            switchTo(page, "Italiano").click(),
          ]);
          assert.equal(await page.getAttribute("html", "lang"), "it");
          assert.equal(await page.locator("h1").innerText(), "Accedi");
          assert.deepEqual(await axeViolations(page), [], `login it ${scheme}`);
          assert.equal(await scrollsSideways(page), false, "login it");
          await keepScreenshot(page, `login-it-phone${suffix}.png`);
          // Italian chosen there holds on the public pages.
          await page.goto(`${base}/`);
          assert.equal(await page.locator("h1").innerText(), "Prossimi eventi");
        } finally {
          await context.close();
        }
      }
    });
  },
});
