/**
 * Calendar files are read under a budget (lib/imports/ics-scan.ts): every
 * hostile shape of tests/support/hostile-ics.ts is refused (413 for an
 * upload, `last_error` for a subscription) or read cheaply, quickly and
 * without writing anything; a subscription that keeps failing backs off and
 * is paused, and a sync that never finishes counts as a failure.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { sources } from "../db/schema.ts";
import { IcsBudgetError, readIcs } from "../lib/imports/ics.ts";
import { SOURCE_PAUSE_AFTER } from "../lib/imports/sources.ts";
import { runScheduledJobs } from "../lib/jobs.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { HOSTILE_SHAPES } from "./support/hostile-ics.ts";
import { csrfOf, get, postForm, signIn } from "./web-helpers.ts";

const MIB = 1024 * 1024;

Deno.test("ics budget: each hostile shape of 5 MiB is refused before parsing, or read without its junk, in well under a second", async () => {
  for (const [name, shape] of Object.entries(HOSTILE_SHAPES)) {
    const file = shape.make(5 * MIB);
    assert.ok(file.length > 4.9 * MIB, `${name}: ${file.length} bytes`);
    const started = performance.now();
    if (shape.outcome === "refused") {
      await assert.rejects(
        () => readIcs(file, "UTC"),
        (error) => {
          assert.ok(error instanceof IcsBudgetError, `${name}: ${error}`);
          assert.match(error.message, /over the import budget/);
          return true;
        },
      );
    } else {
      const reading = await readIcs(file, "UTC");
      if (shape.outcome === "read") {
        // The one event (a rule's dates, for "rrules"), nothing else.
        assert.ok(reading.items.length >= 1, `${name}: ${reading.problems}`);
        assert.ok(reading.items.every((i) => i.title === "Hostile"), name);
      } else {
        assert.equal(reading.items.length, 0, name);
        assert.equal(reading.problems.length, 1, name);
      }
    }
    const took = performance.now() - started;
    assert.ok(took < 1_000, `${name} took ${took.toFixed(0)} ms`);
  }
});

Deno.test("ics budget: a zone whose yearly rule changes every day is refused (read in the instance's zone); later copies of a property are not read", async () => {
  const reading = await readIcs(
    HOSTILE_SHAPES["daily-zone"].make(1_000),
    "UTC",
  );
  assert.match(
    reading.problems.join(),
    /time zone Daily: its changes are not yearly/,
  );
  assert.equal(
    new Date(reading.items[0].start * 1000).toISOString(),
    "2030-12-31T10:00:00.000Z",
  );
  // A zone with a bad rule is a problem line, never a thrown error.
  const bad = await readIcs(
    HOSTILE_SHAPES["daily-zone"].make(1_000).replace(
      "RRULE:FREQ=YEARLY;BYDAY=SU,MO,TU,WE,TH,FR,SA",
      "RRULE:FREQ=YEARLY;UNTIL=garbage",
    ),
    "UTC",
  );
  assert.equal(bad.items.length, 1);
  assert.match(bad.problems.join(), /time zone Daily/);
  const twice = await readIcs(
    [
      "BEGIN:VCALENDAR",
      "BEGIN:VEVENT",
      "UID:twice@x",
      "DTSTART:20300101T100000Z",
      "DTSTART:20310101T100000Z",
      "SUMMARY:First",
      "SUMMARY:Second",
      "LOCATION:Here",
      "END:VEVENT",
      "END:VCALENDAR",
      "BEGIN:VCALENDAR",
      "END:VCALENDAR",
    ].join("\r\n"),
    "UTC",
  );
  assert.equal(twice.items[0].title, "First");
  assert.equal(twice.items[0].start, Date.UTC(2030, 0, 1, 10) / 1000);
  assert.deepEqual(twice.problems, [
    "only the first VCALENDAR of the file was read",
  ]);
});

Deno.test("ics budget: a big honest calendar (5,000 events, 5 MiB, alarms) is read whole, letting other work run", async () => {
  const event = (i: number) =>
    [
      "BEGIN:VEVENT",
      `UID:e${i}@x`,
      `DTSTART:2030${String(1 + i % 12).padStart(2, "0")}10T100000Z`,
      `SUMMARY:Event ${i}`,
      "LOCATION:Cantina, Via Roma 1, Bologna",
      "CATEGORIES:music,jazz",
      "DESCRIPTION:" + "Lorem ipsum dolor sit amet. ".repeat(30),
      "BEGIN:VALARM",
      "ACTION:DISPLAY",
      "END:VALARM",
      "END:VEVENT",
    ].join("\r\n");
  const file = [
    "BEGIN:VCALENDAR",
    ...Array.from({ length: 5_000 }, (_, i) => event(i)),
    "END:VCALENDAR",
  ].join("\r\n");
  assert.ok(file.length > 4.5 * MIB);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const reading = await readIcs(file, "UTC");
    assert.equal(reading.items.length, 5_000);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.items[4_999].tags, ["music", "jazz"]);
  } finally {
    clearInterval(timer);
  }
  // The reader let the timer run while it worked.
  assert.ok(ticks > 0);
});

Deno.test("ics budget: folded lines are read unfolded; links that are inline data and unknown components are left out", async () => {
  const reading = await readIcs(
    [
      "BEGIN:VCALENDAR",
      "BEGIN:VEVENT",
      "UID:fold@x",
      "DTSTART:20300101T100000Z",
      "SUMMARY:Long",
      " er title",
      "LOCATION:Here",
      `ATTACH;FMTTYPE=image/png;ENCODING=BASE64;VALUE=BINARY:${
        "A".repeat(20_000)
      }`,
      "IMAGE;VALUE=URI:https://img.example/a.png",
      "BEGIN:VALARM",
      "TRIGGER:-PT15M",
      "BEGIN:X-NESTED",
      "SUMMARY:not the event's",
      "END:X-NESTED",
      "END:VALARM",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n"),
    "UTC",
  );
  assert.deepEqual(reading.problems, []);
  assert.equal(reading.items[0].title, "Longer title");
  assert.equal(reading.items[0].image, "https://img.example/a.png");
  // Not a calendar; a calendar whose END does not close its BEGIN.
  assert.match(
    (await readIcs("<html>hello</html>", "UTC")).problems[0],
    /not an iCalendar file/,
  );
  // An END that closes nothing is ignored; one that closes an outer
  // component closes those left open inside it.
  const lenient = await readIcs(
    [
      "BEGIN:VCALENDAR",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:open@x",
      "DTSTART:20300101T100000Z",
      "LOCATION:Here",
      "BEGIN:VALARM",
      "END:VEVENT",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n"),
    "UTC",
  );
  assert.deepEqual(lenient.items.map((i) => i.uid), ["open@x"]);
});

Deno.test("POST /api/events/import: a file over the budget is a 413 in the error shape and writes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const member = await userWithToken(ctx, "user");
    for (const [name, shape] of Object.entries(HOSTILE_SHAPES)) {
      if (shape.outcome !== "refused") continue;
      const res = await ctx.app.request("/api/events/import", {
        method: "POST",
        headers: {
          authorization: `Bearer ${member.token}`,
          "content-type": "text/calendar",
        },
        body: shape.make(4 * MIB),
      });
      const body = await expectError(res, 413, "payload_too_large");
      assert.match(body.message, /over the import budget/, name);
      assert.deepEqual(
        (body.details as { field: string }[]).map((d) => d.field),
        ["file"],
      );
      // The rate limit (20 an hour) is not what answers here.
      if (name === "nesting") break;
    }
    assert.equal(await countRows(ctx, "events"), 0);
    assert.equal(await countRows(ctx, "places"), 0);
  } finally {
    ctx.close();
  }
});

/** A feed whose body the test sets, and that can be made to hang. */
function hostileFeed() {
  let body = "";
  let hold: Promise<void> | null = null;
  let requests = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => {
      requests++;
      if (hold) await hold;
      return new Response(body, {
        headers: { "content-type": "text/calendar" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/feed.ics`,
    get requests() {
      return requests;
    },
    set(next: string) {
      body = next;
    },
    /** Holds answers until the returned function is called. */
    holdAnswers(): () => void {
      let release!: () => void;
      hold = new Promise((resolve) => release = resolve);
      return () => {
        hold = null;
        release();
      };
    },
    close: () => server.shutdown(),
  };
}

const GOOD = [
  "BEGIN:VCALENDAR",
  "BEGIN:VEVENT",
  "UID:good@feed",
  "DTSTART:20300101T100000Z",
  "SUMMARY:Good",
  "LOCATION:Here",
  "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n");

async function sourceRow(ctx: TestContext, id: number) {
  const [row] = await ctx.database.db.select().from(sources).where(
    eq(sources.id, id),
  );
  return row;
}

Deno.test("sources: a feed over the budget fails with the reason; failures back off, then pause the source until an editor resumes it", async () => {
  const feed = hostileFeed();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  const jobs = () =>
    runScheduledJobs({
      db: ctx.database.db,
      clock: ctx.clock,
      log: silentLogger,
      media: createDbMediaStore(ctx.database.db, ctx.clock),
      federation: ctx.federation,
      fetching: { allowPrivateAddresses: true, baseUrl: ctx.config.baseUrl },
    });
  try {
    const editor = await userWithToken(ctx, "editor");
    feed.set(HOSTILE_SHAPES["x-lines"].make(5 * MIB));
    const added = await (await call(ctx, "POST", "/api/sources", {
      token: editor.token,
      json: { url: feed.url },
    })).json();
    assert.equal(added.result, "failed");
    assert.match(added.source.last_error, /over the import budget/);
    assert.equal(added.source.failures, 1);
    assert.equal(added.source.paused, false);
    assert.equal(await countRows(ctx, "events"), 0);
    const id = added.source.id;
    const start = ctx.clock.now().getTime();
    // Next try after an hour, then 2 h, 4 h... (doubling, at most a day).
    assert.equal(
      Date.parse(added.source.next_sync_at) - start,
      3_600_000,
    );
    ctx.clock.advance(30 * 60_000);
    assert.equal((await jobs()).sourcesSynced, 0);
    const waits: number[] = [];
    for (let failures = 2; failures <= SOURCE_PAUSE_AFTER; failures++) {
      const before = await sourceRow(ctx, id);
      ctx.clock.set(before.next_sync_at!.getTime() - 60_000);
      assert.equal((await jobs()).sourcesSynced, 0, "not before its time");
      ctx.clock.set(before.next_sync_at!);
      assert.equal((await jobs()).sourcesSynced, 1);
      const after = await sourceRow(ctx, id);
      assert.equal(after.failures, failures);
      assert.equal(after.paused, failures >= SOURCE_PAUSE_AFTER);
      waits.push(
        (after.next_sync_at!.getTime() - ctx.clock.now().getTime()) / 3_600_000,
      );
    }
    assert.deepEqual(waits, [2, 4, 8, 16, 24, 24, 24]);
    // Paused: the hourly job leaves it, whatever the time.
    ctx.clock.advance(7 * 86_400_000);
    const requests = feed.requests;
    assert.equal((await jobs()).sourcesSynced, 0);
    assert.equal(feed.requests, requests);
    // A week on, the first token has expired.
    const { token } = await userWithToken(ctx, "editor");
    const shown = await (await call(ctx, "GET", `/api/sources/${id}`, {
      token,
    })).json();
    assert.equal(shown.paused, true, JSON.stringify(shown));
    assert.equal(shown.failures, SOURCE_PAUSE_AFTER);
    const page = await (await call(ctx, "PUT", `/api/sources/${id}`, {
      token,
      json: { paused: false },
    })).json();
    assert.equal(page.paused, false);
    assert.equal(page.failures, 0);
    assert.equal(page.next_sync_at, null);
    // Fixed feed: synced by the next hourly run, and the failures forgotten.
    feed.set(GOOD);
    assert.equal((await jobs()).sourcesSynced, 1);
    const healthy = await sourceRow(ctx, id);
    assert.equal(healthy.failures, 0);
    assert.equal(healthy.last_error, null);
    assert.equal(await countRows(ctx, "events"), 1);
    // An editor's pause holds even through a sync by hand that succeeds,
    // also after many failures.
    await ctx.database.db.update(sources).set({ failures: 20 });
    await call(ctx, "PUT", `/api/sources/${id}`, {
      token,
      json: { paused: true },
    });
    const manual = await (await call(ctx, "POST", `/api/sources/${id}/sync`, {
      token,
    })).json();
    assert.equal(manual.result, "synced");
    assert.equal(manual.source.paused, true);
    await expectError(
      await call(ctx, "PUT", `/api/sources/${id}`, {
        token,
        json: { paused: "no" },
      }),
      400,
      "invalid_request",
    );
  } finally {
    ctx.close();
    await feed.close();
  }
});

Deno.test("sources: a sync counts as a failure from its start, so one that takes the process down is not retried at once", async () => {
  const feed = hostileFeed();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  try {
    const editor = await userWithToken(ctx, "editor");
    feed.set(GOOD);
    const added = await (await call(ctx, "POST", "/api/sources", {
      token: editor.token,
      json: { url: feed.url },
    })).json();
    assert.equal(added.source.failures, 0);
    const release = feed.holdAnswers();
    const running = call(ctx, "POST", `/api/sources/${added.source.id}/sync`, {
      token: editor.token,
    });
    while (feed.requests < 2) await new Promise((r) => setTimeout(r, 5));
    // Mid-sync (as a process that died here would leave it).
    const during = await sourceRow(ctx, added.source.id);
    assert.equal(during.failures, 1);
    assert.equal(
      during.next_sync_at!.getTime() - ctx.clock.now().getTime(),
      3_600_000,
    );
    release();
    const done = await (await running).json();
    assert.equal(done.result, "synced");
    assert.equal(done.source.failures, 0);
    assert.equal(done.source.next_sync_at, null);
  } finally {
    ctx.close();
    await feed.close();
  }
});

Deno.test("/admin/sources shows a paused source with Resume, and Resume puts it back on the hourly syncs", async () => {
  const ctx = await createTestApp();
  try {
    const editor = await userWithToken(ctx, "editor");
    const [row] = await ctx.database.db.insert(sources).values({
      url: "https://feed.example/cal.ics",
      userId: editor.user.id,
      failures: SOURCE_PAUSE_AFTER,
      paused: true,
      last_error:
        "The calendar is over the import budget: more than 200000 lines",
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    }).returning();
    const cookie = await signIn(ctx, editor);
    const page = await get(ctx, "/admin/sources", cookie);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Paused: only synced by hand/);
    assert.match(html, new RegExp(`action="/admin/sources/${row.id}/resume"`));
    const resumed = await postForm(ctx, `/admin/sources/${row.id}/resume`, {
      csrf_token: csrfOf(html),
    }, { cookie });
    assert.equal(resumed.status, 303);
    assert.equal(
      resumed.headers.get("location"),
      "/admin/sources?done=resumed",
    );
    // Without the session's CSRF token nothing changes.
    await ctx.database.db.update(sources).set({ paused: true });
    const forged = await postForm(ctx, `/admin/sources/${row.id}/resume`, {
      csrf_token: "x",
    }, { cookie });
    assert.equal(forged.status, 403);
    assert.equal((await sourceRow(ctx, row.id)).paused, true);
    await postForm(ctx, `/admin/sources/${row.id}/resume`, {
      csrf_token: csrfOf(html),
    }, { cookie });
    const after = await sourceRow(ctx, row.id);
    assert.equal(after.paused, false);
    assert.equal(after.failures, 0);
  } finally {
    ctx.close();
  }
});
