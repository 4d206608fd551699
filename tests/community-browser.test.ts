/**
 * Running a community, in a real browser (Debian's Chromium, playwright-core)
 * on a phone-sized screen: a visitor reports an event from its page; an
 * admin hides it from /admin/reports, fixes a place and merges its
 * duplicate on /admin/places, and deletes a member with their events after
 * confirming on /admin/users. axe-core finds no serious or critical problem
 * on any of these pages, light or dark, and none scrolls sideways;
 * screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";
import { apiAt, apiOk, loginAt } from "./helpers.ts";
import { solidPng } from "./images.ts";

const DAY = 86_400;

Deno.test({
  name:
    "a visitor reports an event; an admin hides it from the reports queue, edits and merges places, and deletes a member with their events; axe finds no serious problem at 390 px, light or dark",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const base = quando.base;
      const adminToken = await loginAt(base, ADMIN);
      const member = {
        email: "member@example.org",
        password: "the member's password",
      };
      await apiOk(base, "POST", "/api/users", adminToken, member);
      const memberToken = await loginAt(base, member);
      const start = Math.floor(Date.now() / 1000) + DAY;
      const rave = await apiOk(base, "POST", "/api/events", memberToken, {
        title: "Warehouse rave",
        start_datetime: start,
        place_name: "Cinema Lumière",
        place_address: "Piazzetta Pasolini 2b",
      });
      const film = await apiOk(base, "POST", "/api/events", adminToken, {
        title: "Film night",
        start_datetime: start + DAY,
        place_name: "Cinema Lumiere",
        place_address: "",
      });

      // An event with an image of ours: the listings show its thumbnail.
      const upload = new FormData();
      upload.append(
        "file",
        new File(
          [await solidPng(80, 60, [200, 40, 40], [40, 40, 200])],
          "poster.png",
        ),
      );
      upload.append("name", "Poster of the show");
      const posted = await fetch(`${base}/api/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}` },
        body: upload,
      });
      assert.equal(posted.status, 201);
      const media = await posted.json();
      await apiOk(base, "POST", "/api/events", adminToken, {
        title: "Poster show",
        start_datetime: start + 2 * DAY,
        place_name: "Gallery",
        tags: ["art"],
        media: [media],
      });

      // A visitor reports the rave from its page, after the listings.
      const visitor = await (await phoneContext(browser)).newPage();
      const elsewhere: string[] = [];
      visitor.on("request", (request) => {
        if (new URL(request.url()).origin !== base) {
          elsewhere.push(request.url());
        }
      });
      for (const path of ["/", "/tag/art", "/search?q=poster"]) {
        await visitor.goto(`${base}${path}`);
        const thumb = visitor.getByRole("img", { name: "Poster of the show" });
        await thumb.scrollIntoViewIfNeeded();
        // Loaded (lazily, once in view), and from this site.
        for (let i = 0; i < 50; i++) {
          const loaded = await visitor.evaluate(
            "[...document.images].every((i) => i.complete && i.naturalWidth > 0)",
          );
          if (loaded) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(
          await visitor.evaluate(
            "[...document.images].every((i) => i.naturalWidth > 0)",
          ),
          `${path}: the thumbnail loaded`,
        );
        const box = await thumb.boundingBox();
        assert.deepEqual(
          [Math.round(box!.width), Math.round(box!.height)],
          [88, 88],
          `${path}: the thumbnail's box`,
        );
        await inspectPage(visitor, `${path} with a thumbnail`);
      }
      await inspectPage(visitor, "/search with a thumbnail", "thumbs.png");
      assert.deepEqual(elsewhere, [], "no request to another site");
      await visitor.goto(`${base}/event/${rave.slug}`);
      await visitor.getByRole("link", {
        name: "Report this event to the moderators",
      }).click();
      await visitor.getByRole("heading", { name: "Report an event" })
        .waitFor();
      await inspectPage(visitor, "/events/{id}/report", "report-phone.png");
      await visitor.getByLabel("Spam or advertising").check();
      await visitor.getByLabel("What the moderators should know").fill(
        "This is an advert for a ticket shop.",
      );
      await visitor.getByRole("button", { name: "Send the report" }).click();
      await visitor.getByRole("heading", { name: "Thank you" }).waitFor();
      await inspectPage(visitor, "report sent");

      // The admin hides it from the queue.
      const context = await phoneContext(browser);
      const page = await context.newPage();
      await signInThroughForm(page, base, ADMIN, "/admin/reports");
      assert.equal(new URL(page.url()).pathname, "/admin/reports");
      assert.ok(
        await page.getByText("This is an advert for a ticket shop.")
          .isVisible(),
      );
      await inspectPage(page, "/admin/reports", "admin-reports-phone.png");
      await page.getByRole("button", { name: "Hide the event" }).click();
      await page.getByText("Event hidden and its reports resolved.")
        .waitFor();
      assert.equal(
        (await apiAt(base, "GET", `/api/events/${rave.id}`)).status,
        404,
      );
      await page.getByRole("link", { name: "Closed" }).click();
      await page.getByText("This is an advert for a ticket shop.").waitFor();
      await inspectPage(page, "/admin/reports?show=closed");
      const dark = await (await phoneContext(browser, true)).newPage();
      await signInThroughForm(dark, base, ADMIN, "/admin/reports?show=closed");
      await inspectPage(dark, "/admin/reports (dark)");

      // Places: the film's place gets its accent and position, then takes
      // in its duplicate.
      await page.getByRole("navigation", { name: "Sections" })
        .getByRole("link", { name: "Places" }).click();
      await page.getByRole("heading", { name: "Places", level: 1 }).waitFor();
      await inspectPage(page, "/admin/places", "admin-places-phone.png");
      await page.getByRole("link", { name: "Edit Cinema Lumiere" }).click();
      await page.getByRole("heading", { name: "Edit place" }).waitFor();
      await inspectPage(page, "/admin/places/{id}");
      await page.getByLabel("Name", { exact: true }).fill("Cinema Lumière");
      await page.getByLabel("Address", { exact: true }).fill(
        "Piazzetta Pasolini 2b",
      );
      await page.getByLabel("Latitude").fill("44.5011");
      await page.getByRole("button", { name: "Save the place" }).click();
      // Only one coordinate: the form says so, keeping what was typed.
      await page.getByText("Give both coordinates, or neither.").waitFor();
      await inspectPage(page, "/admin/places/{id} with an error");
      await page.getByLabel("Name", { exact: true }).fill("Cinema Lumière");
      await page.getByLabel("Address", { exact: true }).fill("Via Azzo 1");
      await page.getByLabel("Longitude").fill("11.3336");
      await page.getByRole("button", { name: "Save the place" }).click();
      await page.getByText("Place saved.").waitFor();
      await page.getByRole("link", {
        name: "Merge duplicates into this place",
      }).click();
      await page.getByRole("heading", { name: "Merge into “Cinema Lumière”" })
        .waitFor();
      await inspectPage(page, "/admin/places/{id}/merge", "merge-phone.png");
      await page.getByLabel(/Cinema Lumière — Piazzetta Pasolini 2b/).check();
      await page.getByRole("button", { name: "Merge the checked places" })
        .click();
      await page.getByText("1 places merged into this one.").waitFor();
      const moved = await apiOk(
        base,
        "GET",
        `/api/events/${rave.id}`,
        adminToken,
      );
      assert.equal(moved.placeId, film.placeId);
      assert.equal(moved.place.address, "Via Azzo 1");

      // The member goes, with their events.
      await page.goto(`${base}/admin/users`);
      await page.getByRole("link", { name: "Delete this account…" }).click();
      await page.getByRole("heading", { name: "Delete member@example.org?" })
        .waitFor();
      await inspectPage(page, "/admin/users/{id}/delete", "user-delete.png");
      await page.getByLabel("Delete them too (followers are told)").check();
      await page.getByRole("button", { name: "Delete the account" }).click();
      await page.getByText("The account was deleted.").waitFor();
      assert.equal(
        (await apiAt(base, "GET", `/api/events/${rave.id}`, adminToken))
          .status,
        404,
      );
      assert.equal(
        (await apiAt(base, "GET", "/api/users/me", memberToken)).status,
        401,
      );
      await context.close();
    });
  },
});

Deno.test({
  name:
    "with registration_approval on, a newcomer registers and is told the account waits, also on signing in; the admin approves it on /admin/users and the newcomer signs in; axe finds no serious problem at 390 px",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const base = quando.base;
      const adminToken = await loginAt(base, ADMIN);
      await apiOk(base, "PUT", "/api/settings", adminToken, {
        allow_registration: true,
        registration_approval: true,
      });
      const newcomer = {
        email: "newcomer@example.org",
        password: "the newcomer's password",
      };
      const guest = await (await phoneContext(browser)).newPage();
      await guest.goto(`${base}/register`);
      await guest.locator("#email").fill(newcomer.email);
      await guest.locator("#password").fill(newcomer.password);
      await guest.locator("form[action='/register'] button[type=submit]")
        .click();
      await guest.getByRole("heading", {
        name: "Your account waits for approval",
      }).waitFor();
      await inspectPage(guest, "/register (waiting)", "register-waits.png");
      await guest.goto(`${base}/login`);
      await guest.locator("#email").fill(newcomer.email);
      await guest.locator("#password").fill(newcomer.password);
      await guest.locator("form[action='/login'] button[type=submit]").click();
      await guest.getByText("Your account waits for an admin's approval")
        .waitFor();
      await inspectPage(guest, "/login (waiting)");

      const admin = await (await phoneContext(browser)).newPage();
      await signInThroughForm(admin, base, ADMIN, "/admin/users");
      await admin.getByText("Waiting for approval").waitFor();
      await inspectPage(admin, "/admin/users (a registration waits)");
      await admin.getByRole("button", { name: "Approve" }).click();
      await admin.getByText("newcomer@example.org may now sign in.").waitFor();

      await guest.locator("#email").fill(newcomer.email);
      await guest.locator("#password").fill(newcomer.password);
      await Promise.all([
        guest.waitForURL((url) => url.pathname !== "/login"),
        guest.locator("form[action='/login'] button[type=submit]").click(),
      ]);
    });
  },
});
