import assert from "node:assert/strict";
import { sign } from "hono/jwt";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  expectError,
  loginToken,
  userWithToken,
} from "./helpers.ts";

Deno.test("login with a JSON body returns a bearer JWT that /api/users/me accepts", async () => {
  const ctx = await createTestApp();
  const { email, password, user } = await createTestUser(ctx, {
    role: "admin",
  });
  const res = await call(ctx, "POST", "/api/login/token", {
    json: { email, password },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    "access_token",
    "expires_in",
    "token_type",
  ]);
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 86_400);
  assert.match(body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const payload = JSON.parse(
    atob(body.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")),
  );
  assert.equal(payload.sub, String(user.id));
  assert.equal(typeof payload.jti, "string");
  assert.equal(payload.exp - payload.iat, 86_400);

  const me = await call(ctx, "GET", "/api/users/me", {
    token: body.access_token,
  });
  assert.equal(me.status, 200);
  const meBody = await me.json();
  assert.equal(meBody.email, email);
  assert.equal(meBody.role, "admin");
  assert.equal("password" in meBody, false);
  ctx.close();
});

Deno.test("login with a form body works, and the e-mail is matched case-insensitively", async () => {
  const ctx = await createTestApp();
  const { email, password } = await createTestUser(ctx);
  const res = await call(ctx, "POST", "/api/login/token", {
    form: { email: `  ${email.toUpperCase()} `, password },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).token_type, "Bearer");
  ctx.close();
});

Deno.test("wrong password, unknown e-mail and a deactivated account get the same 401", async () => {
  const ctx = await createTestApp();
  const active = await createTestUser(ctx);
  const inactive = await createTestUser(ctx, { is_active: false });
  const bodies = [];
  for (
    const attempt of [
      { email: active.email, password: "wrong password" },
      { email: "nobody@example.org", password: "whatever1" },
      { email: inactive.email, password: inactive.password },
    ]
  ) {
    const res = await call(ctx, "POST", "/api/login/token", { json: attempt });
    bodies.push(await expectError(res, 401, "invalid_credentials"));
  }
  assert.deepEqual(bodies[0], bodies[1]);
  assert.deepEqual(bodies[1], bodies[2]);
  ctx.close();
});

Deno.test("login without a field is a 400 naming it", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "POST", "/api/login/token", {
    json: { email: "a@example.org" },
  });
  const body = await expectError(res, 400, "invalid_request");
  assert.ok(
    (body.details as { field: string }[]).some((d) => d.field === "password"),
  );
  const noBody = await call(ctx, "POST", "/api/login/token");
  await expectError(noBody, 415, "unsupported_media_type");
  ctx.close();
});

