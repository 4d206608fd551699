/**
 * Round trips on a remote database (docs/DEPLOY.md), counted by the
 * local Hrana server (one per pipeline request: a statement, or a whole
 * batch): at most 2 for every public read, at most 4 for every event write
 * on an instance with a follower (the write's publication is queued in its
 * own batch; the queue does it after the response); and a weekly
 * series with 13 occurrences, created with one follower, takes fewer than 30
 * database calls in all, request, publishing and queue (delivery) work
 * included. tests/bench/roundtrips.ts prints the same figures.
 */
import assert from "node:assert/strict";
import { measureAll, startRemoteApp } from "./support/roundtrips.ts";
import { measureSeriesFederation } from "./support/series-federation.ts";

const READ_BOUND = 2;
const WRITE_BOUND = 4;
const SERIES_BOUND = 30;

Deno.test("remote database: public reads take at most 2 round trips, event writes at most 4", async () => {
  const app = await startRemoteApp({ env: { PUBLIC_CACHE_MS: "0" } });
  try {
    const rows = await measureAll(app);
    const over = rows.filter((r) =>
      r.roundTrips > (r.kind === "read" ? READ_BOUND : WRITE_BOUND)
    );
    assert.deepEqual(
      over.map((r) => `${r.name}: ${r.roundTrips}`),
      [],
      rows.map((r) => `${r.name}: ${r.roundTrips}`).join("\n"),
    );
    // Every endpoint was measured, writes included.
    assert.ok(rows.filter((r) => r.kind === "write").length >= 8);
    assert.ok(rows.every((r) => r.roundTrips > 0));
  } finally {
    await app.close();
  }
});

Deno.test("remote database: a 13-occurrence weekly series with one follower takes fewer than 30 database calls, deliveries included", async () => {
  const m = await measureSeriesFederation();
  assert.equal(m.occurrences, 13);
  // Only the occurrences within the 14 days of the federation horizon.
  assert.equal(m.announced, 2);
  assert.equal(m.deliveries, 2, "2 deliveries");
  assert.equal(
    m.creates,
    2,
    "each announced occurrence's Create arrived, once",
  );
  assert.ok(
    m.total < SERIES_BOUND,
    `${m.total} calls: request ${m.request}, publishing ${m.publishing}, queue ${m.queue}`,
  );
});

Deno.test("remote database: with six followers (Fedify's fan-out through the queue) every announced occurrence's Create reaches every inbox once, in under 40 calls", async () => {
  const m = await measureSeriesFederation(6);
  assert.equal(m.occurrences, 13);
  assert.equal(m.announced, 2);
  assert.equal(m.inboxesServed, 6);
  assert.equal(m.deliveries, 2 * 6);
  assert.equal(m.creates, 2 * 6);
  // The fan-out (one origin) goes through the queue in a few rows.
  assert.ok(m.total < SERIES_BOUND + 10, `${m.total} calls`);
});
