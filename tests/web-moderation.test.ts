/**
 * The moderation pages at the HTTP level: the queue (confirm, reject through
 * a confirmation step, edit link, messages to the author, paging) for editors
 * and admins, and the replies from the fediverse (admins: list, search,
 * paging, hide/show, delete). Refusals: signed out, members (and editors for
 * the replies), CSRF and cross-site posts; bad input answers the form again
 * with 400 and writes nothing; unknown ids a 404 page.
 */
import assert from "node:assert/strict";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { csrfOf, get, postForm, signIn } from "./web-helpers.ts";
import { seedReplies } from "./web-moderation-helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;

type Json = Record<string, unknown>;

async function allowAnonymous(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: { allow_anon_event: true },
  });
  assert.equal(res.status, 200, await res.text());
  return admin;
}

async function submitAnonymously(ctx: TestContext, title: string) {
  const res = await call(ctx, "POST", "/api/events", {
    json: { title, start_datetime: NOW + DAY, place_name: "Town hall" },
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(body.is_visible, false);
  return body as { id: number };
}

/** The event as an admin's API sees it: its status (404 once deleted). */
async function apiStatus(ctx: TestContext, token: string, id: number) {
  const res = await call(ctx, "GET", `/api/events/${id}`, { token });
  await res.body?.cancel();
  return res.status;
}

async function html(res: Response, status: number): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, text.slice(0, 2000));
  assert.match(res.headers.get("content-type") ?? "", /text\/html/);
  return text;
}

