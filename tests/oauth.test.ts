/**
 * OAuth 2.0 provider through the HTTP surface: registration, the authorization
 * endpoint and consent form, the token endpoint, scopes, revocation, and the
 * user's list of authorised applications.
 */
import assert from "node:assert/strict";
import { CLIENT_REGISTRATION_LIMIT } from "../routes/api/oauth-clients.ts";
import {
  authorizeCode,
  call,
  countRows,
  createTestApp,
  createTestUser,
  expectError,
  openConsent,
  registerTestClient,
  s256,
  submitConsent,
  type TestClient,
  type TestContext,
  type TestUser,
  tokenRequest,
  userWithToken,
} from "./helpers.ts";

const VERIFIER = "verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
const EVENT = {
  title: "Repair café",
  start_datetime: 1_790_000_000,
  place_name: "Library",
  place_address: "1 Main St",
};

async function oauthError(res: Response, status: number, error: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.error, error, text);
  assert.equal(typeof body.error_description, "string");
  assert.equal(res.headers.get("cache-control"), "no-store");
  return body;
}

/** A world with one admin (who approves) and one confidential client. */
async function world() {
  const ctx = await createTestApp();
  const admin = await createTestUser(ctx, { role: "admin" });
  const client = await registerTestClient(ctx);
  return { ctx, admin, client };
}

function basicOf(client: TestClient) {
  return { id: client.client_id, secret: client.client_secret! };
}

async function exchange(
  ctx: TestContext,
  client: TestClient,
  code: string,
  extra: Record<string, string> = {},
) {
  return await tokenRequest(ctx, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: VERIFIER,
    ...extra,
  }, basicOf(client));
}

/** Approves and exchanges; returns the token response body. */
async function tokensFor(ctx: TestContext, client: TestClient, user: TestUser) {
  const code = await authorizeCode(ctx, client, user, { verifier: VERIFIER });
  const res = await exchange(ctx, client, code);
  assert.equal(res.status, 200);
  return await res.json();
}

function authorizeParams(
  client: TestClient,
  extra: Record<string, string> = {},
) {
  return {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope: "event:write",
    state: "s-42",
    code_challenge_method: "S256",
    ...extra,
  };
}

// ---------------------------------------------------------------- registration

