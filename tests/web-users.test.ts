/**
 * The users and settings pages (admins), invitation links and the account's
 * e-mail change, at the HTTP level: who may open and post them, CSRF and
 * cross-site posts refused, bad input answered with the form and nothing
 * written, the last active admin kept, links single-use and expiring (the
 * injected clock), deactivation ending sessions and tokens, and settings seen
 * through the API.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../lib/oauth/crypto.ts";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  loginToken,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import {
  cookieOf,
  csrfOf,
  get,
  postForm,
  signedInWithCsrf,
  signIn,
} from "./web-helpers.ts";

/** The invitation link of a users page answering an invitation. */
function linkOf(html: string): string {
  const match = /id="invite-link"[^>]*value="([^"]+)"/.exec(html) ??
    /value="([^"]+)"[^>]*id="invite-link"/.exec(html);
  assert.ok(match, "no invitation link in the page");
  return new URL(match[1]).pathname;
}

async function settingsOf(ctx: TestContext, token: string) {
  const res = await call(ctx, "GET", "/api/settings", { token });
  assert.equal(res.status, 200);
  return await res.json();
}

async function userById(ctx: TestContext, token: string, id: number) {
  const res = await call(ctx, "GET", `/api/users/${id}`, { token });
  assert.equal(res.status, 200);
  return await res.json();
}

const PAGES = ["/admin/users", "/admin/settings"];

Deno.test("users and settings pages: admins only; visitors are sent to sign in, members and editors refused, for pages and posts alike", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    for (const path of PAGES) {
      const out = await get(ctx, path);
      assert.equal(out.status, 303, path);
      assert.equal(
        out.headers.get("location"),
        `/login?next=${encodeURIComponent(path)}`,
      );
      const page = await get(ctx, path, admin.cookie);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get("cache-control") ?? "", /no-store/);
      assert.match(
        page.headers.get("content-security-policy") ?? "",
        /default-src 'none'/,
      );
    }
    const before = {
      users: await countRows(ctx, "users"),
      invitations: await countRows(ctx, "invitations"),
      settings: await settingsOf(ctx, admin.token),
    };
    const target = await createTestUser(ctx, { role: "user" });
    const posts: [string, Record<string, string>][] = [
      ["/admin/users", {
        email: "new@example.org",
        role: "admin",
        how: "invite",
      }],
      ["/admin/users", {
        email: "new@example.org",
        role: "admin",
        how: "password",
        password: "long enough password",
      }],
      [`/admin/users/${target.user.id}/role`, { role: "admin" }],
      [`/admin/users/${target.user.id}/deactivate`, {}],
      ["/admin/settings", {
        instance_title: "Taken over",
        instance_description: "",
        instance_locale: "en",
        instance_timezone: "UTC",
      }],
    ];
    for (const role of ["user", "editor"] as const) {
      const other = await createTestUser(ctx, { role });
      const cookie = await signIn(ctx, other);
      for (const path of PAGES) {
        assert.equal((await get(ctx, path, cookie)).status, 403, path);
      }
      // Their own session's token does not make them admins.
      const own = csrfOf(await (await get(ctx, "/account", cookie)).text());
      for (const [path, fields] of posts) {
        const res = await postForm(ctx, path, { ...fields, csrf_token: own }, {
          cookie,
        });
        assert.equal(res.status, 403, `${role} ${path}`);
      }
    }
    for (const [path, fields] of posts) {
      const res = await postForm(ctx, path, fields);
      assert.equal(res.status, 303, `anonymous ${path}`);
      assert.match(res.headers.get("location") ?? "", /^\/login\?next=/);
    }
    assert.equal(await countRows(ctx, "users"), before.users + 3);
    assert.equal(await countRows(ctx, "invitations"), before.invitations);
    assert.deepEqual(await settingsOf(ctx, admin.token), before.settings);
    const unchanged = await userById(ctx, admin.token, target.user.id);
    assert.equal(unchanged.role, "user");
    assert.equal(unchanged.is_active, true);
  } finally {
    ctx.close();
  }
});

