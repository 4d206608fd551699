/**
 * The moderation pages in a real browser (Debian's Chromium, playwright-core)
 * on a phone-sized screen, light and dark: an editor rejects one submission,
 * writes to the author of another and confirms it (the author reads the
 * message through the API); an admin hides a reply from the fediverse (the
 * API lists those to admins only). axe-core finds no serious or critical
 * problem on any of these pages; screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import {
  ARTIFACTS,
  inspectPage,
  keepScreenshot,
  launchChromium,
  phoneContext,
  signInThroughForm,
} from "./browser.ts";
import {
  call,
  createTestApp,
  createTestUser,
  freePort,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { seedReplies } from "./web-moderation-helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;

async function created(res: Response): Promise<{ id: number; slug: string }> {
  const body = await res.json();
  assert.ok(res.status < 300, JSON.stringify(body));
  return body;
}

/** The queue's three submissions and a visible event with replies. */
async function seed(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_anon_event: true },
  });
  const anonymous = (title: string) =>
    call(ctx, "POST", "/api/events", {
      json: { title, start_datetime: NOW + DAY, place_name: "Town hall" },
    }).then(created);
  const spam = await anonymous("Cheap watches, best prices");
  ctx.clock.advance(60_000);
  const member = await userWithToken(ctx, "user");
  const dinner = await created(
    await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Members' dinner",
        start_datetime: NOW + 2 * DAY,
        place_name: "Club",
      },
    }),
  );
  // Hidden by its owner: it waits for an editor.
  await call(ctx, "PUT", `/api/events/${dinner.id}/toggle`, {
    token: member.token,
  }).then(created);
  ctx.clock.advance(60_000);
  await anonymous("Repair café");
  const jazz = await created(
    await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Jazz night",
        start_datetime: NOW + 3 * DAY,
        place_name: "Blue room",
      },
    }),
  );
  const replies = await seedReplies(ctx, jazz.id, [
    "<p>Looking forward to it! Is there a <strong>cloakroom</strong>?</p>",
    '<p>Buy followers at <a href="https://spam.example/">spam.example</a></p>',
  ]);
  return { admin, member, spam, dinner, jazz, replies };
}

/** A phone-sized page in the colour scheme, with its context. */
async function phone(browser: Browser, colorScheme: "light" | "dark") {
  const context = await phoneContext(browser, colorScheme === "dark");
  return { context, page: await context.newPage() };
}

