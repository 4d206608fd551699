/** The OAuth 2.0 flow through the API: client registration, consent, code, token. */
import { call, type TestContext } from "./app.ts";
import type { TestUser } from "./users.ts";

/** A registered OAuth client as returned by POST /api/client. */
export interface TestClient {
  client_id: string;
  client_secret: string | null;
  redirect_uri: string;
}

/** Registers an OAuth client through the API (one redirect URI unless given). */
export async function registerTestClient(
  ctx: TestContext,
  body: Record<string, unknown> = {},
): Promise<TestClient> {
  const redirect = "https://app.example/callback";
  const res = await call(ctx, "POST", "/api/client", {
    json: { client_name: "Test app", redirect_uris: redirect, ...body },
  });
  if (res.status !== 201) {
    throw new Error(
      `client registration failed: ${res.status} ${await res.text()}`,
    );
  }
  const client = await res.json();
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uri: client.redirect_uris.split(" ")[0],
  };
}

/** base64url SHA-256 of a PKCE verifier. */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The hidden inputs of an HTML form, by name. */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of html.match(/<input[^>]*>/g) ?? []) {
    if (!/type="hidden"/.test(tag)) continue;
    const name = /name="([^"]*)"/.exec(tag)?.[1];
    const value = /value="([^"]*)"/.exec(tag)?.[1] ?? "";
    if (name) {
      out[name] = value.replace(/&quot;/g, '"').replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    }
  }
  return out;
}

/** GET /authorize: the consent page, its hidden fields and the CSRF cookie. */
export async function openConsent(
  ctx: TestContext,
  params: Record<string, string>,
): Promise<
  {
    res: Response;
    html: string;
    fields: Record<string, string>;
    cookie: string;
  }
> {
  const res = await ctx.app.request(
    `/authorize?${new URLSearchParams(params)}`,
  );
  const html = await res.text();
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  return { res, html, fields: hiddenFields(html), cookie };
}

/** POSTs the consent form as a browser would (cookie + hidden fields + choices). */
export function submitConsent(
  ctx: TestContext,
  consent: { fields: Record<string, string>; cookie: string },
  choices: Record<string, string>,
): Promise<Response> {
  return Promise.resolve(ctx.app.request("/authorize", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(consent.cookie ? { cookie: consent.cookie } : {}),
    },
    body: new URLSearchParams({ ...consent.fields, ...choices }),
  }));
}

/** Runs the whole consent flow for a user and returns the code from the redirect. */
export async function authorizeCode(
  ctx: TestContext,
  client: TestClient,
  user: TestUser,
  options: { verifier?: string; state?: string; scope?: string } = {},
): Promise<string> {
  const params: Record<string, string> = {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope: options.scope ?? "event:write",
    state: options.state ?? "state-1",
  };
  if (options.verifier) {
    params.code_challenge = await s256(options.verifier);
    params.code_challenge_method = "S256";
  }
  const consent = await openConsent(ctx, params);
  if (consent.res.status !== 200) {
    throw new Error(`consent page: ${consent.res.status} ${consent.html}`);
  }
  const res = await submitConsent(ctx, consent, {
    email: user.email,
    password: user.password,
    decision: "approve",
  });
  const location = res.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (res.status !== 302 || !code) {
    throw new Error(`approval failed: ${res.status} ${location}`);
  }
  return code;
}

/** POST /oauth/token with form parameters (and HTTP Basic when `basic` is given). */
export function tokenRequest(
  ctx: TestContext,
  params: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
  };
  if (basic) {
    headers.authorization = `Basic ${
      btoa(
        `${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`,
      )
    }`;
  }
  return Promise.resolve(ctx.app.request("/oauth/token", {
    method: "POST",
    headers,
    body: new URLSearchParams(params),
  }));
}

/** An OAuth access token (scope event:write) for the user, through the real flow. */
export async function oauthAccessToken(
  ctx: TestContext,
  user: TestUser,
): Promise<string> {
  const client = await registerTestClient(ctx);
  const verifier = "helper-verifier-0123456789-abcdefghijklmnopq";
  const code = await authorizeCode(ctx, client, user, { verifier });
  const res = await tokenRequest(ctx, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
  }, { id: client.client_id, secret: client.client_secret! });
  if (res.status !== 200) {
    throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  }
  return (await res.json()).access_token;
}