Deno.test("users and settings pages: an admin's post without the CSRF token, with a wrong one, or from another site is refused and writes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const target = await createTestUser(ctx, { role: "user" });
    const before = {
      users: await countRows(ctx, "users"),
      invitations: await countRows(ctx, "invitations"),
      settings: await settingsOf(ctx, admin.token),
    };
    const posts: [string, Record<string, string>][] = [
      ["/admin/users", { email: "x@example.org", role: "user", how: "invite" }],
      [`/admin/users/${target.user.id}/role`, { role: "editor" }],
      [`/admin/users/${target.user.id}/deactivate`, {}],
      ["/admin/invitations/withdraw", { email: "x@example.org" }],
      ["/admin/settings", {
        instance_title: "Forged",
        instance_description: "",
        instance_locale: "en",
        instance_timezone: "UTC",
      }],
      ["/account/email", {
        email: "forged@example.org",
        password: admin.password,
      }],
    ];
    for (const [path, fields] of posts) {
      for (
        const [extra, headers] of [
          [{}, {}],
          [{ csrf_token: "x".repeat(43) }, {}],
          [{ csrf_token: admin.csrf }, { origin: "https://evil.example" }],
        ] as [Record<string, string>, Record<string, string>][]
      ) {
        const res = await postForm(ctx, path, { ...fields, ...extra }, {
          cookie: admin.cookie,
          ...headers,
        });
        assert.equal(res.status, 403, `${path} ${JSON.stringify(extra)}`);
      }
    }
    assert.equal(await countRows(ctx, "users"), before.users);
    assert.equal(await countRows(ctx, "invitations"), before.invitations);
    assert.deepEqual(await settingsOf(ctx, admin.token), before.settings);
    const unchanged = await userById(ctx, admin.token, target.user.id);
    assert.equal(unchanged.role, "user");
    assert.equal(unchanged.is_active, true);
    assert.equal(
      (await userById(ctx, admin.token, admin.user.id)).email,
      admin.email,
    );
    // The invitation page's form (no session yet) refuses other sites too.
    const invited = await postForm(ctx, "/admin/users", {
      csrf_token: admin.csrf,
      email: "guest@example.org",
      role: "user",
      how: "invite",
    }, { cookie: admin.cookie });
    const link = linkOf(await invited.text());
    const foreign = await postForm(ctx, link, {
      password: "a long password",
    }, { origin: "https://evil.example" });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("set-cookie"), null);
    assert.equal(await countRows(ctx, "users"), before.users);
  } finally {
    ctx.close();
  }
});

