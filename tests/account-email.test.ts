/**
 * The account's e-mail change (`POST /account/email`) tells nobody whether
 * another account has an address: a taken address and a free one get the
 * same answer and the same page afterwards (but for the address in force),
 * the taken one stays with its account, and the changes are rate limited per
 * account and per client address (docs/SECURITY.md, "Browser sessions").
 */
import assert from "node:assert/strict";
import {
  call,
  createTestApp,
  createTestUser,
  loginToken,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { csrfOf, get, postForm, signIn } from "./web-helpers.ts";

/** A member signed in through the form, with a poster of the e-mail form. */
async function member(ctx: TestContext) {
  // A password of its own, so no other test user's opens this account.
  const who = await createTestUser(ctx, {
    role: "user",
    password: `member password ${crypto.randomUUID()}`,
  });
  const cookie = await signIn(ctx, who);
  const csrf = csrfOf(await (await get(ctx, "/account", cookie)).text());
  const change = (
    email: string,
    options: { password?: string; from?: string } = {},
  ) =>
    postForm(ctx, "/account/email", {
      csrf_token: csrf,
      email,
      password: options.password ?? who.password,
    }, {
      cookie,
      ...(options.from ? { "x-forwarded-for": options.from } : {}),
    });
  return { ...who, cookie, change };
}

/** What a client can see of an answer: status, headers but the date, body. */
async function seen(res: Response) {
  const headers = [...res.headers].filter(([name]) => name !== "date");
  return { status: res.status, headers, body: await res.text() };
}

/** The account page with the address in force and the per-page nonce blanked out. */
function blanked(html: string, address: string): string {
  return html.replaceAll(address, "ADDRESS")
    .replace(/'nonce-[A-Za-z0-9+/=_-]+'/g, "'nonce-X'")
    .replace(/nonce="[^"]+"/g, 'nonce="X"');
}

/** Whether the API lets `email` sign in with `password`. */
async function signsIn(ctx: TestContext, email: string, password: string) {
  const res = await call(ctx, "POST", "/api/login/token", {
    json: { email, password },
  });
  await res.body?.cancel();
  return res.status === 200;
}

Deno.test("e-mail change: a taken address and a free one get byte-identical answers and pages; the taken one stays with its account", async () => {
  const ctx = await createTestApp();
  try {
    const me = await member(ctx);
    const other = await createTestUser(ctx, { role: "user" });

    // Taken, as it is stored and in another spelling.
    const taken = await seen(await me.change(other.email));
    const takenAgain = await seen(await me.change(other.email.toUpperCase()));
    const afterTaken = await seen(
      await get(ctx, "/account?email=1", me.cookie),
    );
    const free = await seen(await me.change("free@example.org"));
    const afterFree = await seen(await get(ctx, "/account?email=1", me.cookie));

    assert.equal(taken.status, 303);
    assert.deepEqual(taken, free);
    assert.deepEqual(takenAgain, free);
    assert.equal(
      taken.headers.find(([name]) => name === "location")?.[1],
      "/account?email=1",
    );
    assert.equal(afterTaken.status, 200);
    assert.equal(
      blanked(JSON.stringify(afterTaken.headers), me.email),
      blanked(JSON.stringify(afterFree.headers), "free@example.org"),
    );
    assert.equal(
      blanked(afterTaken.body, me.email),
      blanked(afterFree.body, "free@example.org"),
    );
    assert.match(
      afterFree.body,
      /If no other account uses that address, it is now your sign-in address\./,
    );

    // Nothing was stolen: the other account keeps its address; this one
    // kept its own until the free address.
    assert.ok(await signsIn(ctx, other.email, other.password));
    assert.ok(!await signsIn(ctx, other.email, me.password));
    const token = await loginToken(ctx, other.email, other.password);
    const them = await call(ctx, "GET", "/api/users/me", { token });
    assert.equal((await them.json()).email, other.email);
    assert.match(afterTaken.body, new RegExp(`Now: ${me.email}`));
    assert.ok(await signsIn(ctx, "free@example.org", me.password));
    assert.ok(!await signsIn(ctx, me.email, me.password));
  } finally {
    ctx.close();
  }
});

Deno.test("e-mail change: the notice says the same in Italian, taken or free", async () => {
  const ctx = await createTestApp();
  try {
    const me = await member(ctx);
    const other = await createTestUser(ctx, { role: "user" });
    await me.change(other.email);
    const page = await (await get(ctx, "/account?email=1&lang=it", me.cookie))
      .text();
    assert.match(
      page,
      /Se nessun altro account usa quell&#39;indirizzo, ora è quello con cui accedi\./,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("e-mail change: five an hour per account, then 429 with Retry-After that changes nothing; wrong passwords do not count", async () => {
  const ctx = await createTestApp({ env: { TRUST_PROXY: "true" } });
  try {
    const me = await member(ctx);
    const other = await createTestUser(ctx, { role: "user" });
    // A wrong password is the login limit's business, not a change.
    for (let i = 0; i < 2; i++) {
      const wrong = await me.change("x@example.org", {
        password: "not the password",
      });
      assert.equal(wrong.status, 403);
      await wrong.body?.cancel();
    }
    // Taken and free alike count, from any address.
    const tries = [other.email, "a@example.org", other.email, "b@example.org"];
    for (const [i, email] of tries.entries()) {
      const res = await me.change(email, { from: `203.0.113.${i + 1}` });
      assert.equal(res.status, 303, email);
      ctx.clock.advance(60_000);
    }
    const fifth = await me.change("c@example.org", { from: "203.0.113.9" });
    assert.equal(fifth.status, 303);

    for (const email of ["d@example.org", other.email]) {
      const limited = await me.change(email, { from: "198.51.100.1" });
      assert.equal(limited.status, 429, email);
      const retryAfter = Number(limited.headers.get("retry-after"));
      // The first change leaves the hour about 56 minutes from now.
      assert.ok(
        retryAfter > 55 * 60 && retryAfter <= 3600,
        `Retry-After ${retryAfter}`,
      );
      const html = await limited.text();
      assert.match(html, /Too many attempts: wait a while and try again\./);
      assert.ok(html.includes(`value="${email}"`), "typed e-mail kept");
    }
    // Nothing changed: the fifth address is still the one in force.
    assert.ok(!await signsIn(ctx, "d@example.org", me.password));
    assert.ok(await signsIn(ctx, "c@example.org", me.password));
    assert.ok(await signsIn(ctx, other.email, other.password));
    assert.match(
      await (await get(ctx, "/account", me.cookie)).text(),
      /Now: c@example\.org/,
    );

    // An hour after the first change, one more is allowed.
    ctx.clock.advance(56 * 60_000);
    const later = await me.change("d@example.org");
    assert.equal(later.status, 303);
    await later.body?.cancel();
    assert.ok(await signsIn(ctx, "d@example.org", me.password));
  } finally {
    ctx.close();
  }
});

Deno.test("e-mail change: five an hour per client address, whichever accounts post; other addresses are not held back", async () => {
  const ctx = await createTestApp({ env: { TRUST_PROXY: "true" } });
  try {
    const from = "203.0.113.7";
    const accounts = [await member(ctx), await member(ctx), await member(ctx)];
    for (let i = 0; i < 5; i++) {
      const res = await accounts[i % 2].change(`probe${i}@example.org`, {
        from,
      });
      assert.equal(res.status, 303, `change ${i}`);
      await res.body?.cancel();
    }
    const limited = await accounts[2].change("third@example.org", { from });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    await limited.body?.cancel();
    assert.ok(!await signsIn(ctx, "third@example.org", accounts[2].password));
    const elsewhere = await accounts[2].change("third@example.org", {
      from: "198.51.100.2",
    });
    assert.equal(elsewhere.status, 303);
    await elsewhere.body?.cancel();
    assert.ok(await signsIn(ctx, "third@example.org", accounts[2].password));
  } finally {
    ctx.close();
  }
});

Deno.test("e-mail change: parallel posts cannot pass the limit", async () => {
  const ctx = await createTestApp();
  try {
    const me = await member(ctx);
    const other = await createTestUser(ctx, { role: "user" });
    // A taken address, so that no post changes the account under the others.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => me.change(other.email)),
    );
    const statuses = answers.map((res) => res.status).sort();
    await Promise.all(answers.map((res) => res.body?.cancel()));
    assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429, 429, 429]);
  } finally {
    ctx.close();
  }
});

Deno.test("e-mail change: the API offers members no way to change an address (only the account page does)", async () => {
  const ctx = await createTestApp();
  try {
    const me = await userWithToken(ctx, "user");
    const other = await createTestUser(ctx, { role: "user" });
    for (
      const [method, path] of [
        ["PATCH", "/api/users/me"],
        ["PUT", "/api/users/me"],
        ["PATCH", `/api/users/${me.user.id}`],
        ["PUT", `/api/users/${me.user.id}`],
      ] as const
    ) {
      const res = await call(ctx, method, path, {
        token: me.token,
        json: { email: other.email },
      });
      // Refused alike whatever the address: 403 (admins only) or no route.
      assert.ok([403, 404].includes(res.status), `${method} ${path}`);
      await res.body?.cancel();
    }
    const self = await call(ctx, "GET", "/api/users/me", { token: me.token });
    assert.equal((await self.json()).email, me.email);
  } finally {
    ctx.close();
  }
});
