/**
 * The OAuth consent page in a real browser: headless Chromium (Debian's
 * `chromium` package) driven by playwright-core renders /authorize, signs in,
 * approves or denies, and lands on the client's redirect URI.
 */
import assert from "node:assert/strict";
import { launchChromium, requireChromium } from "./browser.ts";
import type { Browser, Page } from "playwright-core";
import { startServerProcess } from "./helpers.ts";

const ARTIFACTS = new URL("./artifacts/", import.meta.url);
const ADMIN_EMAIL = "admin@example.org";
const ADMIN_PASSWORD = "correct horse battery";
const APP_NAME = "Browser Test Calendar";

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** A PKCE verifier and its S256 challenge. */
async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** A tiny client site that records where the browser was sent back to. */
function startCallbackServer() {
  const hits: URL[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/callback") {
        hits.push(url);
        return new Response(
          "<!doctype html><title>Signed in</title><h1>Signed in</h1>",
          { headers: { "content-type": "text/html; charset=utf-8" } },
        );
      }
      return new Response("not found", { status: 404 });
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return { callback: `http://127.0.0.1:${port}/callback`, hits, server };
}

function authorizeUrl(
  base: string,
  clientId: string,
  redirectUri: string,
  state: string,
  challenge: string,
): string {
  const url = new URL("/authorize", base);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "event:write",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  return url.href;
}

/** Waits for the browser to be on the callback URL and returns its query. */
async function landOnCallback(
  page: Page,
  callback: string,
): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(`${callback}?`), {
    timeout: 10_000,
  });
  assert.equal(await page.locator("h1").textContent(), "Signed in");
  return new URL(page.url()).searchParams;
}

Deno.test({
  name: "OAuth consent page in Chromium: wrong password, approve, deny",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await requireChromium();

    const dir = await Deno.makeTempDir({ prefix: "quando-browser-" });
    const target = startCallbackServer();
    let quando: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    let browser: Browser | undefined;
    try {
      quando = await startServerProcess(dir, {
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
      });
      const base = quando.base;

      const reg = await fetch(`${base}/api/client`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: APP_NAME,
          redirect_uris: target.callback,
        }),
      });
      const regText = await reg.text();
      assert.equal(reg.status, 201, regText);
      const client = JSON.parse(regText) as {
        client_id: string;
        client_secret: string;
      };
      assert.ok(client.client_id);
      assert.ok(client.client_secret);

      browser = await launchChromium();

      // Scenario 1: wrong password, then approve, on a phone-sized screen.
      {
        const context = await browser.newContext({
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
        });
        const page = await context.newPage();
        const state = `state-${crypto.randomUUID()}`;
        const { verifier, challenge } = await pkce();

        const first = await page.goto(
          authorizeUrl(
            base,
            client.client_id,
            target.callback,
            state,
            challenge,
          ),
        );
        assert.equal(first?.status(), 200);
        assert.equal(await page.locator("#app-name").textContent(), APP_NAME);
        const body = (await page.locator("body").innerText()).replace(
          /\s+/g,
          " ",
        );
        assert.match(body, /Publish events in your name/);
        assert.match(body, /event:write/);
        assert.match(body, /127\.0\.0\.1:\d+/); // where the answer goes

        // Readable on a phone: nothing wider than the screen.
        // (A string: the project's type check has no DOM library.)
        const widths: { scroll: number; client: number } = await page.evaluate(
          "({ scroll: document.documentElement.scrollWidth, " +
            "client: document.documentElement.clientWidth })",
        );
        assert.ok(
          widths.scroll <= widths.client,
          `the page scrolls sideways on a phone: ${JSON.stringify(widths)}`,
        );

        await Deno.mkdir(ARTIFACTS, { recursive: true });
        await page.screenshot({
          path: new URL("consent.png", ARTIFACTS).pathname,
          fullPage: true,
        });

        // A wrong password re-renders the form with an error.
        await page.fill("#email", ADMIN_EMAIL);
        await page.fill("#password", "not the password");
        const [wrong] = await Promise.all([
          page.waitForResponse((r) =>
            r.request().method() === "POST" &&
            new URL(r.url()).pathname === "/authorize"
          ),
          page.click("button.approve"),
        ]);
        assert.equal(wrong.status(), 401);
        await page.waitForLoadState("domcontentloaded");
        assert.equal(new URL(page.url()).origin, base);
        assert.equal(new URL(page.url()).pathname, "/authorize");
        assert.match(
          (await page.locator(".error").textContent()) ?? "",
          /Wrong e-mail or password/,
        );
        assert.equal(await page.inputValue("#email"), ADMIN_EMAIL);
        assert.equal(target.hits.length, 0);

        // The right password approves and sends the browser back with a code.
        await page.fill("#email", ADMIN_EMAIL);
        await page.fill("#password", ADMIN_PASSWORD);
        await page.click("button.approve");
        const query = await landOnCallback(page, target.callback);
        const code = query.get("code");
        assert.ok(code, `no code in ${page.url()}`);
        assert.equal(query.get("state"), state);
        assert.equal(query.get("iss"), base);
        assert.equal(query.get("error"), null);
        assert.equal(target.hits.length, 1);
        assert.equal(target.hits[0].searchParams.get("code"), code);

        // The code is real: the token endpoint exchanges it.
        const tokenRes = await fetch(`${base}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            redirect_uri: target.callback,
            code_verifier: verifier,
            client_id: client.client_id,
            client_secret: client.client_secret,
          }),
        });
        const tokenText = await tokenRes.text();
        assert.equal(tokenRes.status, 200, tokenText);
        const tokens = JSON.parse(tokenText);
        assert.equal(typeof tokens.access_token, "string");
        assert.ok(tokens.access_token.length > 0);
        assert.equal(tokens.token_type, "Bearer");
        await context.close();
      }

      // Scenario 2: deny without filling anything in.
      {
        const context = await browser.newContext();
        const page = await context.newPage();
        const state = `deny-${crypto.randomUUID()}`;
        const { challenge } = await pkce();
        const res = await page.goto(
          authorizeUrl(
            base,
            client.client_id,
            target.callback,
            state,
            challenge,
          ),
        );
        assert.equal(res?.status(), 200);
        await page.click("button.deny");
        const query = await landOnCallback(page, target.callback);
        assert.equal(query.get("error"), "access_denied");
        assert.equal(query.get("state"), state);
        assert.equal(query.get("iss"), base);
        assert.equal(query.get("code"), null);
        await context.close();
      }
    } finally {
      await browser?.close().catch(() => {});
      await quando?.stop();
      await target.server.shutdown();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
