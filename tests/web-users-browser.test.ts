/**
 * The users and settings pages in a real browser (Debian's Chromium, driven
 * by playwright-core) on a phone-sized screen, light and dark: an admin adds
 * an editor by invitation; the invitee opens the link in another browser,
 * chooses a password and lands signed in, with Moderation in the navigation;
 * the admin changes the time zone and /submit shows it. axe-core finds no
 * serious or critical problem on any of these pages; screenshots go to
 * tests/artifacts/.
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";

Deno.test({
  name:
    "an admin adds an editor by invitation (the invitee sets a password in another browser and lands signed in, with Moderation) and changes the time zone, which /submit then shows; axe finds no serious problem, light or dark",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServerAndBrowser({}, async (quando, browser) => {
      const base = quando.base;
      const context = await phoneContext(browser);
      await context.grantPermissions(["clipboard-read", "clipboard-write"], {
        origin: base,
      });
      const page = await context.newPage();
      await signInThroughForm(page, base, ADMIN, "/admin/users");
      assert.equal(new URL(page.url()).pathname, "/admin/users");
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Users",
      );
      assert.ok(await page.getByText("admin@example.org").first().isVisible());
      await inspectPage(page, "/admin/users");

      // An editor, by invitation (the default way in).
      await page.getByLabel("E-mail", { exact: true }).fill(
        "editor@example.org",
      );
      await page.locator("#role").selectOption("editor");
      assert.ok(
        await page.getByLabel(
          "An invitation link they open to choose a password",
        )
          .isChecked(),
      );
      await page.getByRole("button", { name: "Add the user" }).click();
      await page.getByRole("heading", {
        name: "Invitation for editor@example.org",
      }).waitFor();
      const link = await page.getByLabel("Invitation link", { exact: true })
        .inputValue();
      assert.match(link, new RegExp(`^${base}/invite/[A-Za-z0-9_-]{43}$`));
      // The copy button (a script of the page's own, by its nonce).
      await page.getByRole("button", { name: "Copy the link" }).click();
      await page.getByText("Copied.").waitFor();
      assert.equal(
        await page.evaluate("navigator.clipboard.readText()"),
        link,
      );
      assert.ok(await page.getByText("editor@example.org").last().isVisible());
      await inspectPage(
        page,
        "/admin/users with a link",
        "admin-users-phone.png",
      );

      // The invitee, in a browser of their own, dark.
      const darkGuest = await phoneContext(browser, true);
      const darkPage = await darkGuest.newPage();
      await darkPage.goto(link);
      await inspectPage(darkPage, "/invite (dark)", "invite-phone-dark.png");
      await darkGuest.close();

      const guest = await phoneContext(browser);
      const invitee = await guest.newPage();
      await invitee.goto(link);
      assert.equal(
        await invitee.getByRole("heading", { level: 1 }).textContent(),
        "Welcome",
      );
      assert.match(
        await invitee.locator("#invite-intro").textContent() ?? "",
        /as Editor.*editor@example\.org/s,
      );
      await inspectPage(invitee, "/invite", "invite-phone.png");
      // The browser itself asks for 8 characters; the server would too.
      assert.equal(
        await invitee.getByLabel("Password", { exact: true }).getAttribute(
          "minlength",
        ),
        "8",
      );
      await invitee.getByLabel("Password", { exact: true }).fill(
        "the editor's password",
      );
      await Promise.all([
        invitee.waitForURL(`${base}/admin`),
        invitee.getByRole("button", { name: "Create my account" }).click(),
      ]);
      const nav = invitee.getByRole("navigation", { name: "Sections" });
      assert.ok(
        await nav.getByRole("link", { name: "Moderation" }).isVisible(),
      );
      assert.equal(
        await nav.getByRole("link", { name: "Users" }).count(),
        0,
        "an editor does not manage users",
      );
      assert.ok(await invitee.getByText("editor@example.org").isVisible());
      // The link worked once.
      const again = await invitee.goto(link);
      assert.equal(again?.status(), 410);
      assert.equal(
        await invitee.getByRole("heading", { level: 1 }).textContent(),
        "This link was used already",
      );
      await inspectPage(invitee, "/invite used");
      await guest.close();

      // The admin's list shows the editor, active; no invitation waits.
      await page.goto(`${base}/admin/users`);
      const card = page.locator("li.card").filter({
        hasText: "editor@example.org",
      });
      assert.match(await card.textContent() ?? "", /Editor · Active/);
      assert.ok(await page.getByText("No invitation is waiting.").isVisible());

      // The time zone.
      await page.goto(`${base}/admin/settings`);
      assert.equal(
        await page.getByRole("heading", { level: 1 }).textContent(),
        "Instance settings",
      );
      assert.ok(await page.getByText("@relay@127.0.0.1").isVisible());
      await inspectPage(page, "/admin/settings");
      await page.getByLabel("Time zone").selectOption("Europe/Rome");
      await Promise.all([
        page.waitForURL(/\/admin\/settings\?saved=1$/),
        page.getByRole("button", { name: "Save the settings" }).click(),
      ]);
      assert.equal(
        await page.getByRole("status").textContent(),
        "Settings saved.",
      );
      assert.equal(
        await page.getByLabel("Time zone").inputValue(),
        "Europe/Rome",
      );
      await inspectPage(
        page,
        "/admin/settings saved",
        "admin-settings-phone.png",
      );
      await page.goto(`${base}/submit`);
      assert.ok(await page.getByText("(Europe/Rome time)").isVisible());
      await page.goto(`${base}/account`);
      await inspectPage(page, "/account");
      await context.close();

      // The admin's pages in dark.
      const dark = await phoneContext(browser, true);
      const darkAdmin = await dark.newPage();
      await signInThroughForm(darkAdmin, base, ADMIN, "/admin/users");
      await inspectPage(
        darkAdmin,
        "/admin/users (dark)",
        "admin-users-phone-dark.png",
      );
      await darkAdmin.goto(`${base}/admin/settings`);
      await inspectPage(
        darkAdmin,
        "/admin/settings (dark)",
        "admin-settings-phone-dark.png",
      );
      await darkAdmin.goto(`${base}/account`);
      await inspectPage(darkAdmin, "/account (dark)");
      await dark.close();
    });
  },
});
