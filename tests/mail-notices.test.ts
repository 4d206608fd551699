/**
 * The mail the instance sends on its own and for confirmations, over a real
 * SMTP server on loopback, each message parsed with a MIME parser:
 * registration confirmed by its link, a changed address confirmed at the
 * new one, invitations, moderators' batched notices (opt-out), authors told
 * of confirmation, rejection and messages.
 */
import assert from "node:assert/strict";
import { createSmtpMailTransport } from "../lib/mail/smtp.ts";
import {
  call,
  createTestApp,
  createTestUser,
  loginToken,
  postEvent,
  type TestContext,
} from "./helpers.ts";
import { linkIn, startSmtpServer } from "./support/mail-server.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

/**
 * An app mailing through a fresh SMTP server, its queue running. The queue
 * runs on the system clock: the app's pinned clock starts at the real time
 * (`now`) for tests of delayed notices.
 */
async function mailingApp(now?: string) {
  const smtp = await startSmtpServer();
  const ctx = await createTestApp({
    now,
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

/** Sets instance settings through the API as a new admin; returns the admin's token. */
async function settle(ctx: TestContext, json: Record<string, unknown>) {
  const admin = await createTestUser(ctx, { role: "admin" });
  const token = await loginToken(ctx, admin.email, admin.password);
  const res = await call(ctx, "PUT", "/api/settings", { token, json });
  assert.equal(res.status, 200, await res.text());
  return { ...admin, token };
}

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, sanitizeResources: false, sanitizeOps: false, fn });

test("mail: registration is confirmed by the mailed link, and the account opens only then; a taken address gets a note and the same answer", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    await settle(ctx, { allow_registration: true, instance_title: "Bologna" });
    const res = await postForm(ctx, "/register", {
      email: "new@example.org",
      password: "a good password",
    });
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /open the link we sent to new@example\.org/);
    assert.equal(res.headers.get("set-cookie"), null);
    // Not usable before the link.
    const early = await postForm(ctx, "/login", {
      email: "new@example.org",
      password: "a good password",
    });
    assert.equal(early.status, 401);
    const [mail] = await smtp.next(1);
    assert.equal(mail.parsed.subject, "Bologna: confirm your address");
    assert.ok(mail.parsed.html);
    const path = new URL(linkIn(mail, "/confirm/")).pathname;
    // A GET (a mail scanner) spends nothing.
    assert.equal((await get(ctx, path)).status, 200);
    assert.equal((await get(ctx, path)).status, 200);
    const done = await postForm(ctx, path, {});
    assert.equal(done.status, 303);
    assert.ok(done.headers.get("set-cookie"));
    await signIn(ctx, {
      email: "new@example.org",
      password: "a good password",
    });
    assert.equal((await postForm(ctx, path, {})).status, 410);

    // The same answer for an address with an account; it is told instead.
    const again = await postForm(ctx, "/register", {
      email: "new@example.org",
      password: "another password",
    });
    assert.equal(again.status, 200);
    assert.match(
      await again.text(),
      /open the link we sent to new@example\.org/,
    );
    const [, note] = await smtp.next(2);
    assert.equal(note.parsed.subject, "Bologna: your account");
    assert.match(note.parsed.text ?? "", /http:\/\/quando\.test\/forgot/);
  } finally {
    await close();
  }
});

test("mail: with registration_approval on, the mailed link confirms the address and the account then waits for an admin: no session, pending and inactive", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    const admin = await settle(ctx, {
      allow_registration: true,
      registration_approval: true,
    });
    const res = await postForm(ctx, "/register", {
      email: "waiting@example.org",
      password: "a good password",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const [mail] = await smtp.next(1);
    const path = new URL(linkIn(mail, "/confirm/")).pathname;
    const done = await postForm(ctx, path, {});
    assert.equal(done.status, 200);
    assert.equal(done.headers.get("set-cookie"), null);
    assert.match(await done.text(), /Your account waits for approval/);
    const users = await call(ctx, "GET", "/api/users", {
      token: admin.token,
    });
    const made = (await users.json()).data.find((
      u: { email: string },
    ) => u.email === "waiting@example.org");
    assert.equal(made.pending, true);
    assert.equal(made.is_active, false);
    const login = await call(ctx, "POST", "/api/login/token", {
      json: { email: "waiting@example.org", password: "a good password" },
    });
    assert.equal(login.status, 403);
    await login.body?.cancel();
  } finally {
    await close();
  }
});

