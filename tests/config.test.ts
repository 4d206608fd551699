import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../lib/config.ts";

Deno.test("configuration defaults are those of docs/CONFIGURATION.md", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.host, "0.0.0.0");
  assert.equal(c.baseUrl, "http://localhost:8000");
  assert.equal(c.databaseUrl, "file:data/quando.db");
  assert.equal(c.allowPrivateAddresses, false);
  assert.equal(c.logLevel, "info");
  assert.equal(c.jwtSecret, undefined);
  assert.equal(c.publicCacheMs, 1000);
  assert.equal(c.trustProxy, false);
  assert.equal(c.trustedProxyHops, 1);
  assert.equal(loadConfig({ TRUSTED_PROXY_HOPS: "2" }).trustedProxyHops, 2);
  assert.equal(loadConfig({ PUBLIC_CACHE_MS: "0" }).publicCacheMs, 0);
  assert.equal(loadConfig({}).publicCacheBytes, 8 * 1024 * 1024);
  assert.equal(
    loadConfig({ PUBLIC_CACHE_BYTES: "65536" }).publicCacheBytes,
    65_536,
  );
  assert.equal(loadConfig({ PORT: "9000" }).baseUrl, "http://localhost:9000");
  assert.equal(
    loadConfig({ BASE_URL: "https://events.example/" }).baseUrl,
    "https://events.example",
  );
  assert.equal(
    loadConfig({ ALLOW_PRIVATE_ADDRESSES: "true" }).allowPrivateAddresses,
    true,
  );
});

Deno.test("invalid values are refused with a message naming each variable", () => {
  const bad: Record<string, string>[] = [
    { PORT: "eighty" },
    { PORT: "70000" },
    { BASE_URL: "ftp://x" },
    { DATABASE_URL: "postgres://x" },
    { JWT_SECRET: "short" },
    { ADMIN_EMAIL: "admin@example.org" },
    { LOG_LEVEL: "loud" },
    { ALLOW_PRIVATE_ADDRESSES: "maybe" },
    { PUBLIC_CACHE_MS: "-1" },
    { PUBLIC_CACHE_MS: "soon" },
    { PUBLIC_CACHE_BYTES: "1024" },
    { PUBLIC_CACHE_BYTES: "lots" },
    { TRUSTED_PROXY_HOPS: "0" },
    { TRUSTED_PROXY_HOPS: "two" },
  ];
  for (const env of bad) {
    assert.throws(() => loadConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      const name = Object.keys(env)[0] === "ADMIN_EMAIL"
        ? "ADMIN_PASSWORD"
        : Object.keys(env)[0];
      assert.match(err.message, new RegExp(name));
      return true;
    }, JSON.stringify(env));
  }
});

Deno.test("the server exits with code 1 and a clear message on an invalid value", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: { PORT: "not-a-port", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.match(stderr, /Invalid configuration/);
  assert.match(stderr, /PORT/);
});

Deno.test("MEDIA_QUOTA_BYTES: 200 MiB per user by default, 0 for none, refused when not a count", () => {
  assert.equal(loadConfig({}).mediaQuotaBytes, 209_715_200);
  assert.equal(
    loadConfig({ MEDIA_QUOTA_BYTES: "1048576" }).mediaQuotaBytes,
    1_048_576,
  );
  assert.equal(loadConfig({ MEDIA_QUOTA_BYTES: "0" }).mediaQuotaBytes, 0);
  for (const value of ["-1", "lots", "1.5"]) {
    assert.throws(
      () => loadConfig({ MEDIA_QUOTA_BYTES: value }),
      (err: unknown) =>
        err instanceof ConfigError && /MEDIA_QUOTA_BYTES/.test(err.message),
      value,
    );
  }
});
