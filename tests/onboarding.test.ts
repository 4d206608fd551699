/**
 * Finding the way in (issue 32, points 1-7), through the HTTP surface: the
 * public header's links, the page after signing in, forms posted from the
 * instance's own address, the editors' list of published events and Edit
 * links, the moderation card, a cancellation's confirmation and a date of
 * a series changed on its own, and the settings that do what they say.
 */
import assert from "node:assert/strict";
import { EMPTY_EVENT_FORM } from "../lib/events/form.ts";
import {
  call,
  createTestApp,
  createTestUser,
  postEvent,
  TEST_NOW,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { png } from "./images.ts";
import { get, postForm, signIn } from "./web-helpers.ts";

/** Signs in through the form with `next` (none when undefined); the answer. */
function signInTo(
  ctx: TestContext,
  who: { email: string; password: string },
  next?: string,
  headers: Record<string, string> = {},
) {
  return postForm(ctx, "/login", {
    email: who.email,
    password: who.password,
    ...(next === undefined ? {} : { next }),
  }, headers);
}

Deno.test("after signing in: next when the role may open it, else the page of the role (/my for members, /admin for editors and admins), never a 403", async () => {
  const ctx = await createTestApp();
  try {
    const member = await createTestUser(ctx, { role: "user" });
    const editor = await createTestUser(ctx, { role: "editor" });
    const admin = await createTestUser(ctx, { role: "admin" });
    const cases: [typeof member, string | undefined, string][] = [
      [member, undefined, "/my"],
      [member, "", "/my"],
      [member, "/admin", "/my"],
      [member, "/admin/settings", "/my"],
      [member, "/submit", "/submit"],
      [member, "/my?page=2", "/my?page=2"],
      [member, "//evil.example/x", "/my"],
      [editor, undefined, "/admin"],
      [editor, "/admin/sources", "/admin/sources"],
      [editor, "/admin/events?q=jazz", "/admin/events?q=jazz"],
      [editor, "/admin/places", "/admin/places"],
      [editor, "/admin/reports", "/admin/reports"],
      [editor, "/admin/users", "/admin"],
      [admin, undefined, "/admin"],
      [admin, "/admin/settings", "/admin/settings"],
    ];
    for (const [who, next, expected] of cases) {
      const res = await signInTo(ctx, who, next);
      assert.equal(res.status, 303, `${who.user.role} ${next}`);
      const location = res.headers.get("location")!;
      assert.equal(location, expected, `${who.user.role} ${next}`);
      const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
      const landed = await get(ctx, location, cookie);
      assert.equal(landed.status, 200, `${who.user.role} lands on ${location}`);
      await landed.body?.cancel();
      // Already signed in, /login sends them the same way.
      const again = await get(ctx, "/login", cookie);
      assert.equal(again.status, 303);
      assert.equal(
        again.headers.get("location"),
        who.user.role === "user" ? "/my" : "/admin",
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("a form posted from the instance's own address (Origin = Host) is its own; one from elsewhere gets a page naming BASE_URL and the address to use", async () => {
  // BASE_URL is the default http://localhost:8000; the browser opened 127.0.0.1.
  const ctx = await createTestApp({
    env: { BASE_URL: "http://localhost:8000" },
  });
  try {
    const member = await createTestUser(ctx, { role: "user" });
    const local = await signInTo(ctx, member, undefined, {
      origin: "http://127.0.0.1:8000",
      host: "127.0.0.1:8000",
    });
    assert.equal(local.status, 303, await local.text());
    assert.equal(local.headers.get("location"), "/my");
    // A LAN address, posted with a Referer only.
    const lan = await signInTo(ctx, member, undefined, {
      origin: "",
      referer: "http://192.168.1.20:8000/login",
      host: "192.168.1.20:8000",
    });
    assert.equal(lan.status, 303);

    // Another site, or an address that is not the request's: a page that says what to do.
    for (
      const headers of <Record<string, string>[]> [
        { origin: "https://evil.example", host: "127.0.0.1:8000" },
        { origin: "http://127.0.0.1:8000", host: "localhost:8000" },
        { origin: "http://127.0.0.1:8000", host: "127.0.0.1:8000/x" },
      ]
    ) {
      const refused = await signInTo(ctx, member, undefined, {
        ...headers,
        referer: `${headers.origin}/login?next=%2Fsubmit`,
      });
      assert.equal(refused.status, 403, JSON.stringify(headers));
      assert.equal(refused.headers.get("set-cookie"), null);
      assert.match(refused.headers.get("content-type") ?? "", /text\/html/);
      const html = await refused.text();
      assert.match(html, /<h1>This form was sent from another address<\/h1>/);
      assert.ok(html.includes(`The form came from ${headers.origin}`));
      assert.match(html, /BASE_URL\) is http:\/\/localhost:8000/);
      assert.match(
        html,
        /<a href="http:\/\/localhost:8000\/login\?next=%2Fsubmit">/,
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("behind TRUST_PROXY, the instance's own address is the one its proxy forwarded (X-Forwarded-Host and -Proto); without it, those headers are not believed", async () => {
  for (const trust of [true, false]) {
    const ctx = await createTestApp({
      env: {
        BASE_URL: "https://events.example",
        TRUST_PROXY: String(trust),
      },
    });
    try {
      const member = await createTestUser(ctx, { role: "user" });
      const res = await signInTo(ctx, member, undefined, {
        origin: "https://calendar.example",
        host: "127.0.0.1:8000",
        "x-forwarded-host": "calendar.example",
        "x-forwarded-proto": "https",
      });
      assert.equal(res.status, trust ? 303 : 403, `TRUST_PROXY=${trust}`);
      await res.body?.cancel();
    } finally {
      ctx.close();
    }
  }
});

/** The links of the public header's account navigation: [href, text]. */
function accountLinks(html: string): [string, string][] {
  const nav = /<nav class="account"[^>]*>(.*?)<\/nav>/s.exec(html);
  if (!nav) return [];
  return [...nav[1].matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [
    m[1],
    m[2],
  ]);
}

Deno.test("the public header links to sign in (and submit, register when the instance allows them); a signed-in reader sees their way to /my or /admin, and their page is never cached for others", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "60000" } });
  try {
    const admin = await userWithToken(ctx, "admin");
    for (const path of ["/", "/past", "/tags", "/search?q=x"]) {
      const res = await get(ctx, path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(accountLinks(await res.text()), [["/login", "Sign in"]]);
    }
    const settings = await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true, allow_registration: true },
    });
    assert.equal(settings.status, 200);
    const open = await get(ctx, "/");
    assert.deepEqual(accountLinks(await open.text()), [
      ["/submit", "Submit an event"],
      ["/login", "Sign in"],
      ["/register", "Register"],
    ]);
    // Each link leads to a page that answers.
    for (const path of ["/submit", "/login", "/register"]) {
      const res = await get(ctx, path);
      assert.equal(res.status, 200, path);
      await res.body?.cancel();
    }

    const member = await createTestUser(ctx, { role: "user" });
    const editor = await createTestUser(ctx, { role: "editor" });
    for (
      const [who, links] of [
        [member, [["/my", "My events"]]],
        [editor, [["/my", "My events"], ["/admin", "Moderation"]]],
      ] as const
    ) {
      const cookie = await signIn(ctx, who);
      const res = await get(ctx, "/", cookie);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.deepEqual(accountLinks(await res.text()), links);
    }
    // The visitor after them still gets the visitor's header.
    const after = await get(ctx, "/");
    assert.deepEqual(accountLinks(await after.text()).map(([h]) => h), [
      "/submit",
      "/login",
      "/register",
    ]);
    // An expired or made-up cookie is a visitor.
    const stale = await get(ctx, "/", `quando_session=${"x".repeat(43)}`);
    assert.deepEqual(accountLinks(await stale.text()).map(([h]) => h), [
      "/submit",
      "/login",
      "/register",
    ]);
  } finally {
    ctx.close();
  }
});

/** The h-event names of a page, in order. */
function eventNames(html: string): string[] {
  return [...html.matchAll(/class="p-name u-url"[^>]*>([^<]*)</g)].map((m) =>
    m[1]
  );
}

Deno.test("settings that do what they say: each occurrence listed on the home page; the description's paragraphs kept; current time-zone names (an old stored one still works); no Hide boosts switch, its stored value left alone", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await postEvent(ctx, admin.token, {
      title: "Weekly jam",
      start_datetime: Date.parse("2026-06-02T17:00:00Z") / 1000,
      recurrent: { frequency: "1w" },
    });
    // "List each occurrence of recurring events" is on by default.
    const home = await (await get(ctx, "/")).text();
    assert.ok(
      eventNames(home).filter((n) => n === "Weekly jam").length >= 4,
      eventNames(home).join(),
    );
    assert.doesNotMatch(home, /class="rule"/);

    // The description's blank lines make paragraphs, its line breaks stay.
    const described = await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: {
        instance_description:
          "First paragraph.\nSecond line.\n\nAnother <one>.",
      },
    });
    assert.equal(described.status, 200);
    const intro = [
      ...(await (await get(ctx, "/")).text()).matchAll(
        /<p class="muted intro">(.*?)<\/p>/gs,
      ),
    ].map((m) => m[1]);
    assert.deepEqual(intro, [
      "First paragraph.<br>Second line.",
      "Another &lt;one&gt;.",
    ]);

    // Time zones by their current names.
    const cookie = await signIn(ctx, admin);
    const page = await (await get(ctx, "/admin/settings", cookie)).text();
    const zones = [...page.matchAll(/<option value="([A-Z][^"]*\/[^"]*)"/g)]
      .map((m) => m[1]);
    for (const current of ["Europe/Kyiv", "Asia/Kolkata", "Asia/Kathmandu"]) {
      assert.ok(zones.includes(current), current);
    }
    for (const old of ["Europe/Kiev", "Asia/Calcutta", "Asia/Katmandu"]) {
      assert.ok(!zones.includes(old), old);
    }
    // Boosts are remote events, which no listing shows: no switch for them.
    assert.doesNotMatch(page, /hide_boosts/);
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { hide_boosts: true },
    });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)![1];
    const saved = await postForm(ctx, "/admin/settings", {
      csrf_token: csrf,
      instance_title: "Kyiv events",
      instance_description: "",
      instance_locale: "en",
      instance_timezone: "Europe/Kyiv",
      federation_series_horizon_days: "14",
      recurrent_event_visible: "on",
    }, { cookie });
    assert.equal(saved.status, 303, await saved.text());
    const stored = await (await call(ctx, "GET", "/api/settings", {
      token: admin.token,
    })).json();
    assert.equal(stored.instance_timezone, "Europe/Kyiv");
    assert.equal(stored.hide_boosts, true);

    // An old name stored before (by the API, an import) keeps working.
    const old = await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { instance_timezone: "Europe/Kiev" },
    });
    assert.equal(old.status, 200);
    const again = await (await get(ctx, "/admin/settings", cookie)).text();
    assert.match(again, /<option value="Europe\/Kiev" selected>/);
    assert.equal((await get(ctx, "/")).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("/my: Cancel event… asks first on a page of its own (no script needed), then cancels; Reinstate is a button", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, member.token, { title: "Open mic" });
    const cookie = await signIn(ctx, member);
    const my = await (await get(ctx, "/my", cookie)).text();
    // No form on /my cancels at once.
    assert.doesNotMatch(my, /name="status" value="EventCancelled"/);
    const link = new RegExp(
      `<a class="button deny" href="/events/${event.id}/cancel\\?page=1"[^>]*>Cancel event…</a>`,
    );
    assert.match(my, link);

    const ask = await get(ctx, `/events/${event.id}/cancel?page=1`, cookie);
    assert.equal(ask.status, 200);
    const page = await ask.text();
    assert.match(page, /<h1>Cancel “Open mic”\?<\/h1>/);
    assert.match(
      page,
      /<a class="button" href="\/my\?page=1">Keep it as planned<\/a>/,
    );
    assert.match(page, new RegExp(`action="/events/${event.id}/status"`));
    assert.match(page, /name="status" value="EventCancelled"/);
    const status = async () =>
      (await (await call(ctx, "GET", `/api/events/${event.id}`)).json())
        .status;
    assert.equal(await status(), "EventScheduled", "asking changes nothing");

    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)![1];
    const done = await postForm(ctx, `/events/${event.id}/status`, {
      csrf_token: csrf,
      page: "1",
      status: "EventCancelled",
    }, { cookie });
    assert.equal(done.status, 303);
    assert.equal(await status(), "EventCancelled");
    const after = await (await get(ctx, "/my", cookie)).text();
    assert.match(after, /name="status" value="EventScheduled"/);
    assert.match(after, />\s*Reinstate\s*</);
    // Someone else's event: no confirmation page either.
    const other = await userWithToken(ctx, "user");
    const theirs = await signIn(ctx, other);
    assert.equal(
      (await get(ctx, `/events/${event.id}/cancel`, theirs)).status,
      403,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("a date of a series edited on its own (new title and place) shows its change on the home page (each date listed, or the series once) and on the series' page", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const admin = await userWithToken(ctx, "admin");
    const series = await postEvent(ctx, member.token, {
      title: "Yoga",
      start_datetime: Date.parse("2026-06-03T17:00:00Z") / 1000,
      place_name: "Park",
      place_address: "Viale 1",
      recurrent: { frequency: "1w" },
    });
    const second = series.children[1];
    const cookie = await signIn(ctx, member);
    const form = await (await get(ctx, `/events/${second.id}/edit`, cookie))
      .text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(form)![1];
    const saved = await postForm(ctx, `/events/${second.id}/edit`, {
      ...EMPTY_EVENT_FORM,
      csrf_token: csrf,
      title: "Yoga by the lake",
      start: "2026-06-10T17:00",
      end: "2026-06-10T19:00",
      place_name: "Lake",
      place_address: "Riva 2",
    }, { cookie });
    assert.equal(saved.status, 303, await saved.text());

    // Each date listed (the default): the changed one under its own title.
    const home = await (await get(ctx, "/")).text();
    assert.deepEqual(eventNames(home).slice(0, 3), [
      "Yoga",
      "Yoga by the lake",
      "Yoga",
    ]);
    // The series' page: its dates say how the changed one differs.
    const seriesPage = await (await get(ctx, `/event/${series.slug}`)).text();
    const dates = /<ul class="dates">(.*?)<\/ul>/s.exec(seriesPage)![1];
    const items = [...dates.matchAll(/<li>(.*?)<\/li>/gs)].map((m) =>
      m[1].replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim()
    );
    assert.match(items[1], / · Yoga by the lake · Lake$/);
    assert.doesNotMatch(items[0], /·/);
    assert.doesNotMatch(items[2], /·/);

    // The series once: its following dates say it too.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { recurrent_event_visible: false },
    });
    const once = await (await get(ctx, "/")).text();
    const following = /<p class="following">(.*?)<\/p>/s.exec(once)![1]
      .replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    assert.match(following, /\(Yoga by the lake\) \(Lake\)/);
  } finally {
    ctx.close();
  }
});