Deno.test({
  name:
    "an editor rejects a submission, messages the author of another and confirms it; an admin hides a reply from the fediverse; light and dark, axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const port = freePort();
    const ctx = await createTestApp({
      env: { BASE_URL: `http://127.0.0.1:${port}` },
    });
    const server = Deno.serve(
      { port, hostname: "127.0.0.1", onListen: () => {} },
      ctx.app.fetch,
    );
    const base = `http://127.0.0.1:${port}`;
    const browser = await launchChromium();
    try {
      const { admin, member, spam, dinner, jazz, replies } = await seed(ctx);
      const editor = await createTestUser(ctx, { role: "editor" });

      // --- the editor, light ---
      const light = await phone(browser, "light");
      const page = light.page;
      await signInThroughForm(page, base, editor, "/admin");
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Waiting for confirmation",
      );
      assert.equal(await page.locator("li.card").count(), 3);
      await inspectPage(page, "/admin");
      const editLink = page.locator("li.card", { hasText: "Members' dinner" })
        .getByRole("link", { name: "Edit" });
      assert.equal(
        await editLink.getAttribute("href"),
        `/events/${dinner.id}/edit`,
      );

      // Reject the spam: a page that asks first.
      await page.locator("li.card", { hasText: "Cheap watches" })
        .getByRole("button", { name: "Reject" }).click();
      await page.waitForURL(/\/admin\/events\/\d+\/reject/);
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Reject this submission?",
      );
      await inspectPage(page, "reject", "moderation-reject-phone.png");
      await Promise.all([
        page.waitForURL(/\/admin\?rejected=1$/),
        page.getByRole("button", { name: "Reject and delete" }).click(),
      ]);
      assert.match(
        await page.getByRole("status").textContent() ?? "",
        /Rejected/,
      );
      assert.equal(await page.getByText("Cheap watches").count(), 0);
      const gone = await call(ctx, "GET", `/api/events/${spam.id}`, {
        token: admin.token,
      });
      assert.equal(gone.status, 404);

      // A message to the author of the dinner.
      const card = page.locator("li.card", { hasText: "Members' dinner" });
      await card.getByText("Write a message").click();
      await card.getByLabel("Message", { exact: true }).fill(
        "Please add the address of the club.\nThank you!",
      );
      await card.getByLabel("Show it to the author").check();
      await Promise.all([
        page.waitForURL(/messaged=1#event-\d+$/),
        card.getByRole("button", { name: "Add the message" }).click(),
      ]);
      assert.match(
        await page.getByRole("status").textContent() ?? "",
        /Message added/,
      );
      const after = page.locator("li.card", { hasText: "Members' dinner" });
      assert.ok(
        await after.getByText("Please add the address of the club.")
          .isVisible(),
      );
      assert.ok(await after.getByText("the author sees it").isVisible());
      assert.ok(await after.getByText("Messages (1)").isVisible());
      await inspectPage(
        page,
        "/admin with a message",
        "moderation-queue-phone.png",
      );

      // The author reads it through the API.
      const theirs = await (await call(
        ctx,
        "GET",
        `/api/events/${dinner.id}/messages`,
        { token: member.token },
      )).json();
      assert.deepEqual(theirs.map((m: { message: string }) => m.message), [
        "Please add the address of the club.\nThank you!",
      ]);

      // Confirm it: public, and no longer waiting.
      await Promise.all([
        page.waitForURL(/confirmed=1$/),
        after.getByRole("button", { name: "Confirm" }).click(),
      ]);
      assert.equal(await page.getByText("Members' dinner").count(), 0);
      assert.equal(await page.locator("li.card").count(), 1);
      assert.equal(
        (await call(ctx, "GET", `/api/events/${dinner.id}`)).status,
        200,
      );
      // In Italian too, one language on the page.
      await page.goto(`${base}/admin?lang=it`);
      assert.equal(await page.getAttribute("html", "lang"), "it");
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "In attesa di conferma",
      );
      await inspectPage(page, "/admin in Italian");
      // An unknown id: a page, not an error of the server.
      const missing = await page.goto(`${base}/admin/events/999999/reject`);
      assert.equal(missing?.status(), 404);
      await inspectPage(page, "not found");
      await light.context.close();

      // --- the admin hides a reply, light ---
      const adminLight = await phone(browser, "light");
      const ap = adminLight.page;
      await signInThroughForm(ap, base, admin, "/admin");
      await ap.getByRole("navigation", { name: "Moderation" })
        .getByRole("link", { name: "Replies", exact: true }).click();
      await ap.waitForURL(/\/admin\/resources$/);
      assert.equal(await ap.locator("li.card").count(), 2);
      assert.ok(await ap.getByText("cloakroom").isVisible());
      await inspectPage(ap, "/admin/resources");
      const spamReply = ap.locator("li.card", { hasText: "Buy followers" });
      await Promise.all([
        ap.waitForURL(/done=hidden/),
        spamReply.getByRole("button", { name: "Hide" }).click(),
      ]);
      assert.match(
        await ap.getByRole("status").textContent() ?? "",
        /Hidden/,
      );
      const hidden = ap.locator("li.card", { hasText: "Buy followers" });
      assert.ok(await hidden.getByText("hidden from the public").isVisible());
      assert.ok(await hidden.getByRole("button", { name: "Show" }).isVisible());
      const publicReplies = await (await call(
        ctx,
        "GET",
        `/api/events/${jazz.id}`,
      )).json();
      assert.deepEqual(
        publicReplies.resources.map((r: { id: number }) => r.id),
        [replies[0]],
      );
      await inspectPage(
        ap,
        "/admin/resources after hiding",
        "moderation-resources-phone.png",
      );
      // Search, then the delete step (cancelled).
      await ap.getByLabel("Search the replies").fill("cloakroom");
      await ap.getByRole("button", { name: "Search" }).click();
      await ap.waitForURL(/query=cloakroom/);
      assert.equal(await ap.locator("li.card").count(), 1);
      await ap.getByRole("button", { name: "Delete" }).click();
      await ap.waitForURL(/\/admin\/resources\/\d+\/delete/);
      assert.equal(
        await ap.getByRole("heading", { level: 1 }).textContent(),
        "Delete this reply?",
      );
      await inspectPage(ap, "delete a reply");
      await ap.getByRole("link", { name: "Cancel" }).click();
      await ap.waitForURL(/\/admin\/resources\?query=cloakroom$/);
      await adminLight.context.close();

      // --- dark ---
      const dark = await phone(browser, "dark");
      await signInThroughForm(dark.page, base, editor, "/admin");
      await inspectPage(dark.page, "/admin, dark");
      await dark.page.locator("li.card").first().locator("summary").click();
      await keepScreenshot(dark.page, "moderation-queue-phone-dark.png");
      await dark.page.getByRole("button", { name: "Reject" }).first().click();
      await dark.page.waitForURL(/reject/);
      await inspectPage(dark.page, "reject, dark");
      await dark.context.close();
      const adminDark = await phone(browser, "dark");
      await signInThroughForm(
        adminDark.page,
        base,
        admin,
        "/admin/resources",
      );
      await inspectPage(
        adminDark.page,
        "/admin/resources, dark",
        "moderation-resources-phone-dark.png",
      );
      await adminDark.page.goto(`${base}/admin/resources/${replies[0]}/delete`);
      await inspectPage(adminDark.page, "delete a reply, dark");
      await adminDark.page.goto(`${base}/admin/resources/999999/delete`);
      await inspectPage(adminDark.page, "not found, dark");
      await adminDark.context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      ctx.close();
    }
  },
});