Deno.test("queue: confirm, reject after a confirmation step, an edit link; a confirmed event is no longer rejectable; unknown ids are a 404 page", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await allowAnonymous(ctx);
    const keep = await submitAnonymously(ctx, "Street party");
    const spam = await submitAnonymously(ctx, "Cheap watches");
    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);

    const page = await html(await get(ctx, "/admin", cookie), 200);
    assert.match(page, /Street party/);
    assert.match(page, /Cheap watches/);
    assert.match(page, /Submitted by anonymous/);
    assert.match(page, /Waiting: 2/);
    for (const id of [keep.id, spam.id]) {
      assert.ok(page.includes(`href="/events/${id}/edit"`), `edit ${id}`);
      assert.ok(
        page.includes(`action="/admin/events/${id}/reject"`),
        `reject ${id}`,
      );
    }
    // Editors have one tab only: no tab bar.
    assert.doesNotMatch(page, /href="\/admin\/resources"/);
    const csrf = csrfOf(page);

    // Reject: a page that asks first, naming the event.
    const ask = await html(
      await get(ctx, `/admin/events/${spam.id}/reject`, cookie),
      200,
    );
    assert.match(ask, /Reject this submission\?/);
    assert.match(ask, /Cheap watches/);
    assert.match(ask, /deleted for good/);
    assert.equal(await apiStatus(ctx, admin.token, spam.id), 200);
    const rejected = await postForm(
      ctx,
      `/admin/events/${spam.id}/reject`,
      { csrf_token: csrf },
      { cookie },
    );
    assert.equal(rejected.status, 303, await rejected.text());
    assert.equal(rejected.headers.get("location"), "/admin?rejected=1");
    assert.equal(await apiStatus(ctx, admin.token, spam.id), 404);
    const after = await html(await get(ctx, "/admin?rejected=1", cookie), 200);
    assert.match(after, /role="status">Rejected: the submission was deleted/);
    assert.doesNotMatch(after, /Cheap watches/);

    // Rejecting it again: it is gone.
    await html(
      await postForm(ctx, `/admin/events/${spam.id}/reject`, {
        csrf_token: csrf,
      }, { cookie }),
      404,
    );

    // Confirm the other; then it is no longer waiting: not rejectable.
    const confirmed = await postForm(
      ctx,
      `/admin/events/${keep.id}/confirm`,
      { csrf_token: csrf },
      { cookie },
    );
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.headers.get("location"), "/admin?confirmed=1");
    assert.equal(
      (await call(ctx, "GET", `/api/events/${keep.id}`)).status,
      200,
    );
    assert.match(
      await html(
        await get(ctx, `/admin/events/${keep.id}/reject`, cookie),
        409,
      ),
      /No longer waiting/,
    );
    await html(
      await postForm(ctx, `/admin/events/${keep.id}/reject`, {
        csrf_token: csrf,
      }, { cookie }),
      409,
    );
    assert.equal(
      (await call(ctx, "GET", `/api/events/${keep.id}`)).status,
      200,
    );

    // Unknown or malformed ids: the not-found page, never a 500.
    for (const id of ["999999", "abc", "0", "9".repeat(40)]) {
      assert.match(
        await html(await get(ctx, `/admin/events/${id}/reject`, cookie), 404),
        /Not found/,
        id,
      );
      for (const action of ["confirm", "reject", "messages"]) {
        await html(
          await postForm(ctx, `/admin/events/${id}/${action}`, {
            csrf_token: csrf,
            message: "Hello",
          }, { cookie }),
          404,
        );
      }
    }
    assert.equal(await countRows(ctx, "messages"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("queue: signed out to sign in, members refused, CSRF and cross-site posts refused; nothing changes", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await allowAnonymous(ctx);
    const event = await submitAnonymously(ctx, "Street party");
    const paths = [
      `/admin/events/${event.id}/confirm`,
      `/admin/events/${event.id}/reject`,
      `/admin/events/${event.id}/messages`,
    ];
    // Signed out.
    for (const path of ["/admin", `/admin/events/${event.id}/reject`]) {
      const res = await get(ctx, path);
      assert.equal(res.status, 303, path);
      assert.match(res.headers.get("location") ?? "", /^\/login\?next=/);
    }
    for (const path of paths) {
      const res = await postForm(ctx, path, { message: "x" });
      assert.equal(res.status, 303, path);
      assert.match(res.headers.get("location") ?? "", /^\/login\?next=/);
    }
    // A member, with a valid token of their own.
    const member = await createTestUser(ctx, { role: "user" });
    const memberCookie = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin", memberCookie)).status, 403);
    assert.equal(
      (await get(ctx, `/admin/events/${event.id}/reject`, memberCookie))
        .status,
      403,
    );
    const memberCsrf = csrfOf(
      await (await get(ctx, "/account", memberCookie))
        .text(),
    );
    for (const path of paths) {
      const res = await postForm(ctx, path, {
        csrf_token: memberCsrf,
        message: "x",
      }, { cookie: memberCookie });
      assert.equal(res.status, 403, path);
    }
    // An editor without the token, with a made-up one, or from another site.
    const editor = await createTestUser(ctx, { role: "editor" });
    const cookie = await signIn(ctx, editor);
    const csrf = csrfOf(await (await get(ctx, "/admin", cookie)).text());
    for (const path of paths) {
      for (
        const [fields, headers] of [
          [{}, {}],
          [{ csrf_token: "x".repeat(43) }, {}],
          [{ csrf_token: csrf }, { origin: "https://evil.example" }],
        ] as [Record<string, string>, Record<string, string>][]
      ) {
        const res = await postForm(ctx, path, { ...fields, message: "x" }, {
          cookie,
          ...headers,
        });
        assert.equal(res.status, 403, `${path} ${JSON.stringify(headers)}`);
      }
    }
    // Nothing happened.
    const res = await call(ctx, "GET", `/api/events/${event.id}`, {
      token: admin.token,
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).is_visible, false);
    assert.equal(await countRows(ctx, "messages"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("queue messages: for the author or for editors only; the owner sees through the API only theirs; bad input is the form again with 400 and nothing written", async () => {
  const ctx = await createTestApp();
  try {
    await allowAnonymous(ctx);
    // A member's event, hidden by its owner: in the queue, with an author.
    const member = await userWithToken(ctx, "user");
    const created = await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Members' dinner",
        start_datetime: NOW + DAY,
        place_name: "Club",
      },
    });
    const own = await created.json();
    assert.equal(created.status, 201, JSON.stringify(own));
    const toggled = await call(ctx, "PUT", `/api/events/${own.id}/toggle`, {
      token: member.token,
    });
    assert.equal(toggled.status, 200);
    const anonymous = await submitAnonymously(ctx, "Street party");

    const editor = await userWithToken(ctx, "editor");
    const cookie = await signIn(ctx, editor);
    const page = await html(await get(ctx, "/admin", cookie), 200);
    const csrf = csrfOf(page);
    // The member's event offers "Show it to the author"; the anonymous one
    // says nobody but moderators will read it.
    const card = (text: string, id: number) =>
      text.slice(text.indexOf(`id="event-${id}"`)).split(
        '<li class="card">',
      )[0];
    assert.match(card(page, own.id), /name="is_author_visible"/);
    assert.doesNotMatch(card(page, anonymous.id), /name="is_author_visible"/);
    assert.match(card(page, anonymous.id), /only editors and admins read/);

    const path = `/admin/events/${own.id}/messages`;
    const visible = await postForm(ctx, path, {
      csrf_token: csrf,
      message: "Please add the address.\nThanks!",
      is_author_visible: "true",
    }, { cookie });
    assert.equal(visible.status, 303, await visible.text());
    assert.equal(
      visible.headers.get("location"),
      `/admin?messaged=1#event-${own.id}`,
    );
    ctx.clock.advance(60_000);
    const internal = await postForm(ctx, path, {
      csrf_token: csrf,
      message: "  Looks like the one of last year.  ",
    }, { cookie });
    assert.equal(internal.status, 303);

    // The owner, through the API: only the message meant for them.
    const theirs =
      await (await call(ctx, "GET", `/api/events/${own.id}/messages`, {
        token: member.token,
      })).json();
    assert.deepEqual(theirs.map((m: Json) => m.message), [
      "Please add the address.\nThanks!",
    ]);
    const full = await (await call(ctx, "GET", `/api/events/${own.id}`, {
      token: member.token,
    })).json();
    assert.deepEqual(full.messages.map((m: Json) => m.is_author_visible), [
      true,
    ]);
    // Editors see both, trimmed as the API trims.
    const all =
      await (await call(ctx, "GET", `/api/events/${own.id}/messages`, {
        token: editor.token,
      })).json();
    assert.deepEqual(all.map((m: Json) => [m.message, m.is_author_visible]), [
      ["Please add the address.\nThanks!", true],
      ["Looks like the one of last year.", false],
    ]);
    const shown = await html(await get(ctx, "/admin?messaged=1", cookie), 200);
    assert.match(shown, /role="status">Message added/);
    assert.match(card(shown, own.id), /Messages \(2\)/);
    assert.match(card(shown, own.id), /the author sees it/);
    assert.match(card(shown, own.id), /editors and admins only/);
    assert.match(card(shown, own.id), new RegExp(editor.email));

    // Bad input: blank, or longer than the API allows. The form comes back
    // open, with the problem next to the field and what was typed kept.
    for (
      const [typed, problem] of [
        ["   ", "Write a message."],
        [`Too long <b>${"x".repeat(5000)}`, "Use at most 5000 characters."],
      ]
    ) {
      const res = await postForm(
        ctx,
        `/admin/events/${anonymous.id}/messages`,
        {
          csrf_token: csrf,
          message: typed,
        },
        { cookie },
      );
      const text = await html(res, 400);
      const mine = card(text, anonymous.id);
      assert.match(text, /role="alert">The message was not added/);
      assert.match(mine, /<details open(="")?>/);
      assert.match(
        mine,
        new RegExp(`id="message-${anonymous.id}-error">${problem}`),
      );
      assert.match(mine, /aria-invalid="true"/);
      assert.match(
        mine,
        new RegExp(
          `aria-describedby="message-${anonymous.id}-hint message-${anonymous.id}-error"`,
        ),
      );
      if (typed.trim()) assert.ok(mine.includes("Too long &lt;b&gt;xxx"));
    }
    assert.equal(await countRows(ctx, "messages"), 2);
  } finally {
    ctx.close();
  }
});

Deno.test("queue paging: twenty a page, previous and next links, past the last page the last; actions come back to their page", async () => {
  const ctx = await createTestApp();
  try {
    await allowAnonymous(ctx);
    const ids: number[] = [];
    for (let i = 0; i < 45; i++) {
      ids.push((await submitAnonymously(ctx, `Submission ${i + 1}`)).id);
      ctx.clock.advance(1000);
    }
    const editor = await createTestUser(ctx, { role: "admin" });
    const cookie = await signIn(ctx, editor);
    const titles = (text: string) =>
      [...text.matchAll(/<h2 id="event-\d+">([^<]+)<\/h2>/g)].map((m) => m[1]);

    const first = await html(await get(ctx, "/admin", cookie), 200);
    assert.equal(titles(first).length, 20);
    assert.equal(titles(first)[0], "Submission 1");
    assert.match(first, /Page 1 of 3/);
    assert.match(first, /href="\/admin\?page=2" rel="next"/);
    assert.doesNotMatch(first, /rel="prev"/);
    assert.match(first, /Waiting: 45/);

    const second = await html(await get(ctx, "/admin?page=2", cookie), 200);
    assert.equal(titles(second)[0], "Submission 21");
    assert.match(second, /href="\/admin" rel="prev"/);
    assert.match(second, /href="\/admin\?page=3" rel="next"/);
    const last = await html(await get(ctx, "/admin?page=99", cookie), 200);
    assert.deepEqual(
      titles(last),
      [41, 42, 43, 44, 45].map((n) => `Submission ${n}`),
    );
    assert.match(last, /Page 3 of 3/);
    for (const odd of ["abc", "0", "-1", "1e3"]) {
      const text = await html(
        await get(ctx, `/admin?page=${odd}`, cookie),
        200,
      );
      assert.equal(titles(text)[0], "Submission 1", odd);
    }

    // Confirming on page 2 comes back to page 2.
    const res = await postForm(ctx, `/admin/events/${ids[20]}/confirm`, {
      csrf_token: csrfOf(second),
      page: "2",
    }, { cookie });
    assert.equal(res.headers.get("location"), "/admin?confirmed=1&page=2");
    const again = await html(await get(ctx, "/admin?page=2", cookie), 200);
    assert.equal(titles(again)[0], "Submission 22");
    // A queue of one page has no page links.
    for (const id of ids.slice(21)) {
      await postForm(ctx, `/admin/events/${id}/reject`, {
        csrf_token: csrfOf(again),
      }, { cookie });
    }
    const one = await html(await get(ctx, "/admin", cookie), 200);
    assert.equal(titles(one).length, 20);
    assert.doesNotMatch(one, /aria-label="Pages"/);
  } finally {
    ctx.close();
  }
});

/** A visible event with replies from Alice: the first says "concert". */
async function eventWithReplies(ctx: TestContext, token: string, n: number) {
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: {
      title: "Jazz night",
      start_datetime: NOW + DAY,
      place_name: "Club",
    },
  });
  const event = await res.json();
  assert.equal(res.status, 201, JSON.stringify(event));
  const contents = Array.from(
    { length: n },
    (_, i) =>
      i === 0
        ? "<p>Great CONCERT, see you there</p>"
        : `<p>Reply number ${i + 1}</p>`,
  );
  return { event, ids: await seedReplies(ctx, event.id, contents) };
}

