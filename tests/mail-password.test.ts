/**
 * Password recovery by e-mail, over a real SMTP server on loopback
 * (tests/support/mail-server.ts): the message received and parsed, its link
 * followed to a new password that signs in, every earlier session and token
 * ended; the same answer whether the address has an account; the limits;
 * an admin's password link for an existing (imported) account.
 */
import assert from "node:assert/strict";
import { createSmtpMailTransport } from "../lib/mail/smtp.ts";
import {
  call,
  createTestApp,
  createTestUser,
  loginToken,
  type TestContext,
} from "./helpers.ts";
import { linkIn, startSmtpServer } from "./support/mail-server.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

/** An app mailing through a fresh SMTP server, its queue running. */
async function mailingApp() {
  const smtp = await startSmtpServer();
  const ctx = await createTestApp({
    mailTransport: createSmtpMailTransport(smtp.url, { timeoutMs: 5000 }),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  return {
    ctx,
    smtp,
    async close() {
      stop.abort();
      await queue;
      await smtp.stop();
      ctx.close();
    },
  };
}

/** The token of a /reset/ link. */
const tokenOf = (url: string) => new URL(url).pathname.split("/").pop()!;

Deno.test({
  name:
    "mail: forgot password sends a text+HTML message with the instance in the subject; its link sets a new password and ends every session and token",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ctx, smtp, close } = await mailingApp();
    try {
      const member = await createTestUser(ctx, { email: "ada@example.org" });
      const cookie = await signIn(ctx, member);
      const token = await loginToken(ctx, member.email, member.password);

      const login = await get(ctx, "/login");
      assert.match(await login.text(), /href="\/forgot"/);
      const asked = await postForm(ctx, "/forgot", {
        email: "Ada@Example.org",
      });
      assert.equal(asked.status, 200);
      const askedPage = await asked.text();
      assert.match(askedPage, /If an account has this address/);

      const [mail] = await smtp.next(1);
      assert.deepEqual(mail.to, ["ada@example.org"]);
      assert.equal(mail.from, "noreply@quando.test");
      const parsed = mail.parsed;
      assert.match(parsed.subject ?? "", /^Quando: set your password$/);
      assert.match(parsed.text ?? "", /ada@example\.org on Quando/);
      assert.match(
        String(parsed.html),
        /<a href="http:\/\/quando\.test\/reset\//,
      );
      assert.match(parsed.messageId ?? "", /^<[A-Za-z0-9_-]+@quando\.test>$/);
      assert.ok(parsed.date instanceof Date);
      // A request, not a subscription: no List-Unsubscribe.
      assert.equal(parsed.headers.get("list-unsubscribe"), undefined);

      const url = linkIn(mail, "/reset/");
      const path = new URL(url).pathname;
      const form = await get(ctx, path);
      assert.equal(form.status, 200);
      assert.equal(form.headers.get("referrer-policy"), "no-referrer");
      assert.match(await form.text(), /ada@example\.org/);

      const short = await postForm(ctx, path, { password: "short" });
      assert.equal(short.status, 400);

      const done = await postForm(ctx, path, {
        password: "a brand new password",
      });
      assert.equal(done.status, 303);
      assert.equal(done.headers.get("location"), "/login?done=reset");
      const notice = await get(ctx, "/login?done=reset");
      assert.match(await notice.text(), /Your password is set/);

      // The earlier session and login token are over.
      const page = await get(ctx, "/account", cookie);
      assert.equal(page.status, 303);
      const me = await call(ctx, "GET", "/api/users/me", { token });
      assert.equal(me.status, 401);
      // The new password signs in; the old one does not.
      await signIn(ctx, {
        email: member.email,
        password: "a brand new password",
      });
      const old = await postForm(ctx, "/login", {
        email: member.email,
        password: member.password,
      });
      assert.equal(old.status, 401);
      // Single use.
      const again = await postForm(ctx, path, { password: "yet another one" });
      assert.equal(again.status, 410);
      assert.equal((await get(ctx, path)).status, 410);
      assert.equal((await get(ctx, "/reset/" + "x".repeat(43))).status, 404);
      assert.equal(tokenOf(url).length, 43);
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "mail: forgot password answers the same for an unknown address, sends nothing, and is rate limited per address and per client",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ctx, smtp, close } = await mailingApp();
    try {
      await createTestUser(ctx, { email: "bea@example.org" });
      const known = await postForm(ctx, "/forgot", {
        email: "bea@example.org",
      });
      const unknown = await postForm(ctx, "/forgot", {
        email: "nobody@example.org",
      });
      assert.equal(known.status, unknown.status);
      const strip = (html: string) =>
        html.replace(/nonce-[^'"]+|nonce="[^"]+"/g, "");
      assert.equal(strip(await known.text()), strip(await unknown.text()));
      await smtp.next(1);
      // Only the known address got a message.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(smtp.received.length, 1);

      // Per address: three an hour, from any client.
      for (let i = 0; i < 2; i++) {
        const res = await postForm(ctx, "/forgot", {
          email: "bea@example.org",
        });
        assert.equal(res.status, 200);
      }
      const limited = await postForm(ctx, "/forgot", {
        email: "bea@example.org",
      });
      assert.equal(limited.status, 429);
      assert.ok(limited.headers.get("retry-after"));
      // Per client: ten an hour, whatever the addresses (this client has
      // made five).
      for (let i = 0; i < 5; i++) {
        const res = await postForm(ctx, "/forgot", {
          email: `someone${i}@example.org`,
        });
        assert.equal(res.status, 200, `request ${i}`);
      }
      const client = await postForm(ctx, "/forgot", {
        email: "someone-else@example.org",
      });
      assert.equal(client.status, 429);
    } finally {
      await close();
    }
  },
});

/** Signs in as a new admin and returns the cookie and the users page's CSRF token. */
async function adminOf(ctx: TestContext) {
  const admin = await createTestUser(ctx, { role: "admin" });
  const cookie = await signIn(ctx, admin);
  return { cookie, csrf: await csrfFrom(ctx, "/admin/users", cookie) };
}

Deno.test({
  name:
    "mail: an admin mails or shows a one-time password link for an existing account; inviting its address offers that instead of a 409 dead end",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ctx, smtp, close } = await mailingApp();
    try {
      const imported = await createTestUser(ctx, { email: "old@example.org" });
      const { cookie, csrf } = await adminOf(ctx);
      const users = await get(ctx, "/admin/users", cookie);
      const html = await users.text();
      assert.match(
        html,
        new RegExp(`/admin/users/${imported.user.id}/password-link`),
      );

      const mailed = await postForm(
        ctx,
        `/admin/users/${imported.user.id}/password-link`,
        { csrf_token: csrf, send: "mail" },
        { cookie },
      );
      assert.equal(mailed.status, 200);
      assert.match(await mailed.text(), /was sent to old@example\.org/);
      const [mail] = await smtp.next(1);
      assert.match(mail.parsed.text ?? "", /An administrator of Quando/);
      const shown = await postForm(
        ctx,
        `/admin/users/${imported.user.id}/password-link`,
        { csrf_token: csrf, send: "show" },
        { cookie },
      );
      const page = await shown.text();
      const url = /value="(http:\/\/quando\.test\/reset\/[A-Za-z0-9_-]{43})"/
        .exec(page)?.[1];
      assert.ok(url, page);
      // The newer link replaced the mailed one.
      const mailedPath = new URL(linkIn(mail, "/reset/")).pathname;
      assert.equal((await get(ctx, mailedPath)).status, 404);
      const path = new URL(url).pathname;
      const set = await postForm(ctx, path, { password: "chosen password 1" });
      assert.equal(set.status, 303);
      await signIn(ctx, {
        email: "old@example.org",
        password: "chosen password 1",
      });

      // Inviting the address of an existing account: no 409 dead end.
      const invite = await postForm(ctx, "/admin/users", {
        csrf_token: csrf,
        email: "old@example.org",
        role: "user",
        how: "invite",
      }, { cookie });
      const answer = await invite.text();
      assert.equal(invite.status, 409);
      assert.match(answer, /An account with this e-mail exists already/);
      assert.match(
        answer,
        new RegExp(`action="/admin/users/${imported.user.id}/password-link"`),
      );
      // Not admins: refused.
      const member = await createTestUser(ctx);
      const memberCookie = await signIn(ctx, member);
      const refused = await postForm(
        ctx,
        `/admin/users/${imported.user.id}/password-link`,
        { csrf_token: csrf, send: "show" },
        { cookie: memberCookie },
      );
      assert.equal(refused.status, 403);
    } finally {
      await close();
    }
  },
});

