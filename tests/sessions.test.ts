/**
 * Browser sessions and the moderation page, at the HTTP level: the cookie's
 * flags, a session that the server ends (logout, password change), CSRF and
 * cross-site posts refused, the login rate limit, and the moderation journey
 * (an anonymous submission confirmed from /admin).
 */
import assert from "node:assert/strict";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  oauthAccessToken,
  userWithToken,
} from "./helpers.ts";
import { csrfOf, get, postForm, signIn } from "./web-helpers.ts";
import { SESSION_TTL_MS } from "../lib/auth/sessions.ts";
import { runScheduledJobs } from "../lib/jobs.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;

Deno.test("sessions: the login form sets an HttpOnly, SameSite=Lax session cookie; a wrong password sets none; only the token's hash is stored", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await createTestUser(ctx, { role: "editor" });
    const form = await get(ctx, "/login");
    assert.equal(form.status, 200);
    assert.match(form.headers.get("content-type") ?? "", /text\/html/);
    assert.match(
      form.headers.get("content-security-policy") ?? "",
      /default-src 'none'.*form-action 'self'/,
    );
    const html = await form.text();
    assert.match(html, /<label for="email">/);
    assert.match(html, /<label for="password">/);

    const wrong = await postForm(ctx, "/login", {
      email: editor.email,
      password: "not-the-password",
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    assert.match(await wrong.text(), /Wrong e-mail or password/);

    const res = await postForm(ctx, "/login", {
      email: editor.email,
      password: editor.password,
      next: "/admin",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/admin");
    const cookie = res.headers.get("set-cookie") ?? "";
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/i, "http base: not Secure");
    const token = cookie.split(";")[0].split("=")[1];
    // deno-lint-ignore no-explicit-any -- the libSQL client under Drizzle
    const client = (ctx.database.db as any).$client;
    const rows = await client.execute("select id from sessions");
    assert.equal(rows.rows.length, 1);
    assert.notEqual(rows.rows[0].id, token);

    // Only paths of this site after signing in.
    for (
      const next of ["//evil.example/x", "https://evil.example/", "/\\evil"]
    ) {
      const other = await postForm(ctx, "/login", {
        email: editor.email,
        password: editor.password,
        next,
      });
      assert.equal(other.headers.get("location"), "/admin", next);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("sessions: behind https the cookie is __Host- and Secure", async () => {
  const ctx = await createTestApp({
    env: { BASE_URL: "https://quando.example" },
  });
  try {
    const user = await createTestUser(ctx, { role: "user" });
    const res = await postForm(ctx, "/login", {
      email: user.email,
      password: user.password,
    });
    assert.equal(res.status, 303);
    const cookie = res.headers.get("set-cookie") ?? "";
    assert.match(cookie, /^__Host-quando_session=/);
    assert.match(cookie, /Secure/);
  } finally {
    ctx.close();
  }
});

Deno.test("moderation page: an anonymous submission is confirmed from /admin; users are refused; CSRF and cross-site posts are refused", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const submitted = await call(ctx, "POST", "/api/events", {
      json: {
        title: "Street party",
        start_datetime: NOW + DAY,
        place_name: "Piazza",
      },
    });
    const event = await submitted.json();
    assert.equal(event.is_visible, false);

    // Signed out: to the sign-in form, coming back here after.
    const out = await get(ctx, "/admin");
    assert.equal(out.status, 303);
    assert.equal(out.headers.get("location"), "/login?next=%2Fadmin");
    // A member may sign in, but not moderate.
    const member = await createTestUser(ctx, { role: "user" });
    const memberCookie = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin", memberCookie)).status, 403);

    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);
    const page = await get(ctx, "/admin", cookie);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Street party/);
    assert.match(html, /Submitted by anonymous/);
    const csrf = csrfOf(html);
    const confirm = `/admin/events/${event.id}/confirm`;

    // Without the token, with a made-up one, or from another site.
    for (
      const [fields, headers] of [
        [{}, {}],
        [{ csrf_token: "x".repeat(43) }, {}],
        [{ csrf_token: csrf }, { origin: "https://evil.example" }],
      ] as [Record<string, string>, Record<string, string>][]
    ) {
      const res = await postForm(ctx, confirm, fields, { cookie, ...headers });
      assert.equal(res.status, 403, JSON.stringify([fields, headers]));
    }
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      404,
      "still hidden",
    );

    const ok = await postForm(ctx, confirm, { csrf_token: csrf }, { cookie });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/admin?confirmed=1");
    const publicEvent = await call(ctx, "GET", `/api/events/${event.id}`);
    assert.equal(publicEvent.status, 200);
    assert.equal((await publicEvent.json()).is_visible, true);
    const after = await (await get(ctx, "/admin?confirmed=1", cookie)).text();
    assert.match(after, /Nothing is waiting/);
    // Confirming twice leaves it confirmed.
    await postForm(ctx, confirm, { csrf_token: csrf }, { cookie });
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      200,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("sessions end on the server: at logout (with its CSRF token) and when the password changes", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await userWithToken(ctx, "editor");
    const cookie = await signIn(ctx, editor);
    const html = await (await get(ctx, "/admin", cookie)).text();
    const csrf = csrfOf(html);
    // A logout without the token is refused (and ends nothing).
    assert.equal(
      (await postForm(ctx, "/logout", {}, { cookie })).status,
      403,
    );
    assert.equal((await get(ctx, "/admin", cookie)).status, 200);
    const out = await postForm(ctx, "/logout", { csrf_token: csrf }, {
      cookie,
    });
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie") ?? "", /Max-Age=0|Expires=/i);
    // The old cookie, replayed, opens nothing.
    assert.equal((await get(ctx, "/admin", cookie)).status, 303);
    assert.equal(await countRows(ctx, "sessions"), 0);

    const again = await signIn(ctx, editor);
    assert.equal((await get(ctx, "/admin", again)).status, 200);
    const changed = await call(ctx, "PUT", "/api/users/me/password", {
      token: editor.token,
      json: {
        current_password: editor.password,
        new_password: "a-new-password-123",
      },
    });
    assert.equal(changed.status, 200, await changed.text());
    assert.equal((await get(ctx, "/admin", again)).status, 303);
  } finally {
    ctx.close();
  }
});

Deno.test("the login form has the API's rate limit: 429 after ten failures, and a cross-site post is refused", async () => {
  const ctx = await createTestApp();
  try {
    const user = await createTestUser(ctx, { role: "user" });
    const foreign = await postForm(ctx, "/login", {
      email: user.email,
      password: user.password,
    }, { origin: "https://evil.example" });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("set-cookie"), null);
    // A browser that sends no Origin is judged by its Referer; one that says
    // the post is another site's (Fetch Metadata) is refused whatever else.
    const base = new URL(ctx.config.baseUrl).origin;
    for (
      const headers of <Record<string, string>[]> [
        { origin: "", referer: "https://evil.example/page" },
        { origin: "", referer: "not a url" },
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "null" },
      ]
    ) {
      const refused = await postForm(ctx, "/login", {
        email: user.email,
        password: user.password,
      }, headers);
      assert.equal(refused.status, 403, JSON.stringify(headers));
      assert.equal(refused.headers.get("set-cookie"), null);
    }
    for (
      const headers of <Record<string, string>[]> [
        { origin: "", referer: `${base}/login` },
        { origin: "", "sec-fetch-site": "same-origin" },
      ]
    ) {
      const ok = await postForm(ctx, "/login", {
        email: user.email,
        password: user.password,
      }, headers);
      assert.equal(ok.status, 303, JSON.stringify(headers));
    }
    let last = 0;
    for (let i = 0; i < 11; i++) {
      const res = await postForm(ctx, "/login", {
        email: user.email,
        password: "wrong-password",
      });
      await res.body?.cancel();
      last = res.status;
    }
    assert.equal(last, 429);
  } finally {
    ctx.close();
  }
});

