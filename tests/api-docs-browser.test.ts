/**
 * The API reference in a real browser, offline: headless Chromium (Debian's
 * `chromium` package) driven by playwright-core opens /api/docs of a running
 * server while every request to another origin is aborted and recorded, on a
 * phone and a desktop screen, in light and dark. The page must list every
 * operation of /api/openapi.json without asking anything of anyone else, load
 * no script, keep its headings in order and its text readable, and scroll
 * sideways nowhere. Screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import { launchChromium, requireChromium } from "./browser.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startServerProcess } from "./helpers.ts";

const ARTIFACTS = new URL("./artifacts/", import.meta.url);
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

interface Screen {
  name: string;
  options: Parameters<Browser["newContext"]>[0];
}

const SCREENS: Screen[] = [
  {
    name: "phone",
    options: {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: "light",
    },
  },
  {
    name: "desktop",
    options: { viewport: { width: 1280, height: 900 }, colorScheme: "light" },
  },
  {
    name: "phone-dark",
    options: {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: "dark",
    },
  },
  {
    name: "desktop-dark",
    options: { viewport: { width: 1280, height: 900 }, colorScheme: "dark" },
  },
];

/** "METHOD /path" of every operation the document describes. */
async function operationsOf(base: string): Promise<string[]> {
  const res = await fetch(`${base}/api/openapi.json`);
  assert.equal(res.status, 200);
  const doc = await res.json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (METHODS.includes(method)) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out;
}

/**
 * What a checker would flag, measured in the page (a string: the type check
 * has no DOM library): heading levels that skip, landmarks, links without
 * names, duplicate ids, dangling in-page links, scripts, and text whose
 * contrast against its background is under 4.5:1 (3:1 for large text).
 */
const AUDIT = `(() => {
  const problems = [];
  const headings = [...document.querySelectorAll("h1,h2,h3,h4,h5,h6")];
  const levels = headings.map((h) => Number(h.tagName[1]));
  if (levels.filter((l) => l === 1).length !== 1) problems.push("not exactly one h1");
  if (levels[0] !== 1) problems.push("the first heading is not the h1");
  for (let i = 1; i < levels.length; i++) {
    if (levels[i] > levels[i - 1] + 1) {
      problems.push("heading level skips: " + headings[i - 1].textContent + " -> " + headings[i].textContent);
    }
  }
  if (!document.documentElement.lang) problems.push("no lang");
  if (document.querySelectorAll("main").length !== 1) problems.push("not one main");
  if (!document.querySelector("body > header")) problems.push("no banner");
  if (!document.querySelector("body > footer")) problems.push("no contentinfo");
  for (const nav of document.querySelectorAll("nav")) {
    const label = nav.getAttribute("aria-label") ||
      (document.getElementById(nav.getAttribute("aria-labelledby") || "") || {}).textContent;
    if (!label || !label.trim()) problems.push("a nav without a name");
  }
  for (const a of document.querySelectorAll("a")) {
    if (!(a.textContent || "").trim() && !a.getAttribute("aria-label")) problems.push("a link without a name: " + a.outerHTML);
    const href = a.getAttribute("href") || "";
    if (href.startsWith("#") && href.length > 1 && !document.getElementById(decodeURIComponent(href.slice(1)))) {
      problems.push("dangling link " + href);
    }
  }
  const ids = new Set();
  for (const el of document.querySelectorAll("[id]")) {
    if (ids.has(el.id)) problems.push("duplicate id " + el.id);
    ids.add(el.id);
  }
  if (document.scripts.length) problems.push(document.scripts.length + " scripts");

  const rgba = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
  };
  const backgroundOf = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    let bg = [255, 255, 255, 1];
    if (!layers.length || layers[layers.length - 1][3] < 1) {
      bg = rgba(getComputedStyle(document.documentElement).backgroundColor);
      if (bg[3] < 1) bg = matchMedia("(prefers-color-scheme: dark)").matches ? [18, 18, 18, 1] : [255, 255, 255, 1];
    }
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  let checked = 0;
  const seen = new Set();
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || el.getClientRects().length === 0) continue;
    if (el.closest(".skip")) continue;
    const bg = backgroundOf(el);
    const fg = over(rgba(style.color), bg);
    const [l1, l2] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    checked++;
    if (ratio < (large ? 3 : 4.5)) {
      const key = el.tagName + "." + el.className + " " + ratio.toFixed(2);
      if (!seen.has(key)) {
        seen.add(key);
        problems.push("contrast " + ratio.toFixed(2) + " for " + el.tagName.toLowerCase() +
          (el.className ? "." + el.className : "") + ": " + el.textContent.trim().slice(0, 40));
      }
    }
  }
  if (checked < 100) problems.push("only " + checked + " text elements checked");
  return problems;
})()`;

/** Nothing wider than the screen. */
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

