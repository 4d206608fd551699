/**
 * Debian's Chromium for the browser tests (or the one `CHROMIUM_PATH` names),
 * launched the same way everywhere.
 */
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { startServerProcess } from "./helpers.ts";

/** The Chromium binary in an environment: `CHROMIUM_PATH`, else Debian's. */
export function chromiumPath(env: (name: string) => string | undefined) {
  return env("CHROMIUM_PATH")?.trim() || "/usr/bin/chromium";
}

/** The Chromium binary the browser tests launch. */
export const CHROMIUM = chromiumPath((name) => Deno.env.get(name));

/** Fails (never skips) when Chromium is missing, naming the install command. */
export async function requireChromium(): Promise<void> {
  let present = false;
  try {
    present = (await Deno.stat(CHROMIUM)).isFile;
  } catch { /* missing */ }
  assert.ok(
    present,
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary`,
  );
}

/**
 * Headless Chromium with no background traffic (this machine's network is
 * closed; without these flags Chromium keeps trying Google's hosts).
 */
export async function launchChromium(): Promise<Browser> {
  await requireChromium();
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** axe-core's source, run in the page (the pages' policy allows no script of their own). */
const AXE = await Deno.readTextFile(
  new URL(import.meta.resolve("axe-core")).pathname.replace(
    /axe\.js$/,
    "axe.min.js",
  ),
);

/**
 * The serious and critical accessibility violations axe-core finds on the
 * page as it is now. axe runs through the browser's debugger protocol, which
 * the page's CSP does not govern.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  // A string: it runs in the page, where `document` and `axe` are.
  const result = await page.evaluate(
    "axe.run(document).then((r) => r.violations.map((v) => " +
      "({ id: v.id, impact: v.impact, nodes: v.nodes.length })))",
  ) as { id: string; impact: string; nodes: number }[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}, ${v.nodes})`);
}

/** Signs in through /login in this page's browser context, then opens `next`. */
export async function signInThroughForm(
  page: Page,
  base: string,
  user: { email: string; password: string },
  next = "/admin",
): Promise<void> {
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await page.locator("#email").fill(user.email);
  await page.locator("#password").fill(user.password);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== "/login"),
    page.locator("form[action='/login'] button[type=submit]").click(),
  ]);
}

/** Whether the page scrolls sideways (wider than its viewport). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  const [scroll, viewport] = await page.evaluate(
    "[document.documentElement.scrollWidth, window.innerWidth]",
  ) as [number, number];
  return scroll > viewport;
}

/** Where browser tests keep their screenshots. */
export const ARTIFACTS = new URL("./artifacts/", import.meta.url);

/** A phone-sized (390 px) browser context, light or dark. */
export function phoneContext(browser: Browser, dark = false) {
  return browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    colorScheme: dark ? "dark" : "light",
  });
}

/**
 * Checks a page as a visitor meets it (axe: no serious or critical
 * violation; no sideways scrolling), then keeps a screenshot when named.
 */
export async function inspectPage(
  page: Page,
  name: string,
  screenshot?: string,
): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], name);
  assert.equal(await scrollsSideways(page), false, `${name} scrolls sideways`);
  if (screenshot) await keepScreenshot(page, screenshot);
}

/** Keeps a full-page screenshot of the page in tests/artifacts/ under `file`. */
export async function keepScreenshot(page: Page, file: string): Promise<void> {
  await page.screenshot({
    path: new URL(file, ARTIFACTS).pathname,
    fullPage: true,
  });
}

/** The admin the browser tests' servers start with. */
export const ADMIN = {
  email: "admin@example.org",
  password: "correct horse battery",
};

/**
 * Runs `fn` with a fresh Quando process (its admin: ADMIN; `env` added) and
 * Chromium; closes both and removes the server's data afterwards.
 */
export async function withServerAndBrowser(
  env: Record<string, string>,
  fn: (
    quando: Awaited<ReturnType<typeof startServerProcess>>,
    browser: Browser,
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const quando = await startServerProcess(dir, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ...env,
  });
  const browser = await launchChromium();
  try {
    await fn(quando, browser);
  } finally {
    await browser.close();
    await quando.stop();
    await Deno.remove(dir, { recursive: true });
  }
}