Deno.test("replies from the fediverse: admins list them newest first with their author and event, search and page them; editors, members and visitors are refused", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const { event, ids } = await eventWithReplies(ctx, admin.token, 25);

    assert.equal((await get(ctx, "/admin/resources")).status, 303);
    for (const role of ["editor", "user"] as const) {
      const who = await createTestUser(ctx, { role });
      const cookie = await signIn(ctx, who);
      assert.equal(
        (await get(ctx, "/admin/resources", cookie)).status,
        403,
        role,
      );
      assert.equal(
        (await get(ctx, `/admin/resources/${ids[0]}/delete`, cookie)).status,
        403,
      );
    }
    const cookie = await signIn(ctx, admin);
    const page = await html(await get(ctx, "/admin/resources", cookie), 200);
    const shownIds = (text: string) =>
      [...text.matchAll(/<li class="card( is-hidden)?" id="resource-(\d+)">/g)]
        .map((m) => Number(m[2]));
    assert.deepEqual(shownIds(page), ids.slice(5).reverse());
    assert.match(page, /Replies: 25/);
    assert.match(page, /Page 1 of 2/);
    assert.match(page, /href="\/admin\/resources\?page=2" rel="next"/);
    assert.match(
      page,
      /href="https:\/\/remote.example\/@alice" rel="noopener noreferrer nofollow">Alice Liddell/,
    );
    assert.match(page, /@alice@remote.example/);
    assert.match(
      page,
      new RegExp(`in reply to <a href="/event/${event.slug}">Jazz night</a>`),
    );
    assert.match(page, /<div class="content"><p>Reply number 25<\/p><\/div>/);
    // The tab bar links both moderation pages, this one current.
    assert.match(
      page,
      /<nav class="tabs"[^>]*>.*href="\/admin"\s*>.*href="\/admin\/resources" aria-current="page"/s,
    );
    assert.match(
      await html(await get(ctx, "/admin", cookie), 200),
      /href="\/admin" aria-current="page">Events waiting/,
    );

    const second = await html(
      await get(ctx, "/admin/resources?page=2", cookie),
      200,
    );
    assert.deepEqual(shownIds(second), ids.slice(0, 5).reverse());
    assert.deepEqual(
      shownIds(
        await html(await get(ctx, "/admin/resources?page=7", cookie), 200),
      ),
      ids.slice(0, 5).reverse(),
    );

    // Search: content (case-insensitively), the event's title, the actor.
    const concert = await html(
      await get(ctx, "/admin/resources?query=concert", cookie),
      200,
    );
    assert.deepEqual(shownIds(concert), [ids[0]]);
    assert.match(concert, /value="concert"/);
    assert.equal(
      shownIds(
        await html(await get(ctx, "/admin/resources?query=jazz", cookie), 200),
      ).length,
      20,
    );
    const none = await html(
      await get(ctx, "/admin/resources?query=%3Cnothing%3E", cookie),
      200,
    );
    assert.match(none, /No reply matches “&lt;nothing&gt;”/);
    // Too long: the form again with the problem, the text kept.
    const long = "é".repeat(201);
    const bad = await html(
      await get(
        ctx,
        `/admin/resources?query=${encodeURIComponent(long)}`,
        cookie,
      ),
      400,
    );
    assert.match(bad, /id="query-error">Use at most 200 characters/);
    assert.match(bad, /aria-invalid="true"/);
    assert.ok(bad.includes(`value="${long}"`));
    assert.deepEqual(shownIds(bad), []);
  } finally {
    ctx.close();
  }
});

