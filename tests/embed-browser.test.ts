/**
 * Embedding in a real browser: a running instance, and another website on
 * a SEPARATE origin (a second local server) whose pages carry the snippets
 * that `/embed/new` writes. Headless Chromium checks that the
 * `<quando-events>` element renders the filtered events with their dates in
 * the instance's time zone, in light and dark, in the page's or its own
 * language; that a framed `/embed` shows the same list; that the element
 * links to the instance when the instance is down; that no request leaves
 * for any origin but those two; axe on the host page and on `/embed/new`;
 * screenshots under tests/artifacts/embed-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  ADMIN,
  ARTIFACTS,
  axeViolations,
  launchChromium,
  phoneContext,
  requireChromium,
  scrollsSideways,
} from "./browser.ts";
import { apiOk, freePort, loginAt, startServerProcess } from "./helpers.ts";

const TIMEZONE = "Europe/Rome";
const DAY = 86_400;

/** Bologna's instance: jazz, folk, a cancelled film and a talk, from the day after tomorrow. */
async function seed(base: string) {
  const token = await loginAt(base, ADMIN);
  await apiOk(base, "PUT", "/api/settings", token, {
    instance_title: "Quando Bologna",
    instance_timezone: TIMEZONE,
    instance_locale: "en-GB",
  });
  const evening = Math.floor(Date.now() / 1000 / DAY) * DAY + 2 * DAY +
    17 * 3600;
  const create = (body: Record<string, unknown>) =>
    apiOk(base, "POST", "/api/events", token, body) as Promise<{
      slug: string;
      start_datetime: number;
    }>;
  const jazz = await create({
    title: "Jazz & Blues Night at the Cantina",
    start_datetime: evening,
    end_datetime: evening + 3 * 3600,
    place_name: "Cantina Bentivoglio",
    tags: ["Jazz"],
  });
  const folk = await create({
    title: "Folk songs <in> the square",
    start_datetime: evening + DAY,
    place_name: "Piazza Santo Stefano",
    tags: ["folk"],
  });
  await create({
    title: "Open-air cinema: Casablanca",
    start_datetime: evening + 2 * DAY,
    place_name: "Piazza Maggiore",
    tags: ["cinema"],
    status: "EventCancelled",
  });
  await create({
    title: "A talk about bridges",
    start_datetime: evening + 3 * DAY,
    online_locations: ["https://stream.example.org/talk"],
  });
  return { jazz, folk };
}

/** Text of a textarea's HTML content, as the browser shows it. */
function decode(html: string): string {
  return html.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) =>
    ({
      lt: "<",
      gt: ">",
      quot: '"',
      "#39": "'",
      amp: "&",
    })[e]!);
}

/** The two snippets `/embed/new` writes for `query`. */
async function snippets(base: string, query: string) {
  const html = await (await fetch(`${base}/embed/new?${query}`)).text();
  const area = (id: string) =>
    decode(
      new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(
        html,
      )![1],
    );
  return { element: area("snippet-element"), iframe: area("snippet-iframe") };
}

/** A page of the other website, with a snippet in its content. */
function hostPage(lang: string, snippet: string): string {
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Circolo Jazz Bologna</title>
<style>
:root { color-scheme: light dark; }
body { margin: 0; font: 1.05rem/1.6 Georgia, serif; background: #fbf7ef; color: #2b2118; }
@media (prefers-color-scheme: dark) { body { background: #1d1a17; color: #efe6da; } }
header, main, footer { max-width: 44rem; margin: 0 auto; padding: 1rem; }
header { border-bottom: 3px double currentColor; }
h1 { margin: 0; font-size: 1.6rem; }
</style>
</head>
<body>
<header><h1>Circolo Jazz Bologna</h1></header>
<main>
<h2>Concerts in town</h2>
<p>Our friends at Quando Bologna keep the city's calendar. Here is what is coming up:</p>
${snippet}
</main>
<footer><p>Circolo Jazz, Via del Pratello 1</p></footer>
</body>
</html>`;
}

/** The other website: one page per path, each with its snippet. */
function startHost(pages: Map<string, string>) {
  const port = freePort();
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", onListen() {} },
    (request) => {
      const page = pages.get(new URL(request.url).pathname);
      return page
        ? new Response(page, {
          headers: { "content-type": "text/html; charset=utf-8" },
        })
        : new Response("not here", { status: 404 });
    },
  );
  return { base: `http://127.0.0.1:${port}`, server };
}

/** Every URL the page asks for, to check where requests go. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (r) => urls.push(r.url()));
  return urls;
}

function assertOnlyOrigins(urls: string[], origins: string[], what: string) {
  const elsewhere = urls.filter((u) =>
    !u.startsWith("data:") && !origins.includes(new URL(u).origin)
  );
  assert.deepEqual(elsewhere, [], `${what} asked another origin`);
}

/** The titles the element shows, and the text of its dates. */
async function elementList(page: Page, selector = "quando-events") {
  const element = page.locator(selector);
  await element.locator(".qe:not([aria-busy]) .more").waitFor();
  return {
    titles: await element.locator("li a.t").allInnerTexts(),
    meta: await element.locator("li .m").allInnerTexts(),
    box: element.locator(".qe"),
  };
}

async function background(page: Page, selector: string): Promise<string> {
  return await page.locator(selector).evaluate((e) =>
    // deno-lint-ignore no-explicit-any
    (globalThis as any).getComputedStyle(e).backgroundColor
  );
}

function shortWhen(unix: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZone: TIMEZONE,
  }).format(new Date(unix * 1000));
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });

