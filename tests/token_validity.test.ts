/**
 * Tokens end with the password that earned them: a password change (admin
 * PATCH, the CLI, or the user's own PUT /api/users/me/password) and a
 * deactivation end every earlier login token and OAuth grant of the user.
 */
import assert from "node:assert/strict";
import { issueAccessToken } from "../lib/auth/tokens.ts";
import { runUserCommand } from "../lib/cli/users.ts";
import { createJwtCodec } from "../routes/middleware/jwt.ts";
import {
  authorizeCode,
  call,
  createTestApp,
  createTestUser,
  expectError,
  hasher,
  loginToken,
  oauthAccessToken,
  registerTestClient,
  type TestContext,
  type TestUser,
  tokenRequest,
  userWithToken,
} from "./helpers.ts";

const VERIFIER = "token-validity-verifier-0123456789-abcdefghij";

/** Approves a new client for the user and exchanges the code: access and refresh token. */
async function oauthTokens(ctx: TestContext, user: TestUser) {
  const client = await registerTestClient(ctx);
  const code = await authorizeCode(ctx, client, user, { verifier: VERIFIER });
  const basic = { id: client.client_id, secret: client.client_secret! };
  const res = await tokenRequest(ctx, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: VERIFIER,
  }, basic);
  assert.equal(res.status, 200);
  const body = await res.json();
  return {
    access: body.access_token as string,
    refresh: body.refresh_token as string,
    basic,
  };
}

async function status(
  ctx: TestContext,
  method: string,
  path: string,
  token: string,
): Promise<number> {
  const res = await call(ctx, method, path, { token });
  await res.body?.cancel();
  return res.status;
}

/** Asserts that the OAuth pair no longer works: the access token is 401, the refresh token invalid_grant. */
async function assertOAuthRevoked(
  ctx: TestContext,
  tokens: Awaited<ReturnType<typeof oauthTokens>>,
) {
  await expectError(
    await call(ctx, "GET", "/api/events/mine", { token: tokens.access }),
    401,
    "unauthorized",
  );
  const refresh = await tokenRequest(ctx, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh,
  }, tokens.basic);
  assert.equal(refresh.status, 400);
  assert.equal((await refresh.json()).error, "invalid_grant");
}

Deno.test("an admin password reset ends the user's earlier login tokens, even those of the same second", async () => {
  // The clock is pinned: every token here has the same `iat`.
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await userWithToken(ctx, "user");
  const second = await loginToken(ctx, target.email, target.password);
  const res = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
    token: admin.token,
    json: { password: "a brand new one" },
  });
  assert.equal(res.status, 200);
  for (const old of [target.token, second]) {
    await expectError(
      await call(ctx, "GET", "/api/users/me", { token: old }),
      401,
      "unauthorized",
    );
  }
  // A token issued right after the change, in the same second, works.
  const fresh = await loginToken(ctx, target.email, "a brand new one");
  assert.equal(await status(ctx, "GET", "/api/users/me", fresh), 200);
  // Other users' tokens are untouched.
  assert.equal(await status(ctx, "GET", "/api/users", admin.token), 200);
  ctx.close();
});

Deno.test("an admin password reset revokes the user's OAuth grants", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await createTestUser(ctx);
  const tokens = await oauthTokens(ctx, target);
  assert.equal(
    await status(ctx, "GET", "/api/events/mine", tokens.access),
    200,
  );
  const res = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
    token: admin.token,
    json: { password: "a brand new one" },
  });
  assert.equal(res.status, 200);
  await assertOAuthRevoked(ctx, tokens);
  // Authorising again with the new password gives tokens that work.
  const again = await oauthTokens(ctx, {
    ...target,
    password: "a brand new one",
  });
  assert.equal(await status(ctx, "GET", "/api/events/mine", again.access), 200);
  ctx.close();
});

Deno.test("a PATCH that changes no password or state leaves the user's tokens alone", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await userWithToken(ctx, "user");
  const tokens = await oauthTokens(ctx, target);
  const res = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
    token: admin.token,
    json: { description: "still here", role: "editor", is_active: true },
  });
  assert.equal(res.status, 200);
  assert.equal(await status(ctx, "GET", "/api/users/me", target.token), 200);
  assert.equal(
    await status(ctx, "GET", "/api/events/mine", tokens.access),
    200,
  );
  ctx.close();
});

Deno.test("tokens of a deactivated user stay invalid after reactivation", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await userWithToken(ctx, "user");
  const tokens = await oauthTokens(ctx, target);
  for (const is_active of [false, true]) {
    const res = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
      token: admin.token,
      json: { is_active },
    });
    assert.equal(res.status, 200);
  }
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: target.token }),
    401,
    "unauthorized",
  );
  await assertOAuthRevoked(ctx, tokens);
  const fresh = await loginToken(ctx, target.email, target.password);
  assert.equal(await status(ctx, "GET", "/api/users/me", fresh), 200);
  ctx.close();
});

Deno.test("CLI reset-password and set-active end earlier tokens", async () => {
  const ctx = await createTestApp();
  const deps = { db: ctx.database.db, hasher, clock: ctx.clock };
  const io = (passwords: string[] = []) => ({
    readPassword: () => Promise.resolve(passwords.shift() ?? ""),
    out: () => {},
    err: () => {},
  });
  const target = await userWithToken(ctx, "user");
  const tokens = await oauthTokens(ctx, target);
  assert.equal(
    await runUserCommand(["reset-password", "--email", target.email], {
      ...deps,
      io: io(["cli-new-password"]),
    }),
    0,
  );
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: target.token }),
    401,
  );
  await assertOAuthRevoked(ctx, tokens);

  const fresh = await loginToken(ctx, target.email, "cli-new-password");
  for (const active of ["false", "true"]) {
    assert.equal(
      await runUserCommand(
        ["set-active", "--email", target.email, "--active", active],
        { ...deps, io: io() },
      ),
      0,
    );
  }
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: fresh }),
    401,
  );
  ctx.close();
});

