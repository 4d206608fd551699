/**
 * Password recovery in a real browser (Debian's Chromium, driven by
 * playwright-core) on a phone-sized screen, against the real server
 * (main.ts, SMTP_URL set: nodemailer's transport) and a real SMTP server
 * on loopback: "forgot password" on /login, the message received and
 * parsed, its link followed in another browser to a new password, and
 * signing in with it; the admins' e-mail page lists the message sent.
 * axe-core finds no serious or critical problem on any of these pages.
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";
import { apiOk, loginAt } from "./helpers.ts";
import { linkIn, startSmtpServer } from "./support/mail-server.ts";

Deno.test({
  name:
    "forgot password in Chromium: the mailed link (real SMTP, parsed) sets a new password that then signs in; /admin/mail lists the message; axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const smtp = await startSmtpServer();
    try {
      await withServerAndBrowser({
        SMTP_URL: smtp.url,
        MAIL_FROM: "Quando <quando@example.org>",
      }, async (quando, browser) => {
        const base = quando.base;
        const context = await phoneContext(browser);
        const page = await context.newPage();
        await page.goto(`${base}/login`);
        await page.getByRole("link", { name: "Forgot your password?" })
          .click();
        await page.getByRole("heading", { name: "Forgot your password" })
          .waitFor();
        await inspectPage(page, "/forgot", "forgot-phone.png");
        await page.getByLabel("E-mail").fill(ADMIN.email);
        await page.getByRole("button", { name: "Send the link" }).click();
        await page.getByRole("status").waitFor();
        assert.match(
          await page.getByRole("status").textContent() ?? "",
          /If an account has this address/,
        );
        await inspectPage(page, "/forgot (sent)");

        const [mail] = await smtp.next(1, 30_000);
        assert.deepEqual(mail.to, [ADMIN.email]);
        assert.equal(mail.from, "quando@example.org");
        assert.equal(mail.parsed.subject, "Quando: set your password");
        assert.ok(mail.parsed.html);
        const link = linkIn(mail, "/reset/");
        assert.ok(link.startsWith(`${base}/reset/`), link);

        // The link, in another browser.
        const other = await phoneContext(browser);
        const reset = await other.newPage();
        await reset.goto(link);
        await reset.getByRole("heading", { name: "Choose a new password" })
          .waitFor();
        await inspectPage(reset, "/reset", "reset-phone.png");
        await reset.getByLabel("New password").fill("a new password 123");
        await reset.getByRole("button", { name: "Set the password" }).click();
        await reset.waitForURL(`${base}/login?done=reset`);
        assert.match(
          await reset.getByRole("status").textContent() ?? "",
          /Your password is set/,
        );
        await inspectPage(reset, "/login (after reset)");
        // The old password no longer works; the new one does.
        await reset.getByLabel("E-mail").fill(ADMIN.email);
        await reset.getByLabel("Password").fill(ADMIN.password);
        await reset.getByRole("button", { name: "Sign in" }).click();
        await reset.getByRole("alert").waitFor();
        await signInThroughForm(
          reset,
          base,
          { email: ADMIN.email, password: "a new password 123" },
          "/admin/mail",
        );
        assert.equal(new URL(reset.url()).pathname, "/admin/mail");
        await reset.getByText("E-mail is on, through SMTP.").waitFor();
        await reset.getByText("Quando: set your password").waitFor();
        await inspectPage(reset, "/admin/mail", "admin-mail-phone.png");
        // The link is spent.
        const again = await reset.goto(link);
        assert.equal(again?.status(), 410);
        await other.close();
        await context.close();
      });
    } finally {
      await smtp.stop();
    }
  },
});

Deno.test({
  name:
    "registration and a changed address in Chromium: each confirmed by the mailed link (real SMTP, parsed), the account opening and the address changing only then; axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const smtp = await startSmtpServer();
    try {
      await withServerAndBrowser(
        { SMTP_URL: smtp.url },
        async (quando, browser) => {
          const base = quando.base;
          const admin = await loginAt(base, ADMIN);
          await apiOk(base, "PUT", "/api/settings", admin, {
            allow_registration: true,
          });
          const context = await phoneContext(browser);
          const page = await context.newPage();
          await page.goto(`${base}/register`);
          await page.getByLabel("E-mail").fill("newcomer@example.org");
          await page.getByLabel("Password").fill("newcomer password");
          await page.getByRole("button", { name: "Create the account" })
            .click();
          await page.getByText("Almost done").waitFor();
          await inspectPage(page, "/register (check your mail)");

          const [mail] = await smtp.next(1, 30_000);
          assert.deepEqual(mail.to, ["newcomer@example.org"]);
          assert.equal(mail.parsed.subject, "Quando: confirm your address");
          await page.goto(linkIn(mail, "/confirm/"));
          await inspectPage(page, "/confirm", "confirm-phone.png");
          await page.getByRole("button", {
            name: "Confirm and open my account",
          })
            .click();
          await page.waitForURL((url) => url.pathname === "/my");
          await page.getByText("Your address is confirmed").waitFor();
          await inspectPage(page, "/my (registered)");

          // A new address, confirmed at that address.
          await page.goto(`${base}/account`);
          await page.getByLabel("New e-mail").fill("renamed@example.org");
          await page.locator("#email_password").fill("newcomer password");
          await page.getByRole("button", { name: "Change the e-mail" }).click();
          await page.getByText("We sent a link to renamed@example.org")
            .waitFor();
          assert.ok(
            await page.getByText("Now: newcomer@example.org").isVisible(),
          );
          await inspectPage(page, "/account (address pending)");
          const [, changed] = await smtp.next(2, 30_000);
          assert.deepEqual(changed.to, ["renamed@example.org"]);
          await page.goto(linkIn(changed, "/confirm/"));
          await page.getByRole("button", { name: "Confirm the new address" })
            .click();
          await page.getByText("confirmed: renamed@example.org").waitFor();
          await page.goto(`${base}/account`);
          await page.getByText("Now: renamed@example.org").waitFor();
          await context.close();
        },
      );
    } finally {
      await smtp.stop();
    }
  },
});

Deno.test({
  name:
    "invitation, moderators' notice and author's notice in Chromium: each mailed (real SMTP, parsed) and its link followed to the end; axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const smtp = await startSmtpServer();
    try {
      await withServerAndBrowser(
        { SMTP_URL: smtp.url },
        async (quando, browser) => {
          const base = quando.base;
          const byTo = async (address: string, count: number) =>
            (await smtp.next(count, 30_000)).filter((m) => m.to[0] === address);

          // The admin invites an editor: mailed, and shown.
          const adminContext = await phoneContext(browser);
          const adminPage = await adminContext.newPage();
          await signInThroughForm(adminPage, base, ADMIN, "/admin/users");
          await adminPage.getByLabel("E-mail", { exact: true }).fill(
            "editor@example.org",
          );
          await adminPage.locator("#role").selectOption("editor");
          await adminPage.getByRole("button", { name: "Add the user" }).click();
          await adminPage.getByText(
            "The invitation was sent to editor@example.org",
          )
            .waitFor();
          await inspectPage(adminPage, "/admin/users (invitation mailed)");
          const [invitation] = await byTo("editor@example.org", 1);
          assert.equal(invitation.parsed.subject, "Quando: you are invited");
          const editorContext = await phoneContext(browser);
          const editor = await editorContext.newPage();
          await editor.goto(linkIn(invitation, "/invite/"));
          await editor.getByLabel("Password", { exact: true }).fill(
            "the editor's password",
          );
          await Promise.all([
            editor.waitForURL(`${base}/admin`),
            editor.getByRole("button", { name: "Create my account" }).click(),
          ]);

          // A member submits an event that waits: both moderators are told.
          const admin = await loginAt(base, ADMIN);
          await apiOk(base, "POST", "/api/users", admin, {
            email: "member@example.org",
            password: "member password",
            role: "user",
          });
          const member = await loginAt(base, {
            email: "member@example.org",
            password: "member password",
          });
          await apiOk(base, "POST", "/api/events", member, {
            title: "Poetry night",
            start_datetime: Math.floor(Date.now() / 1000) + 86_400,
            place_name: "Library",
            is_visible: false,
          });
          const notice = (await byTo("editor@example.org", 3)).at(-1)!;
          assert.equal(
            notice.parsed.subject,
            "Quando: 1 event(s) waiting for moderation",
          );
          assert.match(notice.raw, /^List-Unsubscribe: <http:[^>]+\/account>/m);
          await editor.goto(linkIn(notice, "/admin"));
          await editor.getByText("Poetry night").first().waitFor();
          await inspectPage(editor, "/admin (from the notice)");
          await editor.getByRole("button", { name: "Confirm" }).first().click();
          await editor.waitForURL((url) => url.searchParams.has("confirmed"));

          // The author is told, and the link shows the event.
          const [published] = await byTo("member@example.org", 4);
          assert.equal(
            published.parsed.subject,
            "Quando: your event is published",
          );
          const authorContext = await phoneContext(browser);
          const author = await authorContext.newPage();
          await author.goto(linkIn(published, "/event/"));
          await author.getByRole("heading", { name: "Poetry night" }).waitFor();
          await inspectPage(author, "/event (from the notice)");
          await adminContext.close();
          await editorContext.close();
          await authorContext.close();
        },
      );
    } finally {
      await smtp.stop();
    }
  },
});
