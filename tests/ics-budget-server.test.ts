/**
 * The server as `deno task start` runs it (its 128 MB heap), attacked with a
 * 5 MiB calendar of each hostile shape, uploaded by a member and served by
 * subscribed feeds: it stays up and `/api/health` answers within a second
 * throughout. Restarted with those feeds due, it listens at once (the hourly
 * jobs run after it listens, never before) and still answers while they run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HOSTILE_SHAPES } from "./support/hostile-ics.ts";
import {
  hostileFeedServer,
  restartWithFeedsDue,
  subscribeEach,
  uploadEach,
  watchHealth,
} from "./support/hostile-attack.ts";
import { startServerProcess } from "./helpers.ts";

const MIB = 1024 * 1024;
/** What an upload of each outcome answers, and a subscription's sync. */
const UPLOADED = { refused: 413, read: 200, skipped: 400 };
const SYNCED = { refused: "failed", read: "synced", skipped: "failed" };

async function tokenOf(base: string, email: string, password: string) {
  const res = await fetch(`${base}/api/login/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).access_token as string;
}

Deno.test({
  name:
    "deno task start survives every hostile calendar, uploaded or subscribed, answering /api/health within a second; a restart with them due listens within 5 s",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const feed = hostileFeedServer(5 * MIB);
    const env = {
      DATABASE_URL: `file:${join(dir, "quando.db")}`,
      ADMIN_EMAIL: "admin@example.org",
      ADMIN_PASSWORD: "a-long-password",
      ALLOW_PRIVATE_ADDRESSES: "true",
      LOG_LEVEL: "error",
    };
    let server = await startServerProcess(dir, env, undefined, {
      memoryFlags: true,
    });
    try {
      const token = await tokenOf(
        server.base,
        env.ADMIN_EMAIL,
        env.ADMIN_PASSWORD,
      );
      const health = watchHealth(server.base);
      const uploads = await uploadEach(server.base, token, feed);
      const syncs = await subscribeEach(server.base, token, feed);
      const watched = await health.stop();
      assert.ok(server.alive(), "the server died");
      for (const answer of uploads) {
        assert.equal(
          answer.status,
          UPLOADED[HOSTILE_SHAPES[answer.shape].outcome],
          JSON.stringify(answer),
        );
      }
      for (const answer of syncs) {
        assert.equal(answer.status, 201, JSON.stringify(answer));
        assert.equal(
          answer.outcome,
          SYNCED[HOSTILE_SHAPES[answer.shape].outcome],
          JSON.stringify(answer),
        );
      }
      assert.equal(watched.failures, 0);
      assert.ok(watched.checks > 5, JSON.stringify(watched));
      assert.ok(watched.maxMs < 1_000, JSON.stringify(watched));

      // Restart with every feed due at once (as after a crash, its lease
      // run out): the jobs must not keep the server from listening.
      const restarted = await restartWithFeedsDue(server, dir, env);
      server = restarted.server;
      const listening = restarted.listeningMs;
      assert.ok(listening < 5_000, `listened after ${listening} ms`);
      const again = watchHealth(server.base);
      // Wait for the hourly jobs' first run to sync every feed.
      const fresh = await tokenOf(
        server.base,
        env.ADMIN_EMAIL,
        env.ADMIN_PASSWORD,
      );
      let rows: { failures: number; last_sync_at: string | null }[] = [];
      for (let i = 0; i < 200; i++) {
        rows = await (await fetch(`${server.base}/api/sources`, {
          headers: { authorization: `Bearer ${fresh}` },
        })).json();
        if (rows.every((r) => r.last_sync_at !== null)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const rewatched = await again.stop();
      assert.ok(server.alive(), "the server died after the restart");
      assert.equal(rows.length, Object.keys(HOSTILE_SHAPES).length);
      assert.ok(rows.every((r) => r.last_sync_at !== null), "not all synced");
      assert.equal(
        rows.filter((r) => r.failures === 1).length,
        Object.values(HOSTILE_SHAPES).filter((shape) =>
          SYNCED[shape.outcome] === "failed"
        ).length,
      );
      assert.equal(rewatched.failures, 0);
      assert.ok(rewatched.maxMs < 1_000, JSON.stringify(rewatched));
    } finally {
      await server.stop();
      await feed.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
