/**
 * The whole OAuth flow against the real server on a loopback port, driven by
 * the real OAuth client library oauth4webapi: discovery, PKCE, state check,
 * code exchange, refresh, revocation; then the token at work on the API.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { hiddenFields, startServerProcess } from "./helpers.ts";

const ADMIN = { email: "owner@example.org", password: "owner-password-1" };
const REDIRECT = "http://127.0.0.1:9/callback"; // never fetched: we read the Location

Deno.test("oauth4webapi drives discovery, PKCE, consent, code exchange and refresh against the running server", async () => {
  const cwd = await Deno.makeTempDir();
  const server = await startServerProcess(cwd, {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  // Plain http is fine on loopback; the library refuses it unless told.
  const insecure = { [oauth.allowInsecureRequests]: true };
  try {
    // Discovery from the RFC 8414 metadata document.
    const issuer = new URL(server.base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, {
        algorithm: "oauth2",
        ...insecure,
      }),
    );
    assert.equal(as.authorization_endpoint, `${server.base}/authorize`);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);

    // Registration.
    const registered = await fetch(`${server.base}/api/client`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_name: "E2E importer",
        redirect_uris: REDIRECT,
        website: "https://importer.example",
      }),
    });
    assert.equal(registered.status, 201);
    const app = await registered.json();
    const client: oauth.Client = { client_id: app.client_id };
    const clientAuth = oauth.ClientSecretBasic(app.client_secret);

    // The authorization request, as the library's user builds it.
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: "event:write",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    }).toString();

    // The browser part: fetch the consent form, keep its cookie, submit it.
    const page = await fetch(authorizationUrl);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /E2E importer/);
    const cookie = page.headers.get("set-cookie")!.split(";")[0];
    const approved = await fetch(`${server.base}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie,
        origin: server.base,
      },
      body: new URLSearchParams({
        ...hiddenFields(html),
        email: ADMIN.email,
        password: ADMIN.password,
        decision: "approve",
      }),
    });
    assert.equal(approved.status, 302);
    await approved.body?.cancel();
    const callback = new URL(approved.headers.get("location")!);
    assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT);

    // The library checks state and iss; a wrong state is caught.
    assert.throws(() =>
      oauth.validateAuthResponse(as, client, callback, "another-state")
    );
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT,
      codeVerifier,
      insecure,
    );
    assert.equal(tokenResponse.headers.get("cache-control"), "no-store");
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      tokenResponse,
    );
    assert.equal(tokens.token_type, "bearer");
    assert.equal(tokens.scope, "event:write");
    assert.ok(tokens.refresh_token);

    // The token publishes an event owned by the approving user.
    const login = await fetch(`${server.base}/api/login/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    const loginToken = (await login.json()).access_token;
    const me = await (await fetch(`${server.base}/api/users/me`, {
      headers: { authorization: `Bearer ${loginToken}` },
    })).json();
    const created = await fetch(`${server.base}/api/events`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        title: "Published through OAuth",
        start_datetime: Math.floor(Date.now() / 1000) + 86_400,
        place_name: "Town hall",
        place_address: "Main square",
      }),
    });
    assert.equal(created.status, 201);
    const event = await created.json();
    assert.equal(event.userId, me.id);

    // The user is an admin, but the token's scope is not.
    const users = await fetch(`${server.base}/api/users`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(users.status, 403);
    assert.equal((await users.json()).error, "insufficient_scope");
    assert.match(
      users.headers.get("www-authenticate")!,
      /error="insufficient_scope"/,
    );

    // Refresh, then revoke through the library.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(
        as,
        client,
        clientAuth,
        tokens.refresh_token!,
        insecure,
      ),
    );
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    const patched = await fetch(`${server.base}/api/events/${event.id}`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${refreshed.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ status: "EventPostponed" }),
    });
    assert.equal(patched.status, 200);
    assert.equal((await patched.json()).status, "EventPostponed");

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(
        as,
        client,
        clientAuth,
        refreshed.refresh_token!,
        insecure,
      ),
    );
    const afterRevoke = await fetch(`${server.base}/api/events/${event.id}`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${refreshed.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ status: "EventScheduled" }),
    });
    assert.equal(afterRevoke.status, 401);
    await afterRevoke.body?.cancel();
  } finally {
    await server.stop();
    await Deno.remove(cwd, { recursive: true });
  }
});