Deno.test("POST /api/client registers a client: Application shape, secret once, stored hashed", async () => {
  const ctx = await createTestApp();
  try {
    const res = await call(ctx, "POST", "/api/client", {
      form: {
        client_name: "Importer",
        redirect_uris:
          "https://app.example/cb http://127.0.0.1:7777/cb com.example.app:/oauth",
        website: "https://app.example",
      },
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.name, "Importer");
    assert.equal(body.scopes, "event:write");
    assert.equal(body.website, "https://app.example");
    assert.equal(
      body.redirect_uris,
      "https://app.example/cb http://127.0.0.1:7777/cb com.example.app:/oauth",
    );
    assert.equal(body.redirectUris, undefined);
    assert.match(body.client_id, /^[A-Za-z0-9_-]{20,}$/);
    assert.match(body.client_secret, /^[A-Za-z0-9_-]{40,}$/);
    const rows = await ctx.database.db.all<Record<string, string>>(
      "select * from oauth_clients",
    );
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(body.client_secret));
    assert.match(rows[0].secretHash, /^[0-9a-f]{64}$/);
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/client accepts JSON with an array of URIs and public clients without a secret", async () => {
  const ctx = await createTestApp();
  try {
    const res = await call(ctx, "POST", "/api/client", {
      json: {
        client_name: "Phone app",
        redirect_uris: ["org.example.phone:/cb", "http://localhost:5000/cb"],
        scopes: "event:write",
        token_endpoint_auth_method: "none",
      },
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.client_secret, null);
    assert.equal(body.token_endpoint_auth_method, "none");
    assert.equal(
      body.redirect_uris,
      "org.example.phone:/cb http://localhost:5000/cb",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/client refuses bad registrations with 400 and writes nothing", async () => {
  const ctx = await createTestApp();
  try {
    const bad: [Record<string, unknown>, string][] = [
      [{ redirect_uris: "https://a.example/cb" }, "client_name"],
      [{ client_name: "x" }, "redirect_uris"],
      [{ client_name: "x", redirect_uris: "" }, "redirect_uris"],
      [{ client_name: "x", redirect_uris: "/relative" }, "redirect_uris"],
      [
        { client_name: "x", redirect_uris: "http://app.example/cb" },
        "redirect_uris",
      ],
      [
        { client_name: "x", redirect_uris: "javascript:alert(1)" },
        "redirect_uris",
      ],
      [
        { client_name: "x", redirect_uris: "https://a.example/cb#frag" },
        "redirect_uris",
      ],
      [
        { client_name: "x", redirect_uris: "https://u:p@a.example/cb" },
        "redirect_uris",
      ],
      [
        {
          client_name: "x",
          redirect_uris: "https://a.example/cb",
          scopes: "admin",
        },
        "scopes",
      ],
      [
        {
          client_name: "x",
          redirect_uris: "https://a.example/cb",
          scopes: "event:write read",
        },
        "scopes",
      ],
      [
        {
          client_name: "x",
          redirect_uris: "https://a.example/cb",
          website: "ftp://x",
        },
        "website",
      ],
      [
        {
          client_name: "x",
          redirect_uris: "https://a.example/cb",
          token_endpoint_auth_method: "private_key_jwt",
        },
        "token_endpoint_auth_method",
      ],
    ];
    for (const [json, field] of bad) {
      const body = await expectError(
        await call(ctx, "POST", "/api/client", { json }),
        400,
        "invalid_request",
      );
      assert.ok(
        JSON.stringify(body.details).includes(field),
        `${JSON.stringify(json)} -> ${JSON.stringify(body.details)}`,
      );
    }
    await expectError(
      await call(ctx, "POST", "/api/client", { body: "client_name=x" }),
      415,
      "unsupported_media_type",
    );
    assert.equal(await countRows(ctx, "oauth_clients"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("POST /api/client is rate-limited per address (429 with Retry-After)", async () => {
  const ctx = await createTestApp();
  try {
    const { limit } = CLIENT_REGISTRATION_LIMIT;
    for (let i = 0; i < limit; i++) await registerTestClient(ctx);
    const res = await call(ctx, "POST", "/api/client", {
      json: { client_name: "x", redirect_uris: "https://a.example/cb" },
    });
    await expectError(res, 429, "rate_limited");
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    assert.equal(await countRows(ctx, "oauth_clients"), limit);
    ctx.clock.advance(61 * 60 * 1000);
    await registerTestClient(ctx);
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------- authorization endpoint

Deno.test("GET /authorize shows an error page, never a redirect, for an unknown client or unregistered redirect_uri", async () => {
  const { ctx, client } = await world();
  try {
    const cases = [
      authorizeParams(client, { client_id: "nope" }),
      authorizeParams(client, { redirect_uri: "https://evil.example/cb" }),
      authorizeParams(client, {
        redirect_uri: "https://app.example/callback/x",
      }),
      authorizeParams(client, { redirect_uri: "" }),
      { response_type: "code", client_id: client.client_id },
    ];
    for (const params of cases) {
      const { res, html } = await openConsent(ctx, params);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.headers.get("location"), null);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      assert.match(html, /id="error-code">invalid_(client|request)</);
      assert.ok(!html.includes("evil.example"));
    }
  } finally {
    ctx.close();
  }
});

Deno.test("GET /authorize redirects other errors back with error and state", async () => {
  const ctx = await createTestApp();
  try {
    const client = await registerTestClient(ctx);
    const pub = await registerTestClient(ctx, {
      token_endpoint_auth_method: "none",
    });
    const challenge = await s256(VERIFIER);
    const cases: [TestClient, Record<string, string>, string][] = [
      [
        client,
        { response_type: "token", code_challenge: challenge },
        "unsupported_response_type",
      ],
      [client, { response_type: "" }, "invalid_request"],
      [client, { scope: "admin", code_challenge: challenge }, "invalid_scope"],
      [client, { scope: "event:write admin" }, "invalid_scope"],
      [
        client,
        { code_challenge: VERIFIER, code_challenge_method: "plain" },
        "invalid_request",
      ],
      [client, { code_challenge: "short" }, "invalid_request"],
      [pub, { code_challenge_method: "" }, "invalid_request"],
    ];
    for (const [c, extra, error] of cases) {
      const params = Object.fromEntries(
        Object.entries(authorizeParams(c, extra)).filter(([, v]) => v !== ""),
      );
      const { res } = await openConsent(ctx, params);
      assert.equal(res.status, 302, JSON.stringify(extra));
      const location = new URL(res.headers.get("location")!);
      assert.equal(`${location.origin}${location.pathname}`, c.redirect_uri);
      assert.equal(
        location.searchParams.get("error"),
        error,
        JSON.stringify(extra),
      );
      assert.equal(location.searchParams.get("state"), "s-42");
      assert.equal(location.searchParams.get("code"), null);
      assert.equal(location.searchParams.get("iss"), "http://quando.test");
    }
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("the consent page names the app, its website, the scope in words and the redirect host; framing is refused", async () => {
  const ctx = await createTestApp();
  try {
    const client = await registerTestClient(ctx, {
      client_name: "Café <Importer>",
      website: "https://importer.example/about",
    });
    const { res, html, fields, cookie } = await openConsent(
      ctx,
      authorizeParams(client, { code_challenge: await s256(VERIFIER) }),
    );
    assert.equal(res.status, 200);
    assert.match(html, /^<!DOCTYPE html>/);
    assert.ok(html.includes("Café &lt;Importer&gt;"));
    assert.ok(!html.includes("<Importer>"));
    assert.ok(html.includes('href="https://importer.example/about"'));
    assert.ok(html.includes("<strong>app.example</strong>"));
    assert.match(html, /Publish events in your name/);
    assert.match(html, /name="email"/);
    assert.match(html, /type="password"/);
    assert.match(html, /value="approve"/);
    assert.match(html, /value="deny"/);
    assert.match(html, /name="viewport"/);
    assert.ok(!/<script/i.test(html));
    assert.equal(fields.client_id, client.client_id);
    assert.ok(fields.csrf_token.length > 40);
    assert.match(cookie, /^quando_consent=/);
    assert.match(res.headers.get("set-cookie")!, /HttpOnly/);
    assert.match(res.headers.get("set-cookie")!, /SameSite=Strict/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/app\.example/);
    assert.ok(!csp.includes("unsafe-inline"));
    assert.equal(res.headers.get("cache-control"), "no-store");
  } finally {
    ctx.close();
  }
});

Deno.test("POST /authorize: a missing or foreign CSRF token, a browser post without its cookie, or a foreign origin is refused with 403 and issues no code", async () => {
  const { ctx, admin, client } = await world();
  try {
    const consent = await openConsent(
      ctx,
      authorizeParams(client, { code_challenge: await s256(VERIFIER) }),
    );
    const credentials = {
      email: admin.email,
      password: admin.password,
      decision: "approve",
    };
    const { csrf_token: _, ...withoutToken } = consent.fields;
    const browser = { origin: "http://quando.test" };
    const attempts: [
      Record<string, string>,
      string,
      Record<string, string>?,
    ][] = [
      [withoutToken, consent.cookie],
      [withoutToken, ""],
      // A browser (it sends Origin) must bring the cookie.
      [consent.fields, "", browser],
      [consent.fields, consent.cookie, { origin: "null" }],
      [{ ...consent.fields, csrf_token: "1.abc" }, consent.cookie],
      [{ ...consent.fields, state: "other-state" }, consent.cookie],
      [
        consent.fields,
        "quando_consent=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      ],
      [consent.fields, consent.cookie, { origin: "https://evil.example" }],
    ];
    for (const [fields, cookie, headers] of attempts) {
      const res = await ctx.app.request("/authorize", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(cookie ? { cookie } : {}),
          ...headers,
        },
        body: new URLSearchParams({ ...fields, ...credentials }),
      });
      assert.equal(res.status, 403);
      assert.equal(res.headers.get("location"), null);
      assert.match(await res.text(), /id="error-code">invalid_csrf_token</);
    }
    // A client that is not a browser (no Origin) may post a valid token
    // without the cookie; a browser with both is fine too.
    const plain = await ctx.app.request("/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...consent.fields, ...credentials }),
    });
    assert.equal(plain.status, 302);
    const fromPage = await ctx.app.request("/authorize", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: consent.cookie,
        ...browser,
      },
      body: new URLSearchParams({ ...consent.fields, ...credentials }),
    });
    assert.equal(fromPage.status, 302);
    assert.equal(await countRows(ctx, "oauth_codes"), 2);
    // The form expires.
    ctx.clock.advance(31 * 60 * 1000);
    const late = await submitConsent(ctx, consent, credentials);
    assert.equal(late.status, 403);
    assert.equal(await countRows(ctx, "oauth_codes"), 2);
  } finally {
    ctx.close();
  }
});

Deno.test("denying consent redirects with access_denied and the state; a wrong password re-renders the form", async () => {
  const { ctx, admin, client } = await world();
  try {
    const consent = await openConsent(
      ctx,
      authorizeParams(client, { code_challenge: await s256(VERIFIER) }),
    );
    const wrong = await submitConsent(ctx, consent, {
      email: admin.email,
      password: "wrong password",
      decision: "approve",
    });
    assert.equal(wrong.status, 401);
    const html = await wrong.text();
    assert.match(html, /Wrong e-mail or password/);
    assert.ok(html.includes(`value="${admin.email}"`));
    assert.equal(await countRows(ctx, "oauth_codes"), 0);

    const denied = await submitConsent(ctx, consent, { decision: "deny" });
    assert.equal(denied.status, 302);
    const location = new URL(denied.headers.get("location")!);
    assert.equal(location.searchParams.get("error"), "access_denied");
    assert.equal(location.searchParams.get("state"), "s-42");
    assert.equal(location.searchParams.get("code"), null);
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("approving redirects with a code and the state; the code is stored hashed", async () => {
  const { ctx, admin, client } = await world();
  try {
    const consent = await openConsent(
      ctx,
      authorizeParams(client, { code_challenge: await s256(VERIFIER) }),
    );
    const res = await submitConsent(ctx, consent, {
      email: admin.email,
      password: admin.password,
      decision: "approve",
    });
    assert.equal(res.status, 302);
    const location = new URL(res.headers.get("location")!);
    assert.equal(`${location.origin}${location.pathname}`, client.redirect_uri);
    const code = location.searchParams.get("code")!;
    assert.match(code, /^[A-Za-z0-9_-]{43}$/); // 256 bits
    assert.equal(location.searchParams.get("state"), "s-42");
    const rows = await ctx.database.db.all<{ codeHash: string }>(
      "select codeHash from oauth_codes",
    );
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0].codeHash, code);
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- token endpoint

Deno.test("the code exchanges for tokens that act for the approving user within event:write only", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const res = await exchange(ctx, client, code);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const tokens = await res.json();
    assert.equal(tokens.token_type, "Bearer");
    assert.equal(tokens.scope, "event:write");
    assert.equal(tokens.expires_in, 3600);
    assert.equal(typeof tokens.refresh_token, "string");
    const claims = JSON.parse(
      atob(
        tokens.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"),
      ),
    );
    assert.equal(claims.scope, "event:write");
    assert.equal(claims.client_id, client.client_id);
    assert.equal(claims.sub, String(admin.user.id));

    const created = await call(ctx, "POST", "/api/events", {
      token: tokens.access_token,
      json: EVENT,
    });
    assert.equal(created.status, 201);
    const event = await created.json();
    assert.equal(event.userId, admin.user.id);
    assert.equal(
      (await call(ctx, "PATCH", `/api/events/${event.id}`, {
        token: tokens.access_token,
        json: { status: "EventCancelled" },
      })).status,
      200,
    );
    assert.equal(
      (await call(ctx, "GET", `/api/events/${event.id}`, {
        token: tokens.access_token,
      })).status,
      200,
    );
    // Admin power is not in the scope, even though the user is an admin.
    for (
      const [method, path] of [
        ["GET", "/api/users"],
        ["GET", "/api/users/me"],
        ["GET", "/api/settings"],
        ["GET", "/api/oauth/authorizations"],
      ]
    ) {
      const denied = await call(ctx, method, path, {
        token: tokens.access_token,
      });
      await expectError(denied, 403, "insufficient_scope");
      assert.match(
        denied.headers.get("www-authenticate")!,
        /error="insufficient_scope"/,
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("client_secret_post and a JSON token request work as well as Basic", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const res = await ctx.app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "authorization_code",
        code,
        redirect_uri: client.redirect_uri,
        code_verifier: VERIFIER,
        client_id: client.client_id,
        client_secret: client.client_secret,
      }),
    });
    assert.equal(res.status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("client authentication failures are 401 invalid_client", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const params = {
      grant_type: "authorization_code",
      code,
      redirect_uri: client.redirect_uri,
      code_verifier: VERIFIER,
    };
    const wrong = await tokenRequest(ctx, params, {
      id: client.client_id,
      secret: "not-the-secret",
    });
    const body = await oauthError(wrong, 401, "invalid_client");
    assert.ok(!JSON.stringify(body).includes(client.client_secret!));
    assert.match(wrong.headers.get("www-authenticate")!, /^Basic/);
    await oauthError(
      await tokenRequest(ctx, {
        ...params,
        client_id: client.client_id,
        client_secret: "wrong",
      }),
      401,
      "invalid_client",
    );
    await oauthError(
      await tokenRequest(ctx, { ...params, client_id: client.client_id }),
      401,
      "invalid_client",
    );
    await oauthError(await tokenRequest(ctx, params), 401, "invalid_client");
    await oauthError(
      await tokenRequest(ctx, params, { id: "unknown", secret: "x" }),
      401,
      "invalid_client",
    );
    // The failed attempts did not burn the code.
    assert.equal((await exchange(ctx, client, code)).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("token endpoint request errors: grant type, body type, scope", async () => {
  const { ctx, admin, client } = await world();
  try {
    await oauthError(
      await tokenRequest(ctx, { grant_type: "password" }, basicOf(client)),
      400,
      "unsupported_grant_type",
    );
    await oauthError(
      await tokenRequest(ctx, { grant_type: "client_credentials" }),
      400,
      "unsupported_grant_type",
    );
    await oauthError(
      await tokenRequest(ctx, {}, basicOf(client)),
      400,
      "invalid_request",
    );
    await oauthError(
      await ctx.app.request("/oauth/token", {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "grant_type=authorization_code",
      }),
      400,
      "invalid_request",
    );
    await oauthError(
      await tokenRequest(
        ctx,
        { grant_type: "authorization_code" },
        basicOf(client),
      ),
      400,
      "invalid_request",
    );
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    await oauthError(
      await exchange(ctx, client, code, { scope: "event:write admin" }),
      400,
      "invalid_scope",
    );
    await oauthError(
      await exchange(ctx, client, "made-up-code"),
      400,
      "invalid_grant",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("a replayed code fails and revokes the tokens issued from it", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const first = await (await exchange(ctx, client, code)).json();
    const me = { token: first.access_token, json: EVENT };
    assert.equal((await call(ctx, "POST", "/api/events", me)).status, 201);

    await oauthError(await exchange(ctx, client, code), 400, "invalid_grant");

    await expectError(
      await call(ctx, "POST", "/api/events", me),
      401,
      "unauthorized",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("concurrent exchanges of one code: exactly one succeeds", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => exchange(ctx, client, code)),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400, 400, 400]);
    await Promise.all(results.map((r) => r.body?.cancel()));
  } finally {
    ctx.close();
  }
});

Deno.test("a code expires after 10 minutes", async () => {
  const { ctx, admin, client } = await world();
  try {
    const fresh = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    const stale = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    ctx.clock.advance(9 * 60 * 1000);
    assert.equal((await exchange(ctx, client, fresh)).status, 200);
    ctx.clock.advance(60 * 1000);
    await oauthError(await exchange(ctx, client, stale), 400, "invalid_grant");
  } finally {
    ctx.close();
  }
});

Deno.test("PKCE: a wrong, missing or unexpected verifier is invalid_grant", async () => {
  const { ctx, admin, client } = await world();
  try {
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    await oauthError(
      await exchange(ctx, client, code, {
        code_verifier: "another-verifier-0123456789-abcdefghijklmnop",
      }),
      400,
      "invalid_grant",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "authorization_code",
        code,
        redirect_uri: client.redirect_uri,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
    // A confidential client that sent no challenge may not send a verifier.
    const plain = await authorizeCode(ctx, client, admin);
    await oauthError(await exchange(ctx, client, plain), 400, "invalid_grant");
    const ok = await tokenRequest(ctx, {
      grant_type: "authorization_code",
      code: plain,
      redirect_uri: client.redirect_uri,
    }, basicOf(client));
    assert.equal(ok.status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("redirect_uri at the token endpoint must equal the authorization request's", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const client = await registerTestClient(ctx, {
      redirect_uris: "https://app.example/callback https://app.example/other",
    });
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    await oauthError(
      await exchange(ctx, client, code, {
        redirect_uri: "https://app.example/other",
      }),
      400,
      "invalid_grant",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "authorization_code",
        code,
        code_verifier: VERIFIER,
      }, basicOf(client)),
      400,
      "invalid_request",
    );
    assert.equal((await exchange(ctx, client, code)).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("a code issued to one client cannot be exchanged by another", async () => {
  const { ctx, admin, client } = await world();
  try {
    const other = await registerTestClient(ctx);
    const code = await authorizeCode(ctx, client, admin, {
      verifier: VERIFIER,
    });
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "authorization_code",
        code,
        redirect_uri: client.redirect_uri,
        code_verifier: VERIFIER,
      }, basicOf(other)),
      400,
      "invalid_grant",
    );
    assert.equal((await exchange(ctx, client, code)).status, 200);
  } finally {
    ctx.close();
  }
});

Deno.test("public clients: PKCE required, client_id only, a secret is refused", async () => {
  const ctx = await createTestApp();
  try {
    const user = await createTestUser(ctx);
    const pub = await registerTestClient(ctx, {
      redirect_uris: "org.example.app:/cb",
      token_endpoint_auth_method: "none",
    });
    const code = await authorizeCode(ctx, pub, user, { verifier: VERIFIER });
    const params = {
      grant_type: "authorization_code",
      code,
      redirect_uri: pub.redirect_uri,
      code_verifier: VERIFIER,
      client_id: pub.client_id,
    };
    await oauthError(
      await tokenRequest(ctx, { ...params, client_secret: "guess" }),
      401,
      "invalid_client",
    );
    const res = await tokenRequest(ctx, params);
    assert.equal(res.status, 200);
    const tokens = await res.json();
    const created = await call(ctx, "POST", "/api/events", {
      token: tokens.access_token,
      json: EVENT,
    });
    assert.equal(created.status, 201);
    assert.equal((await created.json()).userId, user.user.id);
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- refresh tokens

Deno.test("refresh tokens rotate; reusing an old one revokes the whole chain", async () => {
  const { ctx, admin, client } = await world();
  try {
    const first = await tokensFor(ctx, client, admin);
    ctx.clock.advance(1000);
    const res = await tokenRequest(ctx, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
    }, basicOf(client));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const second = await res.json();
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal(second.scope, "event:write");
    assert.equal(
      (await call(ctx, "POST", "/api/events", {
        token: second.access_token,
        json: EVENT,
      })).status,
      201,
    );

    // The old one again: refused, and everything of this grant stops working.
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: second.access_token,
        json: EVENT,
      }),
      401,
      "unauthorized",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: second.refresh_token,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
  } finally {
    ctx.close();
  }
});

Deno.test("refresh: another client's token, unknown tokens, wider scope and expiry are refused", async () => {
  const { ctx, admin, client } = await world();
  try {
    const other = await registerTestClient(ctx);
    const tokens = await tokensFor(ctx, client, admin);
    const refresh = (
      c: TestClient,
      extra: Record<string, string> = {},
    ) =>
      tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        ...extra,
      }, basicOf(c));
    await oauthError(await refresh(other), 400, "invalid_grant");
    await oauthError(
      await refresh(client, { refresh_token: "nope" }),
      400,
      "invalid_grant",
    );
    await oauthError(
      await refresh(client, { scope: "event:write admin" }),
      400,
      "invalid_scope",
    );
    await oauthError(
      await tokenRequest(ctx, { grant_type: "refresh_token" }, basicOf(client)),
      400,
      "invalid_request",
    );
    // The access token expires after an hour, the refresh token after 30 days.
    ctx.clock.advance(3601 * 1000);
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: tokens.access_token,
        json: EVENT,
      }),
      401,
    );
    ctx.clock.advance(30 * 86_400 * 1000);
    await oauthError(await refresh(client), 400, "invalid_grant");
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- revocation

Deno.test("POST /oauth/revoke revokes an access token, or a refresh token with its chain", async () => {
  const { ctx, admin, client } = await world();
  try {
    const revoke = (token: string, as = client) =>
      ctx.app.request("/oauth/revoke", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${as.client_id}:${as.client_secret}`)}`,
        },
        body: new URLSearchParams({ token }),
      });
    const a = await tokensFor(ctx, client, admin);
    // Another client cannot revoke it, and unknown tokens answer 200.
    const other = await registerTestClient(ctx);
    assert.equal((await revoke(a.access_token, other)).status, 200);
    assert.equal((await revoke("not-a-token")).status, 200);
    assert.equal(
      (await call(ctx, "POST", "/api/events", {
        token: a.access_token,
        json: EVENT,
      }))
        .status,
      201,
    );
    assert.equal((await revoke(a.access_token)).status, 200);
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: a.access_token,
        json: EVENT,
      }),
      401,
      "unauthorized",
    );
    // The refresh token still works after the access token's revocation...
    const b = await (await tokenRequest(ctx, {
      grant_type: "refresh_token",
      refresh_token: a.refresh_token,
    }, basicOf(client))).json();
    assert.equal(typeof b.access_token, "string");
    // ...and revoking a refresh token ends the chain.
    assert.equal((await revoke(b.refresh_token)).status, 200);
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: b.access_token,
        json: EVENT,
      }),
      401,
    );
    const wrong = await ctx.app.request("/oauth/revoke", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${client.client_id}:wrong`)}`,
      },
      body: new URLSearchParams({ token: b.refresh_token }),
    });
    await oauthError(wrong, 401, "invalid_client");
  } finally {
    ctx.close();
  }
});

Deno.test("users see and withdraw the applications they authorised", async () => {
  const { ctx, client } = await world();
  try {
    const user = await userWithToken(ctx);
    const stranger = await userWithToken(ctx);
    const tokens = await tokensFor(ctx, client, user);

    const list = await call(ctx, "GET", "/api/oauth/authorizations", {
      token: user.token,
    });
    assert.equal(list.status, 200);
    const apps = await list.json();
    assert.equal(apps.length, 1);
    assert.equal(apps[0].client_id, client.client_id);
    assert.equal(apps[0].name, "Test app");
    assert.equal(apps[0].scopes, "event:write");
    assert.deepEqual(
      await (await call(ctx, "GET", "/api/oauth/authorizations", {
        token: stranger.token,
      })).json(),
      [],
    );
    await expectError(
      await call(ctx, "GET", "/api/oauth/authorizations"),
      401,
      "unauthorized",
    );
    // Someone else cannot withdraw it.
    await expectError(
      await call(
        ctx,
        "DELETE",
        `/api/oauth/authorizations/${client.client_id}`,
        {
          token: stranger.token,
        },
      ),
      404,
      "not_found",
    );
    // Nor can the application itself.
    await expectError(
      await call(
        ctx,
        "DELETE",
        `/api/oauth/authorizations/${client.client_id}`,
        {
          token: tokens.access_token,
        },
      ),
      403,
      "insufficient_scope",
    );
    const withdrawn = await call(
      ctx,
      "DELETE",
      `/api/oauth/authorizations/${client.client_id}`,
      { token: user.token },
    );
    assert.equal(withdrawn.status, 204);
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: tokens.access_token,
        json: EVENT,
      }),
      401,
      "unauthorized",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
    assert.deepEqual(
      await (await call(ctx, "GET", "/api/oauth/authorizations", {
        token: user.token,
      })).json(),
      [],
    );
    await expectError(
      await call(
        ctx,
        "DELETE",
        `/api/oauth/authorizations/${client.client_id}`,
        {
          token: user.token,
        },
      ),
      404,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("deactivating the user makes their OAuth tokens fail with 401 and refresh fail", async () => {
  const { ctx, client } = await world();
  try {
    const adminLogin = await userWithToken(ctx, "admin");
    const user = await createTestUser(ctx);
    const tokens = await tokensFor(ctx, client, user);
    const update = await call(ctx, "PATCH", `/api/users/${user.user.id}`, {
      token: adminLogin.token,
      json: { is_active: false },
    });
    assert.equal(update.status, 200);
    await expectError(
      await call(ctx, "POST", "/api/events", {
        token: tokens.access_token,
        json: EVENT,
      }),
      401,
      "unauthorized",
    );
    await oauthError(
      await tokenRequest(ctx, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
      }, basicOf(client)),
      400,
      "invalid_grant",
    );
  } finally {
    ctx.close();
  }
});

// ---------------------------------------------------------------- metadata

Deno.test("GET /.well-known/oauth-authorization-server describes the server (RFC 8414)", async () => {
  const ctx = await createTestApp();
  try {
    const res = await ctx.app.request(
      "/.well-known/oauth-authorization-server",
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const meta = await res.json();
    assert.equal(meta.issuer, "http://quando.test");
    assert.equal(meta.authorization_endpoint, "http://quando.test/authorize");
    assert.equal(meta.token_endpoint, "http://quando.test/oauth/token");
    assert.equal(meta.revocation_endpoint, "http://quando.test/oauth/revoke");
    assert.deepEqual(meta.scopes_supported, ["event:write"]);
    assert.deepEqual(meta.response_types_supported, ["code"]);
    assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(meta.grant_types_supported, [
      "authorization_code",
      "refresh_token",
    ]);
    assert.ok(
      meta.token_endpoint_auth_methods_supported.includes(
        "client_secret_basic",
      ),
    );
    assert.ok(
      meta.token_endpoint_auth_methods_supported.includes("client_secret_post"),
    );

    const doc = await (await ctx.app.request("/api/openapi.json")).json();
    for (
      const path of [
        "/api/client",
        "/oauth/token",
        "/oauth/revoke",
        "/api/oauth/authorizations",
      ]
    ) {
      assert.ok(doc.paths[path], path);
    }
  } finally {
    ctx.close();
  }
});

Deno.test("purgeExpiredOAuth drops expired codes, tokens and empty grants but keeps live ones", async () => {
  const { ctx, admin, client } = await world();
  try {
    const { purgeExpiredOAuth } = await import("../lib/oauth/grants.ts");
    await tokensFor(ctx, client, admin);
    await authorizeCode(ctx, client, admin, { verifier: VERIFIER });
    await purgeExpiredOAuth(ctx.database.db, ctx.clock);
    assert.equal(await countRows(ctx, "oauth_codes"), 2);
    assert.equal(await countRows(ctx, "oauth_tokens"), 2);
    // After the access token's hour, only it goes.
    ctx.clock.advance(2 * 3600 * 1000);
    await purgeExpiredOAuth(ctx.database.db, ctx.clock);
    assert.equal(await countRows(ctx, "oauth_tokens"), 1);
    assert.equal(await countRows(ctx, "oauth_grants"), 1);
    // After the refresh token's 30 days, everything.
    ctx.clock.advance(31 * 86_400 * 1000);
    await purgeExpiredOAuth(ctx.database.db, ctx.clock);
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
    assert.equal(await countRows(ctx, "oauth_tokens"), 0);
    assert.equal(await countRows(ctx, "oauth_grants"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("concurrent wrong passwords on the consent page: at most 10 are checked, the rest answer 429", async () => {
  const { ctx, admin, client } = await world();
  try {
    const consent = await openConsent(
      ctx,
      authorizeParams(client, { code_challenge: await s256(VERIFIER) }),
    );
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        submitConsent(ctx, consent, {
          email: admin.email,
          password: `wrong-${i}`,
          decision: "approve",
        })),
    );
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.body?.cancel()));
    assert.equal(
      statuses.filter((s) => s === 401).length,
      10,
      statuses.join(","),
    );
    assert.equal(statuses.filter((s) => s === 429).length, 30);
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
  } finally {
    ctx.close();
  }
});