Deno.test("users page: lists accounts with role and state, searches by e-mail and pages by 20", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    for (let i = 1; i <= 24; i++) {
      await createTestUser(ctx, {
        email: `member${String(i).padStart(2, "0")}@example.org`,
        is_active: i !== 3,
      });
    }
    const first = await (await get(ctx, "/admin/users", admin.cookie)).text();
    assert.match(first, /Users: 25/);
    assert.match(first, /Page 1 of 2/);
    assert.match(first, /member03@example\.org/);
    assert.match(first, /Deactivated/);
    assert.match(first, /\(you\)/);
    assert.doesNotMatch(first, /member24@example\.org/);
    assert.match(first, /href="\/admin\/users\?page=2"/);
    const second = await (await get(ctx, "/admin/users?page=2", admin.cookie))
      .text();
    assert.match(second, /member24@example\.org/);
    assert.doesNotMatch(second, /member03@example\.org/);
    // A page past the end shows the last one; nonsense shows the first.
    assert.match(
      await (await get(ctx, "/admin/users?page=99", admin.cookie)).text(),
      /Page 2 of 2/,
    );
    assert.equal(
      (await get(ctx, "/admin/users?page=-1x", admin.cookie)).status,
      200,
    );
    const found = await (await get(ctx, "/admin/users?q=MEMBER1", admin.cookie))
      .text();
    assert.match(found, /Users: 10/);
    assert.match(found, /member10@example\.org/);
    assert.doesNotMatch(found, /member20@example\.org/);
    // The search's % and _ are plain characters.
    assert.match(
      await (await get(ctx, "/admin/users?q=%25", admin.cookie)).text(),
      /No user matches/,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("users page: an admin adds a user with a password; bad input answers the form (400/409) with what was typed and writes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const before = await countRows(ctx, "users");
    const bad: [Record<string, string>, number, RegExp][] = [
      [
        { email: "not an address", role: "editor", how: "password" },
        400,
        /id="email-error">Give an e-mail address\./,
      ],
      [
        { email: "ed@example.org", role: "overlord", how: "password" },
        400,
        /id="role-error">Choose one of the roles\./,
      ],
      [
        { email: "ed@example.org", role: "editor", how: "carrier pigeon" },
        400,
        /id="how-error">/,
      ],
      [
        {
          email: "ed@example.org",
          role: "editor",
          how: "password",
          password: "short",
        },
        400,
        /id="password-error">Use at least 8 characters\./,
      ],
      [
        { email: admin.email.toUpperCase(), role: "editor", how: "password" },
        409,
        /id="email-error">An account with this e-mail exists\./,
      ],
    ];
    for (const [fields, status, problem] of bad) {
      const res = await postForm(ctx, "/admin/users", {
        csrf_token: admin.csrf,
        password: "long enough password",
        ...fields,
      }, { cookie: admin.cookie });
      const html = await res.text();
      assert.equal(res.status, status, JSON.stringify(fields));
      assert.match(html, problem);
      assert.match(html, /aria-invalid="true"/);
      // What was typed is still there (the e-mail as typed).
      assert.ok(
        html.includes(`value="${fields.email}"`),
        `typed e-mail kept: ${fields.email}`,
      );
    }
    assert.equal(await countRows(ctx, "users"), before);

    const res = await postForm(ctx, "/admin/users", {
      csrf_token: admin.csrf,
      email: " Ed@Example.org ",
      role: "editor",
      how: "password",
      password: "long enough password",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303);
    const location = res.headers.get("location") ?? "";
    assert.match(location, /^\/admin\/users\?done=created&id=\d+$/);
    assert.match(
      await (await get(ctx, location, admin.cookie)).text(),
      /ed@example\.org can sign in now\./,
    );
    const token = await loginToken(
      ctx,
      "ed@example.org",
      "long enough password",
    );
    const me = await call(ctx, "GET", "/api/users/me", { token });
    assert.equal((await me.json()).role, "editor");
  } finally {
    ctx.close();
  }
});

Deno.test("invitation: a one-time link shown once (only its hash stored); the invitee sets a password and is signed in; a used link answers 410, an unknown one 404", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const users = await countRows(ctx, "users");
    const res = await postForm(ctx, "/admin/users", {
      csrf_token: admin.csrf,
      email: "Guest@Example.org",
      role: "editor",
      how: "invite",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /Invitation for guest@example\.org/);
    assert.match(html, /shown only this once/);
    const link = linkOf(html);
    assert.match(link, /^\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = link.split("/")[2];
    assert.equal(await countRows(ctx, "users"), users, "no account yet");
    // The database has the token's hash, never the token.
    // deno-lint-ignore no-explicit-any -- the libSQL client under Drizzle
    const client = (ctx.database.db as any).$client;
    const rows = (await client.execute("select * from invitations")).rows;
    assert.equal(rows.length, 1);
    assert.equal(rows[0].id, await sha256Hex(token));
    assert.ok(!JSON.stringify(rows).includes(token));
    // The list shows it, without the link.
    const list = await (await get(ctx, "/admin/users", admin.cookie)).text();
    assert.match(list, /Open invitations/);
    assert.match(list, /guest@example\.org/);
    assert.doesNotMatch(list, new RegExp(token));

    const form = await get(ctx, link);
    assert.equal(form.status, 200);
    const page = await form.text();
    assert.match(page, /as Editor/);
    assert.match(page, /guest@example\.org/);
    assert.match(page, /<label for="password">/);

    const short = await postForm(ctx, link, { password: "short" });
    assert.equal(short.status, 400);
    assert.match(await short.text(), /id="password-error">Use at least 8/);
    assert.equal(short.headers.get("set-cookie"), null);
    assert.equal(await countRows(ctx, "users"), users);

    const accepted = await postForm(ctx, link, {
      password: "the invitee's password",
    });
    assert.equal(accepted.status, 303);
    assert.equal(accepted.headers.get("location"), "/admin");
    const cookie = cookieOf(accepted);
    const moderation = await get(ctx, "/admin", cookie);
    assert.equal(moderation.status, 200);
    assert.match(await moderation.text(), />Moderation</);
    const token2 = await loginToken(
      ctx,
      "guest@example.org",
      "the invitee's password",
    );
    const me = await (await call(ctx, "GET", "/api/users/me", {
      token: token2,
    })).json();
    assert.equal(me.role, "editor");
    assert.equal(me.is_active, true);

    // Once only.
    const again = await get(ctx, link);
    assert.equal(again.status, 410);
    assert.match(await again.text(), /This link was used already/);
    const replay = await postForm(ctx, link, { password: "another password" });
    assert.equal(replay.status, 410);
    assert.equal(replay.headers.get("set-cookie"), null);
    assert.equal(await countRows(ctx, "users"), users + 1);
    // Used invitations leave the list.
    assert.doesNotMatch(
      await (await get(ctx, "/admin/users", admin.cookie)).text(),
      /Open invitations<\/h2>\s*<ul/,
    );
    // Unknown and malformed tokens.
    for (const path of [`/invite/${"A".repeat(43)}`, "/invite/nope"]) {
      const unknown = await get(ctx, path);
      assert.equal(unknown.status, 404, path);
      assert.match(await unknown.text(), /This link does not work/);
      assert.equal(
        (await postForm(ctx, path, { password: "long enough password" }))
          .status,
        404,
      );
    }
    // An invitation whose e-mail got an account another way leaves the
    // list, and its link says so.
    const other = await postForm(ctx, "/admin/users", {
      csrf_token: admin.csrf,
      email: "twice@example.org",
      role: "user",
      how: "invite",
    }, { cookie: admin.cookie });
    const otherLink = linkOf(await other.text());
    const listed =
      /<h3[^>]*>twice@example\.org<\/h3><p class="muted">Member · the link/;
    assert.match(
      await (await get(ctx, "/admin/users", admin.cookie)).text(),
      listed,
    );
    await createTestUser(ctx, { email: "twice@example.org" });
    assert.doesNotMatch(
      await (await get(ctx, "/admin/users", admin.cookie)).text(),
      listed,
    );
    const late = await postForm(ctx, otherLink, {
      password: "long enough password",
    });
    assert.equal(late.status, 409);
    assert.match(await late.text(), /exists already: sign in instead/);
    assert.equal(late.headers.get("set-cookie"), null);
    assert.equal((await get(ctx, otherLink)).status, 200, "still unused");

    // An e-mail with an account cannot be invited.
    const taken = await postForm(ctx, "/admin/users", {
      csrf_token: admin.csrf,
      email: "guest@example.org",
      role: "user",
      how: "invite",
    }, { cookie: admin.cookie });
    assert.equal(taken.status, 409);
    assert.equal(await countRows(ctx, "invitations"), 2);
  } finally {
    ctx.close();
  }
});

Deno.test("invitation: a link expires after 7 days (410, no account); inviting again replaces the link; a withdrawn link answers 404", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const invite = async (email: string) => {
      const res = await postForm(ctx, "/admin/users", {
        csrf_token: admin.csrf,
        email,
        role: "user",
        how: "invite",
      }, { cookie: admin.cookie });
      assert.equal(res.status, 200);
      return linkOf(await res.text());
    };
    const users = await countRows(ctx, "users");
    const late = await invite("late@example.org");
    ctx.clock.advance(7 * 86_400_000 - 1000);
    assert.equal((await get(ctx, late)).status, 200, "still valid");
    ctx.clock.advance(1000);
    const expired = await get(ctx, late);
    assert.equal(expired.status, 410);
    assert.match(await expired.text(), /This link has expired/);
    const post = await postForm(ctx, late, {
      password: "long enough password",
    });
    assert.equal(post.status, 410);
    assert.equal(post.headers.get("set-cookie"), null);
    assert.equal(await countRows(ctx, "users"), users);
    assert.match(
      await (await get(ctx, "/admin/users", admin.cookie)).text(),
      /the link expired on/,
    );

    // A new link for the same e-mail replaces the expired one.
    const fresh = await invite("late@example.org");
    assert.notEqual(fresh, late);
    assert.equal((await get(ctx, late)).status, 404);
    assert.equal(await countRows(ctx, "invitations"), 1);
    const ok = await postForm(ctx, fresh, { password: "long enough password" });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/submit", "a member submits");

    // Withdrawn: the link stops working.
    const withdrawn = await invite("changed-mind@example.org");
    const res = await postForm(ctx, "/admin/invitations/withdraw", {
      csrf_token: admin.csrf,
      email: "changed-mind@example.org",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303);
    assert.match(
      await (await get(ctx, res.headers.get("location") ?? "", admin.cookie))
        .text(),
      /The invitation was withdrawn/,
    );
    assert.equal((await get(ctx, withdrawn)).status, 404);
    assert.equal(
      (await postForm(ctx, withdrawn, { password: "long enough password" }))
        .status,
      404,
    );
    assert.equal(await countRows(ctx, "users"), users + 1);
  } finally {
    ctx.close();
  }
});

