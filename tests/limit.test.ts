/** lib/limit.ts: the bound on concurrent feed builds. */
import assert from "node:assert/strict";
import { createLimiter } from "../lib/limit.ts";
import { call, createTestApp, userWithToken } from "./helpers.ts";

Deno.test("a limiter runs at most its bound at once, in arrival order, through failures", async () => {
  const limiter = createLimiter(2);
  let running = 0;
  let highest = 0;
  const order: number[] = [];
  const job = (i: number) => async () => {
    running++;
    highest = Math.max(highest, running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    order.push(i);
    if (i === 3) throw new Error("job 3 fails");
    return i;
  };
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => limiter.run(job(i))),
  );
  assert.equal(highest, 2);
  assert.equal(results[3].status, "rejected");
  assert.deepEqual(
    results.filter((r) => r.status === "fulfilled").map((r) => r.value),
    [0, 1, 2, 4, 5, 6, 7],
  );
  // A failure releases its slot: everything ran.
  assert.equal(order.length, 8);
  assert.deepEqual(limiter.load(), { running: 0, waiting: 0 });
});

Deno.test("many concurrent feed requests with the cache off all get the full feed", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "0" } });
  const { token } = await userWithToken(ctx, "admin");
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: {
      title: "Feed under load",
      start_datetime: Date.parse("2026-06-02T18:00:00Z") / 1000,
      place_name: "Circolo",
      place_address: "Via Roma 1",
    },
  });
  assert.equal(res.status, 201);
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => call(ctx, "GET", "/feed/ics")),
  );
  const bodies = await Promise.all(answers.map((a) => a.text()));
  for (const [i, a] of answers.entries()) {
    assert.equal(a.status, 200);
    assert.match(bodies[i], /SUMMARY:Feed under load/);
    assert.equal(bodies[i], bodies[0]);
  }
  ctx.close();
});
