import assert from "node:assert/strict";
import { updateUser } from "../lib/users.ts";
import { removeUser } from "../lib/user-removal.ts";
import { getSettings } from "../lib/settings.ts";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  expectError,
  hasher,
  userWithToken,
} from "./helpers.ts";

const USER_FIELDS = [
  "createdAt",
  "description",
  "email",
  "id",
  "is_active",
  "pending",
  "role",
  "to_notify",
  "updatedAt",
];

Deno.test("users API: 401 without a token, 403 for editors and users on every route", async () => {
  const ctx = await createTestApp();
  const editor = await userWithToken(ctx, "editor");
  const user = await userWithToken(ctx, "user");
  const routes: [string, string, unknown?][] = [
    ["GET", "/api/users"],
    ["POST", "/api/users", { email: "x@example.org", password: "12345678" }],
    ["GET", `/api/users/${user.user.id}`],
    ["PATCH", `/api/users/${user.user.id}`, { role: "admin" }],
    ["DELETE", `/api/users/${user.user.id}`],
  ];
  for (const [method, path, json] of routes) {
    await expectError(
      await call(ctx, method, path, { json }),
      401,
      "unauthorized",
    );
    for (const who of [editor, user]) {
      await expectError(
        await call(ctx, method, path, { json, token: who.token }),
        403,
        "forbidden",
      );
    }
  }
  assert.equal(await countRows(ctx, "users"), 2);
  assert.equal(
    (await call(ctx, "GET", "/api/users/me", { token: user.token })).status,
    200,
  );
  ctx.close();
});

Deno.test("admin creates a user (JSON and form); the user can log in; no hash is ever returned", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "POST", "/api/users", {
    token: admin.token,
    json: { email: "New@Example.org", password: "long enough", role: "editor" },
  });
  assert.equal(res.status, 201);
  const created = await res.json();
  assert.deepEqual(Object.keys(created).sort(), USER_FIELDS);
  assert.equal(created.email, "new@example.org");
  assert.equal(created.role, "editor");
  assert.equal(created.is_active, true);
  assert.equal(created.to_notify, false);
  assert.ok(!Number.isNaN(Date.parse(created.createdAt)));

  const form = await call(ctx, "POST", "/api/users", {
    token: admin.token,
    form: {
      email: "form@example.org",
      password: "long enough",
      to_notify: "true",
    },
  });
  assert.equal(form.status, 201);
  const formUser = await form.json();
  assert.equal(formUser.to_notify, true);
  assert.equal(formUser.role, "user");

  const login = await call(ctx, "POST", "/api/login/token", {
    json: { email: "new@example.org", password: "long enough" },
  });
  assert.equal(login.status, 200);

  const list = await call(ctx, "GET", "/api/users", { token: admin.token });
  const text = await list.clone().text();
  assert.ok(!text.includes("argon2"), "a password hash leaked");
  const body = await list.json();
  assert.equal(body.count, 3);
  assert.equal(body.totalPages, 1);
  assert.deepEqual(body.data.map((u: { email: string }) => u.email), [
    admin.email,
    "new@example.org",
    "form@example.org",
  ]);
  ctx.close();
});

Deno.test("creating users: invalid input is a 400 and a duplicate e-mail a 409, writing nothing", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const bad = [
    { email: "not-an-email", password: "long enough" },
    { email: "a@example.org", password: "short" },
    { email: "a@example.org", password: "long enough", role: "owner" },
    { email: "a@example.org", password: "long enough", is_active: "yes" },
    { password: "long enough" },
  ];
  for (const json of bad) {
    const res = await call(ctx, "POST", "/api/users", {
      token: admin.token,
      json,
    });
    const body = await expectError(res, 400, "invalid_request");
    assert.ok(Array.isArray(body.details) && body.details.length > 0);
  }
  assert.equal(await countRows(ctx, "users"), 1);
  const dup = await call(ctx, "POST", "/api/users", {
    token: admin.token,
    json: { email: admin.email.toUpperCase(), password: "long enough" },
  });
  await expectError(dup, 409, "conflict");
  assert.equal(await countRows(ctx, "users"), 1);
  ctx.close();
});