Deno.test("submit form: a member's event is published at once; times are the instance's; text keeps paragraphs and links; problems are shown next to their field, nothing typed lost", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_timezone: "Europe/Rome" },
    });
    const member = await createTestUser(ctx, { role: "user" });
    // Signed out and no anonymous submissions: sign in first.
    const out = await get(ctx, "/submit");
    assert.equal(out.status, 303);
    assert.equal(out.headers.get("location"), "/login?next=%2Fsubmit");
    const cookie = await signIn(ctx, member);
    const form = await get(ctx, "/submit", cookie);
    assert.equal(form.status, 200);
    const csrf = csrfOf(await form.text());

    const fields = {
      csrf_token: csrf,
      title: "Choir rehearsal",
      start: "2026-07-10T21:00",
      end: "",
      place_name: "Parish hall",
      place_address: "Via Roma 1",
      online_link: "",
      tags: "music, choir",
      description:
        "Bring your score.\nDoors at 8.\n\nDetails: https://example.org/choir",
    };
    // A problem: the end before the start. Shown by its field, values kept.
    const bad = await postForm(ctx, "/submit", {
      ...fields,
      end: "2026-07-10T20:00",
    }, { cookie });
    assert.equal(bad.status, 400);
    const badHtml = await bad.text();
    assert.match(badHtml, /id="end-error"/);
    assert.match(badHtml, /aria-invalid="true"/);
    assert.match(badHtml, /value="Choir rehearsal"/);
    assert.match(badHtml, /Bring your score\./);
    // Without the session's token: refused.
    const forged = await postForm(
      ctx,
      "/submit",
      { ...fields, csrf_token: "" },
      {
        cookie,
      },
    );
    assert.equal(forged.status, 403);

    const ok = await postForm(ctx, "/submit", fields, { cookie });
    assert.equal(ok.status, 303, await ok.text());
    assert.match(ok.headers.get("location") ?? "", /^\/event\/choir-rehearsal/);
    const list = await (await call(ctx, "GET", "/api/events?start=0")).json();
    const created = list.find((e: { title: string }) =>
      e.title === "Choir rehearsal"
    );
    assert.ok(created, JSON.stringify(list));
    // 21:00 in Rome in July is 19:00 UTC.
    assert.equal(created.start_datetime, Date.UTC(2026, 6, 10, 19) / 1000);
    assert.deepEqual(created.tags.sort(), ["choir", "music"]);
    const full = await (await call(ctx, "GET", `/api/events/${created.id}`))
      .json();
    assert.equal(full.userId, member.user.id);
    assert.match(
      full.description,
      /<p>Bring your score\.<br \/?>Doors at 8\.<\/p>/,
    );
    assert.match(
      full.description,
      /<a href="https:\/\/example\.org\/choir"[^>]*>https:\/\/example\.org\/choir<\/a>/,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("submit form: anonymous when allowed, waiting for confirmation; cross-site posts refused", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const form = await get(ctx, "/submit");
    assert.equal(form.status, 200);
    assert.match(await form.text(), /published once an editor has confirmed/);
    const fields = {
      title: "Book swap",
      start: "2026-07-01T18:00",
      end: "",
      place_name: "Library",
      place_address: "",
      online_link: "",
      tags: "",
      description: "",
    };
    const foreign = await postForm(ctx, "/submit", fields, {
      origin: "https://evil.example",
    });
    assert.equal(foreign.status, 403);
    const ok = await postForm(ctx, "/submit", fields);
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /“Book swap” was received/);
    const waiting = await (await call(ctx, "GET", "/api/events/unconfirmed", {
      token: admin.token,
    })).json();
    assert.deepEqual(waiting.map((e: { title: string }) => e.title), [
      "Book swap",
    ]);
    assert.equal(waiting[0].userId, null);
  } finally {
    ctx.close();
  }
});

