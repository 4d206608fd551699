/** The real entry point, as the README starts it: a subprocess serving on a file database. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startServerProcess as startServer } from "./helpers.ts";

Deno.test("the server starts on a fresh folder with data/quando.db, bootstraps the admin, and tokens survive a restart", async () => {
  const cwd = await Deno.makeTempDir();
  const env = {
    ADMIN_EMAIL: "owner@example.org",
    ADMIN_PASSWORD: "owner-password",
  };
  let server = await startServer(cwd, env);
  try {
    const health = await fetch(`${server.base}/api/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.ok(
      existsSync(join(cwd, "data", "quando.db")),
      "data/quando.db was not created",
    );

    const login = await fetch(`${server.base}/api/login/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=owner%40example.org&password=owner-password",
    });
    assert.equal(login.status, 200);
    const { access_token } = await login.json();

    await server.stop();
    server = await startServer(cwd, env);
    const me = await fetch(`${server.base}/api/users/me`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).email, "owner@example.org");
  } finally {
    await server.stop();
    await Deno.remove(cwd, { recursive: true });
  }
});