Deno.test("paging of the user list: defaults, last partial page, past the end, bounds", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  for (let i = 0; i < 4; i++) await userWithToken(ctx, "user");
  const page = async (q: string) => {
    const res = await call(ctx, "GET", `/api/users${q}`, {
      token: admin.token,
    });
    return { status: res.status, body: await res.json() };
  };
  const last = await page("?page=3&pageSize=2");
  assert.equal(last.status, 200);
  assert.equal(last.body.data.length, 1);
  assert.equal(last.body.count, 5);
  assert.equal(last.body.totalPages, 3);
  const past = await page("?page=9&pageSize=2");
  assert.equal(past.body.data.length, 0);
  assert.equal(past.body.count, 5);
  for (const q of ["?pageSize=0", "?pageSize=101", "?page=0", "?page=x"]) {
    assert.equal((await page(q)).status, 400, q);
  }
  ctx.close();
});

Deno.test("PATCH and DELETE users; the last admin is protected; unknown ids 404", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await userWithToken(ctx, "user");

  const patched = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
    token: admin.token,
    json: { description: "Organiser", to_notify: true, role: "editor" },
  });
  assert.equal(patched.status, 200);
  const body = await patched.json();
  assert.equal(body.description, "Organiser");
  assert.equal(body.role, "editor");
  assert.equal(body.to_notify, true);

  await expectError(
    await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
      token: admin.token,
      json: { email: "changed@example.org" },
    }),
    400,
  );
  await expectError(
    await call(ctx, "PATCH", `/api/users/${admin.user.id}`, {
      token: admin.token,
      json: { role: "user" },
    }),
    409,
    "conflict",
  );
  await expectError(
    await call(ctx, "DELETE", `/api/users/${admin.user.id}`, {
      token: admin.token,
    }),
    409,
  );
  await expectError(
    await call(ctx, "PATCH", "/api/users/9999", {
      token: admin.token,
      json: { role: "user" },
    }),
    404,
    "not_found",
  );
  await expectError(
    await call(ctx, "GET", "/api/users/abc", { token: admin.token }),
    400,
  );
  await expectError(
    await call(ctx, "DELETE", "/api/users/9999", { token: admin.token }),
    404,
  );

  const del = await call(ctx, "DELETE", `/api/users/${target.user.id}`, {
    token: admin.token,
  });
  assert.equal(del.status, 204);
  assert.equal(await countRows(ctx, "users"), 1);
  await expectError(
    await call(ctx, "GET", "/api/users/me", { token: target.token }),
    401,
  );
  ctx.close();
});

Deno.test("an admin can reset a user's password through PATCH", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const target = await userWithToken(ctx, "user");
  const res = await call(ctx, "PATCH", `/api/users/${target.user.id}`, {
    token: admin.token,
    json: { password: "a brand new one" },
  });
  assert.equal(res.status, 200);
  const oldLogin = await call(ctx, "POST", "/api/login/token", {
    json: { email: target.email, password: target.password },
  });
  await expectError(oldLogin, 401);
  const newLogin = await call(ctx, "POST", "/api/login/token", {
    json: { email: target.email, password: "a brand new one" },
  });
  assert.equal(newLogin.status, 200);
  ctx.close();
});

Deno.test("two admins demoted, deactivated or deleted at once: one change passes, the other is a 409, an admin remains", async () => {
  for (const how of ["demote", "deactivate", "delete"] as const) {
    const ctx = await createTestApp();
    try {
      const a = await createTestUser(ctx, { role: "admin" });
      const b = await createTestUser(ctx, { role: "admin" });
      const change = (id: number) =>
        how === "delete"
          ? getSettings(ctx.database.db).then((settings) =>
            removeUser(
              { db: ctx.database.db, clock: ctx.clock, settings },
              id,
              {
                events: "keep",
                actingAdminId: id === a.user.id ? b.user.id : a.user.id,
              },
            )
          )
          : updateUser(
            ctx.database.db,
            hasher,
            ctx.clock,
            id,
            how === "demote" ? { role: "editor" } : { is_active: false },
          );
      // Both start before either writes: each reads the other as an admin.
      const results = await Promise.allSettled([
        change(a.user.id),
        change(b.user.id),
      ]);
      assert.equal(
        results.filter((r) => r.status === "fulfilled").length,
        1,
        how,
      );
      const refused = results.find((r) => r.status === "rejected") as
        | PromiseRejectedResult
        | undefined;
      assert.equal((refused?.reason as { status?: number })?.status, 409);
      const [row] = await ctx.database.db.all<{ n: number }>(
        "select count(*) as n from users where role = 'admin' and is_active = 1",
      );
      assert.equal(Number(row.n), 1, how);
    } finally {
      ctx.close();
    }
  }
});
