/**
 * CSRF protection of the consent form. The form token is
 * `nonce.expiry.HMAC(nonce, expiry, authorization request)`, and the nonce is
 * also set in a SameSite=Strict, HttpOnly cookie.
 *
 * A browser always sends `Origin` on a POST, so a forged cross-site post is
 * recognised by it: a foreign (or opaque "null") origin is refused outright,
 * and a browser post must also carry the cookie that matches the token. A
 * client that sends no `Origin` at all is not a browser that an attacker can
 * drive; for it a valid, unexpired token bound to this request is enough.
 */
import { constantTimeEqual, hmacSha256 } from "./crypto.ts";

/** How long a consent form stays submittable. */
export const CSRF_TTL_SECONDS = 30 * 60;

/** The fields of the request the token is bound to. */
export interface CsrfBinding {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | null;
  codeChallenge: string | null;
}

function bindingText(nonce: string, expires: number, b: CsrfBinding): string {
  return JSON.stringify([
    "quando-consent",
    nonce,
    expires,
    b.clientId,
    b.redirectUri,
    b.scope,
    b.state,
    b.codeChallenge,
  ]);
}

/** A form token for the nonce and request, valid for CSRF_TTL_SECONDS. */
export async function createCsrfToken(
  secret: string,
  nonce: string,
  binding: CsrfBinding,
  nowSeconds: number,
): Promise<string> {
  const expires = nowSeconds + CSRF_TTL_SECONDS;
  const mac = await hmacSha256(secret, bindingText(nonce, expires, binding));
  return `${nonce}.${expires}.${mac}`;
}

/** What the request says about where the post came from. */
export interface CsrfRequest {
  /** The `Origin` header, or undefined when absent. */
  origin: string | undefined;
  /** The nonce cookie, or undefined when absent. */
  cookie: string | undefined;
  /** The form's csrf_token field. */
  token: string | undefined;
  /** The instance's own origin. */
  ownOrigin: string;
}

/** Why a consent post is refused as a possible forgery, or null when it is good. */
export async function csrfTokenProblem(
  secret: string,
  request: CsrfRequest,
  binding: CsrfBinding,
  nowSeconds: number,
): Promise<string | null> {
  const { origin, cookie, token } = request;
  if (origin !== undefined && origin !== request.ownOrigin) {
    return "The form was posted from another site.";
  }
  if (!token) return "The form's CSRF token is missing.";
  const match = /^([A-Za-z0-9_-]{22,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/
    .exec(token);
  if (!match) return "The form's CSRF token is malformed.";
  const [, nonce, expiresText, mac] = match;
  const expires = Number(expiresText);
  const expected = await hmacSha256(
    secret,
    bindingText(nonce, expires, binding),
  );
  if (!constantTimeEqual(expected, mac)) {
    return "The form's CSRF token does not match this request.";
  }
  if (expires <= nowSeconds) return "The form has expired: start again.";
  // A browser's post must come with the cookie set alongside the form.
  if (origin !== undefined || cookie !== undefined) {
    if (!cookie) {
      return "The form's cookie is missing: allow cookies for this site and start again.";
    }
    if (!constantTimeEqual(cookie, nonce)) {
      return "The form's cookie does not match it: start again.";
    }
  }
  return null;
}