Deno.test("editors' list of published events: upcoming or past, searched by words, paged, each with Edit (coming back to the list); members may not open it", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const hour = 3600;
    for (let i = 0; i < 22; i++) {
      await postEvent(ctx, admin.token, {
        title: `Talk ${String(i).padStart(2, "0")}`,
        start_datetime: TEST_NOW + (i + 1) * hour,
        tags: i === 3 ? ["jazz"] : [],
      });
    }
    await postEvent(ctx, admin.token, {
      title: "Jazz night",
      start_datetime: TEST_NOW + 100 * hour,
    });
    await postEvent(ctx, admin.token, {
      title: "Old jazz",
      start_datetime: TEST_NOW - 100 * hour,
    });
    // Waiting for confirmation: not published.
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    const waiting = await postEvent(ctx, undefined, {
      title: "Anonymous jazz",
      start_datetime: TEST_NOW + 5 * hour,
    });
    assert.equal(waiting.is_visible, false);
    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);
    const titles = (html: string) =>
      [...html.matchAll(/<h2 id="event-\d+"><a href="[^"]+">([^<]+)<\/a>/g)]
        .map((m) => m[1]);

    const first = await get(ctx, "/admin/events", cookie);
    assert.equal(first.status, 200);
    const one = await first.text();
    assert.match(
      one,
      /<a href="\/admin\/events" aria-current="page">Events<\/a>/,
    );
    assert.equal(titles(one).length, 20);
    assert.equal(titles(one)[0], "Talk 00");
    assert.match(one, /<a href="\/admin\/events\?page=2">Next page<\/a>/);
    const two = await (await get(ctx, "/admin/events?page=2", cookie)).text();
    assert.deepEqual(titles(two), ["Talk 20", "Talk 21", "Jazz night"]);

    const jazz = await (await get(ctx, "/admin/events?q=jazz", cookie)).text();
    assert.deepEqual(titles(jazz), ["Talk 03", "Jazz night"]);
    assert.match(
      jazz,
      /<input id="q" name="q" type="search" maxlength="100" value="jazz"/,
    );
    const edit = /href="(\/events\/\d+\/edit\?next=[^"]+)"/.exec(jazz)![1];
    assert.match(edit, /next=%2Fadmin%2Fevents%3Fq%3Djazz$/);
    const form = await get(ctx, edit, cookie);
    assert.equal(form.status, 200);
    await form.body?.cancel();

    const past =
      await (await get(ctx, "/admin/events?when=past&q=jazz", cookie))
        .text();
    assert.deepEqual(titles(past), ["Old jazz"]);
    const none = await get(ctx, "/admin/events?q=nothing+like+this", cookie);
    assert.match(await none.text(), /No published event matches these words\./);

    const member = await createTestUser(ctx, { role: "user" });
    const refused = await get(ctx, "/admin/events", await signIn(ctx, member));
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
    const visitor = await get(ctx, "/admin/events");
    assert.equal(visitor.status, 303);
  } finally {
    ctx.close();
  }
});

