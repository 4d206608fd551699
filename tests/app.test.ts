import assert from "node:assert/strict";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  userWithToken,
} from "./helpers.ts";

Deno.test("malformed JSON is a 400 in the error shape and writes nothing", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  for (const body of ["{bad", "", "[1,", "null x"]) {
    const res = await call(ctx, "POST", "/api/users", {
      token: admin.token,
      headers: { "content-type": "application/json" },
      body,
    });
    await expectError(res, 400, "invalid_request");
  }
  assert.equal(await countRows(ctx, "users"), 1);
  ctx.close();
});

Deno.test("unknown routes answer 404 JSON", async () => {
  const ctx = await createTestApp();
  for (const path of ["/nope", "/api/nope", "/api/users/1/extra"]) {
    const res = await call(ctx, "GET", path);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    await expectError(res, 404, "not_found");
  }
  ctx.close();
});

Deno.test("a body over the limit is a 413, declared or streamed", async () => {
  const ctx = await createTestApp({ env: { BODY_LIMIT: "2048" } });
  const big = JSON.stringify({
    email: "a@example.org",
    password: "x".repeat(5000),
  });
  const declared = await call(ctx, "POST", "/api/login/token", {
    headers: { "content-type": "application/json" },
    body: big,
  });
  await expectError(declared, 413, "payload_too_large");
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(big));
      controller.close();
    },
  });
  const streamed = await ctx.app.request("/api/login/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
    // @ts-ignore: Deno's RequestInit accepts duplex for streamed bodies
    duplex: "half",
  });
  await expectError(streamed, 413, "payload_too_large");
  ctx.close();
});

Deno.test("a body of an unsupported type is a 415", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "POST", "/api/login/token", {
    headers: { "content-type": "text/plain" },
    body: "email=a",
  });
  await expectError(res, 415, "unsupported_media_type");
  ctx.close();
});

Deno.test("GET /api/health answers 200 while the database answers, 503 after", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "GET", "/api/health");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ok" });
  ctx.close();
  const down = await call(ctx, "GET", "/api/health");
  assert.equal(down.status, 503);
  assert.equal((await down.json()).error, "unavailable");
});

Deno.test("GET /api/health on a database file: 200, then 503 once it is closed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "quando-health-" });
  const ctx = await createTestApp({
    env: { DATABASE_URL: `file:${dir}/health.db` },
  });
  try {
    assert.equal((await call(ctx, "GET", "/api/health")).status, 200);
    ctx.close();
    const down = await call(ctx, "GET", "/api/health");
    assert.equal(down.status, 503);
    assert.equal((await down.json()).error, "unavailable");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the OpenAPI 3.1 document lists every route with its auth requirement", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "GET", "/api/openapi.json");
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.components.securitySchemes.bearerAuth.scheme, "bearer");
  const expected: [string, string, boolean][] = [
    ["/api/health", "get", false],
    ["/api/login/token", "post", false],
    ["/api/users/me", "get", true],
    ["/api/users", "get", true],
    ["/api/users", "post", true],
    ["/api/users/{id}", "get", true],
    ["/api/users/{id}", "patch", true],
    ["/api/users/{id}", "delete", true],
    ["/api/users/{id}/approve", "post", true],
    ["/api/settings", "get", true],
    ["/api/settings", "put", true],
    ["/api/events", "get", false],
    ["/api/events", "post", true],
    ["/api/events/mine", "get", true],
    ["/api/events/tag/{tag}", "get", false],
    ["/api/events/{id}", "get", false],
    ["/api/events/{id}", "put", true],
    ["/api/events/{id}", "patch", true],
    ["/api/events/{id}", "delete", true],
    ["/api/events/{id}/toggle", "put", true],
    ["/api/events/{id}/messages", "get", true],
    ["/api/events/{id}/messages", "post", true],
    ["/api/tags", "get", false],
    ["/api/places", "get", false],
    ["/api/places/{id}", "get", false],
    ["/api/places/{id}", "put", true],
    ["/api/places/{id}/merge", "post", true],
    ["/api/events/{id}/reports", "post", false],
    ["/api/reports", "get", true],
    ["/api/reports/{id}", "put", true],
    ["/api/media", "post", true],
    ["/media/{file}", "get", false],
  ];
  for (const [path, method, secured] of expected) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method.toUpperCase()} ${path} missing`);
    assert.equal(
      Boolean(
        op.security?.some((s: Record<string, unknown>) => "bearerAuth" in s),
      ),
      secured,
      `${method} ${path}`,
    );
  }
  const login = doc.paths["/api/login/token"].post;
  assert.ok(login.requestBody.content["application/json"]);
  assert.ok(login.requestBody.content["application/x-www-form-urlencoded"]);
  assert.ok(login.responses["401"]);
  ctx.close();
});

Deno.test("GET /api/docs serves the reference page", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "GET", "/api/docs");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/html/);
  const html = await res.text();
  assert.ok(html.includes("/api/openapi.json"));
  ctx.close();
});

Deno.test("CORS is open on the API; JSON answers carry a strict CSP and no framing", async () => {
  const ctx = await createTestApp();
  const res = await call(ctx, "GET", "/api/health", {
    headers: { origin: "https://app.example" },
  });
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  // No framing through the policy (frame-ancestors), which every current
  // browser applies in place of X-Frame-Options.
  assert.match(
    res.headers.get("content-security-policy") ?? "",
    /default-src 'none'.*frame-ancestors 'none'/,
  );
  const preflight = await ctx.app.request("/api/users", {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type",
    },
  });
  assert.equal(preflight.status, 204);
  assert.match(
    preflight.headers.get("access-control-allow-headers") ?? "",
    /Authorization/i,
  );
  ctx.close();
});
