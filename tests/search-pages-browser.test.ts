/**
 * The search page in Chromium, as a visitor uses it, at 1280 px and 390 px,
 * light and dark: types words in the header's box, refines with a tag and a
 * range of days in the page's form, removes a filter by its chip, and
 * follows the links to the feeds of exactly those results. axe-core finds
 * no serious problem, nothing scrolls sideways, and screenshots go to
 * tests/artifacts/ (search-desktop.png, search-phone.png, search-phone-dark.png).
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  ADMIN,
  ARTIFACTS,
  inspectPage,
  launchChromium,
  requireChromium,
} from "./browser.ts";
import { apiOk, loginAt, startServerProcess } from "./helpers.ts";

const TIMEZONE = "Europe/Rome";
const DAY = 86_400;

/** `YYYY-MM-DD` of a moment in Rome. */
function romeDay(unix: number): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: TIMEZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date(unix * 1000));
}

async function seed(base: string) {
  const token = await loginAt(base, ADMIN);
  await apiOk(base, "PUT", "/api/settings", token, {
    instance_title: "Quando Bologna",
    instance_description: "Concerts, talks and gatherings around town.",
    instance_timezone: TIMEZONE,
    instance_locale: "en-GB",
  });
  const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
  // 19:00 or 20:00 in Rome, from the day after tomorrow.
  const evening = today + 2 * DAY + 18 * 3600;
  const create = (body: Record<string, unknown>) =>
    apiOk(base, "POST", "/api/events", token, body);
  await create({
    title: "Jazz & Blues Night at the Cantina",
    description: "<p>Live jazz with the Bentivoglio Quartet.</p>",
    start_datetime: evening,
    end_datetime: evening + 3 * 3600,
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4/b, 40126 Bologna",
    tags: ["Jazz", "Live music"],
  });
  await create({
    title: "Jazz brunch by the canal",
    start_datetime: evening + 2 * DAY - 7 * 3600,
    place_name: "Cortile del Guasto",
    tags: ["Jazz", "Food"],
  });
  await create({
    title: "Jazz history: a talk online",
    description: "<p>From New Orleans to Bologna, streamed.</p>",
    start_datetime: evening + 9 * DAY,
    online_locations: ["https://meet.example.org/jazz-history"],
    tags: ["Jazz", "Talk"],
  });
  await create({
    title: "Open-air cinema: Casablanca",
    start_datetime: evening + DAY,
    place_name: "Piazza Maggiore",
    tags: ["Cinema"],
  });
  for (let i = 0; i < 4; i++) {
    await create({
      title: `Live music in the square, evening ${i + 1}`,
      description: "<p>Local bands, jazz and folk.</p>",
      start_datetime: evening + (3 + i) * DAY,
      place_name: "Piazza Santo Stefano",
      tags: ["Live music"],
    });
  }
  return { evening };
}

const VIEWPORTS = [
  {
    name: "desktop",
    options: { viewport: { width: 1280, height: 900 } },
    schemes: ["light"] as const,
  },
  {
    name: "phone",
    options: {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    },
    schemes: ["light", "dark"] as const,
  },
];

function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

async function titles(page: Page): Promise<string[]> {
  return (await page.locator(".h-event .p-name").allInnerTexts()).map((t) =>
    t.trim()
  );
}