Deno.test("users page: roles change by the API's rules; the last active admin can be neither demoted nor deactivated; bad input is a 400 that changes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const member = await createTestUser(ctx, { role: "user" });
    const post = (path: string, fields: Record<string, string> = {}) =>
      postForm(ctx, path, { csrf_token: admin.csrf, ...fields }, {
        cookie: admin.cookie,
      });

    for (const role of ["user", "editor"]) {
      const res = await post(`/admin/users/${admin.user.id}/role`, { role });
      assert.equal(res.status, 409, role);
      assert.match(await res.text(), /is the last active admin/);
    }
    const self = await post(`/admin/users/${admin.user.id}/deactivate`);
    assert.equal(self.status, 409);
    assert.equal(
      (await userById(ctx, admin.token, admin.user.id)).role,
      "admin",
    );

    const wrong = await post(`/admin/users/${member.user.id}/role`, {
      role: "root",
    });
    assert.equal(wrong.status, 400);
    assert.match(await wrong.text(), /Choose one of the roles/);
    assert.equal(
      (await userById(ctx, admin.token, member.user.id)).role,
      "user",
    );
    for (const path of ["/admin/users/999999/role", "/admin/users/0/role"]) {
      assert.equal((await post(path, { role: "editor" })).status, 404, path);
    }

    const res = await post(`/admin/users/${member.user.id}/role`, {
      role: "admin",
    });
    assert.equal(res.status, 303);
    const location = res.headers.get("location") ?? "";
    assert.equal(location, `/admin/users?done=role&id=${member.user.id}`);
    assert.match(
      await (await get(ctx, location, admin.cookie)).text(),
      /is now: Admin\./,
    );
    assert.equal(
      (await userById(ctx, admin.token, member.user.id)).role,
      "admin",
    );
    // With another admin, stepping down works, and the list is closed after.
    const down = await post(`/admin/users/${admin.user.id}/role`, {
      role: "editor",
    });
    assert.equal(down.status, 303);
    assert.equal(down.headers.get("location"), "/account");
    assert.equal((await get(ctx, "/admin/users", admin.cookie)).status, 403);
  } finally {
    ctx.close();
  }
});