Deno.test("the web interface speaks English and Italian: the visitor's choice, else Accept-Language, else the instance's locale; one language per page", async () => {
  const ctx = await createTestApp();
  try {
    const page = async (path: string, headers: Record<string, string> = {}) => {
      const res = await ctx.app.request(path, { headers });
      assert.equal(res.status, 200, path);
      return await res.text();
    };
    const italian = await page("/login", {
      "accept-language": "it-IT,it;q=0.9,en;q=0.8",
    });
    assert.match(italian, /<html lang="it">/);
    assert.match(italian, /<h1>Accedi<\/h1>/);
    assert.doesNotMatch(italian, /Sign in/);
    // q values rank the languages; unknown ones are skipped.
    assert.match(
      await page("/login", { "accept-language": "de;q=1, en;q=0.5, it;q=0.7" }),
      /<html lang="it">/,
    );
    // The visitor's choice wins.
    assert.match(
      await page("/login?lang=en", { "accept-language": "it" }),
      /<h1>Sign in<\/h1>/,
    );
    // Without a preference: the instance's locale.
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_locale: "it", allow_anon_event: true },
    });
    const submit = await page("/submit");
    assert.match(submit, /<html lang="it">/);
    assert.match(submit, /<h1>Proponi un evento<\/h1>/);
    assert.match(submit, /<label for="start">Inizio<\/label>/);
    assert.match(submit, /\(ora di UTC\)/);
    assert.doesNotMatch(submit, />Title</);
  } finally {
    ctx.close();
  }
});