Deno.test({
  name:
    "embedding in Chromium: the element and the frame on another origin's page, light and dark, down instance, only two origins asked, axe clean",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();
    const dir = await Deno.makeTempDir({ prefix: "quando-embed-" });
    let quando: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let host: ReturnType<typeof startHost> | undefined;
    let browser: Browser | undefined;
    const contexts: BrowserContext[] = [];
    try {
      quando = await startServerProcess(dir, {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      });
      const base = quando.base;
      const { jazz, folk } = await seed(base);

      // The snippets as a website owner copies them from /embed/new.
      const light = await snippets(base, "tags=jazz,folk&max=5&theme=auto");
      const dark = await snippets(base, "tags=jazz,folk&max=5&theme=dark");
      const italian = await snippets(
        base,
        "tags=jazz&max=1&theme=light&language=it",
      );
      const pages = new Map([
        ["/element", hostPage("en-GB", light.element)],
        ["/element-dark", hostPage("en-GB", dark.element)],
        ["/element-it", hostPage("en-GB", italian.element)],
        ["/iframe", hostPage("en-GB", light.iframe)],
      ]);
      host = startHost(pages);
      const origins = [base, host.base];
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      browser = await launchChromium();

      const expected = [
        "Jazz & Blues Night at the Cantina",
        "Folk songs <in> the square",
      ];
      const jazzWhen = `${shortWhen(jazz.start_datetime, "en-GB")} – ${
        new Intl.DateTimeFormat("en-GB", {
          timeStyle: "short",
          timeZone: TIMEZONE,
        }).format(new Date((jazz.start_datetime + 3 * 3600) * 1000))
      } · Cantina Bentivoglio`;

      // The element on a desktop page, then on a phone, in light.
      for (
        const [name, options] of [
          ["desktop", { viewport: { width: 1280, height: 900 } }],
          ["phone", null],
        ] as const
      ) {
        const context: BrowserContext = options
          ? await browser.newContext({ ...options, colorScheme: "light" })
          : await phoneContext(browser);
        contexts.push(context);
        const page: Page = await context.newPage();
        const urls = recordRequests(page);
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.goto(`${host.base}/element`);
        const list = await elementList(page);
        assert.deepEqual(list.titles, expected, name);
        assert.equal(list.meta[0], jazzWhen, name);
        assert.ok(
          list.meta[1].startsWith(shortWhen(folk.start_datetime, "en-GB")),
          list.meta[1],
        );
        // Titles link to the events' pages on the instance.
        assert.equal(
          await page.locator("quando-events li a.t").first().getAttribute(
            "href",
          ),
          `${base}/event/${jazz.slug}`,
        );
        assert.equal(
          await page.locator("quando-events .more a").innerText(),
          "All events on Quando Bologna",
        );
        // A list named by its heading.
        assert.equal(
          await page.locator("quando-events h2").innerText(),
          "Upcoming events",
        );
        assert.equal(
          await page.locator("quando-events ol").getAttribute(
            "aria-labelledby",
          ),
          "qe-h",
        );
        assert.equal(
          await background(page, "quando-events .qe"),
          "rgb(255, 255, 255)",
        );
        assert.deepEqual(await axeViolations(page), [], `host page (${name})`);
        assert.equal(await scrollsSideways(page), false, name);
        assert.deepEqual(errors, [], name);
        assertOnlyOrigins(urls, origins, `the element page (${name})`);
        assert.ok(urls.some((u) => u.startsWith(`${base}/api/events?`)));
        assert.ok(urls.includes(`${base}/embed.js`));
        await shot(page, `embed-element-${name}.png`);
      }

      // Dark: the visitor's scheme (auto), and the snippet's theme="dark" on a light screen.
      {
        const context = await phoneContext(browser, true);
        contexts.push(context);
        const page = await context.newPage();
        const urls = recordRequests(page);
        await page.goto(`${host.base}/element`);
        const list = await elementList(page);
        assert.deepEqual(list.titles, expected);
        assert.equal(
          await background(page, "quando-events .qe"),
          "rgb(20, 21, 24)",
        );
        assert.deepEqual(await axeViolations(page), [], "host page (dark)");
        assertOnlyOrigins(urls, origins, "the element page (dark)");
        await shot(page, "embed-element-dark-phone.png");
        // theme="light" stays light on a dark screen.
        await page.goto(`${host.base}/element-it`);
        await elementList(page);
        assert.equal(
          await background(page, "quando-events .qe"),
          "rgb(255, 255, 255)",
        );
      }
      {
        const context = await phoneContext(browser);
        contexts.push(context);
        const page = await context.newPage();
        await page.goto(`${host.base}/element-dark`);
        await elementList(page);
        assert.equal(
          await background(page, "quando-events .qe"),
          "rgb(20, 21, 24)",
        );
        // lang="it" on the element: its words and dates in Italian, whatever the page's.
        await page.goto(`${host.base}/element-it`);
        const it = await elementList(page);
        assert.deepEqual(it.titles, [expected[0]]);
        assert.ok(
          it.meta[0].startsWith(shortWhen(jazz.start_datetime, "it")),
          it.meta[0],
        );
        assert.equal(
          await page.locator("quando-events h2").innerText(),
          "Prossimi eventi",
        );
      }

      // The frame, for sites without scripts.
      {
        const context = await phoneContext(browser);
        contexts.push(context);
        const page = await context.newPage();
        const urls = recordRequests(page);
        await page.goto(`${host.base}/iframe`);
        const frame = page.frameLocator("iframe");
        await frame.locator("li").first().waitFor();
        assert.deepEqual(
          await frame.locator("li a.t").allInnerTexts(),
          expected,
        );
        assert.equal(
          (await frame.locator("li .m").allInnerTexts())[0],
          jazzWhen,
        );
        assert.equal(
          await frame.locator("li a.t").first().getAttribute("target"),
          "_blank",
        );
        assert.equal(await frame.locator("script").count(), 0);
        assert.deepEqual(await axeViolations(page), [], "iframe host page");
        assert.equal(await scrollsSideways(page), false);
        assertOnlyOrigins(urls, origins, "the iframe page");
        await shot(page, "embed-iframe-phone.png");
      }

      // /embed/new, on a desktop and a phone: axe, preview, Copy.
      for (
        const [name, options] of [
          ["desktop", { viewport: { width: 1280, height: 900 } }],
          ["phone", null],
        ] as const
      ) {
        const context: BrowserContext = options
          ? await browser.newContext({ ...options, colorScheme: "light" })
          : await phoneContext(browser);
        contexts.push(context);
        const page: Page = await context.newPage();
        const urls = recordRequests(page);
        const blocked: string[] = [];
        page.on("console", (m) => {
          if (m.type() === "error") blocked.push(m.text());
        });
        await page.goto(`${base}/embed/new?tags=jazz&max=3`);
        const preview = page.frameLocator("iframe.preview");
        await preview.locator("li").first().waitFor();
        assert.deepEqual(await preview.locator("li a.t").allInnerTexts(), [
          expected[0],
        ]);
        // The nonce'd script showed the Copy buttons.
        assert.equal(
          await page.locator("button.copy").first().isVisible(),
          true,
        );
        assert.deepEqual(await axeViolations(page), [], `/embed/new (${name})`);
        assert.equal(await scrollsSideways(page), false, name);
        assert.deepEqual(blocked, [], `/embed/new (${name}): console errors`);
        assertOnlyOrigins(urls, [base], `/embed/new (${name})`);
        await shot(page, `embed-new-${name}.png`);
      }

      // The instance goes down: the element (its script from the cache)
      // links to the instance instead.
      {
        const context = await phoneContext(browser);
        contexts.push(context);
        const page = await context.newPage();
        await page.goto(`${host.base}/element`);
        await elementList(page);
        await quando.stop();
        quando = undefined;
        const urls = recordRequests(page);
        await page.reload();
        const box = page.locator("quando-events .qe");
        await box.locator(".more a").waitFor();
        assert.equal(
          await box.locator(".note").innerText(),
          "The events cannot be loaded right now.",
        );
        const fallback = box.locator(".more a");
        assert.equal(await fallback.getAttribute("href"), `${base}/`);
        assert.equal(
          await fallback.innerText(),
          `All events on ${new URL(base).host}`,
        );
        assertOnlyOrigins(urls, origins, "the element page, instance down");
      }
    } finally {
      for (const context of contexts) await context.close();
      await browser?.close();
      await host?.server.shutdown();
      await quando?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
