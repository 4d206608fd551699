/** What the web pages' HTTP tests share: forms posted and pages read as a browser of this site would. */
import assert from "node:assert/strict";
import type { UserRole } from "../db/schema.ts";
import { type TestContext, userWithToken } from "./helpers.ts";

/** The parts of a test app that a browser reaches. */
type Site = Pick<TestContext, "app" | "config">;

/** A form's fields; a list posts one value per item (multiple selects). */
export type Fields = Record<string, string | string[]>;

/** Posts a form as a browser of this site would (Origin: the instance; a header given as "" is left out). */
export function postForm(
  ctx: Site,
  path: string,
  fields: Fields,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      body.append(name, item);
    }
  }
  const sent = Object.entries({
    "content-type": "application/x-www-form-urlencoded",
    origin: new URL(ctx.config.baseUrl).origin,
    ...headers,
  }).filter(([, value]) => value !== "");
  return Promise.resolve(ctx.app.request(path, {
    method: "POST",
    headers: Object.fromEntries(sent),
    body,
  }));
}

/** The session cookie a response sets (name=value). */
export function cookieOf(res: Response): string {
  const pair = (res.headers.get("set-cookie") ?? "").split(";")[0];
  assert.match(pair, /^quando_session=[A-Za-z0-9_-]{43}$/);
  return pair;
}

/** Signs in through the form; returns the Cookie header value. */
export async function signIn(
  ctx: Site,
  who: { email: string; password: string },
): Promise<string> {
  const res = await postForm(ctx, "/login", {
    email: who.email,
    password: who.password,
  });
  assert.equal(res.status, 303, await res.text());
  return cookieOf(res);
}

/** A page as a browser with this cookie gets it. */
export function get(
  ctx: Pick<TestContext, "app">,
  path: string,
  cookie?: string,
): Promise<Response> {
  return Promise.resolve(
    ctx.app.request(path, { headers: cookie ? { cookie } : {} }),
  );
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  assert.ok(match, "no csrf_token in the page");
  return match[1];
}

/** A page's CSRF token, read from `path` (which must answer 200). */
export async function csrfFrom(
  ctx: Pick<TestContext, "app">,
  path: string,
  cookie: string,
): Promise<string> {
  const res = await get(ctx, path, cookie);
  assert.equal(res.status, 200, path);
  return csrfOf(await res.text());
}

/** A new user of `role` signed in through the form, with an API token and the CSRF token of `path`. */
export async function signedInWithCsrf(
  ctx: TestContext,
  role: UserRole,
  path: string,
) {
  const user = await userWithToken(ctx, role);
  const cookie = await signIn(ctx, user);
  return { ...user, cookie, csrf: await csrfFrom(ctx, path, cookie) };
}
