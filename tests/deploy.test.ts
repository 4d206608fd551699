/**
 * main.ts as on Deno Deploy: no FFI (so no native addon) and no file writes,
 * with the default configuration but for a remote DATABASE_URL (the local
 * Hrana server). It must start, say which database and password hasher it
 * uses (the WASM one, since the native addon cannot load), hand its hourly
 * jobs to Deno.cron (which Deno Deploy has), serve, log in,
 * and stay quiet while idle: the delivery queue looks at a remote database
 * once a minute, not every half second.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { apiAt, freePort, loginAt, ROOT } from "./helpers.ts";
import { startHranaServer } from "./support/hrana-server.ts";

const ADMIN = { email: "admin@example.org", password: "admin-password-1" };

Deno.test({
  name:
    "Deno Deploy: main.ts under --deny-ffi --deny-write on a remote database falls back to the WASM hasher, says so, serves, and does not poll while idle",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const hrana = await startHranaServer({ path: join(dir, "quando.db") });
    const migrating = await openDatabase(hrana.url);
    await migrateDatabase(migrating);
    migrating.close();
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--config",
        join(ROOT, "deno.json"),
        "--deny-ffi",
        "--deny-write",
        "--allow-net",
        "--allow-env",
        "--allow-read",
        "--allow-sys",
        // Deno.cron, which Deno Deploy has without a flag.
        "--unstable-cron",
        join(ROOT, "main.ts"),
      ],
      cwd: dir,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: base,
        DATABASE_URL: hrana.url,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        RUST_BACKTRACE: "0",
      },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let log = "";
    const decoder = new TextDecoder();
    const collect = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) {
        log += decoder.decode(chunk, { stream: true });
      }
    };
    const collected = Promise.all([
      collect(child.stdout),
      collect(child.stderr),
    ]);
    try {
      let up = false;
      for (let i = 0; i < 300 && !up; i++) {
        try {
          const res = await fetch(`${base}/api/health`);
          up = res.ok && (await res.json()).status === "ok";
        } catch { /* not listening yet */ }
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(up, `main.ts did not start:\n${log}`);
      assert.match(
        log,
        new RegExp(`database: remote http://127\\.0\\.0\\.1:${hrana.port}`),
        log,
      );
      assert.match(log, /password hasher: wasm/, log);
      assert.match(log, /hourly jobs: Deno\.cron/, log);
      assert.match(
        log,
        /deliveries: drained after requests and every minute by Deno\.cron/,
        log,
      );
      assert.match(log, /native argon2 addon could not load/, log);
      assert.doesNotMatch(log, /admin-password/, "a secret was logged");

      const token = await loginAt(base, ADMIN);
      const me = await apiAt(base, "GET", "/api/users/me", token);
      assert.equal(me.status, 200);
      assert.equal(me.body.email, ADMIN.email);

      // Idle: the start-up jobs are done after a moment; then at most the
      // queue's once-a-minute look may reach the database (a half-second
      // poll would be ~24 requests in this window).
      await new Promise((r) => setTimeout(r, 2000));
      hrana.resetCount();
      await new Promise((r) => setTimeout(r, 12_000));
      assert.ok(
        hrana.requests <= 1,
        `${hrana.requests} database requests in 12 idle seconds`,
      );
    } finally {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await collected;
      await hrana.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
