/**
 * A series federates only the occurrences inside its horizon (the setting
 * `federation_series_horizon_days`, 14 by default) and always its next one;
 * the hourly job Creates the others as they come into range, once each.
 * Updates, cancellations and Deletes reach only what followers have.
 *
 * The follower is a Mastodon- or Misskey-shaped account (a Person with a
 * shared inbox) on a loopback server that keeps its home timeline: each
 * activity received, by type and object.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { runScheduledJobs } from "../lib/jobs.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { addFollower } from "./support/roundtrips.ts";
import {
  call,
  createTestApp,
  createTestUser,
  loginToken,
  type TestContext,
} from "./helpers.ts";

const DAY = 86_400;

/** One activity as the timeline received it. */
interface Received {
  type: string;
  /** The object's id (the event's URL). */
  object: string;
  /** The event's schema.org status (Create and Update). */
  status?: string;
}

/** A loopback instance whose shared inbox keeps what it is sent, in order. */
function startTimeline() {
  const received: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/inbox") {
        return new Response("not found", { status: 404 });
      }
      const body = await req.json();
      const object = body.object ?? {};
      received.push({
        type: String(body.type),
        object: String(typeof object === "string" ? object : object.id),
        status: object.eventStatus,
      });
      return new Response(null, { status: 202 });
    },
  );
  const inbox = `http://127.0.0.1:${server.addr.port}/inbox`;
  return {
    inbox,
    received,
    /** Object ids of the activities of one type, in order. */
    of: (type: string) =>
      received.filter((r) => r.type === type).map((r) => r.object),
    close: () => server.shutdown(),
  };
}

type Timeline = ReturnType<typeof startTimeline>;

/**
 * An instance followed by the timeline, its queue drained on demand. Its
 * clock starts `daysAgo` days before real time: the queue's clock is the
 * system's, so what the hourly job queues after the test moves the clock on
 * by as much is due at once.
 */
async function withFollowedInstance(
  daysAgo: number,
  fn: (t: {
    ctx: TestContext;
    timeline: Timeline;
    token: string;
    /** A new token (the first one expires as the clock moves on). */
    signIn: () => Promise<string>;
    drain: () => Promise<void>;
    hourly: () => Promise<void>;
  }) => Promise<void>,
) {
  const timeline = startTimeline();
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date(Date.now() - daysAgo * DAY * 1000 - 60_000).toISOString(),
    federation: { manualQueue: true },
  });
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await addFollower(ctx, timeline.inbox, "alice");
    const user = await createTestUser(ctx);
    const signIn = () => loginToken(ctx, user.email, user.password);
    const token = await signIn();
    const drain = async () => {
      for (let round = 0; round < 50; round++) {
        const handled = await ctx.federation.drainQueue({ maxMs: 2_000 });
        const [{ n }] = await ctx.database.db.all<{ n: number }>(
          sql`SELECT count(*) AS n FROM fedify_queue`,
        );
        if (handled === 0 && n === 0) return;
      }
      throw new Error("the queue did not drain");
    };
    const hourly = async () => {
      const result = await runScheduledJobs({
        db: ctx.database.db,
        clock: ctx.clock,
        log: silentLogger,
        media: createDbMediaStore(ctx.database.db, ctx.clock),
        federation: ctx.federation,
      });
      assert.deepEqual(result.failed, []);
    };
    await fn({ ctx, timeline, token, signIn, drain, hourly });
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await timeline.close();
  }
}

interface Series {
  id: number;
  children: { id: number; start_datetime: number }[];
}

async function createSeries(
  ctx: TestContext,
  token: string,
  start: number,
  frequency = "1w",
): Promise<Series> {
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: {
      title: "Weekly meetup",
      start_datetime: start,
      end_datetime: start + 7200,
      place_name: "Library",
      tags: ["meetup"],
      recurrent: { frequency, type: "ordinal" },
    },
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

/** How many Creates the outbox lists. */
async function outboxSize(ctx: TestContext): Promise<number> {
  const res = await call(ctx, "GET", "/federation/u/relay/outbox", {
    headers: { accept: "application/activity+json" },
  });
  assert.equal(res.status, 200);
  return (await res.json()).totalItems;
}

const url = (id: number) => `http://quando.test/federation/m/${id}`;
const sorted = (ids: string[]) => [...ids].sort();

Deno.test("a weekly series sends the occurrences within 14 days (2 Creates, not 13); a week later the hourly job sends the next one once, however often it runs", async () => {
  await withFollowedInstance(7, async ({ ctx, timeline, token, ...t }) => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const series = await createSeries(ctx, token, now + 3600);
    assert.equal(series.children.length, 13);
    await t.drain();
    // Today and in a week; the third is 14 days and an hour away.
    const ids = series.children.map((c) => url(c.id));
    assert.deepEqual(timeline.of("Create"), ids.slice(0, 2));
    assert.equal(timeline.received.length, 2);
    // The outbox lists what was sent.
    assert.equal(await outboxSize(ctx), 2);

    // A week later, the hourly job (twice, then twice at once).
    ctx.clock.advance(7 * DAY * 1000);
    await t.hourly();
    await t.hourly();
    await Promise.all([t.hourly(), t.hourly()]);
    await t.drain();
    assert.deepEqual(timeline.of("Create"), ids.slice(0, 3));
    assert.equal(timeline.received.length, 3);
    assert.equal(await outboxSize(ctx), 3);

    // Nothing comes into range within the hour: nothing more.
    ctx.clock.advance(3600 * 1000 - 60_000);
    await t.hourly();
    await t.drain();
    assert.equal(timeline.received.length, 3);
  });
});