test("mail: a changed address takes effect only through the link sent to it; the page says the same for a taken address", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    const member = await createTestUser(ctx, { email: "me@example.org" });
    await createTestUser(ctx, { email: "taken@example.org" });
    const cookie = await signIn(ctx, member);
    const csrf = await csrfFrom(ctx, "/account", cookie);
    const change = (email: string) =>
      postForm(ctx, "/account/email", {
        csrf_token: csrf,
        email,
        password: member.password,
      }, { cookie });
    const free = await change("fresh@example.org");
    const taken = await change("taken@example.org");
    assert.equal(free.status, 303);
    assert.equal(taken.status, 303);
    const shown = async (res: Response) => {
      const page = await get(ctx, res.headers.get("location")!, cookie);
      return (await page.text()).replace(/nonce[^ ]+/g, "");
    };
    const freePage = await shown(free);
    assert.match(freePage, /We sent a link to fresh@example\.org/);
    // Nothing changed yet: the account page shows the old address.
    assert.match(freePage, /me@example\.org/);
    assert.match(await shown(taken), /We sent a link to taken@example\.org/);
    const [mail] = await smtp.next(1);
    assert.deepEqual(mail.to, ["fresh@example.org"]);
    assert.equal(mail.parsed.subject, "Quando: confirm your new address");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.received.length, 1, "nothing is sent to a taken address");
    const path = new URL(linkIn(mail, "/confirm/")).pathname;
    const done = await postForm(ctx, path, {});
    assert.equal(done.status, 200);
    assert.match(await done.text(), /confirmed: fresh@example\.org/);
    await signIn(ctx, {
      email: "fresh@example.org",
      password: member.password,
    });
  } finally {
    await close();
  }
});

test("mail: an invitation is mailed to the invited address and still shown to the admin", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const cookie = await signIn(ctx, admin);
    const csrf = await csrfFrom(ctx, "/admin/users", cookie);
    const res = await postForm(ctx, "/admin/users", {
      csrf_token: csrf,
      email: "guest@example.org",
      role: "editor",
      how: "invite",
    }, { cookie });
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /The invitation was sent to guest@example\.org/);
    const shown = /value="(http:\/\/quando\.test\/invite\/[^"]+)"/.exec(page)
      ?.[1];
    assert.ok(shown);
    const [mail] = await smtp.next(1);
    assert.equal(mail.parsed.subject, "Quando: you are invited");
    assert.equal(linkIn(mail, "/invite/"), shown);
    assert.match(mail.parsed.text ?? "", /\(Editor\)/i);
  } finally {
    await close();
  }
});

test("mail: moderators get at most one notice of submissions per 15 minutes, with the count; one who opted out gets none", async () => {
  // Two minutes ago: what the app writes is due on the queue's clock.
  const { ctx, smtp, close } = await mailingApp(
    new Date(Date.now() - 120_000).toISOString(),
  );
  try {
    await settle(ctx, { allow_anon_event: true });
    const editor = await createTestUser(ctx, {
      role: "editor",
      email: "editor@example.org",
    });
    const quiet = await createTestUser(ctx, {
      role: "editor",
      email: "quiet@example.org",
    });
    const quietCookie = await signIn(ctx, quiet);
    const optOut = await postForm(ctx, "/account/notifications", {
      csrf_token: await csrfFrom(ctx, "/account", quietCookie),
    }, { cookie: quietCookie });
    assert.equal(optOut.status, 303);
    const account = await (await get(ctx, "/account", quietCookie)).text();
    assert.match(account, /name="submissions"(?! checked)/);

    await postEvent(ctx, undefined, { title: "First" });
    // The admin of settle() and the editor get one each.
    const first = await smtp.next(2);
    const to = first.flatMap((m) => m.to).sort();
    assert.ok(to.includes("editor@example.org"));
    assert.ok(!to.includes("quiet@example.org"));
    const editorMail = first.find((m) => m.to[0] === "editor@example.org")!;
    assert.equal(
      editorMail.parsed.subject,
      "Quando: 1 event(s) waiting for moderation",
    );
    assert.match(
      editorMail.raw,
      /^List-Unsubscribe: <http:\/\/quando\.test\/account>\r$/m,
    );
    // Two more within 15 minutes: nothing yet.
    ctx.clock.advance(60_000);
    await postEvent(ctx, undefined, { title: "Second" });
    await postEvent(ctx, undefined, { title: "Third" });
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(
      smtp.received.length,
      2,
      JSON.stringify(smtp.received.map((m) => [m.to, m.parsed.subject])),
    );
    // One notice waits per moderator, due 15 minutes after the first.
    const waiting = await ctx.database.db.all<{ availableAt: number }>(
      "SELECT availableAt FROM fedify_queue WHERE orderingKey LIKE 'quando:mail-submissions:%'",
    );
    assert.equal(waiting.length, 2);
    const due = ctx.clock.now().getTime() - 60_000 + 15 * 60_000;
    assert.ok(due > Date.now());
    for (const row of waiting) assert.equal(Number(row.availableAt), due);
    // 15 minutes pass (the queue's clock is the system's: the rows are
    // made due): one notice each, counting the new ones.
    await ctx.database.db.run(
      `UPDATE fedify_queue SET availableAt = ${Date.now()} WHERE orderingKey LIKE 'quando:mail-submissions:%'`,
    );
    const all = await smtp.next(4);
    const later = all.slice(2).find((m) => m.to[0] === "editor@example.org");
    assert.equal(
      later?.parsed.subject,
      "Quando: 2 event(s) waiting for moderation",
    );
    assert.ok(!all.some((m) => m.to.includes("quiet@example.org")));
    void editor;
  } finally {
    await close();
  }
});

