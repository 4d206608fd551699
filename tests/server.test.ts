/** The real entry point, as the README starts it: a subprocess serving on a file database. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PERMS, ROOT } from "./helpers.ts";

function freePort(): number {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function startServer(cwd: string, env: Record<string, string>) {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--config",
      join(ROOT, "deno.json"),
      ...PERMS,
      join(ROOT, "main.ts"),
    ],
    cwd,
    env: { PORT: String(port), HOST: "127.0.0.1", RUST_BACKTRACE: "0", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    try {
      const res = await fetch(`${base}/api/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    async stop() {
      child.kill("SIGTERM");
      await child.stderr.cancel();
      await child.status;
    },
  };
}

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