Deno.test({
  name:
    "API reference in Chromium: every operation listed with the network limited to the instance",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();
    const dir = await Deno.makeTempDir({ prefix: "quando-apidocs-" });
    let quando: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let browser: Browser | undefined;
    try {
      quando = await startServerProcess(dir, {
        ADMIN_EMAIL: "admin@example.org",
        ADMIN_PASSWORD: "correct horse battery",
      });
      const base = quando.base;
      const operations = await operationsOf(base);
      assert.ok(operations.length > 40, `only ${operations.length} operations`);
      for (const expected of ["POST /api/events", "POST /api/login/token"]) {
        assert.ok(operations.includes(expected), expected);
      }

      browser = await launchChromium();
      await Deno.mkdir(ARTIFACTS, { recursive: true });

      for (const screen of SCREENS) {
        let context: BrowserContext | undefined;
        try {
          context = await browser.newContext({
            ...screen.options,
            locale: "en-GB",
          });
          // The network is the instance: anything else is refused and noted.
          const elsewhere: string[] = [];
          await context.route("**/*", (route) => {
            const url = route.request().url();
            if (new URL(url).origin === base) return route.continue();
            elsewhere.push(url);
            return route.abort("blockedbyclient");
          });
          const page = await context.newPage();
          const problems: string[] = [];
          page.on("console", (m) => {
            if (m.type() === "error") problems.push(m.text());
          });
          page.on("pageerror", (e) => problems.push(String(e)));
          page.on("response", (r) => {
            if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
          });

          const res = await page.goto(`${base}/api/docs`, {
            waitUntil: "load",
          });
          assert.equal(res?.status(), 200);

          // The two operations a newcomer looks for first, visible.
          for (const name of ["POST /api/login/token", "POST /api/events"]) {
            const heading = page.getByRole("heading", { name, exact: true });
            await heading.waitFor({ state: "visible", timeout: 5_000 })
              .catch(() => {});
            assert.ok(
              await heading.isVisible(),
              `${screen.name}: no visible heading "${name}" (off-instance requests: ${
                JSON.stringify(elsewhere)
              })`,
            );
          }
          // Every operation, once each, as a heading.
          const headings = (await page.locator("h3.op-title").allInnerTexts())
            .map((t) => t.replace(/\s+/g, " ").trim());
          assert.deepEqual(
            [...headings].sort(),
            [...operations].sort(),
            `${screen.name}: operation headings`,
          );

          const audit: string[] = await page.evaluate(AUDIT);
          assert.deepEqual(audit, [], `${screen.name}: accessibility audit`);
          await assertNoSidewaysScroll(page, `${screen.name} /api/docs`);
          if (screen.name.endsWith("dark")) {
            const bg: string = await page.evaluate(
              "getComputedStyle(document.body).backgroundColor",
            );
            const [r, g, b] = bg.match(/\d+/g)!.map(Number);
            assert.ok(r + g + b < 150, `${screen.name}: background ${bg}`);
          }

          // The link to the machine-readable document works.
          const jsonLink = page.locator('a[href="/api/openapi.json"]').first();
          assert.ok(await jsonLink.isVisible(), "the OpenAPI document link");

          await page.screenshot({
            path: new URL(`api-docs-${screen.name}.png`, ARTIFACTS).pathname,
          });
          // One operation in full: method, path, auth, parameters, body, responses.
          const createEvent = page.locator("#op-post-api-events");
          await createEvent.screenshot({
            path: new URL(`api-docs-create-event-${screen.name}.png`, ARTIFACTS)
              .pathname,
          });
          const login = page.locator("#op-post-api-login-token");
          await login.screenshot({
            path: new URL(`api-docs-login-${screen.name}.png`, ARTIFACTS)
              .pathname,
          });

          // The table of contents leads to the operation, without JavaScript.
          const tocLink = page.locator(
            screen.name.startsWith("desktop")
              ? 'nav a[href="#op-put-api-events-id"]'
              : 'nav a[href="#tag-events"]',
          );
          await tocLink.click();
          await page.waitForURL(/#(op-put-api-events-id|tag-events)$/);
          const target = page.locator(
            screen.name.startsWith("desktop")
              ? "#op-put-api-events-id h3"
              : "#tag-events",
          );
          const box = await target.boundingBox();
          const viewport = page.viewportSize()!;
          assert.ok(
            box && box.y >= -1 && box.y < viewport.height / 2,
            `${screen.name}: the table of contents link did not scroll to its target: ${
              JSON.stringify(box)
            }`,
          );
          await page.screenshot({
            path: new URL(`api-docs-toc-${screen.name}.png`, ARTIFACTS)
              .pathname,
          });

          assert.deepEqual(
            elsewhere,
            [],
            `${screen.name}: requests that left the instance`,
          );
          assert.deepEqual(problems, [], `${screen.name}: console errors`);
        } finally {
          await context?.close();
        }
      }
    } finally {
      await browser?.close().catch(() => {});
      await quando?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