Deno.test("mail off: /forgot says to ask an admin, an admin's link is shown", async () => {
  const ctx = await createTestApp();
  try {
    const page = await get(ctx, "/forgot");
    assert.match(await page.text(), /sends no e-mail/);
    const asked = await postForm(ctx, "/forgot", { email: "x@example.org" });
    assert.equal(asked.status, 200);
    const user = await createTestUser(ctx);
    const { cookie, csrf } = await adminOf(ctx);
    const usersPage = await (await get(ctx, "/admin/users", cookie)).text();
    assert.match(usersPage, /E-mail is off on this instance/);
    assert.doesNotMatch(usersPage, /E-mail a password link/);
    const shown = await postForm(
      ctx,
      `/admin/users/${user.user.id}/password-link`,
      { csrf_token: csrf, send: "mail" },
      { cookie },
    );
    assert.match(await shown.text(), /\/reset\/[A-Za-z0-9_-]{43}/);
  } finally {
    ctx.close();
  }
});

Deno.test({
  name:
    "mail: a member's mail is in the language they last signed in with; others' in the instance's",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ctx, smtp, close } = await mailingApp();
    try {
      const italian = await createTestUser(ctx, { email: "it@example.org" });
      await createTestUser(ctx, { email: "en@example.org" });
      const res = await postForm(ctx, "/login", {
        email: italian.email,
        password: italian.password,
      }, { "accept-language": "it-IT,it;q=0.9" });
      assert.equal(res.status, 303);
      await postForm(ctx, "/forgot", { email: "it@example.org" });
      const [it] = await smtp.next(1);
      assert.equal(it.parsed.subject, "Quando: scegli la tua password");
      assert.match(it.parsed.text ?? "", /^Ciao,/);
      assert.match(String(it.parsed.html), /<html lang="it">/);
      await postForm(ctx, "/forgot", { email: "en@example.org" });
      const [, en] = await smtp.next(2);
      assert.equal(en.parsed.subject, "Quando: set your password");
    } finally {
      await close();
    }
  },
});

Deno.test({
  name:
    "mail: a deactivated account gets no password link from /forgot (the same answer); an admin's link sets its password and leaves it deactivated",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ctx, smtp, close } = await mailingApp();
    try {
      const off = await createTestUser(ctx, {
        email: "off@example.org",
        is_active: false,
      });
      const asked = await postForm(ctx, "/forgot", {
        email: "off@example.org",
      });
      assert.equal(asked.status, 200);
      assert.match(await asked.text(), /If an account has this address/);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(smtp.received.length, 0);
      const { cookie, csrf } = await adminOf(ctx);
      const shown = await postForm(
        ctx,
        `/admin/users/${off.user.id}/password-link`,
        { csrf_token: csrf, send: "show" },
        { cookie },
      );
      const url = /value="http:\/\/quando\.test(\/reset\/[A-Za-z0-9_-]{43})"/
        .exec(await shown.text())?.[1];
      assert.ok(url);
      assert.equal(
        (await postForm(ctx, url, { password: "a password for later" })).status,
        303,
      );
      const login = await postForm(ctx, "/login", {
        email: "off@example.org",
        password: "a password for later",
      });
      assert.equal(login.status, 401);
    } finally {
      await close();
    }
  },
});