Deno.test("users page: deactivation ends the user's sessions and login tokens at once; reactivation lets them sign in again, the old session staying ended", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const member = await userWithToken(ctx, "editor");
    const cookie = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin", cookie)).status, 200);
    const post = (path: string) =>
      postForm(ctx, path, { csrf_token: admin.csrf }, { cookie: admin.cookie });

    const res = await post(`/admin/users/${member.user.id}/deactivate`);
    assert.equal(res.status, 303);
    const location = res.headers.get("location") ?? "";
    const page = await (await get(ctx, location, admin.cookie)).text();
    assert.match(page, /is deactivated: their sessions/);
    assert.match(page, /Reactivate/);
    assert.equal((await get(ctx, "/admin", cookie)).status, 303, "signed out");
    assert.equal(
      (await call(ctx, "GET", "/api/users/me", { token: member.token }))
        .status,
      401,
    );
    const refused = await postForm(ctx, "/login", {
      email: member.email,
      password: member.password,
    });
    assert.equal(refused.status, 401);

    const back = await post(`/admin/users/${member.user.id}/reactivate`);
    assert.equal(back.status, 303);
    assert.match(
      await (await get(ctx, back.headers.get("location") ?? "", admin.cookie))
        .text(),
      /can sign in again/,
    );
    assert.equal((await get(ctx, "/admin", cookie)).status, 303, "still out");
    const again = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin", again)).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("settings page: every setting but the actor's name, saved through the API's schema and seen by GET /api/settings and /submit; problems shown next to their field, nothing typed lost, nothing written", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/users");
    const page = await (await get(ctx, "/admin/settings", admin.cookie)).text();
    for (
      const field of [
        "instance_title",
        "instance_description",
        "instance_locale",
        "instance_timezone",
        "allow_registration",
        "allow_anon_event",
        "allow_recurrent_event",
        "recurrent_event_visible",
        "enable_federation",
        "enable_resources",
        "federation_series_horizon_days",
      ]
    ) assert.match(page, new RegExp(`<label for="${field}">`), field);
    // Boosts are remote events, which no listing shows: nothing to hide.
    assert.doesNotMatch(page, /hide_boosts/);
    assert.match(
      page,
      /id="federation_series_horizon_days"[^>]*type="number"[^>]*value="14"/,
    );
    assert.match(page, /<option value="Europe\/Rome"/);
    assert.match(page, /<option value="UTC" selected/);
    assert.match(page, /@relay@quando\.test/);
    assert.doesNotMatch(page, /name="instance_actor"/);
    const csrf = csrfOf(page);
    const before = await settingsOf(ctx, admin.token);

    const bad = await postForm(ctx, "/admin/settings", {
      csrf_token: csrf,
      instance_title: "   ",
      instance_description: "Kept as typed <b>",
      instance_locale: "xx",
      instance_timezone: "Mars/Olympus",
      federation_series_horizon_days: "2 weeks",
      allow_anon_event: "on",
    }, { cookie: admin.cookie });
    assert.equal(bad.status, 400);
    const html = await bad.text();
    assert.match(html, /Nothing was saved/);
    assert.match(html, /id="instance_title-error"/);
    assert.match(html, /id="instance_timezone-error"/);
    assert.match(html, /id="instance_locale-error"/);
    assert.match(html, /id="federation_series_horizon_days-error"/);
    assert.match(html, /value="2 weeks"/);
    assert.match(html, /Kept as typed &lt;b&gt;/);
    // A zone or language no browser offers cannot be kept: the stored one stays selected.
    assert.match(html, /<option value="UTC" selected/);
    assert.match(html, /<option value="en" lang="en" selected/);
    assert.match(html, /id="allow_anon_event"[^>]*checked/);
    assert.deepEqual(await settingsOf(ctx, admin.token), before);

    const res = await postForm(ctx, "/admin/settings", {
      csrf_token: csrf,
      instance_title: "  Rome events ",
      instance_description: "What happens in Rome.",
      instance_locale: "it",
      instance_timezone: "Europe/Rome",
      federation_series_horizon_days: "7",
      allow_registration: "on",
      allow_anon_event: "on",
      enable_federation: "on",
      // An actor's name is not changed here, whatever is posted.
      instance_actor: "hijack",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/admin/settings?saved=1");
    assert.deepEqual(await settingsOf(ctx, admin.token), {
      ...before,
      instance_title: "Rome events",
      instance_description: "What happens in Rome.",
      instance_locale: "it",
      instance_timezone: "Europe/Rome",
      allow_registration: true,
      allow_anon_event: true,
      allow_recurrent_event: false,
      recurrent_event_visible: false,
      enable_federation: true,
      enable_resources: false,
      hide_boosts: false,
      federation_series_horizon_days: 7,
      instance_actor: "relay",
    });
    const saved = await get(ctx, "/admin/settings?saved=1", admin.cookie);
    // The instance's language now, as the browser asks for none.
    assert.match(await saved.text(), /Impostazioni salvate\./);
    const submit = await (await get(ctx, "/submit?lang=en", admin.cookie))
      .text();
    assert.match(submit, /Europe\/Rome time/);
  } finally {
    ctx.close();
  }
});

