/**
 * The fediverse, collections and apps administration in a real browser
 * (Debian's Chromium, playwright-core) on a phone-sized screen, light and
 * dark: an admin trusts a fediverse peer, sees it accept, blocks its
 * instance (the API shows it blocked); creates a collection with a tag
 * filter and its public page lists the matching event; deletes an app.
 * axe-core finds no serious or critical problem on any of these pages;
 * screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";
import { startPeer } from "./fedpeer.ts";
import { apiAt, eventually, loginAt } from "./helpers.ts";

/** A signed-in admin's page in a phone-sized context of the colour scheme. */
async function adminPage(
  browser: Browser,
  base: string,
  colorScheme: "light" | "dark",
  next: string,
) {
  const context = await phoneContext(browser, colorScheme === "dark");
  const page = await context.newPage();
  await signInThroughForm(page, base, ADMIN, next);
  return { context, page };
}

Deno.test({
  name:
    "an admin on a phone trusts a fediverse peer, blocks its instance, curates a collection whose public page lists the matching event, and deletes an app; light and dark, axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const peer = await startPeer("events");
    try {
      await withServerAndBrowser({
        ALLOW_PRIVATE_ADDRESSES: "true",
      }, async (quando, browser) => {
        const token = await loginAt(quando.base, ADMIN);
        const start = Math.floor(Date.now() / 1000) + 3 * 86_400;
        for (
          const [title, tags] of [
            ["Jazz in the courtyard", ["jazz"]],
            ["Chess club", ["games"]],
          ] as const
        ) {
          const res = await apiAt(quando.base, "POST", "/api/events", token, {
            title,
            start_datetime: start,
            place_name: "Community hall",
            tags,
          });
          assert.equal(res.status, 201, JSON.stringify(res.body));
        }
        const app = await apiAt(quando.base, "POST", "/api/client", undefined, {
          client_name: "Pocket calendar",
          redirect_uris: "https://pocket.example/callback",
          website: "https://pocket.example",
        });
        assert.equal(app.status, 201);

        // ---- The fediverse: trust the peer, see it accept, block its instance.
        const { context, page } = await adminPage(
          browser,
          quando.base,
          "light",
          "/admin/fediverse",
        );
        assert.equal(
          await page.getByRole("heading", { level: 1 }).textContent(),
          "Fediverse",
        );
        assert.ok(await page.getByText("No actor is known yet.").isVisible());
        await inspectPage(page, "/admin/fediverse, empty");
        await page.getByLabel("Actor, handle or instance").fill(peer.actorId);
        await Promise.all([
          page.waitForURL(/done=trusted/),
          page.getByRole("button", { name: "Trust and follow" }).click(),
        ]);
        assert.match(
          await page.getByRole("status").textContent() ?? "",
          /trusted and a follow was sent/,
        );
        await eventually(
          "the peer's Follow",
          () => peer.received.find((a) => a.type === "Follow"),
        );
        // The peer accepts: the page shows the actor followed.
        await eventually("the Accept", async () => {
          await page.reload();
          return await page.getByText("Trusted · Followed").isVisible()
            ? true
            : undefined;
        });
        const domain = `127.0.0.1:${peer.port}`;
        const instance = page.locator("li.card").filter({
          has: page.getByRole("heading", { name: domain, exact: true }),
        });
        assert.ok(await instance.getByText("Not blocked").isVisible());
        await Promise.all([
          page.waitForURL(/done=blocked/),
          instance.getByRole("button", { name: "Block" }).click(),
        ]);
        assert.equal(await page.getByRole("status").textContent(), "Blocked.");
        assert.ok(
          await instance.getByText("Blocked", { exact: true }).isVisible(),
        );
        assert.ok(
          await instance.getByRole("button", { name: "Unblock" }).isVisible(),
        );
        const instances = await apiAt(
          quando.base,
          "GET",
          "/api/instances",
          token,
        );
        assert.deepEqual(
          instances.body.data.map((i: { domain: string; blocked: boolean }) => [
            i.domain,
            i.blocked,
          ]),
          [[domain, true]],
        );
        await inspectPage(
          page,
          "/admin/fediverse",
          "admin-fediverse-phone.png",
        );
        await instance.getByRole("link", { name: `Actors of ${domain}: 1` })
          .click();
        await page.waitForURL(/\/admin\/fediverse\/instances\//);
        assert.ok(await page.getByText("Test events").isVisible());
        await inspectPage(page, "/admin/fediverse/instances/{domain}");

        // ---- A collection with a tag filter; its public page.
        await page.goto(`${quando.base}/admin/collections`);
        await inspectPage(page, "/admin/collections, empty");
        await page.getByLabel("Name", { exact: true }).fill("Jazz nights");
        await Promise.all([
          page.waitForURL(/\/admin\/collections\/\d+\?done=created$/),
          page.getByRole("button", { name: "Create" }).click(),
        ]);
        const addForm = page.locator("form[action$='/filters']");
        await addForm.getByLabel("Tags").fill("jazz");
        await addForm.getByLabel("From").selectOption("local");
        await Promise.all([
          page.waitForURL(/done=added$/),
          addForm.getByRole("button", { name: "Add the filter" }).click(),
        ]);
        assert.ok(
          await page.getByText(
            "Includes events with tags jazz and from this instance",
          ).isVisible(),
        );
        await inspectPage(
          page,
          "/admin/collections/{id}",
          "admin-collections-phone.png",
        );
        await page.getByRole("link", { name: "/collection/Jazz nights" })
          .click();
        await page.waitForURL(/\/collection\/Jazz%20nights$/);
        assert.ok(await page.getByText("Jazz in the courtyard").isVisible());
        assert.equal(await page.getByText("Chess club").count(), 0);
        await page.goBack();
        await page.getByRole("link", { name: /Delete the collection/ }).click();
        await page.waitForURL(/\/delete$/);
        assert.equal(
          await page.getByRole("heading", { level: 1 }).textContent(),
          "Delete the collection Jazz nights?",
        );
        await inspectPage(page, "/admin/collections/{id}/delete");

        // ---- Apps: the list, then delete one after confirming.
        await page.goto(`${quando.base}/admin/clients`);
        assert.ok(
          await page.getByRole("heading", { name: "Pocket calendar" })
            .isVisible(),
        );
        assert.ok(
          await page.getByText("https://pocket.example/callback").isVisible(),
        );
        await inspectPage(page, "/admin/clients", "admin-clients-phone.png");
        await Promise.all([
          page.waitForURL(/\/admin\/clients\/[^/]+\/delete$/),
          page.getByRole("link", { name: "Delete Pocket calendar…" }).click(),
        ]);
        await inspectPage(page, "/admin/clients/{id}/delete");
        await Promise.all([
          page.waitForURL(/done=deleted$/),
          page.getByRole("button", { name: "Delete the app" }).click(),
        ]);
        assert.match(
          await page.getByRole("status").textContent() ?? "",
          /The app was deleted/,
        );
        assert.ok(
          await page.getByText("No application is registered.").isVisible(),
        );
        await context.close();

        // ---- Dark: the same pages, in their current state.
        await apiAt(quando.base, "POST", "/api/client", undefined, {
          client_name: "Pocket calendar",
          redirect_uris: "https://pocket.example/callback",
        });
        const dark = await adminPage(
          browser,
          quando.base,
          "dark",
          "/admin/fediverse",
        );
        await inspectPage(
          dark.page,
          "/admin/fediverse, dark",
          "admin-fediverse-phone-dark.png",
        );
        await dark.page.getByRole("link", { name: /^Actors of / }).click();
        await dark.page.waitForURL(/\/admin\/fediverse\/instances\//);
        await inspectPage(
          dark.page,
          "/admin/fediverse/instances/{domain}, dark",
        );
        await dark.page.goto(`${quando.base}/admin/collections`);
        await inspectPage(dark.page, "/admin/collections, dark");
        await dark.page.getByRole("link", { name: "Jazz nights", exact: true })
          .click();
        await dark.page.waitForURL(/\/admin\/collections\/\d+$/);
        await inspectPage(
          dark.page,
          "/admin/collections/{id}, dark",
          "admin-collections-phone-dark.png",
        );
        await dark.page.getByRole("link", { name: /Delete the collection/ })
          .click();
        await dark.page.waitForURL(/\/delete$/);
        await inspectPage(dark.page, "/admin/collections/{id}/delete, dark");
        await dark.page.goto(`${quando.base}/admin/clients`);
        await inspectPage(
          dark.page,
          "/admin/clients, dark",
          "admin-clients-phone-dark.png",
        );
        await dark.page.getByRole("link", { name: "Delete Pocket calendar…" })
          .click();
        await dark.page.waitForURL(/\/delete$/);
        await inspectPage(dark.page, "/admin/clients/{id}/delete, dark");
        // A 404 page of the area, too.
        const missing = await dark.page.goto(
          `${quando.base}/admin/collections/999999`,
        );
        assert.equal(missing?.status(), 404);
        await inspectPage(dark.page, "404 page, dark");
        await dark.context.close();
      });
    } finally {
      await peer.stop();
    }
  },
});