Deno.test("an event's public page shows Edit to its owner, editors and admins (signed in), not to other members or visitors", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "60000" } });
  try {
    const owner = await userWithToken(ctx, "user");
    const event = await postEvent(ctx, owner.token, { title: "Open mic" });
    const path = `/event/${event.slug}`;
    const editLink = new RegExp(
      `<a class="button secondary edit" href="/events/${event.id}/edit\\?next=%2Fevent%2F${event.slug}">Edit</a>`,
    );
    const visitor = await (await get(ctx, path)).text();
    assert.doesNotMatch(visitor, /class="button secondary edit"/);
    const other = await createTestUser(ctx, { role: "user" });
    const editor = await createTestUser(ctx, { role: "editor" });
    for (
      const [who, sees] of [[owner, true], [other, false], [
        editor,
        true,
      ]] as const
    ) {
      const res = await get(ctx, path, await signIn(ctx, who));
      assert.equal(res.status, 200);
      const html = await res.text();
      if (sees) assert.match(html, editLink, who.email);
      else assert.doesNotMatch(html, /class="button secondary edit"/);
    }
    // The visitor after them is not shown the link (no page kept for them).
    assert.doesNotMatch(
      await (await get(ctx, path)).text(),
      /class="button secondary edit"/,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("the moderation card shows the description (sanitised), tags, image and a link to a preview of the page, which editors alone can open", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    // Anonymous, through the form, with an image.
    const body = new FormData();
    for (
      const [name, value] of Object.entries({
        ...EMPTY_EVENT_FORM,
        title: "Garden work",
        start: "2026-06-03T19:00",
        end: "2026-06-03T21:00",
        place_name: "Allotments",
        tags: "garden, outdoors",
        description: "Bring gloves.\n\nSecond paragraph.",
        image_alt: "A spade in the soil",
      })
    ) body.append(name, value);
    body.append(
      "image",
      new File([png(40, 30)], "spade.png", { type: "image/png" }),
    );
    const submitted = await ctx.app.request("/submit", {
      method: "POST",
      headers: { origin: new URL(ctx.config.baseUrl).origin },
      body,
    });
    assert.equal(submitted.status, 200, "thanked");
    await submitted.body?.cancel();
    // Anonymous through the API, with markup that must not survive.
    const raw = await postEvent(ctx, undefined, {
      title: "Street party",
      description:
        '<p>Hi <strong>there</strong></p><script>alert(1)</script><img src="x" onerror="alert(1)">',
    });

    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);
    const queue = await (await get(ctx, "/admin", cookie)).text();
    const cards = queue.split('<li class="card">').slice(1);
    const garden = cards.find((c) => c.includes("Garden work"))!;
    assert.match(garden, /<p>Bring gloves\.<\/p><p>Second paragraph\.<\/p>/);
    assert.match(garden, /Tags: #garden #outdoors/);
    assert.match(
      garden,
      /<img class="submitted" src="\/media\/[^"]+" alt="A spade in the soil"/,
    );
    const preview =
      /<a href="(\/admin\/events\/\d+\/preview)"/.exec(garden)![1];
    const party = cards.find((c) => c.includes("Street party"))!;
    assert.match(party, /<p>Hi <strong>there<\/strong><\/p>/);
    assert.doesNotMatch(party, /<script|onerror/);
    assert.match(
      party,
      new RegExp(`<a href="/admin/events/${raw.id}/preview"`),
    );

    // The preview: the public page of the waiting event, for editors.
    const page = await get(ctx, preview, cookie);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("cache-control"), "no-store");
    const html = await page.text();
    assert.match(html, /<h1 class="p-name">Garden work<\/h1>/);
    assert.match(html, /Preview: this event waits for confirmation/);
    assert.match(
      html,
      /<img class="u-photo" src="http:\/\/quando\.test\/media\//,
    );
    // Visitors and members cannot see it, there or at its public address.
    const slug =
      /<link rel="canonical" href="http:\/\/quando\.test\/event\/([^"]+)"/
        .exec(html)![1];
    assert.equal((await get(ctx, `/event/${slug}`)).status, 404);
    const member = await createTestUser(ctx, { role: "user" });
    const refused = await get(ctx, preview, await signIn(ctx, member));
    assert.equal(refused.status, 403);
    assert.equal((await get(ctx, preview)).status, 303);
    assert.equal(
      (await get(ctx, "/admin/events/999999/preview", cookie)).status,
      404,
    );
  } finally {
    ctx.close();
  }
});
