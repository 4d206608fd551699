/**
 * The event page (single, series, remote) and the place page in Chromium at
 * 1280 px and 390 px, light and (the single event) dark: what a visitor
 * sees, that nothing scrolls sideways, that no request leaves the instance
 * (no tiles, no calendar service until a link is followed), that the links
 * between a series and its dates work without JavaScript, and axe-core.
 * Screenshots under tests/artifacts/.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import { upsertActor } from "../lib/federation/actors.ts";
import { eq } from "drizzle-orm";
import { events } from "../db/schema.ts";
import {
  ARTIFACTS,
  inspectPage,
  launchChromium,
  phoneContext,
} from "./browser.ts";
import { call, createTestApp, freePort, userWithToken } from "./helpers.ts";

const HOUR = 3600;
/** Saturday 6 June 2026, 19:00 in Rome. */
const JUNE_6_EVENING = Date.parse("2026-06-06T17:00:00Z") / 1000;
/** Tuesday 2 June 2026, 19:00 in Rome. */
const JUNE_2_EVENING = Date.parse("2026-06-02T17:00:00Z") / 1000;

async function serve() {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestApp({ env: { BASE_URL: base } });
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", onListen() {} },
    (req) => ctx.app.fetch(req),
  );
  const admin = await userWithToken(ctx, "admin");
  const settings = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Quando Bologna",
      instance_description: "Concerts, talks and gatherings around town.",
      instance_timezone: "Europe/Rome",
      instance_locale: "en-GB",
    },
  });
  assert.equal(settings.status, 200);
  const create = async (json: Record<string, unknown>) => {
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json,
    });
    const body = await res.text();
    assert.equal(res.status, 201, body);
    return JSON.parse(body);
  };
  const single = await create({
    title: "Jazz & Blues Night at the Cantina",
    description:
      "An evening of live jazz with the Bentivoglio Quartet, followed by an open jam session.\nBring your instrument!\n\nTickets and the set list: https://cantina.example.org/jazz-and-blues-night-2026\n\nFree entry until 21:00.",
    start_datetime: JUNE_6_EVENING,
    end_datetime: JUNE_6_EVENING + 3 * HOUR,
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4/b, 40126 Bologna",
    place_latitude: 44.4989,
    place_longitude: 11.3479,
    online_locations: [
      "https://stream.example.org/cantina/a-very-long-room-name-0123456789",
    ],
    tags: ["Jazz", "Live music"],
  });
  await create({
    title: "Sunday brunch concert",
    start_datetime: JUNE_6_EVENING + 18 * HOUR,
    end_datetime: JUNE_6_EVENING + 20 * HOUR,
    place_id: single.place.id,
    tags: ["Jazz"],
  });
  const series = await create({
    title: "Swing dance class for beginners",
    description: "<p>No partner needed. Comfortable shoes.</p>",
    start_datetime: JUNE_2_EVENING,
    end_datetime: JUNE_2_EVENING + 2 * HOUR,
    place_name: "Sala Biagi",
    place_address: "Via Santo Stefano 119, Bologna",
    tags: ["Dance"],
    recurrent: {
      frequency: "1w",
      until: Date.parse("2026-08-25T17:00:00Z") / 1000,
    },
  });
  const actor = "https://gancio.example/federation/u/relay";
  await upsertActor(ctx.database.db, ctx.clock, actor, {
    type: "Application",
    name: "Gancio Bologna",
  }, { trusted: true, following: true });
  const { id } = await upsertRemoteEvent(
    { db: ctx.database.db, clock: ctx.clock },
    {
      ap_id: "https://gancio.example/federation/m/12",
      apUserApId: actor,
      title: "Punk night at XM24",
      description: "<p>Three bands, one evening.</p>",
      start_datetime: JUNE_6_EVENING + 2 * HOUR,
      end_datetime: JUNE_6_EVENING + 5 * HOUR,
      status: "EventScheduled",
      place: {
        name: "XM24",
        address: "Via Fioravanti 24, Bologna",
        latitude: null,
        longitude: null,
        postal_address: null,
      },
      online_locations: [],
      tags: ["Punk"],
      media: [],
      ap_object: {
        type: "Event",
        url: "https://gancio.example/event/punk-night-at-xm24",
      },
      ld_signature: null,
    },
  );
  const [remote] = await ctx.database.db.select({ slug: events.slug }).from(
    events,
  ).where(eq(events.id, id));
  return {
    base,
    single,
    series,
    remote,
    async close() {
      await server.shutdown();
      ctx.close();
    },
  };
}