Deno.test("account page: the e-mail changes with the password; a wrong password or a bad address answer the form with what was typed and change nothing", async () => {
  const ctx = await createTestApp();
  try {
    const member = await createTestUser(ctx, { role: "user" });
    // A taken address is answered as a free one: tests/account-email.test.ts.
    const cookie = await signIn(ctx, member);
    const page = await (await get(ctx, "/account", cookie)).text();
    assert.match(page, /Change your e-mail/);
    assert.match(page, /<label for="new_email">/);
    const csrf = csrfOf(page);
    const post = (fields: Record<string, string>) =>
      postForm(ctx, "/account/email", { csrf_token: csrf, ...fields }, {
        cookie,
      });

    const cases: [Record<string, string>, number, RegExp][] = [
      [
        { email: "new@example.org", password: "not the password" },
        403,
        /id="email_password-error">The password is wrong\./,
      ],
      [
        { email: "no address", password: member.password },
        400,
        /id="new_email-error">Give an e-mail address\./,
      ],
    ];
    for (const [fields, status, problem] of cases) {
      const res = await post(fields);
      assert.equal(res.status, status, JSON.stringify(fields));
      const html = await res.text();
      assert.match(html, problem);
      assert.ok(html.includes(`value="${fields.email}"`), "typed e-mail kept");
    }
    await loginToken(ctx, member.email, member.password);

    const res = await post({
      email: "Renamed@Example.org",
      password: member.password,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account?email=1");
    const after = await (await get(ctx, "/account?email=1", cookie)).text();
    assert.match(after, /If no other account uses that address/);
    assert.match(after, /Now: renamed@example\.org/);
    await loginToken(ctx, "renamed@example.org", member.password);
    const old = await call(ctx, "POST", "/api/login/token", {
      json: { email: member.email, password: member.password },
    });
    assert.equal(old.status, 401);
  } finally {
    ctx.close();
  }
});
