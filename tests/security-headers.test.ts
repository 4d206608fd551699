/**
 * Security headers: every answer gets the ones that matter to any content;
 * pages get the browser isolation switches too; data answers (JSON, feeds)
 * get a policy under which nothing runs; a cached answer is replayed with
 * the headers it was sent with.
 */
import assert from "node:assert/strict";
import { call, createTestApp } from "./helpers.ts";

const EVERY = {
  "x-content-type-options": "nosniff",
  "strict-transport-security": "max-age=15552000; includeSubDomains",
};
/** What answers other than JSON get too. */
const NOT_JSON = {
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
  "cross-origin-resource-policy": "cross-origin",
};
const PAGE_ONLY = [
  "cross-origin-opener-policy",
  "origin-agent-cluster",
  "x-dns-prefetch-control",
  "x-download-options",
  "x-permitted-cross-domain-policies",
  "x-xss-protection",
];

function assertHeaders(
  headers: Headers,
  what: string,
  expected: Record<string, string>,
) {
  for (const [name, value] of Object.entries(expected)) {
    assert.equal(headers.get(name), value, `${what}: ${name}`);
  }
}

function assertEvery(headers: Headers, what: string) {
  assertHeaders(headers, what, EVERY);
}

Deno.test("security headers: JSON gets nosniff, HSTS and a policy that runs nothing; other data also no framing, referrer and CORP; pages the full set", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "60000" } });
  try {
    for (
      const path of [
        "/api/health",
        "/api/events",
        "/feed/rss",
        "/feed/json",
        "/nope",
      ]
    ) {
      const res = await call(ctx, "GET", path);
      await res.body?.cancel();
      assertEvery(res.headers, path);
      // Feeds (JSON Feed too) are data of the other kind.
      if (path.startsWith("/feed/")) {
        assertHeaders(res.headers, path, NOT_JSON);
      } else {
        // JSON is read by scripts, not rendered: the switches for rendered
        // or embedded content are left out (each header costs throughput).
        assert.match(res.headers.get("content-type") ?? "", /json/, path);
        for (const name of Object.keys(NOT_JSON)) {
          assert.equal(res.headers.get(name), null, `${path}: ${name}`);
        }
      }
      assert.equal(
        res.headers.get("content-security-policy"),
        "default-src 'none'; frame-ancestors 'none'",
        path,
      );
      for (const name of PAGE_ONLY) {
        assert.equal(res.headers.get(name), null, `${path}: ${name}`);
      }
    }
    const page = await call(ctx, "GET", "/");
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    await page.body?.cancel();
    assertEvery(page.headers, "/");
    assertHeaders(page.headers, "/", NOT_JSON);
    for (const name of PAGE_ONLY) {
      assert.ok(page.headers.get(name), `/: ${name}`);
    }
    // The page's own policy (with its nonce) is kept.
    assert.match(page.headers.get("content-security-policy") ?? "", /nonce-/);

    // A cached answer carries what the first one did, CORS included.
    const first = await call(ctx, "GET", "/api/events", {
      headers: { origin: "https://app.example" },
    });
    await first.body?.cancel();
    const again = await call(ctx, "GET", "/api/events", {
      headers: { origin: "https://app.example" },
    });
    await again.body?.cancel();
    assert.deepEqual([...again.headers], [...first.headers]);
    assert.equal(again.headers.get("access-control-allow-origin"), "*");
  } finally {
    ctx.close();
  }
});
