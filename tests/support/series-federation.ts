/**
 * The database calls of a federated series: a weekly series created through
 * the API (13 occurrences within the 90-day horizon, 2 of them within the
 * 14 days of the federation horizon) on an instance with one follower, on a
 * remote database (the Hrana server counts every pipeline request), the
 * delivery queue drained until the follower's inbox has every Create.
 * Everything is counted: the request, the publishing, the queue's fan-out
 * and deliveries.
 */
import { startReceiver } from "../bench/receiver.ts";
import { call, createTestUser, loginToken } from "../helpers.ts";
import { addFollower, startRemoteApp } from "./roundtrips.ts";

export interface SeriesFederation {
  /** Occurrences the series was created with. */
  occurrences: number;
  /** Those within the federation horizon (14 days): the ones federated. */
  announced: number;
  /** Every database call, from the POST to the last delivery. */
  total: number;
  /** Calls of the POST itself (publishing excluded). */
  request: number;
  /** Calls of the publishing (during the request, or deferred after it). */
  publishing: number;
  /** Calls of the queue work (fan-out and deliveries). */
  queue: number;
  /** Activities the follower's inbox received. */
  deliveries: number;
  /** Distinct (inbox, Create) pairs among them: one per announced occurrence and inbox expected. */
  creates: number;
}

/**
 * `followers` followers, each with a shared inbox of its own on the
 * receiver (from 5 inboxes on, Fedify fans out through the queue).
 */
export async function measureSeriesFederation(
  followers = 1,
): Promise<SeriesFederation & { inboxesServed: number }> {
  const receiver = startReceiver();
  const app = await startRemoteApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true", PUBLIC_CACHE_MS: "0" },
    // The queue as on Workers: drained on demand, never polling.
    federation: { manualQueue: true },
    // "now" is real time here: the queue's clock is the system's.
    now: new Date().toISOString(),
  });
  const stop = new AbortController();
  const queue = app.ctx.federation.startQueue(stop.signal);
  try {
    const { ctx } = app;
    for (let n = 0; n < followers; n++) {
      await addFollower(ctx, receiver.inboxUrl(n), `follower${n}`);
    }
    const owner = await createTestUser(ctx);
    const token = await loginToken(ctx, owner.email, owner.password);
    const start = Math.floor(ctx.clock.now().getTime() / 1000) + 3600;
    app.reset();
    const res = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Weekly meetup",
        start_datetime: start,
        end_datetime: start + 7200,
        place_name: "Library",
        tags: ["meetup"],
        recurrent: { frequency: "1w" },
      },
    });
    const body = await res.json();
    if (res.status !== 201) {
      throw new Error(`POST: ${res.status} ${JSON.stringify(body)}`);
    }
    const occurrences = body.children.length as number;
    const announced = (body.children as { start_datetime: number }[]).filter(
      (c) => c.start_datetime <= start - 3600 + 14 * 86_400,
    ).length;
    const afterRequest = app.server.requests;
    const publishing = app.publishing;
    const deadline = Date.now() + 20_000;
    let received = 0;
    while (Date.now() < deadline) {
      await ctx.federation.drainQueue({ maxMs: 2_000 });
      received = [...receiver.perInbox.values()].reduce((a, b) => a + b, 0);
      if (
        received >= announced * followers &&
        !ctx.federation.hasQueuedWork()
      ) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // A last drain finds nothing left (and costs the look for it).
    await ctx.federation.drainQueue({ maxMs: 500 });
    const total = app.server.requests;
    return {
      occurrences,
      announced,
      total,
      request: afterRequest - publishing,
      publishing,
      queue: total - afterRequest,
      deliveries: [...receiver.perInbox.values()].reduce((a, b) => a + b, 0),
      creates: [...receiver.perDelivery.keys()].filter((k) =>
        k.includes("#create-")
      ).length,
      inboxesServed: receiver.perInbox.size,
    };
  } finally {
    stop.abort();
    await queue;
    await app.close();
    await receiver.close();
  }
}
