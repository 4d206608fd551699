/**
 * Mail never hurts the instance: a real SMTP server on loopback that is
 * down, slow, or answers 4xx/5xx loses no message (each is kept, retried
 * with backoff, and visible to admins with its error) and slows no request
 * (/api/health and a POST measured while the mail waits on the server);
 * the HTTP transport posts one JSON message each to a local sink; header
 * injection through addresses, subjects and headers fails.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { mailMessages } from "../db/schema.ts";
import { checkedMail } from "../lib/mail/outbox.ts";
import { createSmtpMailTransport } from "../lib/mail/smtp.ts";
import { createHttpMailTransport } from "../lib/mail/transport.ts";
import {
  createTestApp,
  createTestUser,
  freePort,
  type TestContext,
} from "./helpers.ts";
import { startSmtpServer, type TestSmtpServer } from "./support/mail-server.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, sanitizeResources: false, sanitizeOps: false, fn });

/**
 * An app pinned at the real time (the queue's clock is the system's, so a
 * retry's delay is real) mailing through `smtp`, its queue running.
 */
async function appOver(
  smtp: TestSmtpServer,
  options: { timeoutMs?: number; maxAttempts?: number } = {},
) {
  const ctx = await createTestApp({
    now: new Date().toISOString(),
    mailTransport: createSmtpMailTransport(smtp.url, {
      timeoutMs: options.timeoutMs ?? 5000,
    }),
    mailMaxAttempts: options.maxAttempts,
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  return {
    ctx,
    async close() {
      stop.abort();
      await queue;
      ctx.close();
    },
  };
}

/** The stored messages. */
function stored(ctx: TestContext) {
  return ctx.database.db.select().from(mailMessages);
}

/** Waits until `check` holds (polling), or fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Makes every delayed mail row of the queue due now (the backoff "passes"). */
async function backoffPasses(ctx: TestContext) {
  await ctx.database.db.run(
    `UPDATE fedify_queue SET availableAt = ${Date.now()} WHERE message LIKE '%quando:mail%'`,
  );
}

/** Asks for a password link for `email` (a POST that queues a mail). */
const forgot = (ctx: TestContext, email: string) =>
  postForm(ctx, "/forgot", { email });

for (const code of [451, 550]) {
  test(`mail: an SMTP server answering ${code} loses nothing: the message is retried with backoff, shown to admins, and sent once the server accepts`, async () => {
    const smtp = await startSmtpServer();
    smtp.behaviour = { kind: "refuse", code };
    const { ctx, close } = await appOver(smtp);
    try {
      const member = await createTestUser(ctx, { email: "m@example.org" });
      const admin = await createTestUser(ctx, { role: "admin" });
      assert.equal((await forgot(ctx, member.email)).status, 200);
      await until(async () => (await stored(ctx))[0]?.status === "retrying");
      const [row] = await stored(ctx);
      assert.equal(row.attempts, 1);
      assert.match(row.lastError ?? "", new RegExp(String(code)));
      assert.ok(row.text, "the body is kept for the retry");
      // The retry waits a minute.
      const [queued] = await ctx.database.db.all<{ availableAt: number }>(
        "SELECT availableAt FROM fedify_queue WHERE message LIKE '%quando:mail%'",
      );
      assert.ok(Number(queued.availableAt) > Date.now() + 50_000);
      // Admins see it.
      const cookie = await signIn(ctx, admin);
      const page = await (await get(ctx, "/admin/mail", cookie)).text();
      assert.match(page, /failing, will retry/);
      assert.match(page, new RegExp(String(code)));

      smtp.behaviour = { kind: "accept" };
      await backoffPasses(ctx);
      const [mail] = await smtp.next(1);
      assert.deepEqual(mail.to, ["m@example.org"]);
      await until(async () => (await stored(ctx))[0]?.status === "sent");
      const [sent] = await stored(ctx);
      assert.equal(sent.attempts, 2);
      assert.equal(sent.text, null, "a sent body is not kept");
    } finally {
      await close();
      await smtp.stop();
    }
  });
}

test("mail: an SMTP server that is down loses nothing: the message waits and goes once it is back", async () => {
  const smtp = await startSmtpServer();
  await smtp.stop();
  const { ctx, close } = await appOver(smtp);
  try {
    const member = await createTestUser(ctx, { email: "d@example.org" });
    assert.equal((await forgot(ctx, member.email)).status, 200);
    await until(async () => (await stored(ctx))[0]?.status === "retrying");
    assert.match(
      (await stored(ctx))[0].lastError ?? "",
      /ECONNREFUSED|connect/i,
    );
    await smtp.restart();
    await backoffPasses(ctx);
    const [mail] = await smtp.next(1);
    assert.deepEqual(mail.to, ["d@example.org"]);
  } finally {
    await close();
    await smtp.stop();
  }
});

test("mail: a message given up on stays listed for admins with its error, and an admin can send it again", async () => {
  const smtp = await startSmtpServer();
  smtp.behaviour = { kind: "refuse", code: 554 };
  const { ctx, close } = await appOver(smtp, { maxAttempts: 2 });
  try {
    const member = await createTestUser(ctx, { email: "g@example.org" });
    await forgot(ctx, member.email);
    await until(async () => (await stored(ctx))[0]?.status === "retrying");
    await backoffPasses(ctx);
    await until(async () => (await stored(ctx))[0]?.status === "failed");
    const [row] = await stored(ctx);
    assert.equal(row.attempts, 2);
    const admin = await createTestUser(ctx, { role: "admin" });
    const cookie = await signIn(ctx, admin);
    const page = await (await get(ctx, "/admin/mail", cookie)).text();
    assert.match(page, /given up/);
    assert.match(page, new RegExp(`/admin/mail/${row.id}/retry`));
    smtp.behaviour = { kind: "accept" };
    const csrf = await csrfFrom(ctx, "/admin/mail", cookie);
    const retried = await postForm(ctx, `/admin/mail/${row.id}/retry`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(retried.status, 303);
    await smtp.next(1);
    await until(async () => (await stored(ctx))[0]?.status === "sent");
    // Only a failed message can be sent again.
    const again = await postForm(ctx, `/admin/mail/${row.id}/retry`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(again.status, 404);
  } finally {
    await close();
    await smtp.stop();
  }
});

/** The median of `n` timings of `request` (ms). */
async function medianMs(n: number, request: () => Promise<Response>) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await request();
    await res.body?.cancel();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

test("mail: a slow or failing SMTP server slows no request: /api/health and a POST that queues mail stay at their usual latency while mail waits", async () => {
  const smtp = await startSmtpServer();
  const { ctx, close } = await appOver(smtp, { timeoutMs: 20_000 });
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const cookie = await signIn(ctx, admin);
    const csrf = await csrfFrom(ctx, "/admin/users", cookie);
    const health = () => Promise.resolve(ctx.app.request("/api/health"));
    let n = 0;
    // An invitation: a POST that queues a mail (no rate limit to hit).
    const post = () =>
      postForm(ctx, "/admin/users", {
        csrf_token: csrf,
        email: `guest${n++}@example.org`,
        role: "user",
        how: "invite",
      }, { cookie });
    // Usual latency, the server answering at once.
    await medianMs(3, health);
    const usualHealth = await medianMs(7, health);
    const usualPost = await medianMs(5, post);
    await smtp.next(5);
    // Now every message takes the server 4 s: measured once one is held.
    smtp.behaviour = { kind: "slow", ms: 4000 };
    const held = performance.now();
    await post();
    await until(() => Promise.resolve(smtp.attempts >= 6));
    const slowHealth = await medianMs(7, health);
    const slowPost = await medianMs(5, post);
    // All of it while the server still held that message.
    assert.ok(performance.now() - held < 4000);
    assert.equal(smtp.received.length, 5);
    console.log(
      `usual: health ${usualHealth.toFixed(1)} ms, POST ${
        usualPost.toFixed(1)
      } ms; while mail waits on a slow server: health ${
        slowHealth.toFixed(1)
      } ms, POST ${slowPost.toFixed(1)} ms`,
    );
    // A request waiting on SMTP would take 4 s; a margin for a loaded machine.
    assert.ok(slowHealth < Math.max(usualHealth * 3, 50), `${slowHealth}`);
    assert.ok(slowPost < Math.max(usualPost * 3, 150), `${slowPost}`);
    // And a refusing server: the same.
    smtp.behaviour = { kind: "refuse", code: 451 };
    const refusedPost = await medianMs(5, post);
    assert.ok(refusedPost < Math.max(usualPost * 3, 150), `${refusedPost}`);
    // Every message is still accounted for: sent, or waiting to be.
    const rows = await stored(ctx);
    assert.equal(rows.length, 16);
    assert.equal(new Set(rows.map((r) => r.recipient)).size, 16);
    assert.ok(
      rows.every((r) => ["queued", "retrying", "sent"].includes(r.status)),
    );
  } finally {
    await close();
    await smtp.stop();
  }
});

test("mail: the HTTP transport posts one JSON message each, with the token, to the configured URL; a failing API is retried", async () => {
  const received: { auth: string | null; body: Record<string, unknown> }[] = [];
  let failNext = true;
  const port = freePort();
  const sink = Deno.serve(
    { port, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      const body = await request.json();
      if (failNext) {
        failNext = false;
        return new Response("busy", { status: 503 });
      }
      received.push({ auth: request.headers.get("authorization"), body });
      return Response.json({ id: "ok" });
    },
  );
  const ctx = await createTestApp({
    now: new Date().toISOString(),
    mailTransport: createHttpMailTransport({
      url: `http://127.0.0.1:${port}/send`,
      token: "api-token",
    }),
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await createTestUser(ctx, { email: "h@example.org" });
    assert.equal((await forgot(ctx, "h@example.org")).status, 200);
    await until(async () => (await stored(ctx))[0]?.status === "retrying");
    assert.match((await stored(ctx))[0].lastError ?? "", /HTTP 503/);
    await backoffPasses(ctx);
    await until(() => Promise.resolve(received.length === 1));
    const [{ auth, body }] = received;
    assert.equal(auth, "Bearer api-token");
    assert.equal(body.to, "h@example.org");
    assert.equal(body.from, "Quando <noreply@quando.test>");
    assert.equal(body.subject, "Quando: set your password");
    assert.match(String(body.text), /http:\/\/quando\.test\/reset\//);
    assert.match(String(body.html), /<a href="http:\/\/quando\.test\/reset\//);
    const headers = body.headers as Record<string, string>;
    assert.match(headers["Message-ID"], /^<[A-Za-z0-9_-]+@quando\.test>$/);
    assert.ok(Date.parse(headers["Date"]) > 0);
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await sink.shutdown();
  }
});

test("mail: header injection fails: CR/LF in addresses and headers is refused, in subjects folded, and forms refuse such addresses", async () => {
  const base = {
    kind: "test",
    to: "a@example.org",
    subject: "Hi",
    text: "t",
    html: "<p>t</p>",
  };
  assert.throws(() =>
    checkedMail({ ...base, to: "a@example.org\r\nBcc: x@evil.example" })
  );
  assert.throws(() => checkedMail({ ...base, to: "A <a@example.org>" }));
  assert.throws(() =>
    checkedMail({ ...base, to: "a@example.org, b@example.org" })
  );
  assert.throws(() =>
    checkedMail({ ...base, headers: { "X-A": "1\r\nBcc: x@evil.example" } })
  );
  assert.throws(() => checkedMail({ ...base, headers: { "X-A\r\nB": "1" } }));
  assert.equal(
    checkedMail({ ...base, subject: "Hi\r\nBcc: x@evil.example" }).subject,
    "Hi Bcc: x@evil.example",
  );

  // Through the pages: such an address is a bad address, nothing is sent.
  const smtp = await startSmtpServer();
  const { ctx, close } = await appOver(smtp);
  try {
    await createTestUser(ctx, { email: "v@example.org" });
    const res = await forgot(ctx, "v@example.org\r\nBcc: x@evil.example");
    assert.equal(res.status, 400);
    const rows = await ctx.database.db.select().from(mailMessages).where(
      eq(mailMessages.recipient, "v@example.org"),
    );
    assert.equal(rows.length, 0);
    // A subject built from a title with a line break arrives as one header.
    await ctx.mailer.queue({
      ...base,
      to: "v@example.org",
      subject: "Title\r\nBcc: x@evil.example",
    });
    const [mail] = await smtp.next(1);
    assert.deepEqual(mail.to, ["v@example.org"]);
    assert.equal(mail.parsed.headers.get("bcc"), undefined);
    assert.equal(mail.parsed.subject, "Title Bcc: x@evil.example");
  } finally {
    await close();
    await smtp.stop();
  }
});

test("mail configuration: SMTP_URL or MAIL_HTTP_URL (not both), MAIL_FROM on one line; a Worker without SMTP keeps mail off", async () => {
  const { loadConfig, ConfigError } = await import("../lib/config.ts");
  const { configuredMailTransport } = await import("../lib/assemble.ts");
  const { silentLogger } = await import("../lib/log.ts");
  assert.equal(loadConfig({}).mail, undefined);
  const smtp = loadConfig({
    SMTP_URL: "smtps://u:p@mail.example.org:465",
    BASE_URL: "https://events.example.org",
  });
  assert.deepEqual(smtp.mail, {
    smtpUrl: "smtps://u:p@mail.example.org:465",
    httpUrl: undefined,
    httpToken: undefined,
    from: "noreply@events.example.org",
  });
  assert.throws(
    () =>
      loadConfig({
        SMTP_URL: "smtp://mail.example.org",
        MAIL_HTTP_URL: "https://api.example.org/send",
      }),
    ConfigError,
  );
  assert.throws(
    () => loadConfig({ SMTP_URL: "http://x.example" }),
    ConfigError,
  );
  assert.throws(
    () =>
      loadConfig({
        SMTP_URL: "smtp://mail.example.org",
        MAIL_FROM: "a@example.org\r\nBcc: x@evil.example",
      }),
    ConfigError,
  );
  const http = loadConfig({
    MAIL_HTTP_URL: "https://api.example.org/send",
    MAIL_HTTP_TOKEN: "t",
    MAIL_FROM: "Events <events@example.org>",
  });
  assert.equal(configuredMailTransport(http, silentLogger)?.kind, "http");
  // SMTP where no SMTP transport was built (a Worker): off, with a warning.
  const warnings: string[] = [];
  const log = { ...silentLogger, warning: (m: string) => warnings.push(m) };
  assert.equal(configuredMailTransport(smtp, log), undefined);
  assert.match(warnings[0], /MAIL_HTTP_URL/);
});

test("mail: messages settled a month ago and links expired a day ago are forgotten by the hourly jobs", async () => {
  const { runScheduledJobs } = await import("../lib/jobs.ts");
  const { createDbMediaStore } = await import("../lib/media/store.ts");
  const { silentLogger } = await import("../lib/log.ts");
  const { accountLinks } = await import("../db/schema.ts");
  const { createAccountLink } = await import("../lib/auth/account-links.ts");
  const ctx = await createTestApp();
  try {
    const { db } = ctx.database;
    const now = ctx.clock.now();
    const row = (
      id: string,
      status: "sent" | "failed" | "retrying",
      daysAgo: number,
    ) => ({
      id,
      kind: "test",
      recipient: "a@example.org",
      subject: "s",
      status,
      createdAt: new Date(now.getTime() - daysAgo * 86_400_000),
      updatedAt: new Date(now.getTime() - daysAgo * 86_400_000),
    });
    await db.insert(mailMessages).values([
      row("old-sent", "sent", 31),
      row("old-failed", "failed", 31),
      row("new-sent", "sent", 29),
      row("old-retrying", "retrying", 31),
    ]);
    await createAccountLink(db, ctx.clock, {
      kind: "register",
      email: "old@example.org",
      ttlMs: -2 * 86_400_000,
    });
    await createAccountLink(db, ctx.clock, {
      kind: "register",
      email: "new@example.org",
      ttlMs: 3600_000,
    });
    const result = await runScheduledJobs({
      db,
      clock: ctx.clock,
      log: silentLogger,
      media: createDbMediaStore(db, ctx.clock),
    });
    assert.deepEqual(result.failed, []);
    const left = (await db.select().from(mailMessages)).map((r) => r.id).sort();
    assert.deepEqual(left, ["new-sent", "old-retrying"]);
    const links = (await db.select().from(accountLinks)).map((l) => l.email);
    assert.deepEqual(links, ["new@example.org"]);
  } finally {
    ctx.close();
  }
});

test("mail: a slow SMTP server holds at most two of the queue's slots; every message still goes", async () => {
  const smtp = await startSmtpServer();
  smtp.behaviour = { kind: "slow", ms: 1500 };
  const { ctx, close } = await appOver(smtp);
  try {
    for (let i = 0; i < 6; i++) {
      await createTestUser(ctx, { email: `s${i}@example.org` });
      assert.equal((await forgot(ctx, `s${i}@example.org`)).status, 200);
    }
    const received = await smtp.next(6, 30_000);
    assert.equal(new Set(received.flatMap((m) => m.to)).size, 6);
    assert.ok(smtp.maxConnections <= 2, `${smtp.maxConnections} at once`);
  } finally {
    await close();
    await smtp.stop();
  }
});
