/**
 * Reports of events: anyone reports a visible event (`POST
 * /api/events/{id}/reports`, the form `/events/{id}/report` linked from the
 * event page), with a reason and plain text, rate limited; editors and
 * admins read the queue (`GET /api/reports`, `/admin/reports`), dismiss or
 * resolve a report, or hide the event.
 */
import assert from "node:assert/strict";
import {
  call,
  createTestApp,
  expectError,
  postEvent,
  userWithToken,
} from "./helpers.ts";
import { csrfFrom, get, postForm, signIn } from "./web-helpers.ts";

Deno.test("POST /api/events/{id}/reports: anonymous reports of visible events; bad input 400, hidden or unknown events 404, past the limit 429; nothing written on a refusal", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const editor = await userWithToken(ctx, "editor");
    const event = await postEvent(ctx, member.token);
    const hidden = await postEvent(ctx, member.token, {
      title: "Draft",
      is_visible: false,
    });
    const path = `/api/events/${event.id}/reports`;
    for (
      const json of [
        { reason: "boring" },
        {},
        { reason: "spam", text: "<a href='x'>click</a>" },
        { reason: "spam", text: "x".repeat(1001) },
        { reason: "spam", text: 42 },
      ]
    ) {
      await expectError(
        await call(ctx, "POST", path, { json }),
        400,
        "invalid_request",
      );
    }
    await expectError(
      await call(ctx, "POST", `/api/events/${hidden.id}/reports`, {
        json: { reason: "spam" },
      }),
      404,
      "not_found",
    );
    await expectError(
      await call(ctx, "POST", "/api/events/999999/reports", {
        json: { reason: "spam" },
      }),
      404,
      "not_found",
    );
    const empty = await call(ctx, "GET", "/api/reports", {
      token: editor.token,
    });
    assert.equal((await empty.json()).count, 0);

    const filed = await call(ctx, "POST", path, {
      json: {
        reason: "inaccurate",
        text: "  The date is wrong.\r\nIt is on Sunday.  ",
      },
    });
    assert.equal(filed.status, 201, await filed.clone().text());
    const form = await call(ctx, "POST", path, {
      form: { reason: "spam", text: "I <3 it, but it is spam" },
    });
    assert.equal(form.status, 201, await form.clone().text());
    const list = await (await call(ctx, "GET", "/api/reports", {
      token: editor.token,
    })).json();
    assert.equal(list.count, 2);
    assert.equal(list.data[0].text, "The date is wrong.\nIt is on Sunday.");
    assert.equal(list.data[0].event.title, "Open mic");
    assert.equal(list.data[0].status, "open");

    // Ten an hour from one address.
    for (let i = 2; i < 10; i++) {
      const res = await call(ctx, "POST", path, { json: { reason: "other" } });
      assert.equal(res.status, 201);
    }
    const limited = await call(ctx, "POST", path, {
      json: { reason: "other" },
    });
    await expectError(limited, 429, "rate_limited");
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    const after = await (await call(ctx, "GET", "/api/reports", {
      token: editor.token,
    })).json();
    assert.equal(after.count, 10);
  } finally {
    ctx.close();
  }
});