Deno.test({
  name:
    "search page in Chromium: header box, refine by tag and dates, remove a chip, subscribe; desktop and phone, light and dark, axe clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();
    const dir = await Deno.makeTempDir({ prefix: "quando-search-" });
    let quando: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let browser: Browser | undefined;
    try {
      quando = await startServerProcess(dir, {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      });
      const base = quando.base;
      const { evening } = await seed(base);
      const from = romeDay(evening);
      const to = romeDay(evening + 4 * DAY);
      browser = await launchChromium();
      await Deno.mkdir(ARTIFACTS, { recursive: true });

      for (const vp of VIEWPORTS) {
        for (const scheme of vp.schemes) {
          const what = `${vp.name} (${scheme})`;
          let context: BrowserContext | undefined;
          try {
            context = await browser.newContext({
              ...vp.options,
              colorScheme: scheme,
              locale: "en-GB",
            });
            const page = await context.newPage();
            const problems = watchProblems(page);

            // Words in the header's box, from the home page.
            await page.goto(`${base}/`);
            await page.locator("#site-search").fill("jazz");
            await Promise.all([
              page.waitForURL(`${base}/search?q=jazz`),
              page.locator("#site-search").press("Enter"),
            ]);
            assert.equal(
              await page.locator("h1").innerText(),
              "Events matching “jazz”",
            );
            assert.deepEqual(await titles(page), [
              "Jazz & Blues Night at the Cantina",
              "Jazz brunch by the canal",
              "Live music in the square, evening 1",
              "Live music in the square, evening 2",
              "Live music in the square, evening 3",
              "Live music in the square, evening 4",
              "Jazz history: a talk online",
            ], what);
            assert.equal(
              await page.locator("#result-count").innerText(),
              "7 events found.",
            );
            await inspectPage(page, `${what}: words`);

            // Refine: a tag and a range of days, in the page's form.
            await page.locator("details.refine > summary").click();
            await page.locator("label", { hasText: "#Live music" }).click();
            await page.locator("#search-from").fill(from);
            await page.locator("#search-to").fill(to);
            const refined =
              `${base}/search?q=jazz&tags=live+music&from=${from}&to=${to}`;
            await Promise.all([
              page.waitForURL(refined),
              page.locator("form.search button[type=submit]").click(),
            ]);
            assert.deepEqual(await titles(page), [
              "Jazz & Blues Night at the Cantina",
              "Live music in the square, evening 1",
              "Live music in the square, evening 2",
            ], what);
            assert.equal(
              await page.locator("#result-count").innerText(),
              "3 events found.",
            );
            const chips = await page.locator(".chips a").allInnerTexts();
            assert.equal(chips.length, 4, chips.join(" | "));
            assert.ok(await page.locator("details.refine[open]").count());
            await inspectPage(
              page,
              `${what}: refined`,
              `search-${vp.name}${scheme === "dark" ? "-dark" : ""}.png`,
            );

            // Remove the words by their chip: the tag and the days stay.
            await Promise.all([
              page.waitForURL(
                `${base}/search?tags=live+music&from=${from}&to=${to}`,
              ),
              page.locator(".chips a", { hasText: "“jazz”" }).click(),
            ]);
            assert.equal(
              await page.locator("h1").innerText(),
              "Filtered events",
            );
            assert.deepEqual(await titles(page), [
              "Jazz & Blues Night at the Cantina",
              "Live music in the square, evening 1",
              "Live music in the square, evening 2",
            ], what);

            // Subscribe: the link leads to the feeds of exactly these results.
            await page.locator("a[href='#subscribe']").click();
            assert.equal(
              await page.locator("#subscribe").innerText(),
              "Subscribe to these search results",
            );
            const webcal = await page.locator("footer a.webcal")
              .getAttribute("href");
            assert.equal(
              webcal,
              `${
                base.replace("http://", "webcal://")
              }/feed/ics?tags=live+music&from=${from}&to=${to}`,
            );
            await Promise.all([
              page.waitForURL(/\/feed\/json\?/),
              page.locator("footer a[type='application/feed+json']").click(),
            ]);
            const feed = JSON.parse(await page.locator("body").innerText());
            assert.deepEqual(
              feed.items.map((i: { title: string }) => i.title),
              [
                "Jazz & Blues Night at the Cantina",
                "Live music in the square, evening 1",
                "Live music in the square, evening 2",
              ],
            );
            const ics = await page.request.get(
              webcal!.replace("webcal://", "http://"),
            );
            assert.equal(ics.status(), 200);
            assert.equal(
              (await ics.text()).match(/BEGIN:VEVENT/g)?.length,
              3,
            );

            assert.deepEqual(problems, [], what);

            // A bad range: the form again, the problem next to the field.
            const bad = await page.goto(
              `${base}/search?from=${to}&to=${from}`,
            );
            assert.equal(bad?.status(), 400);
            assert.equal(
              await page.locator("#to-error").innerText(),
              "The last day comes before the first day.",
            );
            assert.ok(await page.locator("details.refine[open]").count());
            await inspectPage(page, `${what}: a bad range`);
          } finally {
            await context?.close();
          }
        }
      }
    } finally {
      await browser?.close();
      await quando?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