Deno.test("PUT /api/users/me/password changes the password, answers a new token and ends the old ones", async () => {
  const ctx = await createTestApp();
  const me = await userWithToken(ctx, "editor");
  const otherSession = await loginToken(ctx, me.email, me.password);
  const tokens = await oauthTokens(ctx, me);
  const res = await call(ctx, "PUT", "/api/users/me/password", {
    token: me.token,
    json: { current_password: me.password, new_password: "my new secret" },
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
  // The answer's token works at once (same second); the earlier ones do not.
  assert.equal(
    await status(ctx, "GET", "/api/users/me", body.access_token),
    200,
  );
  for (const old of [me.token, otherSession]) {
    await expectError(
      await call(ctx, "GET", "/api/users/me", { token: old }),
      401,
      "unauthorized",
    );
  }
  await assertOAuthRevoked(ctx, tokens);
  await expectError(
    await call(ctx, "POST", "/api/login/token", {
      json: { email: me.email, password: me.password },
    }),
    401,
    "invalid_credentials",
  );
  await loginToken(ctx, me.email, "my new secret");
  // A form body works too.
  const form = await call(ctx, "PUT", "/api/users/me/password", {
    token: body.access_token,
    form: { current_password: "my new secret", new_password: "third secret" },
  });
  assert.equal(form.status, 200);
  await loginToken(ctx, me.email, "third secret");
  ctx.close();
});

Deno.test("PUT /api/users/me/password: a wrong current password is 403, changes nothing and counts toward the login limit", async () => {
  const ctx = await createTestApp();
  const me = await userWithToken(ctx, "user");
  for (let i = 0; i < 10; i++) {
    const res = await call(ctx, "PUT", "/api/users/me/password", {
      token: me.token,
      json: { current_password: `wrong-${i}`, new_password: "my new secret" },
    });
    await expectError(res, 403, "invalid_credentials");
  }
  // Nothing changed: the token still works and the old password too...
  assert.equal(await status(ctx, "GET", "/api/users/me", me.token), 200);
  // ...but the e-mail is now limited, here and at the login endpoint.
  const limited = await call(ctx, "PUT", "/api/users/me/password", {
    token: me.token,
    json: { current_password: me.password, new_password: "my new secret" },
  });
  await expectError(limited, 429, "rate_limited");
  assert.ok(Number(limited.headers.get("retry-after")) > 0);
  await expectError(
    await call(ctx, "POST", "/api/login/token", {
      json: { email: me.email, password: me.password },
    }),
    429,
    "rate_limited",
  );
  ctx.clock.advance(15 * 60 * 1000);
  await loginToken(ctx, me.email, me.password);
  ctx.close();
});

Deno.test("PUT /api/users/me/password: bad input is a 400, no token a 401, an OAuth token a 403", async () => {
  const ctx = await createTestApp();
  const me = await userWithToken(ctx, "user");
  for (
    const json of [
      { current_password: me.password, new_password: "short" },
      { current_password: me.password },
      { new_password: "long enough now" },
      {
        current_password: me.password,
        new_password: "long enough now",
        role: "admin",
      },
    ]
  ) {
    await expectError(
      await call(ctx, "PUT", "/api/users/me/password", {
        token: me.token,
        json,
      }),
      400,
      "invalid_request",
    );
  }
  assert.equal(await status(ctx, "GET", "/api/users/me", me.token), 200);
  await expectError(
    await call(ctx, "PUT", "/api/users/me/password", {
      json: { current_password: me.password, new_password: "long enough now" },
    }),
    401,
    "unauthorized",
  );
  const oauth = await oauthAccessToken(ctx, me);
  await expectError(
    await call(ctx, "PUT", "/api/users/me/password", {
      token: oauth,
      json: { current_password: me.password, new_password: "long enough now" },
    }),
    403,
    "insufficient_scope",
  );
  await loginToken(ctx, me.email, me.password);
  ctx.close();
});

Deno.test("the OpenAPI document describes PUT /api/users/me/password", async () => {
  const ctx = await createTestApp();
  const doc = await (await ctx.app.request("/api/openapi.json")).json();
  const op = doc.paths["/api/users/me/password"]?.put;
  assert.ok(op, "path documented");
  assert.ok(op.requestBody);
  for (const code of ["200", "400", "401", "403", "429"]) {
    assert.ok(op.responses[code], `response ${code}`);
  }
  ctx.close();
});

Deno.test("a login token from before the upgrade (no generation claim) works until the first change", async () => {
  const ctx = await createTestApp();
  const me = await createTestUser(ctx);
  // What routes/api/login.ts issued before tokens carried `gen`.
  const legacy = await issueAccessToken(
    createJwtCodec(ctx.config.jwtSecret),
    ctx.clock,
    me.user.id,
    3600,
  );
  assert.equal(
    await status(ctx, "GET", "/api/users/me", legacy.access_token),
    200,
  );
  const admin = await userWithToken(ctx, "admin");
  await call(ctx, "PATCH", `/api/users/${me.user.id}`, {
    token: admin.token,
    json: { password: "a brand new one" },
  });
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: legacy.access_token }),
    401,
  );
  ctx.close();
});
