/**
 * The public-read cache on a remote database (the local Hrana server, as
 * Turso): two app instances (two isolates) on one database. A write through
 * one ends its own cached answers at once; the other sees it once its entry
 * expires, after PUBLIC_CACHE_MS at most (feeds included, which the embedded
 * database keeps a minute).
 */
import assert from "node:assert/strict";
import { openDatabase } from "../db/client.ts";
import {
  call,
  createTestApp,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { type RemoteApp, startRemoteApp } from "./support/remote-app.ts";

const CACHE_MS = 1_000;
const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;

/** Round trips to the database server while `fn` runs. */
async function roundTrips(
  app: RemoteApp,
  fn: () => Promise<unknown>,
): Promise<number> {
  const before = app.server.requests;
  await fn();
  return app.server.requests - before;
}

async function text(ctx: TestContext, path: string): Promise<string> {
  const res = await call(ctx, "GET", path);
  const body = await res.text();
  assert.equal(res.status, 200, body);
  return body;
}

Deno.test("two instances on one remote database: a write is seen at once by its instance, within PUBLIC_CACHE_MS by the other", async () => {
  const env = { PUBLIC_CACHE_MS: String(CACHE_MS) };
  const app = await startRemoteApp({ env });
  const a = app.ctx;
  const b = await createTestApp({
    database: await openDatabase(app.server.url),
    env,
  });
  try {
    assert.equal(a.database.embedded, false);
    assert.notEqual(a.database.changeMarker(), null);
    const { token } = await userWithToken(a, "admin");
    const post = (title: string) =>
      call(a, "POST", "/api/events", {
        token,
        json: {
          title,
          start_datetime: NOW + 86_400,
          place_name: "Circolo",
          tags: ["remoto"],
        },
      });
    assert.equal((await post("Primo")).status, 201);

    const paths = ["/api/events", "/api/events/tag/remoto", "/feed/rss"];
    // Each asked for twice: the cache keeps an answer asked for again.
    for (const ctx of [a, b]) {
      for (const path of paths) assert.match(await text(ctx, path), /Primo/);
      for (const path of paths) assert.match(await text(ctx, path), /Primo/);
    }
    // Both answer from memory now: no round trip.
    for (const ctx of [a, b]) {
      assert.equal(
        await roundTrips(app, async () => {
          for (const path of paths) await text(ctx, path);
        }),
        0,
        "cached",
      );
    }

    assert.equal((await post("Secondo")).status, 201);
    // The writing instance sees its write at once.
    for (const path of paths) assert.match(await text(a, path), /Secondo/);
    // The other one has not seen it yet (its entries are younger than the TTL) ...
    for (const path of paths) {
      assert.doesNotMatch(await text(b, path), /Secondo/, path);
    }
    // ... and sees it once they expire: feeds too, not after a minute.
    b.clock.advance(CACHE_MS);
    for (const path of paths) assert.match(await text(b, path), /Secondo/);
  } finally {
    b.close();
    await app.close();
  }
});
