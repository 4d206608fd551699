/**
 * Finding the way in, in a real browser (Debian's Chromium, playwright-core)
 * on a phone-sized screen (390 px): a visitor finds Sign in, Register and
 * Submit in the public header and registers; the instance opened at another
 * address than BASE_URL (localhost for 127.0.0.1) signs in; a form posted
 * from elsewhere gets a page naming BASE_URL; the admin lands on /admin
 * after signing in, sees a submission's description, tags and image with a
 * preview of its page, finds published events at /admin/events and edits
 * one from its public page; the member cancels an event through its
 * confirmation page; the settings offer current time-zone names. axe-core
 * finds no serious or critical problem on any of these pages and none
 * scrolls sideways; screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  withServerAndBrowser,
} from "./browser.ts";
import { apiOk, loginAt } from "./helpers.ts";

const MEMBER = {
  email: "member@example.org",
  password: "correct horse battery",
};

Deno.test({
  name:
    "the way in: header links, registering, another address of the instance, a refused form's page, each role's landing, the moderation card and preview, published events with Edit, cancelling with a confirmation, current time-zone names; axe finds no serious problem at 390 px",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser(
      { PUBLIC_CACHE_MS: "0" },
      async (quando, browser) => {
        const base = quando.base;
        const token = await loginAt(base, ADMIN);
        await apiOk(base, "PUT", "/api/settings", token, {
          instance_title: "Quando Kyiv",
          instance_description: "Concerts and talks.\n\nSubmit yours!",
          allow_anon_event: true,
          allow_registration: true,
        });
        const tomorrow = Math.floor(Date.now() / 1000) + 86_400;
        const jazz = await apiOk(base, "POST", "/api/events", token, {
          title: "Jazz night",
          start_datetime: tomorrow,
          place_name: "Cantina",
          tags: ["jazz"],
        });
        await apiOk(base, "POST", "/api/events", undefined, {
          title: "Street party",
          start_datetime: tomorrow + 86_400,
          place_name: "Piazza",
          tags: ["party", "outdoors"],
          description: "<p>Music <strong>all day</strong>.</p>",
        });

        // A visitor: the header's way in, then registering.
        const visitor = await phoneContext(browser);
        const home = await visitor.newPage();
        await home.goto(`${base}/`);
        const account = home.getByRole("navigation", { name: "Your account" });
        for (const name of ["Submit an event", "Sign in", "Register"]) {
          assert.ok(
            await account.getByRole("link", { name }).isVisible(),
            name,
          );
        }
        assert.equal(
          await home.locator("p.intro").count(),
          2,
          "the description's two paragraphs",
        );
        await inspectPage(home, "home (visitor)", "onboarding-home-phone.png");
        await account.getByRole("link", { name: "Register" }).click();
        await home.waitForURL(`${base}/register`);
        await home.locator("#email").fill(MEMBER.email);
        await home.locator("#password").fill(MEMBER.password);
        await Promise.all([
          home.waitForURL(`${base}/submit`),
          home.getByRole("button", { name: "Create the account" }).click(),
        ]);
        await visitor.close();

        // The member, at another address of the instance (localhost for
        // 127.0.0.1): signing in works and lands on /my.
        const port = new URL(base).port;
        const other = `http://localhost:${port}`;
        const member = await phoneContext(browser);
        const mine = await member.newPage();
        await mine.goto(`${other}/`);
        await mine.getByRole("navigation", { name: "Your account" })
          .getByRole("link", { name: "Sign in" }).click();
        await mine.locator("#email").fill(MEMBER.email);
        await mine.locator("#password").fill(MEMBER.password);
        await Promise.all([
          mine.waitForURL(`${other}/my`),
          mine.locator("form[action='/login'] button[type=submit]").click(),
        ]);
        await mine.goto(`${other}/`);
        assert.ok(
          await mine.getByRole("navigation", { name: "Your account" })
            .getByRole("link", { name: "My events" }).isVisible(),
        );
        await inspectPage(mine, "home (member)");

        // Their event, cancelled through its confirmation page.
        const memberToken = await loginAt(base, MEMBER);
        const open = await apiOk(base, "POST", "/api/events", memberToken, {
          title: "Open mic",
          start_datetime: tomorrow + 2 * 86_400,
          place_name: "Bar",
        });
        await mine.goto(`${other}/my`);
        await mine.getByRole("link", { name: "Cancel event…" }).click();
        await mine.waitForURL(new RegExp(`/events/${open.id}/cancel`));
        assert.equal(
          await mine.getByRole("heading", { level: 1 }).textContent(),
          "Cancel “Open mic”?",
        );
        await inspectPage(
          mine,
          "cancel confirmation",
          "onboarding-cancel-phone.png",
        );
        await Promise.all([
          mine.waitForURL(/\/my\?page=1&done=cancelled/),
          mine.getByRole("button", { name: "Cancel the event" }).click(),
        ]);
        assert.ok(
          await mine.getByRole("button", { name: "Reinstate" }).isVisible(),
        );
        await inspectPage(mine, "/my after cancelling");
        await member.close();

        // A form posted from elsewhere: a page that says what to do.
        const stranger = await phoneContext(browser);
        const foreign = await stranger.newPage();
        await foreign.setContent(
          `<form method="post" action="${base}/login"><input name="email" value="x@example.org"><input name="password" value="x"><button>Go</button></form>`,
        );
        await Promise.all([
          foreign.waitForURL(`${base}/login`),
          foreign.getByRole("button", { name: "Go" }).click(),
        ]);
        assert.equal(
          await foreign.getByRole("heading", { level: 1 }).textContent(),
          "This form was sent from another address",
        );
        // An opaque origin ("null"): the page names BASE_URL and links to it.
        const said = await foreign.locator("main").innerText();
        assert.match(said, /address \(BASE_URL\), http:\/\/127\.0\.0\.1:/);
        assert.ok(
          await foreign.getByRole("link", { name: `${base}/` }).isVisible(),
        );
        await inspectPage(
          foreign,
          "refused form",
          "onboarding-refused-phone.png",
        );
        await stranger.close();

        // The admin: /admin after signing in, the card, its preview.
        const owner = await phoneContext(browser);
        const page = await owner.newPage();
        await page.goto(`${base}/login`);
        await page.locator("#email").fill(ADMIN.email);
        await page.locator("#password").fill(ADMIN.password);
        await Promise.all([
          page.waitForURL(`${base}/admin`),
          page.locator("form[action='/login'] button[type=submit]").click(),
        ]);
        const card = page.locator("li.card", { hasText: "Street party" });
        assert.ok(await card.getByText("all day").isVisible());
        assert.ok(await card.getByText("Tags: #outdoors #party").isVisible());
        await inspectPage(
          page,
          "/admin with a card",
          "onboarding-queue-phone.png",
        );
        await Promise.all([
          page.waitForURL(/\/admin\/events\/\d+\/preview$/),
          card.getByRole("link", { name: "Preview its page" }).click(),
        ]);
        assert.ok(
          await page.getByText("Preview: this event waits").isVisible(),
        );
        await inspectPage(page, "preview", "onboarding-preview-phone.png");

        // Published events, searched; Edit on an event's page.
        await page.goto(`${base}/admin/events`);
        await page.getByLabel("Search by title, description, place or tag")
          .fill("jazz");
        await Promise.all([
          page.waitForURL(/\/admin\/events\?q=jazz/),
          page.getByRole("button", { name: "Search" }).click(),
        ]);
        assert.deepEqual(
          await page.locator("li.card h2").allTextContents(),
          ["Jazz night"],
        );
        await inspectPage(page, "/admin/events", "onboarding-events-phone.png");
        await page.goto(`${base}/event/${jazz.slug}`);
        await inspectPage(page, "event page with Edit");
        await Promise.all([
          page.waitForURL(new RegExp(`/events/${jazz.id}/edit`)),
          page.getByRole("link", { name: "Edit", exact: true }).click(),
        ]);

        // Time zones by their current names.
        await page.goto(`${base}/admin/settings`);
        await page.locator("#instance_timezone").selectOption("Europe/Kyiv");
        assert.equal(
          await page.locator('#instance_timezone option[value="Europe/Kiev"]')
            .count(),
          0,
        );
        await inspectPage(page, "/admin/settings");
        await owner.close();
      },
    );
  },
});
