/**
 * The public pages in a real browser: headless Chromium (Debian's `chromium`
 * package) driven by playwright-core loads the home page and an event page of
 * a running server, on a phone and on a desktop screen, in light and in dark,
 * checks what is visible, that nothing scrolls sideways on the phone, that
 * the policy blocks nothing the page needs and that axe-core finds no serious
 * or critical problem, and saves screenshots under tests/artifacts/ (those in
 * dark end in -dark.png).
 */
import assert from "node:assert/strict";
import { axeViolations, launchChromium, requireChromium } from "./browser.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startServerProcess } from "./helpers.ts";

const ARTIFACTS = new URL("./artifacts/", import.meta.url);
const ADMIN_EMAIL = "admin@example.org";
const ADMIN_PASSWORD = "correct horse battery";
const TIMEZONE = "Europe/Rome";
const LOCALE = "en-GB";

// --- a real PNG (the event's poster), so the screenshot shows an image ---

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function zlib(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(
    new CompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A 1200x630 evening-sky poster: a gradient, a sun and a skyline. */
async function posterPng(): Promise<Uint8Array<ArrayBuffer>> {
  const width = 1200, height = 630;
  const raw = new Uint8Array((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    const t = y / height;
    for (let x = 0; x < width; x++) {
      let r = 30 + 200 * t, g = 40 + 90 * t, b = 110 - 40 * t;
      const dx = x - 840, dy = y - 330;
      if (dx * dx + dy * dy < 110 * 110) [r, g, b] = [255, 196, 90];
      const building = 430 + 60 * Math.sin(Math.floor(x / 70) * 1.7) +
        (Math.floor(x / 70) % 3) * 25;
      if (y > building) [r, g, b] = [24, 22, 40];
      const i = row + 1 + x * 3;
      raw[i] = r;
      raw[i + 1] = g;
      raw[i + 2] = b;
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", await zlib(raw)),
    chunk("IEND", new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

// --- the API ---

async function api(
  base: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body instanceof FormData
        ? {}
        : { "content-type": "application/json" }),
    },
    body: body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface Created {
  id: number;
  slug: string;
  title: string;
  start_datetime: number;
}

/** Fills the instance: settings and a handful of events (one cancelled, one with a poster). */
async function seed(base: string) {
  const { access_token: token } = await api(
    base,
    "POST",
    "/api/login/token",
    null,
    { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  ) as { access_token: string };
  await api(base, "PUT", "/api/settings", token, {
    instance_title: "Quando Bologna",
    instance_description: "Concerts, talks and gatherings around town.",
    instance_timezone: TIMEZONE,
    instance_locale: LOCALE,
  });
  const form = new FormData();
  form.append("file", new File([await posterPng()], "poster.png"));
  form.append("name", "A city skyline at sunset");
  const poster = await api(base, "POST", "/api/media", token, form) as {
    url: string;
  };

  // Evenings from the day after tomorrow, 19:00 in Rome (17:00 UTC in summer, 18:00 in winter; either is fine).
  const day = 86_400;
  const today = Math.floor(Date.now() / 1000 / day) * day;
  const evening = today + 2 * day + 17 * 3600;
  const create = (body: Record<string, unknown>) =>
    api(base, "POST", "/api/events", token, body) as Promise<Created>;
  const jazz = await create({
    title: "Jazz & Blues Night at the Cantina",
    description: "<p>An evening of <strong>live jazz</strong> with the " +
      "Bentivoglio Quartet, followed by an open jam session. Bring your " +
      "instrument!</p><p>Free entry until 21:00.</p>",
    start_datetime: evening,
    end_datetime: evening + 3 * 3600,
    place_name: "Cantina Bentivoglio",
    place_address: "Via Mascarella 4/b, 40126 Bologna",
    place_latitude: 44.4989,
    place_longitude: 11.3479,
    online_locations: ["https://stream.example.org/cantina/live"],
    tags: ["Jazz", "Live music"],
    media: [{ url: poster.url, name: "A city skyline at sunset" }],
  });
  const cinema = await create({
    title: "Open-air cinema: Casablanca",
    start_datetime: evening + 2 * 3600,
    end_datetime: evening + 4 * 3600,
    place_name: "Piazza Maggiore",
    place_address: "Piazza Maggiore, Bologna",
    place_latitude: 44.4937,
    place_longitude: 11.3430,
    tags: ["Cinema"],
    status: "EventCancelled",
  });
  await create({
    title: "Repair café",
    start_datetime: evening + day - 7 * 3600,
    end_datetime: evening + day - 4 * 3600,
    place_name: "Centro sociale Croce del Biacco",
    place_address: "Via Mattei 50, Bologna",
    tags: ["Community", "Repair"],
  });
  await create({
    title: "Weekly Python meetup (online)",
    start_datetime: evening + day + 3600,
    online_locations: [
      "https://meet.example.org/a-very-long-room-name-that-should-wrap-on-small-screens-0123456789",
    ],
    tags: ["Python", "Tech"],
  });
  await create({
    title:
      "Donaudampfschifffahrtsgesellschaftskapitänsmützenausstellungseröffnung",
    start_datetime: evening + 2 * day,
    place_name: "Museo della Musica",
    place_address: "Strada Maggiore 34, Bologna",
    tags: ["Museum"],
  });
  return { token, jazz, cinema, evening };
}

interface Viewport {
  name: "phone" | "desktop";
  suffix: string;
  options: Parameters<Browser["newContext"]>[0];
}

const VIEWPORTS: Viewport[] = [
  {
    name: "phone",
    suffix: "-phone",
    options: {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    },
  },
  {
    name: "desktop",
    suffix: "",
    options: { viewport: { width: 1280, height: 900 } },
  },
];

/** Nothing wider than the screen. (A string: the type check has no DOM library.) */
async function assertNoSidewaysScroll(page: Page, what: string) {
  const widths: { scroll: number; client: number } = await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, " +
      "client: document.documentElement.clientWidth })",
  );
  assert.ok(
    widths.scroll <= widths.client,
    `${what} scrolls sideways: ${JSON.stringify(widths)}`,
  );
}

function watchConsole(page: Page): string[] {
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

async function bodyText(page: Page): Promise<string> {
  return (await page.locator("body").innerText()).replace(/\s+/g, " ");
}

Deno.test({
  name:
    "public pages in Chromium: home and event page on a phone and a desktop, light and dark, axe clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();
    const dir = await Deno.makeTempDir({ prefix: "quando-pages-" });
    let quando: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let browser: Browser | undefined;
    try {
      quando = await startServerProcess(dir, {
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
      });
      const base = quando.base;
      const { jazz, cinema, evening } = await seed(base);
      const dayLabel = new Intl.DateTimeFormat(LOCALE, {
        dateStyle: "full",
        timeZone: TIMEZONE,
      }).format(new Date(evening * 1000));
      const startTime = new Intl.DateTimeFormat(LOCALE, {
        timeStyle: "short",
        timeZone: TIMEZONE,
      }).format(new Date(jazz.start_datetime * 1000));

      browser = await launchChromium();
      await Deno.mkdir(ARTIFACTS, { recursive: true });

      for (const scheme of ["light", "dark"] as const) {
        for (const vp of VIEWPORTS) {
          let context: BrowserContext | undefined;
          // Screenshots in dark get their own names: home-phone-dark.png.
          const suffix = `${vp.suffix}${scheme === "dark" ? "-dark" : ""}`;
          const what = `${vp.name} (${scheme})`;
          try {
            context = await browser.newContext({
              ...vp.options,
              colorScheme: scheme,
              locale: "en-GB",
            });
            const page = await context.newPage();
            const problems = watchConsole(page);

            // Home page.
            const home = await page.goto(`${base}/`);
            assert.equal(home?.status(), 200);
            assert.equal(await page.title(), "Quando Bologna");
            assert.equal(
              await page.locator("h1").innerText(),
              "Upcoming events",
            );
            const text = await bodyText(page);
            for (
              const expected of [
                "Jazz & Blues Night at the Cantina",
                "Cantina Bentivoglio",
                "Open-air cinema: Casablanca",
                "Cancelled",
                "Repair café",
                dayLabel,
                startTime,
                "#Live music",
                "Subscribe in your calendar app",
              ]
            ) {
              assert.ok(
                text.includes(expected),
                `${vp.name} home page lacks "${expected}": ${text}`,
              );
            }
            assert.match(
              await page.locator("a.webcal").getAttribute("href") ?? "",
              /^webcal:\/\/127\.0\.0\.1:\d+\/feed\/ics$/,
            );
            if (vp.name === "phone") {
              await assertNoSidewaysScroll(page, "the home page on a phone");
            }
            assert.deepEqual(await axeViolations(page), [], `${what} home`);
            await page.screenshot({
              path: new URL(`home${suffix}.png`, ARTIFACTS).pathname,
              fullPage: true,
            });

            // The event page, reached by following the link (no JavaScript involved).
            await Promise.all([
              page.waitForURL(`${base}/event/${jazz.slug}`),
              page.click(`a.p-name[href="/event/${jazz.slug}"]`),
            ]);
            assert.equal(
              await page.locator("h1").innerText(),
              "Jazz & Blues Night at the Cantina",
            );
            const eventText = await bodyText(page);
            for (
              const expected of [
                "Cantina Bentivoglio",
                "Via Mascarella 4/b, 40126 Bologna",
                dayLabel.replace(/,/g, ""),
                startTime,
                "live jazz",
                "Add to calendar",
                "Show on the map (OpenStreetMap)",
                "Join online stream.example.org",
              ]
            ) {
              assert.ok(
                eventText.replace(/,/g, "").includes(
                  expected.replace(/,/g, ""),
                ),
                `${vp.name} event page lacks "${expected}": ${eventText}`,
              );
            }
            // The poster loaded (the policy allows our own images).
            const poster: { complete: boolean; width: number } = await page
              .evaluate(
                "(() => { const i = document.querySelector('img.u-photo'); " +
                  "return { complete: i.complete, width: i.naturalWidth }; })()",
              );
            assert.deepEqual(poster, { complete: true, width: 1200 });
            assert.equal(
              await page.locator("img.u-photo").getAttribute("alt"),
              "A city skyline at sunset",
            );
            if (vp.name === "phone") {
              await assertNoSidewaysScroll(page, "the event page on a phone");
            }
            assert.deepEqual(await axeViolations(page), [], `${what} event`);
            await page.screenshot({
              path: new URL(`event${suffix}.png`, ARTIFACTS).pathname,
              fullPage: true,
            });

            // A cancelled event says so before anything else.
            const cancelled = await page.goto(`${base}/event/${cinema.slug}`);
            assert.equal(cancelled?.status(), 200);
            assert.match(
              await page.locator(".status").innerText(),
              /has been cancelled/,
            );
            if (vp.name === "phone") {
              await assertNoSidewaysScroll(
                page,
                "a cancelled event on a phone",
              );
            }
            assert.deepEqual(
              await axeViolations(page),
              [],
              `${what} cancelled event`,
            );
            await page.screenshot({
              path: new URL(`event-cancelled${suffix}.png`, ARTIFACTS)
                .pathname,
              fullPage: true,
            });

            // Tag pages through the tag links.
            await page.goto(`${base}/event/${jazz.slug}`);
            await Promise.all([
              page.waitForURL(`${base}/tag/Jazz`),
              page.click('a.p-category[href="/tag/Jazz"]'),
            ]);
            assert.equal(
              await page.locator("h1").innerText(),
              "Events tagged #Jazz",
            );
            assert.deepEqual(await axeViolations(page), [], `${what} tag page`);
            // Style nonce honoured, nothing blocked, no script errors.
            assert.deepEqual(problems, [], `${what}: console errors`);
          } finally {
            await context?.close();
          }
        }
      }
    } finally {
      await browser?.close().catch(() => {});
      await quando?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