Deno.test("replies from the fediverse: hide and show again, delete after a confirmation step; CSRF, cross-site and editors refused; unknown ids a 404 page; stored HTML is sanitised again", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const { event, ids } = await eventWithReplies(ctx, admin.token, 3);
    // Stored unsanitised (as an older version or a bug might have): shown safe.
    const [evil] = await seedReplies(ctx, event.id, [
      '<p onclick="alert(1)">Hi<script>alert(2)</script><a href="javascript:alert(3)">x</a><img src="https://tracker.example/p.gif"></p>',
    ]);
    const cookie = await signIn(ctx, admin);
    const page = await html(
      await get(ctx, "/admin/resources?query=reply&page=1", cookie),
      200,
    );
    const csrf = csrfOf(page);
    const all = await html(await get(ctx, "/admin/resources", cookie), 200);
    const evilCard = all.slice(all.indexOf(`id="resource-${evil}"`)).split(
      "</li>",
    )[0];
    assert.match(evilCard, /Hi/);
    assert.doesNotMatch(evilCard, /onclick|<script|javascript:|<img/);

    const publicIds = async () =>
      (await (await call(ctx, "GET", `/api/events/${event.id}`)).json())
        .resources.map((r: Json) => r.id);
    assert.ok((await publicIds()).includes(ids[1]));

    const hide = `/admin/resources/${ids[1]}/hide`;
    // Refused: no token, a made-up one, another site, an editor.
    const editor = await createTestUser(ctx, { role: "editor" });
    const editorCookie = await signIn(ctx, editor);
    const editorCsrf = csrfOf(
      await (await get(ctx, "/admin", editorCookie)).text(),
    );
    for (
      const [fields, headers] of [
        [{}, { cookie }],
        [{ csrf_token: "x".repeat(43) }, { cookie }],
        [{ csrf_token: csrf }, { cookie, origin: "https://evil.example" }],
        [{ csrf_token: editorCsrf }, { cookie: editorCookie }],
      ] as [Record<string, string>, Record<string, string>][]
    ) {
      for (const path of [hide, `/admin/resources/${ids[1]}/delete`]) {
        assert.equal(
          (await postForm(ctx, path, fields, headers)).status,
          403,
          `${path} ${JSON.stringify(fields)}`,
        );
      }
    }
    assert.ok((await publicIds()).includes(ids[1]));
    assert.equal(await countRows(ctx, "resources"), 4);

    const hidden = await postForm(ctx, hide, {
      csrf_token: csrf,
      query: "reply",
      page: "1",
    }, { cookie });
    assert.equal(hidden.status, 303);
    assert.equal(
      hidden.headers.get("location"),
      `/admin/resources?query=reply&done=hidden#resource-${ids[1]}`,
    );
    assert.ok(!(await publicIds()).includes(ids[1]));
    const listed = await html(
      await get(ctx, "/admin/resources?query=reply&done=hidden", cookie),
      200,
    );
    assert.match(
      listed,
      /role="status">Hidden: the event&#39;s page no longer shows it/,
    );
    const card = listed.slice(listed.indexOf(`id="resource-${ids[1]}"`)).split(
      "</li>",
    )[0];
    assert.match(card, /hidden from the public/);
    assert.match(card, new RegExp(`action="/admin/resources/${ids[1]}/show"`));
    const shown = await postForm(ctx, `/admin/resources/${ids[1]}/show`, {
      csrf_token: csrf,
    }, { cookie });
    assert.equal(
      shown.headers.get("location"),
      `/admin/resources?done=shown#resource-${ids[1]}`,
    );
    assert.ok((await publicIds()).includes(ids[1]));

    // Delete: a page that asks first, showing the reply.
    const ask = await html(
      await get(ctx, `/admin/resources/${ids[2]}/delete?query=reply`, cookie),
      200,
    );
    assert.match(ask, /Delete this reply\?/);
    assert.match(ask, /Reply number 3/);
    assert.match(ask, /href="\/admin\/resources\?query=reply">Cancel/);
    assert.equal(await countRows(ctx, "resources"), 4);
    const deleted = await postForm(ctx, `/admin/resources/${ids[2]}/delete`, {
      csrf_token: csrf,
      query: "reply",
    }, { cookie });
    assert.equal(deleted.status, 303);
    assert.equal(
      deleted.headers.get("location"),
      "/admin/resources?query=reply&done=deleted",
    );
    assert.equal(await countRows(ctx, "resources"), 3);
    assert.ok(!(await publicIds()).includes(ids[2]));

    // Unknown or malformed ids: the not-found page.
    for (const id of [String(ids[2]), "999999", "abc"]) {
      assert.match(
        await html(
          await get(ctx, `/admin/resources/${id}/delete`, cookie),
          404,
        ),
        /Not found/,
      );
      for (const action of ["hide", "show", "delete"]) {
        await html(
          await postForm(ctx, `/admin/resources/${id}/${action}`, {
            csrf_token: csrf,
          }, { cookie }),
          404,
        );
      }
    }
    assert.equal(await countRows(ctx, "resources"), 3);
  } finally {
    ctx.close();
  }
});