Deno.test("10 failures in 15 minutes for one e-mail answer 429 with Retry-After", async () => {
  const ctx = await createTestApp();
  const { email, password } = await createTestUser(ctx);
  for (let i = 0; i < 10; i++) {
    const res = await call(ctx, "POST", "/api/login/token", {
      json: { email, password: `wrong-${i}` },
      headers: { "x-forwarded-for": `10.0.0.${i}` },
    });
    await expectError(res, 401);
    ctx.clock.advance(1000);
  }
  // Even the right password is refused while limited.
  const limited = await call(ctx, "POST", "/api/login/token", {
    json: { email, password },
  });
  await expectError(limited, 429, "rate_limited");
  const retryAfter = Number(limited.headers.get("retry-after"));
  assert.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter}`);
  // The first failure leaves the window after about 15 minutes.
  assert.ok(retryAfter > 880, `Retry-After ${retryAfter}`);

  ctx.clock.advance(retryAfter * 1000);
  const again = await call(ctx, "POST", "/api/login/token", {
    json: { email, password },
  });
  assert.equal(again.status, 200);
  ctx.close();
});

Deno.test("10 failures from one address block that address for other e-mails too", async () => {
  const ctx = await createTestApp({ env: { TRUST_PROXY: "true" } });
  const victim = await createTestUser(ctx);
  for (let i = 0; i < 10; i++) {
    const res = await call(ctx, "POST", "/api/login/token", {
      json: { email: `probe${i}@example.org`, password: "guess-guess" },
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    await expectError(res, 401);
  }
  const fromAttacker = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "203.0.113.7" },
  });
  await expectError(fromAttacker, 429);
  assert.ok(Number(fromAttacker.headers.get("retry-after")) > 0);
  const fromElsewhere = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "198.51.100.1" },
  });
  assert.equal(fromElsewhere.status, 200);
  ctx.close();
});

Deno.test("an expired token is a 401 with WWW-Authenticate", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx);
  assert.equal(
    (await call(ctx, "GET", "/api/users/me", { token })).status,
    200,
  );
  ctx.clock.advance(86_400 * 1000 + 1000);
  const res = await call(ctx, "GET", "/api/users/me", { token });
  await expectError(res, 401, "unauthorized");
  assert.match(
    res.headers.get("www-authenticate") ?? "",
    /^Bearer .*invalid_token/,
  );
  ctx.close();
});

Deno.test("tampered, foreign and malformed tokens are 401; no token is 401, never 403", async () => {
  const ctx = await createTestApp();
  const { token, user } = await userWithToken(ctx);
  const [h, p, s] = token.split(".");
  const payload = JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/")));
  const forgedPayload = btoa(JSON.stringify({ ...payload, sub: "999" }))
    .replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const otherSecret = await sign(
    { ...payload, sub: String(user.id) },
    "a-different-secret-of-enough-length-123",
    "HS256",
  );
  const noneAlg = `${
    btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")
  }.${p}.`;
  for (
    const bad of [
      `${h}.${forgedPayload}.${s}`,
      otherSecret,
      noneAlg,
      "not-a-jwt",
      `${token}x`,
    ]
  ) {
    const res = await call(ctx, "GET", "/api/users/me", { token: bad });
    await expectError(res, 401, "unauthorized");
  }
  const missing = await call(ctx, "GET", "/api/users/me");
  await expectError(missing, 401, "unauthorized");
  assert.equal(
    missing.headers.get("www-authenticate"),
    'Bearer realm="quando"',
  );
  const basic = await call(ctx, "GET", "/api/users/me", {
    headers: { authorization: "Basic Zm9vOmJhcg==" },
  });
  await expectError(basic, 401, "unauthorized");
  ctx.close();
});

Deno.test("role and is_active are read from the database on every request", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const other = await userWithToken(ctx, "admin");
  assert.equal(
    (await call(ctx, "GET", "/api/users", { token: other.token })).status,
    200,
  );
  // Demoted: the same token loses admin power at once.
  const demote = await call(ctx, "PATCH", `/api/users/${other.user.id}`, {
    token: admin.token,
    json: { role: "user" },
  });
  assert.equal(demote.status, 200);
  await expectError(
    await call(ctx, "GET", "/api/users", { token: other.token }),
    403,
    "forbidden",
  );
  // Deactivated: the token stops working altogether.
  await call(ctx, "PATCH", `/api/users/${other.user.id}`, {
    token: admin.token,
    json: { is_active: false },
  });
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: other.token }),
    401,
  );
  // And a deactivated user cannot log in again.
  await expectError(
    await call(ctx, "POST", "/api/login/token", {
      json: { email: other.email, password: other.password },
    }),
    401,
    "invalid_credentials",
  );
  assert.equal(await countRows(ctx, "users"), 2);
  ctx.close();
});

Deno.test("a token survives an app restart on the same database", async () => {
  const first = await createTestApp();
  const { email, password } = await createTestUser(first);
  const token = await loginToken(first, email, password);
  const second = await createTestApp({ database: first.database });
  assert.equal(second.config.jwtSecret, first.config.jwtSecret);
  assert.equal(
    (await call(second, "GET", "/api/users/me", { token })).status,
    200,
  );
  first.close();
});

Deno.test("concurrent wrong-password logins for one e-mail: at most 10 are checked, the rest answer 429", async () => {
  const ctx = await createTestApp();
  const { email } = await createTestUser(ctx);
  const responses = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      call(ctx, "POST", "/api/login/token", {
        json: { email, password: `wrong-${i}` },
      })),
  );
  const statuses = responses.map((r) => r.status);
  await Promise.all(responses.map((r) => r.body?.cancel()));
  const unauthorized = statuses.filter((s) => s === 401).length;
  const limited = statuses.filter((s) => s === 429).length;
  assert.equal(unauthorized, 10, `statuses: ${statuses.join(",")}`);
  assert.equal(limited, 50);
  // Exactly ten failures are on record for the e-mail (and for the address).
  assert.equal(await countRows(ctx, "rate_limit_hits"), 20);
  ctx.close();
});

Deno.test("a successful login does not count against its address, even though the attempt is reserved first", async () => {
  const ctx = await createTestApp({ env: { TRUST_PROXY: "true" } });
  const { email, password } = await createTestUser(ctx);
  for (let i = 0; i < 15; i++) {
    const res = await call(ctx, "POST", "/api/login/token", {
      json: { email, password },
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  assert.equal(await countRows(ctx, "rate_limit_hits"), 0);
  ctx.close();
});

Deno.test("TRUST_PROXY: the address is the right-most X-Forwarded-For entry, so rotating the left ones does not dodge the limit", async () => {
  const ctx = await createTestApp({ env: { TRUST_PROXY: "true" } });
  const victim = await createTestUser(ctx);
  for (let i = 0; i < 10; i++) {
    const res = await call(ctx, "POST", "/api/login/token", {
      json: { email: `probe${i}@example.org`, password: "guess-guess" },
      headers: { "x-forwarded-for": `10.9.${i}.1, 203.0.113.7` },
    });
    await expectError(res, 401);
  }
  const rotated = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "10.9.99.1,203.0.113.7" },
  });
  await expectError(rotated, 429, "rate_limited");
  // Another client behind the same proxy is not blocked.
  const other = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "10.9.0.1, 198.51.100.1" },
  });
  assert.equal(other.status, 200);
  ctx.close();
});

Deno.test("TRUSTED_PROXY_HOPS=2: the address is the second entry from the right", async () => {
  const ctx = await createTestApp({
    env: { TRUST_PROXY: "true", TRUSTED_PROXY_HOPS: "2" },
  });
  const victim = await createTestUser(ctx);
  for (let i = 0; i < 10; i++) {
    const res = await call(ctx, "POST", "/api/login/token", {
      json: { email: `probe${i}@example.org`, password: "guess-guess" },
      headers: { "x-forwarded-for": `10.9.${i}.1, 203.0.113.7, 192.0.2.${i}` },
    });
    await expectError(res, 401);
  }
  const blocked = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "1.2.3.4, 203.0.113.7, 192.0.2.200" },
  });
  await expectError(blocked, 429, "rate_limited");
  // Fewer entries than hops: the left-most one, which a trusted proxy wrote.
  const short = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: { "x-forwarded-for": "203.0.113.7" },
  });
  await expectError(short, 429, "rate_limited");
  // CF-Connecting-IP is still taken as it is when TRUST_PROXY is on.
  const cf = await call(ctx, "POST", "/api/login/token", {
    json: { email: victim.email, password: victim.password },
    headers: {
      "cf-connecting-ip": "198.51.100.2",
      "x-forwarded-for": "203.0.113.7, 192.0.2.1",
    },
  });
  assert.equal(cf.status, 200);
  ctx.close();
});