Deno.test("GET /api/reports and PUT /api/reports/{id}: editors and admins only; dismiss, resolve, or hide the event and resolve its other reports in one write", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const editor = await userWithToken(ctx, "editor");
    const event = await postEvent(ctx, member.token);
    const ids: number[] = [];
    for (const reason of ["spam", "inappropriate", "other"]) {
      const res = await call(ctx, "POST", `/api/events/${event.id}/reports`, {
        json: { reason },
      });
      ids.push((await res.json()).id);
    }
    await expectError(
      await call(ctx, "GET", "/api/reports"),
      401,
      "unauthorized",
    );
    await expectError(
      await call(ctx, "GET", "/api/reports", { token: member.token }),
      403,
      "forbidden",
    );
    await expectError(
      await call(ctx, "PUT", `/api/reports/${ids[0]}`, {
        token: member.token,
        json: { status: "dismissed" },
      }),
      403,
      "forbidden",
    );
    await expectError(
      await call(ctx, "PUT", `/api/reports/${ids[0]}`, {
        token: editor.token,
        json: { status: "open" },
      }),
      400,
      "invalid_request",
    );
    await expectError(
      await call(ctx, "PUT", "/api/reports/999999", {
        token: editor.token,
        json: { status: "dismissed" },
      }),
      404,
      "not_found",
    );
    const dismissed = await call(ctx, "PUT", `/api/reports/${ids[0]}`, {
      token: editor.token,
      json: { status: "dismissed" },
    });
    assert.equal(dismissed.status, 200);
    assert.equal((await dismissed.json()).status, "dismissed");
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      200,
    );

    const hid = await call(ctx, "PUT", `/api/reports/${ids[1]}`, {
      token: editor.token,
      json: { status: "resolved", hide_event: true },
    });
    assert.equal(hid.status, 200, await hid.clone().text());
    const report = await hid.json();
    assert.equal(report.status, "resolved");
    assert.equal(report.event.is_visible, false);
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      404,
    );
    const open = await (await call(ctx, "GET", "/api/reports", {
      token: editor.token,
    })).json();
    assert.equal(open.count, 0);
    const closed = await (await call(ctx, "GET", "/api/reports?status=closed", {
      token: editor.token,
    })).json();
    assert.deepEqual(
      closed.data.map((r: { id: number; status: string }) => [r.id, r.status])
        .sort(),
      [[ids[0], "dismissed"], [ids[1], "resolved"], [ids[2], "resolved"]]
        .sort(),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("report pages: the event page links to the form; a visitor reports; a form from another site is refused; moderators hide the event from /admin/reports", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    const editor = await userWithToken(ctx, "editor");
    const event = await postEvent(ctx, member.token, { title: "Rave" });
    const pageHtml = await (await get(ctx, `/event/${event.slug}`)).text();
    const path = `/events/${event.id}/report`;
    assert.match(pageHtml, new RegExp(`href="${path}"`));
    const form = await get(ctx, path);
    assert.equal(form.status, 200);
    assert.match(await form.text(), /Rave/);

    assert.equal(
      (await postForm(ctx, path, { reason: "spam" }, {
        origin: "https://elsewhere.example",
      })).status,
      403,
    );
    const bad = await postForm(ctx, path, { reason: "", text: "Hmm" });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Hmm<\/textarea>/);
    const html = await postForm(ctx, path, {
      reason: "spam",
      text: "<b>bold</b>",
    });
    assert.equal(html.status, 400);
    const sent = await postForm(ctx, path, {
      reason: "inappropriate",
      text: "Offensive: 1 < 2 & <3",
    });
    assert.equal(sent.status, 200);
    assert.match(await sent.text(), /Thank you/);

    const memberCookie = await signIn(ctx, member);
    assert.equal((await get(ctx, "/admin/reports", memberCookie)).status, 403);
    const cookie = await signIn(ctx, editor);
    const queue = await (await get(ctx, "/admin/reports", cookie)).text();
    assert.match(queue, /Inappropriate or offensive/);
    // Plain text, escaped: never markup.
    assert.match(queue, /Offensive: 1 &lt; 2 &amp; &lt;3/);
    const csrf = await csrfFrom(ctx, "/admin/reports", cookie);
    const id = /action="\/admin\/reports\/(\d+)"/.exec(queue)![1];
    const unknownAction = await postForm(ctx, `/admin/reports/${id}`, {
      csrf_token: csrf,
      action: "delete",
    }, { cookie });
    assert.equal(unknownAction.status, 400);
    const noToken = await postForm(ctx, `/admin/reports/${id}`, {
      action: "hide",
    }, { cookie });
    assert.equal(noToken.status, 403);
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      200,
    );
    const hidden = await postForm(ctx, `/admin/reports/${id}`, {
      csrf_token: csrf,
      action: "hide",
    }, { cookie });
    assert.equal(hidden.status, 303);
    assert.equal(hidden.headers.get("location"), "/admin/reports?done=hidden");
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`)).status,
      404,
    );
    const closed = await (await get(ctx, "/admin/reports?show=closed", cookie))
      .text();
    assert.match(closed, /Resolved/);
  } finally {
    ctx.close();
  }
});
