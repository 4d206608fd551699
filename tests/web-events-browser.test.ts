/**
 * The event pages in a real browser (Debian's Chromium, playwright-core) on
 * a phone-sized screen: a member submits a weekly event with an image
 * (focal point set by a click on its preview), finds it at /my, edits one
 * of its dates, and the API shows that date changed and the others not,
 * the image served. axe-core finds no serious or critical problem on
 * /submit, /my, the edit page and the delete confirmation, in light and
 * dark; none of them scrolls sideways. Screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser } from "playwright-core";
import {
  ADMIN,
  inspectPage,
  keepScreenshot,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";
import { apiAt, loginAt } from "./helpers.ts";
import { solidPng } from "./images.ts";

const MEMBER = {
  email: "member@example.org",
  password: "correct horse battery",
};
const ZONE = "Europe/Rome";

/** `YYYY-MM-DD` in Rome, `days` from now. */
function romeDay(days: number): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date(Date.now() + days * 86_400_000));
}

/** The same pages in the dark, signed in as the member. */
async function checkDark(browser: Browser, base: string, paths: string[]) {
  const context = await phoneContext(browser, true);
  try {
    const page = await context.newPage();
    await signInThroughForm(page, base, MEMBER, paths[0]);
    for (const path of paths) {
      await page.goto(`${base}${path}`);
      await inspectPage(page, `${path} (dark)`);
    }
  } finally {
    await context.close();
  }
}