Deno.test("registration: only when allow_registration is on; a user account signed in at once; bad input, a taken e-mail and the per-address limit are refused, writing nothing", async () => {
  const ctx = await createTestApp();
  try {
    assert.equal((await get(ctx, "/register")).status, 404);
    const closed = await postForm(ctx, "/register", {
      email: "new@example.org",
      password: "a-long-password",
    });
    assert.equal(closed.status, 404);
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_registration: true },
    });
    const form = await get(ctx, "/register");
    assert.equal(form.status, 200);
    assert.match(await form.text(), /autocomplete="new-password"/);
    const users = await countRows(ctx, "users");

    const short = await postForm(ctx, "/register", {
      email: "new@example.org",
      password: "short",
    });
    assert.equal(short.status, 400);
    assert.match(await short.text(), /id="password-error"/);
    const bad = await postForm(ctx, "/register", {
      email: "not an address",
      password: "a-long-password",
    });
    assert.equal(bad.status, 400);
    assert.equal(await countRows(ctx, "users"), users);

    const ok = await postForm(ctx, "/register", {
      email: "New@Example.org",
      password: "a-long-password",
    });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/submit");
    const cookie = (ok.headers.get("set-cookie") ?? "").split(";")[0];
    assert.match(cookie, /^quando_session=/);
    // Signed in as a plain user: the submit form, not the moderation page.
    assert.equal((await get(ctx, "/submit", cookie)).status, 200);
    assert.equal((await get(ctx, "/admin", cookie)).status, 403);
    const token = await call(ctx, "POST", "/api/login/token", {
      json: { email: "new@example.org", password: "a-long-password" },
    });
    assert.equal(token.status, 200);
    assert.equal(await countRows(ctx, "users"), users + 1);

    const taken = await postForm(ctx, "/register", {
      email: "new@example.org",
      password: "another-password",
    });
    assert.equal(taken.status, 409);
    // Five new accounts an hour from one address.
    for (let i = 0; i < 3; i++) {
      const res = await postForm(ctx, "/register", {
        email: `more${i}@example.org`,
        password: "a-long-password",
      });
      assert.equal(res.status, 303, `account ${i}`);
    }
    const limited = await postForm(ctx, "/register", {
      email: "one-too-many@example.org",
      password: "a-long-password",
    });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers.get("retry-after"));
    assert.equal(await countRows(ctx, "users"), users + 4);
  } finally {
    ctx.close();
  }
});

