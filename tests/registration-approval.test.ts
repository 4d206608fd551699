/**
 * Registration that needs an admin's approval (the setting
 * `registration_approval`): a new account waits, inactive; signing in tells
 * the person it waits; admins approve or refuse it on /admin/users (or
 * `POST /api/users/{id}/approve`, `DELETE /api/users/{id}`).
 */
import assert from "node:assert/strict";
import {
  call,
  createTestApp,
  expectError,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

async function approvalOn(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_registration: true, registration_approval: true },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return admin;
}

const NEWCOMER = { email: "newcomer@example.org", password: "a long password" };

Deno.test("registration_approval: a registration waits; signing in says so (page 403, API 403 account_pending), a wrong password does not; an admin approves it on /admin/users and the person signs in", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await approvalOn(ctx);
    const registered = await postForm(ctx, "/register", NEWCOMER);
    assert.equal(registered.status, 200);
    assert.equal(registered.headers.get("set-cookie"), null, "not signed in");
    assert.match(await registered.text(), /Your account waits for approval/);

    const waiting = await postForm(ctx, "/login", NEWCOMER);
    assert.equal(waiting.status, 403);
    assert.match(
      await waiting.text(),
      /waits for an admin(’|'|&#39;)s approval/,
    );
    const wrong = await postForm(ctx, "/login", {
      email: NEWCOMER.email,
      password: "not the password",
    });
    assert.equal(wrong.status, 401);
    await expectError(
      await call(ctx, "POST", "/api/login/token", { json: NEWCOMER }),
      403,
      "account_pending",
    );

    const list = await (await call(ctx, "GET", "/api/users", {
      token: admin.token,
    })).json();
    // Waiting registrations come first.
    assert.equal(list.data[0].email, NEWCOMER.email);
    assert.equal(list.data[0].pending, true);
    assert.equal(list.data[0].is_active, false);
    const id = list.data[0].id;

    const cookie = await signIn(ctx, admin);
    const page = await (await get(ctx, "/admin/users", cookie)).text();
    assert.match(page, /Waiting for approval/);
    assert.match(page, new RegExp(`action="/admin/users/${id}/approve"`));
    const csrf = await csrfFrom(ctx, "/admin/users", cookie);
    const member = await userWithToken(ctx, "user");
    const memberCookie = await signIn(ctx, member);
    const refused = await postForm(ctx, `/admin/users/${id}/approve`, {
      csrf_token: await csrfFrom(ctx, "/my", memberCookie),
    }, { cookie: memberCookie });
    assert.equal(refused.status, 403);
    assert.equal((await postForm(ctx, "/login", NEWCOMER)).status, 403);

    const approved = await postForm(ctx, `/admin/users/${id}/approve`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(approved.status, 303);
    assert.equal(
      approved.headers.get("location"),
      `/admin/users?done=approved&id=${id}`,
    );
    assert.equal((await postForm(ctx, "/login", NEWCOMER)).status, 303);
    // Approving again: nothing waits.
    await expectError(
      await call(ctx, "POST", `/api/users/${id}/approve`, {
        token: admin.token,
      }),
      404,
      "not_found",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("registration_approval: an admin refuses a registration (the account goes) or approves one through the API; the setting is on the settings page; off, registering signs in at once", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await approvalOn(ctx);
    await postForm(ctx, "/register", NEWCOMER);
    await postForm(ctx, "/register", {
      email: "second@example.org",
      password: "another long password",
    });
    const list = await (await call(ctx, "GET", "/api/users", {
      token: admin.token,
    })).json();
    const byEmail = (email: string) =>
      list.data.find((u: { email: string }) => u.email === email).id;
    const cookie = await signIn(ctx, admin);
    const settings = await (await get(ctx, "/admin/settings", cookie)).text();
    assert.match(settings, /name="registration_approval"/);
    const csrf = await csrfFrom(ctx, "/admin/users", cookie);
    const refused = await postForm(
      ctx,
      `/admin/users/${byEmail(NEWCOMER.email)}/refuse`,
      { csrf_token: csrf },
      { cookie },
    );
    assert.equal(refused.status, 303);
    assert.equal((await postForm(ctx, "/login", NEWCOMER)).status, 401);
    // An active account is not a registration to refuse.
    assert.equal(
      (await postForm(ctx, `/admin/users/${admin.user.id}/refuse`, {
        csrf_token: csrf,
      }, { cookie })).status,
      404,
    );
    const approved = await call(
      ctx,
      "POST",
      `/api/users/${byEmail("second@example.org")}/approve`,
      { token: admin.token },
    );
    assert.equal(approved.status, 200);
    assert.equal((await approved.json()).is_active, true);

    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { registration_approval: false },
    });
    const open = await postForm(ctx, "/register", {
      email: "third@example.org",
      password: "a third long password",
    });
    assert.equal(open.status, 303);
    assert.ok(open.headers.get("set-cookie"));
  } finally {
    ctx.close();
  }
});