Deno.test("updating a series sends Updates for the occurrences followers have, and nothing for the others", async () => {
  await withFollowedInstance(0, async ({ ctx, timeline, token, ...t }) => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const series = await createSeries(ctx, token, now + 3600);
    await t.drain();
    const federated = series.children.slice(0, 2).map((c) => url(c.id));
    assert.deepEqual(timeline.of("Create"), federated);
    const res = await call(ctx, "PATCH", `/api/events/${series.id}`, {
      token,
      json: { title: "Weekly meetup (new room)" },
    });
    assert.equal(res.status, 200, await res.text());
    await t.drain();
    assert.deepEqual(sorted(timeline.of("Update")), sorted(federated));
    assert.equal(timeline.received.length, 4);
  });
});

Deno.test("cancelling an occurrence followers have sends an Update with its cancelled status; cancelling one they do not have sends nothing", async () => {
  await withFollowedInstance(0, async ({ ctx, timeline, token, ...t }) => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const series = await createSeries(ctx, token, now + 3600);
    await t.drain();
    const [, second, , fourth] = series.children;
    for (const occurrence of [second, fourth]) {
      const res = await call(ctx, "PATCH", `/api/events/${occurrence.id}`, {
        token,
        json: { status: "EventCancelled" },
      });
      assert.equal(res.status, 200, await res.text());
    }
    await t.drain();
    assert.deepEqual(
      timeline.received.filter((r) => r.type !== "Create"),
      [{ type: "Update", object: url(second.id), status: "EventCancelled" }],
    );
  });
});

Deno.test("deleting a series sends a Delete for each occurrence followers have, and for no other", async () => {
  await withFollowedInstance(7, async ({ ctx, timeline, token, ...t }) => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const series = await createSeries(ctx, token, now + 3 * DAY);
    ctx.clock.advance(7 * DAY * 1000);
    await t.hourly();
    await t.drain();
    // Created at once: days 3 and 10; a week later: day 17.
    const federated = series.children.slice(0, 3).map((c) => url(c.id));
    assert.deepEqual(timeline.of("Create"), federated);
    const res = await call(ctx, "DELETE", `/api/events/${series.id}`, {
      token: await t.signIn(),
    });
    assert.equal(res.status, 204);
    await t.drain();
    // The first is over: it stays as a single event (an Update, as before).
    assert.deepEqual(sorted(timeline.of("Delete")), sorted(federated.slice(1)));
    assert.deepEqual(timeline.of("Update"), federated.slice(0, 1));
    assert.equal(timeline.received.length, 6);
  });
});

Deno.test("a hidden occurrence is never sent, even inside the horizon; the next occurrence is sent even beyond it", async () => {
  await withFollowedInstance(21, async ({ ctx, timeline, token, ...t }) => {
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    // Monthly, from in 20 days: the first is beyond 14 days, and is sent.
    const monthly = await createSeries(ctx, token, now + 20 * DAY, "1m");
    const weekly = await createSeries(ctx, token, now + 3600);
    await t.drain();
    const weeklyIds = weekly.children.map((c) => url(c.id));
    // Two series publish through the queue at once: their order may vary.
    assert.deepEqual(
      timeline.of("Create").toSorted(),
      [url(monthly.children[0].id), ...weeklyIds.slice(0, 2)].toSorted(),
    );
    // The weekly series' third date is hidden before it comes into range.
    const hidden = weekly.children[2];
    const res = await call(ctx, "PATCH", `/api/events/${hidden.id}`, {
      token,
      json: { is_visible: false },
    });
    assert.equal(res.status, 200, await res.text());
    ctx.clock.advance(21 * DAY * 1000);
    await t.hourly();
    await t.drain();
    // Three weeks later: the weekly dates of days 21 and 28 (not the
    // hidden one of day 14), and the monthly series' next date, a month away.
    assert.deepEqual(
      sorted(timeline.of("Create").slice(3)),
      sorted([url(monthly.children[1].id), ...weeklyIds.slice(3, 5)]),
    );
    assert.ok(!timeline.received.some((r) => r.object === url(hidden.id)));
  });
});

Deno.test("federation_series_horizon_days: a whole number of days from 0 to 90; at 0 a series sends only its next occurrence", async () => {
  await withFollowedInstance(0, async ({ ctx, timeline, ...t }) => {
    const admin = await createTestUser(ctx, { role: "admin" });
    const adminToken = await loginToken(ctx, admin.email, admin.password);
    const put = (value: unknown) =>
      call(ctx, "PUT", "/api/settings", {
        token: adminToken,
        json: { federation_series_horizon_days: value },
      });
    for (const bad of [-1, 91, 1.5, "14", null]) {
      assert.equal((await put(bad)).status, 400, String(bad));
    }
    const settings = await call(ctx, "GET", "/api/settings", {
      token: adminToken,
    });
    assert.equal((await settings.json()).federation_series_horizon_days, 14);
    assert.equal((await put(0)).status, 200);
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const series = await createSeries(ctx, adminToken, now + 3600);
    await t.drain();
    assert.deepEqual(timeline.of("Create"), [url(series.children[0].id)]);
  });
});