Deno.test("account page: the password changes (ending every other session and token, this browser kept signed in); authorised apps are listed and withdrawn", async () => {
  const ctx = await createTestApp();
  try {
    const member = await createTestUser(ctx, { role: "user" });
    const oauth = await oauthAccessToken(ctx, member);
    const loginToken = (await (await call(ctx, "POST", "/api/login/token", {
      json: { email: member.email, password: member.password },
    })).json()).access_token;
    assert.equal((await get(ctx, "/account")).status, 303);
    const cookie = await signIn(ctx, member);
    const other = await signIn(ctx, member);
    const html = await (await get(ctx, "/account", cookie)).text();
    assert.match(html, /Apps you authorised/);
    assert.match(html, /May: event:write/);
    const csrf = csrfOf(html);
    const clientId = /\/account\/apps\/([^/"]+)\/withdraw/.exec(html)?.[1];
    assert.ok(clientId, "the app's withdraw form");

    // Withdrawing the app ends its token.
    const mine = await call(ctx, "GET", "/api/events/mine", { token: oauth });
    assert.equal(mine.status, 200);
    const withdrawn = await postForm(
      ctx,
      `/account/apps/${clientId}/withdraw`,
      { csrf_token: csrf },
      { cookie },
    );
    assert.equal(withdrawn.status, 303);
    assert.equal(
      (await call(ctx, "GET", "/api/events/mine", { token: oauth })).status,
      401,
    );
    assert.match(
      await (await get(ctx, "/account", cookie)).text(),
      /No app can use your account/,
    );

    // The password: a wrong current one and a short new one are refused.
    const wrong = await postForm(ctx, "/account/password", {
      csrf_token: csrf,
      current_password: "not-it",
      new_password: "a-new-password",
    }, { cookie });
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /The current password is wrong/);
    const short = await postForm(ctx, "/account/password", {
      csrf_token: csrf,
      current_password: member.password,
      new_password: "short",
    }, { cookie });
    assert.equal(short.status, 400);
    const changed = await postForm(ctx, "/account/password", {
      csrf_token: csrf,
      current_password: member.password,
      new_password: "a-new-password",
    }, { cookie });
    assert.equal(changed.status, 303);
    const renewed = (changed.headers.get("set-cookie") ?? "").split(";")[0];
    assert.match(renewed, /^quando_session=/);
    assert.equal((await get(ctx, "/account", renewed)).status, 200);
    assert.equal((await get(ctx, "/account", cookie)).status, 303);
    assert.equal((await get(ctx, "/account", other)).status, 303);
    assert.equal(
      (await call(ctx, "GET", "/api/events/mine", { token: loginToken }))
        .status,
      401,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("expired sessions are removed by the hourly jobs; live ones stay", async () => {
  const ctx = await createTestApp();
  try {
    const user = await createTestUser(ctx);
    const old = await signIn(ctx, user);
    ctx.clock.advance(SESSION_TTL_MS - 3_600_000);
    const fresh = await signIn(ctx, user);
    ctx.clock.advance(2 * 3_600_000);
    const jobs = await runScheduledJobs({
      db: ctx.database.db,
      clock: ctx.clock,
      log: silentLogger,
      media: createDbMediaStore(ctx.database.db, ctx.clock),
    });
    assert.deepEqual(jobs.failed, []);
    assert.equal(await countRows(ctx, "sessions"), 1);
    // The expired one opens nothing; the live one still does.
    assert.equal((await get(ctx, "/account", old)).status, 303);
    assert.equal((await get(ctx, "/account", fresh)).status, 200);
  } finally {
    ctx.close();
  }
});
