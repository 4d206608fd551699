/**
 * New accounts from one client address are limited (REGISTRATION_LIMIT, five
 * an hour), whether the account opens at once (mail off) or once the mailed
 * link is followed (mail on): past it, /register answers 429 with
 * Retry-After and makes nothing.
 */
import assert from "node:assert/strict";
import type { MailTransport } from "../lib/mail/transport.ts";
import {
  call,
  countRows,
  createTestApp,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { postForm } from "./web-helpers.ts";

/** A transport that is never reached here (the queue does not run). */
const unsentMail: MailTransport = {
  kind: "http",
  send: () => Promise.resolve(),
};

async function openRegistration(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_registration: true },
  });
  assert.equal(res.status, 200, await res.text());
}

for (const mail of [false, true]) {
  Deno.test(`registration: five new accounts an hour from one address, then 429 with Retry-After that makes nothing (mail ${mail ? "on" : "off"})`, async () => {
    const ctx = await createTestApp(
      mail ? { mailTransport: unsentMail } : {},
    );
    try {
      await openRegistration(ctx);
      const register = (i: number) =>
        postForm(ctx, "/register", {
          email: `newcomer${i}@example.org`,
          password: "a long password",
        });
      for (let i = 0; i < 5; i++) {
        const res = await register(i);
        await res.body?.cancel();
        assert.ok(res.status < 400, `registration ${i}: ${res.status}`);
      }
      const users = await countRows(ctx, "users");
      const links = await countRows(ctx, "account_links");
      const limited = await register(5);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.match(await limited.text(), /Too many new accounts from here/);
      assert.equal(await countRows(ctx, "users"), users);
      assert.equal(await countRows(ctx, "account_links"), links);
      // An hour later the address may register again.
      ctx.clock.advance(61 * 60 * 1000);
      const later = await register(6);
      await later.body?.cancel();
      assert.ok(later.status < 400, `an hour later: ${later.status}`);
    } finally {
      ctx.close();
    }
  });
}