/** Requests that leave the instance (the page must make none). */
function watch(page: Page, base: string): string[] {
  const problems: string[] = [];
  page.on("request", (r) => {
    const url = r.url();
    if (!url.startsWith(base) && !url.startsWith("data:")) {
      problems.push(`request to ${url}`);
    }
  });
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

async function bodyText(page: Page): Promise<string> {
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}

function assertShows(text: string, expected: string[], what: string) {
  for (const e of expected) {
    assert.ok(text.includes(e), `${what} lacks "${e}": ${text}`);
  }
}

Deno.test({
  name:
    "event pages (single, series, remote) and a place page in Chromium: phone and desktop, light and dark, no third-party request, axe clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const world = await serve();
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const { base, single, series, remote } = world;
      const contexts: {
        name: string;
        suffix: string;
        open: () => Promise<BrowserContext>;
        dark: boolean;
      }[] = [
        {
          name: "phone",
          suffix: "-phone",
          open: () => phoneContext(browser!),
          dark: false,
        },
        {
          name: "desktop",
          suffix: "-desktop",
          open: () =>
            browser!.newContext({ viewport: { width: 1280, height: 900 } }),
          dark: false,
        },
        {
          name: "phone (dark)",
          suffix: "-phone-dark",
          open: () => phoneContext(browser!, true),
          dark: true,
        },
        {
          name: "desktop (dark)",
          suffix: "-desktop-dark",
          open: () =>
            browser!.newContext({
              viewport: { width: 1280, height: 900 },
              colorScheme: "dark",
            }),
          dark: true,
        },
      ];
      for (const c of contexts) {
        const context = await c.open();
        try {
          const page = await context.newPage();
          const problems = watch(page, base);

          // A single event.
          await page.goto(`${base}/event/${single.slug}`);
          assert.equal(
            await page.locator("h1").innerText(),
            "Jazz & Blues Night at the Cantina",
          );
          assertShows(await bodyText(page), [
            "Saturday, 6 June 2026 at 19:00",
            "Cantina Bentivoglio",
            "Show on the map (OpenStreetMap)",
            "Directions (OpenStreetMap)",
            "Join online stream.example.org",
            "Add to calendar",
            "Calendar file (.ics)",
            "Google Calendar",
            "Outlook.com",
            "Bring your instrument!",
          ], `${c.name} single event`);
          // The plain-text description: paragraphs and a working link.
          assert.equal(await page.locator(".e-content p").count(), 3);
          assert.equal(
            await page.locator(".e-content a").getAttribute("href"),
            "https://cantina.example.org/jazz-and-blues-night-2026",
          );
          await inspectPage(
            page,
            `${c.name} single event`,
            `event-single${c.suffix}.png`,
          );

          if (!c.dark) {
            // The series, reached from nowhere but its own address.
            await page.goto(`${base}/event/${series.slug}`);
            assertShows(await bodyText(page), [
              "Every Tuesday, until 25 August 2026",
              "Next date",
              "Tuesday, 2 June 2026 at 19:00",
              "Every date of the series (.ics)",
              "Next date in Google Calendar",
              "Find the address on OpenStreetMap",
              "Next dates",
              "Tue, 9 Jun 2026, 19:00",
            ], `${c.name} series`);
            await inspectPage(
              page,
              `${c.name} series`,
              `event-series${c.suffix}.png`,
            );
            // Following a date, then back to the series: plain links.
            await Promise.all([
              page.waitForURL(`${base}/event/${series.children[1].slug}`),
              page.locator("ul.dates a").nth(1).click(),
            ]);
            assertShows(await bodyText(page), [
              "Every Tuesday, until 25 August 2026",
              "Tuesday, 9 June 2026 at 19:00",
              "This date (.ics)",
              "Every date of the series (.ics)",
            ], `${c.name} occurrence`);
            await inspectPage(
              page,
              `${c.name} occurrence`,
              `event-occurrence${c.suffix}.png`,
            );
            await Promise.all([
              page.waitForURL(`${base}/event/${series.slug}`),
              page.locator("a.series").click(),
            ]);

            // A remote event.
            await page.goto(`${base}/event/${remote.slug}`);
            assertShows(await bodyText(page), [
              "From gancio.example, published by Gancio Bologna",
              "See the original",
              "Three bands, one evening.",
            ], `${c.name} remote event`);
            assert.equal(
              await page.locator("a.original").getAttribute("href"),
              "https://gancio.example/event/punk-night-at-xm24",
            );
            await inspectPage(
              page,
              `${c.name} remote event`,
              `event-remote${c.suffix}.png`,
            );

            // The place page, from the event's place link.
            await page.goto(`${base}/event/${single.slug}`);
            await Promise.all([
              page.waitForURL(`${base}/place/${single.place.id}`),
              page.locator(".facts .p-location a.p-name").click(),
            ]);
            assert.equal(
              await page.locator("h1").innerText(),
              "Cantina Bentivoglio",
            );
            const placeText = await bodyText(page);
            assertShows(placeText, [
              "Via Mascarella 4/b, 40126 Bologna",
              "Coordinates: 44.4989, 11.3479",
              "Show on the map (OpenStreetMap)",
              "Directions (OpenStreetMap)",
              "2 upcoming events",
              "Jazz & Blues Night at the Cantina",
              "Sunday brunch concert",
            ], `${c.name} place`);
            // Named once.
            assert.equal(placeText.split("Cantina Bentivoglio").length, 2);
            assert.equal(
              await page.locator("a.map").getAttribute("href"),
              "https://www.openstreetmap.org/?mlat=44.4989&mlon=11.3479#map=17/44.4989/11.3479",
            );
            assert.ok(await page.locator("svg.pin").isVisible());
            await inspectPage(page, `${c.name} place`, `place${c.suffix}.png`);
          }
          assert.deepEqual(problems, [], `${c.name}: requests and errors`);
        } finally {
          await context.close();
        }
      }
    } finally {
      await browser?.close().catch(() => {});
      await world.close();
    }
  },
});
