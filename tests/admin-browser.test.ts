/**
 * The sign-in form and the moderation page in a real browser (Debian's
 * Chromium, driven by playwright-core) on a phone-sized screen: a visitor
 * submits an event through the form; an editor signs in with the keyboard,
 * finds it waiting, confirms it, and the public sees it. The same pages in
 * dark (prefers-color-scheme). axe-core finds no serious or critical problem
 * on any page, in light or dark; screenshots go to tests/artifacts/ (those
 * in dark end in -dark.png).
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  axeViolations,
  keepScreenshot,
  phoneContext,
  scrollsSideways,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";
import { apiOk } from "./helpers.ts";

Deno.test({
  name:
    "a visitor submits an event on a phone; an editor signs in with the keyboard, confirms it at /admin, and the public sees it; axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const { access_token: token } = await apiOk(
        quando.base,
        "POST",
        "/api/login/token",
        undefined,
        ADMIN,
      );
      await apiOk(quando.base, "PUT", "/api/settings", token, {
        allow_anon_event: true,
        allow_registration: true,
      });
      // A visitor submits an event through the form, on a phone.
      const visitor = await phoneContext(browser);
      const form = await visitor.newPage();
      await form.goto(`${quando.base}/register`);
      assert.deepEqual(await axeViolations(form), [], "/register");
      // In Italian too (Accept-Language), one language on the page.
      await form.goto(`${quando.base}/submit?lang=it`);
      assert.equal(await form.getAttribute("html", "lang"), "it");
      assert.deepEqual(await axeViolations(form), [], "/submit in Italian");
      // The choice is remembered; the switch brings English back.
      await form.goto(`${quando.base}/submit`);
      assert.equal(await form.getAttribute("html", "lang"), "it");
      await Promise.all([
        form.waitForURL(`${quando.base}/submit?lang=en`),
        form.locator("nav.languages").getByRole("link", { name: "English" })
          .click(),
      ]);
      assert.equal(await form.getAttribute("html", "lang"), "en");
      assert.deepEqual(await axeViolations(form), [], "/submit");
      const day = new Date(Date.now() + 3 * 86_400_000).toISOString()
        .slice(0, 10);
      await form.getByLabel("Title", { exact: true }).fill("Repair café");
      await form.getByLabel("Starts", { exact: true }).fill(`${day}T18:30`);
      await form.getByLabel("Place", { exact: true }).fill("Community hall");
      await form.getByLabel("Description", { exact: true }).fill(
        "Bring something broken.\n\nhttps://example.org/repair",
      );
      await keepScreenshot(form, "submit-phone.png");
      await form.getByRole("button", { name: "Submit" }).click();
      await form.getByRole("status").waitFor();
      assert.match(
        await form.getByRole("status").textContent() ?? "",
        /Repair café.*was received/s,
      );
      await visitor.close();
      const [event] = await (await fetch(
        `${quando.base}/api/events/unconfirmed`,
        { headers: { authorization: `Bearer ${token}` } },
      )).json();
      assert.equal(event.title, "Repair café");

      const context = await phoneContext(browser);
      const page = await context.newPage();
      await page.goto(`${quando.base}/admin`);
      assert.match(new URL(page.url()).pathname, /^\/login$/);
      assert.deepEqual(await axeViolations(page), [], "/login");
      await keepScreenshot(page, "admin-login-phone.png");
      // The keyboard alone: the instance's name (a link home), then the
      // first field.
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate("document.activeElement.id"), "email");
      await page.keyboard.type(ADMIN.email);
      await page.keyboard.press("Tab");
      await page.keyboard.type(ADMIN.password);
      await Promise.all([
        page.waitForURL(/\/admin$/),
        page.keyboard.press("Enter"),
      ]);
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Waiting for confirmation",
      );
      assert.ok(await page.getByText("Repair café").isVisible());
      assert.ok(await page.getByText("Submitted by anonymous").isVisible());
      assert.deepEqual(await axeViolations(page), [], "/admin");
      const width = await page.evaluate(
        "document.documentElement.scrollWidth",
      ) as number;
      assert.ok(width <= 390, `scrolls sideways: ${width}px`);
      await keepScreenshot(page, "admin-queue-phone.png");

      await Promise.all([
        page.waitForURL(/\/admin\?confirmed=1$/),
        page.getByRole("button", { name: "Confirm" }).click(),
      ]);
      assert.ok(await page.getByText("Nothing is waiting.").isVisible());
      const publicEvent = await fetch(
        `${quando.base}/api/events/${event.id}`,
      );
      assert.equal(publicEvent.status, 200);
      assert.equal((await publicEvent.json()).is_visible, true);
      await context.close();

      // In dark: a visitor submits a second event, an admin finds it waiting.
      const dark = await phoneContext(browser, true);
      const night = await dark.newPage();
      for (
        const path of ["/register", "/submit?lang=it", "/submit?lang=en"]
      ) {
        await night.goto(`${quando.base}${path}`);
        assert.deepEqual(await axeViolations(night), [], `${path} in dark`);
      }
      await night.getByLabel("Title", { exact: true }).fill("Night walk");
      await night.getByLabel("Starts", { exact: true }).fill(`${day}T21:00`);
      await night.getByLabel("Place", { exact: true }).fill("Porta Saragozza");
      assert.equal(await scrollsSideways(night), false, "/submit in dark");
      await keepScreenshot(night, "submit-phone-dark.png");
      await night.getByRole("button", { name: "Submit" }).click();
      await night.getByRole("status").waitFor();
      assert.deepEqual(await axeViolations(night), [], "submitted, in dark");
      await night.goto(`${quando.base}/login`);
      assert.deepEqual(await axeViolations(night), [], "/login in dark");
      await keepScreenshot(night, "admin-login-phone-dark.png");
      await signInThroughForm(night, quando.base, ADMIN, "/admin");
      assert.equal(
        await night.getByRole("heading", { level: 1 }).textContent(),
        "Waiting for confirmation",
      );
      assert.ok(await night.getByText("Night walk").isVisible());
      assert.deepEqual(await axeViolations(night), [], "/admin in dark");
      assert.equal(await scrollsSideways(night), false, "/admin in dark");
      await keepScreenshot(night, "admin-queue-phone-dark.png");
      await night.goto(`${quando.base}/account`);
      assert.deepEqual(await axeViolations(night), [], "/account in dark");
      await dark.close();
    });
  },
});
