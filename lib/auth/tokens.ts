/**
 * Access tokens: which claims they carry and when they are valid. Encoding
 * (HS256 JWT) is done by a TokenCodec the HTTP layer supplies, so this module
 * stays free of framework imports.
 */
import type { Clock } from "../clock.ts";

export interface AccessClaims {
  /** The user id, as a string. */
  sub: string;
  /** Unique token id, for revocation. */
  jti: string;
  iat: number;
  exp: number;
  /** Present on OAuth tokens only: the granted scopes, space-separated. */
  scope?: string;
  /** Present on OAuth tokens only. */
  client_id?: string;
  /**
   * Login tokens: the user's token generation when it was issued. An integer,
   * not a time, so a change and a login in the same second are told apart.
   * Tokens issued before the claim existed lack it and count as generation 0.
   */
  gen?: number;
}

/** Signs and checks the signature of access tokens. */
export interface TokenCodec {
  sign(claims: AccessClaims): Promise<string>;
  /** The claims when the signature is valid and the shape right; null otherwise. Expiry is not checked here. */
  decode(token: string): Promise<AccessClaims | null>;
}

export interface IssuedToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

/** Random identifier with `bytes` bytes of entropy, base64url. */
export function randomToken(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf)).replace(/\+/g, "-").replace(
    /\//g,
    "_",
  ).replace(/=+$/, "");
}

/** Issues an access token for a user. */
export async function issueAccessToken(
  codec: TokenCodec,
  clock: Clock,
  userId: number,
  ttlSeconds: number,
  extra: {
    scope?: string;
    client_id?: string;
    jti?: string;
    gen?: number;
  } = {},
): Promise<IssuedToken & { claims: AccessClaims }> {
  const iat = Math.floor(clock.now().getTime() / 1000);
  const claims: AccessClaims = {
    sub: String(userId),
    jti: extra.jti ?? crypto.randomUUID(),
    iat,
    exp: iat + ttlSeconds,
    ...(extra.scope !== undefined ? { scope: extra.scope } : {}),
    ...(extra.client_id !== undefined ? { client_id: extra.client_id } : {}),
    ...(extra.gen !== undefined ? { gen: extra.gen } : {}),
  };
  return {
    access_token: await codec.sign(claims),
    token_type: "Bearer",
    expires_in: ttlSeconds,
    claims,
  };
}

/** Decodes a token and checks its lifetime against the clock; null when invalid or expired. */
export async function verifyAccessToken(
  codec: TokenCodec,
  clock: Clock,
  token: string,
): Promise<AccessClaims | null> {
  const claims = await codec.decode(token);
  if (!claims) return null;
  const now = Math.floor(clock.now().getTime() / 1000);
  // A little leeway for tokens issued by a peer whose clock runs ahead.
  if (claims.exp <= now || claims.iat > now + 60) return null;
  return claims;
}

/** Whether the token is an OAuth one (its validity is its grant's, not a generation). */
export function isOAuthToken(claims: AccessClaims): boolean {
  return claims.client_id !== undefined || claims.scope !== undefined;
}

/**
 * Whether a login token was issued under the user's current token generation,
 * that is after their last password change or deactivation.
 */
export function isLoginTokenCurrent(
  claims: AccessClaims,
  user: { token_generation: number },
): boolean {
  return (claims.gen ?? 0) === user.token_generation;
}
