/**
 * Crash durability: the server, started as `deno task start` starts it on a
 * database file, is killed (SIGKILL, no chance to flush anything) while 16
 * clients create events. Every event it acknowledged (201) must be in the
 * file afterwards, whole, and nothing it refused. Write batches that arrive
 * together share one commit (db/embedded.ts): an answer leaves only once
 * that commit is on disk.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client.ts";
import { startServer } from "./bench/server.ts";

const EMAIL = "crash-admin@example.org";
const PASSWORD = "crash-admin-password";
const CLIENTS = 16;

Deno.test("a SIGKILL during concurrent writes loses no acknowledged event", async () => {
  const dir = await Deno.makeTempDir({ prefix: "quando-crash-" });
  const file = join(dir, "crash.db");
  const server = await startServer({
    DATABASE_URL: `file:${file}`,
    LOG_LEVEL: "error",
    ADMIN_EMAIL: EMAIL,
    ADMIN_PASSWORD: PASSWORD,
  });
  const acknowledged = new Map<number, string>();
  try {
    const login = await fetch(`${server.base}/api/login/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    const { access_token: token } = await login.json();
    assert.ok(token, `login: ${login.status}`);
    let killed = false;
    const start = Math.floor(Date.now() / 1000) + 86_400;
    const client = async (n: number) => {
      for (let i = 0; !killed; i++) {
        const title = `Crash test ${n}-${i}`;
        try {
          const res = await fetch(`${server.base}/api/events`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${token}`,
            },
            body: JSON.stringify({
              title,
              description: "<p>Written while the server is killed.</p>",
              place_name: `Hall ${n}`,
              place_address: `${i} Crash Street`,
              start_datetime: start + i * 60,
              tags: ["crash", `client ${n}`],
            }),
          });
          const body = await res.json();
          if (res.status === 201) acknowledged.set(body.id, title);
        } catch {
          // The connection died with the server: not acknowledged.
          return;
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
    // Let the writes run, then kill the server in the middle of them.
    while (acknowledged.size < 150) {
      await new Promise((r) => setTimeout(r, 20));
    }
    Deno.kill(server.pid, "SIGKILL");
    killed = true;
    await Promise.all(clients);
  } finally {
    await server.stop();
  }
  try {
    assert.ok(acknowledged.size >= 150, `${acknowledged.size} acknowledged`);
    const database = await openDatabase(`file:${file}`);
    try {
      const rows = await database.db.all<
        { id: number; title: string; tags: number; place: number }
      >(sql`select e.id, e.title,
          (select count(*) from event_tags t where t.eventId = e.id) as tags,
          (e.placeId is not null) as place
        from events e where e.title like 'Crash test %'`);
      const found = new Map(rows.map((r) => [r.id, r]));
      const lost = [...acknowledged].filter(([id, title]) =>
        found.get(id)?.title !== title
      );
      assert.deepEqual(lost, [], "acknowledged events missing after the kill");
      // Each event whole: its place and its two tags came with it.
      for (const row of rows) {
        assert.equal(row.tags, 2, `tags of ${row.title}`);
        assert.equal(row.place, 1, `place of ${row.title}`);
      }
      // At most one event per client was written and not acknowledged (its
      // answer was cut off by the kill).
      assert.ok(rows.length - acknowledged.size <= CLIENTS);
    } finally {
      database.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