test("mail: an author is told when their event is confirmed, rejected (with the moderator's message) or messaged", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    const author = await createTestUser(ctx, { email: "author@example.org" });
    const token = await loginToken(ctx, author.email, author.password);
    // The author opts nothing; moderators' notices are switched off here.
    const editor = await createTestUser(ctx, { role: "editor" });
    await ctx.database.db.run("UPDATE users SET notify_submissions = 0");
    const cookie = await signIn(ctx, editor);
    const csrf = await csrfFrom(ctx, "/admin", cookie);
    const one = await postEvent(ctx, token, {
      title: "Jazz",
      is_visible: false,
    });
    const two = await postEvent(ctx, token, {
      title: "Bad <b>idea</b>\r\nBcc: x@evil.example",
      is_visible: false,
    });

    const message = await postForm(ctx, `/admin/events/${one.id}/messages`, {
      csrf_token: csrf,
      message: "Please add the price.\n\nThanks!",
      is_author_visible: "on",
    }, { cookie });
    assert.equal(message.status, 303);
    const [messaged] = await smtp.next(1);
    assert.deepEqual(messaged.to, ["author@example.org"]);
    assert.equal(
      messaged.parsed.subject,
      "Quando: a message about your event",
    );
    assert.match(messaged.parsed.text ?? "", /> Please add the price\./);
    assert.match(String(messaged.parsed.html), /<blockquote/);

    const confirm = await postForm(ctx, `/admin/events/${one.id}/confirm`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(confirm.status, 303);
    const [, confirmed] = await smtp.next(2);
    assert.equal(confirmed.parsed.subject, "Quando: your event is published");
    assert.match(confirmed.parsed.text ?? "", /http:\/\/quando\.test\/event\//);

    const reject = await postForm(ctx, `/admin/events/${two.id}/reject`, {
      csrf_token: csrf,
      message: "Not a local event, sorry.",
    }, { cookie });
    assert.equal(reject.status, 303);
    const [, , rejected] = await smtp.next(3);
    assert.equal(
      rejected.parsed.subject,
      "Quando: your event was not accepted",
    );
    assert.match(rejected.parsed.text ?? "", /> Not a local event, sorry\./);
    // The title's line break and markup stay text: no header, no tag.
    assert.equal(rejected.parsed.headers.get("bcc"), undefined);
    assert.deepEqual(rejected.to, ["author@example.org"]);
    assert.doesNotMatch(String(rejected.parsed.html), /<b>idea/);
    assert.match(String(rejected.parsed.html), /&lt;b&gt;idea/);
  } finally {
    await close();
  }
});

test("mail: through the API too, an author is told of a message, a confirmation and the deletion of a waiting submission (a rejection, with the latest message they may see); acting on one's own event sends nothing", async () => {
  const { ctx, smtp, close } = await mailingApp();
  try {
    await ctx.database.db.run("UPDATE users SET notify_submissions = 0");
    const author = await createTestUser(ctx, { email: "api@example.org" });
    const token = await loginToken(ctx, author.email, author.password);
    const editor = await createTestUser(ctx, { role: "editor" });
    const editorToken = await loginToken(ctx, editor.email, editor.password);
    await ctx.database.db.run("UPDATE users SET notify_submissions = 0");
    const one = await postEvent(ctx, token, {
      title: "One",
      is_visible: false,
    });
    const two = await postEvent(ctx, token, {
      title: "Two",
      is_visible: false,
    });
    // The author's own note and own toggle: nothing is mailed.
    const own = await call(ctx, "POST", `/api/events/${one.id}/messages`, {
      token,
      json: { message: "Note to self" },
    });
    assert.equal(own.status, 201);
    const note = await call(ctx, "POST", `/api/events/${two.id}/messages`, {
      token: editorToken,
      json: { message: "Too vague.", is_author_visible: true },
    });
    assert.equal(note.status, 201);
    const [messaged] = await smtp.next(1);
    assert.equal(messaged.parsed.subject, "Quando: a message about your event");
    const toggled = await call(ctx, "PUT", `/api/events/${one.id}/toggle`, {
      token: editorToken,
    });
    assert.equal(toggled.status, 200, await toggled.text());
    const [, confirmed] = await smtp.next(2);
    assert.equal(confirmed.parsed.subject, "Quando: your event is published");
    const deleted = await call(ctx, "DELETE", `/api/events/${two.id}`, {
      token: editorToken,
    });
    assert.equal(deleted.status, 204);
    const [, , rejected] = await smtp.next(3);
    assert.equal(
      rejected.parsed.subject,
      "Quando: your event was not accepted",
    );
    assert.match(rejected.parsed.text ?? "", /> Too vague\./);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.received.length, 3);
  } finally {
    await close();
  }
});