Deno.test({
  name:
    "a member submits a weekly event with an image on a phone and edits one of its dates; the API shows that date changed, the others not, the image served; axe finds no serious problem in light or dark",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const admin = await loginAt(quando.base, ADMIN);
      assert.equal(
        (await apiAt(quando.base, "PUT", "/api/settings", admin, {
          instance_timezone: ZONE,
        })).status,
        200,
      );
      assert.equal(
        (await apiAt(quando.base, "POST", "/api/users", admin, {
          ...MEMBER,
          role: "user",
        })).status,
        201,
      );
      // A place and a tag the form will suggest.
      assert.equal(
        (await apiAt(quando.base, "POST", "/api/events", admin, {
          title: "Open day",
          start_datetime: Math.floor(Date.now() / 1000) + 86_400,
          place_name: "Community garden",
          place_address: "Via dei Fiori 3",
          tags: ["gardening"],
        })).status,
        201,
      );

      const context = await phoneContext(browser);
      const page = await context.newPage();
      await signInThroughForm(page, quando.base, MEMBER, "/submit");
      assert.equal(new URL(page.url()).pathname, "/submit");
      await inspectPage(page, "/submit");

      const first = romeDay(7);
      await page.getByLabel("Title", { exact: true }).fill("Garden mornings");
      await page.getByLabel("Starts", { exact: true }).fill(`${first}T09:30`);
      await page.getByLabel("Ends", { exact: true }).fill(`${first}T11:00`);
      // The known place: its name picked, its address filled in for us.
      await page.getByLabel("Place", { exact: true }).fill("Community garden");
      assert.equal(
        await page.getByLabel("Address", { exact: true }).inputValue(),
        "Via dei Fiori 3",
      );
      await page.getByLabel("Tags", { exact: true }).fill(
        "gardening, outdoors",
      );
      await page.getByLabel("Description", { exact: true }).fill(
        "Weeding and planting.\n\nTools: https://example.org/tools",
      );
      await page.getByLabel("Repeat", { exact: true }).selectOption("1w");
      await page.getByLabel("Until", { exact: true }).fill(romeDay(7 + 35));
      const image = await solidPng(120, 80, [40, 140, 60], [230, 200, 40]);
      await page.getByLabel("Image file", { exact: true }).setInputFiles({
        name: "garden.png",
        mimeType: "image/png",
        buffer: Buffer.from(image),
      });
      await page.getByLabel("Image description", { exact: true }).fill(
        "Rows of seedlings in the sun",
      );
      // A click on the preview's right half, near the top, sets the focal point.
      const preview = page.locator("[data-focal-frame=new] img");
      await preview.waitFor();
      const box = (await preview.boundingBox())!;
      await preview.click({
        position: { x: box.width * 0.75, y: box.height * 0.25 },
      });
      const fx = Number(await page.locator("#focal_x").inputValue());
      const fy = Number(await page.locator("#focal_y").inputValue());
      assert.ok(Math.abs(fx - 0.5) < 0.05, `focal x ${fx}`);
      assert.ok(Math.abs(fy - 0.5) < 0.05, `focal y ${fy}`);
      await inspectPage(page, "/submit, filled in", "submit-full-phone.png");
      await Promise.all([
        page.waitForURL(/\/event\/garden-mornings$/),
        page.getByRole("button", { name: "Submit" }).click(),
      ]);

      // The series at /my, with its next dates.
      await page.goto(`${quando.base}/my`);
      await inspectPage(page, "/my");
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "My events",
      );
      assert.ok(await page.getByText(/^Every week, until /).isVisible());
      const dateEdits = page.getByRole("link", { name: "Edit this date" });
      assert.equal(await dateEdits.count(), 6, "six weeks to come");
      await keepScreenshot(page, "my-events-phone.png");

      const mine = await apiAt(
        quando.base,
        "GET",
        "/api/events/mine",
        await loginAt(quando.base, MEMBER),
      );
      const parentId = mine.body.find((e: { slug: string }) =>
        e.slug === "garden-mornings"
      ).id;
      const before = (await apiAt(
        quando.base,
        "GET",
        `/api/events/${parentId}`,
      )).body;
      assert.equal(before.children.length, 6);
      assert.equal(before.media[0].name, "Rows of seedlings in the sun");
      assert.deepEqual(before.media[0].focalpoint, [fx, fy]);
      const second = before.children[1];

      // Edit the second date only.
      await Promise.all([
        page.waitForURL(new RegExp(`/events/${second.id}/edit$`)),
        dateEdits.nth(1).click(),
      ]);
      assert.match(
        await page.getByRole("heading", { level: 1 }).textContent() ?? "",
        /^Edit one date of “Garden mornings”$/,
      );
      assert.equal(await page.locator("#recurrence").count(), 0);
      // The series' image, as the page serves it.
      const shown = page.locator("[data-focal-frame=current] img");
      assert.equal(
        await shown.getAttribute("alt"),
        "Rows of seedlings in the sun",
      );
      assert.equal(
        await page.evaluate(
          "document.querySelector('[data-focal-frame=current] img').naturalWidth",
        ),
        120,
      );
      const day = romeDay(14);
      assert.equal(
        await page.getByLabel("Starts", { exact: true }).inputValue(),
        `${day}T09:30`,
      );
      await page.getByLabel("Title", { exact: true }).fill(
        "Garden mornings: seed swap",
      );
      await page.getByLabel("Starts", { exact: true }).fill(`${day}T10:00`);
      await page.getByLabel("Ends", { exact: true }).fill(`${day}T12:30`);
      await inspectPage(
        page,
        "the edit page of one date",
        "edit-occurrence-phone.png",
      );
      await Promise.all([
        page.waitForURL(/\/my\?done=saved$/),
        page.getByRole("button", { name: "Save" }).click(),
      ]);
      assert.equal(await page.getByRole("status").textContent(), "Saved.");
      assert.ok(
        await page.getByRole("link", { name: "Garden mornings", exact: true })
          .isVisible(),
      );

      const after = (await apiAt(
        quando.base,
        "GET",
        `/api/events/${parentId}`,
      )).body;
      for (const [i, child] of after.children.entries()) {
        const was = before.children[i];
        if (child.id === second.id) {
          assert.equal(child.title, "Garden mornings: seed swap");
          assert.equal(child.start_datetime, was.start_datetime + 1800);
          assert.equal(child.end_datetime, was.end_datetime + 5400);
        } else {
          assert.equal(child.title, "Garden mornings");
          assert.equal(child.start_datetime, was.start_datetime);
          assert.equal(child.end_datetime, was.end_datetime);
        }
        assert.equal(child.media[0].url, before.media[0].url);
      }
      const file = await fetch(`${quando.base}/media/${before.media[0].url}`);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get("content-type"), "image/png");
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), image);

      // The delete confirmation of a date: a question, nothing deleted yet.
      const third = after.children[2];
      await page.goto(`${quando.base}/events/${third.id}/delete`);
      assert.match(
        await page.getByRole("heading", { level: 1 }).textContent() ?? "",
        /^Delete “Garden mornings”\?$/,
      );
      await inspectPage(page, "the delete confirmation");
      await Promise.all([
        page.waitForURL(/\/my$/),
        page.getByRole("link", { name: "Keep it" }).click(),
      ]);
      assert.equal(
        (await apiAt(quando.base, "GET", `/api/events/${third.id}`)).status,
        200,
      );
      await context.close();

      await checkDark(browser, quando.base, [
        "/submit",
        "/my",
        `/events/${second.id}/edit`,
        `/events/${third.id}/delete`,
      ]);
    });
  },
});
