/**
 * CSRF tokens for the consent form: a random nonce kept in a SameSite cookie,
 * and a form token that is an HMAC over that nonce, the authorization request
 * and an expiry. A cross-site post carries neither the cookie nor a valid token.
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
  return `${expires}.${mac}`;
}

/** Why a form token is refused, or null when it is good. */
export async function csrfTokenProblem(
  secret: string,
  nonce: string | undefined,
  token: string | undefined,
  binding: CsrfBinding,
  nowSeconds: number,
): Promise<string | null> {
  if (!token) return "The form's CSRF token is missing.";
  if (!nonce) {
    return "The form's cookie is missing: allow cookies for this site and start again.";
  }
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return "The form's CSRF token is malformed.";
  const expires = Number(match[1]);
  const expected = await hmacSha256(
    secret,
    bindingText(nonce, expires, binding),
  );
  if (!constantTimeEqual(expected, match[2])) {
    return "The form's CSRF token does not match this request.";
  }
  if (expires <= nowSeconds) return "The form has expired: start again.";
  return null;
}
