/** HS256 JWT encoding of access tokens, with hono/jwt. */
import { sign, verify } from "hono/jwt";
import { z } from "zod";
import type { AccessClaims, TokenCodec } from "../../lib/auth/tokens.ts";

const claimsSchema = z.object({
  sub: z.string().regex(/^\d+$/),
  jti: z.string().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  gen: z.number().int().nonnegative().optional(),
});

/**
 * Tokens whose signature was checked, kept with their claims: a client
 * sends the same token with every request, and checking it (an HMAC through
 * crypto.subtle, its key imported each time) was several percent of a
 * write's time. Revocation and lifetime are checked by the caller on every
 * request all the same.
 */
const VERIFIED_TOKENS = 1024;

/** A TokenCodec for the given secret. Lifetimes are checked by the caller against the app clock. */
export function createJwtCodec(secret: string): TokenCodec {
  const verified = new Map<string, AccessClaims>();
  return {
    sign: (claims) => sign({ ...claims }, secret, "HS256"),
    async decode(token): Promise<AccessClaims | null> {
      const known = verified.get(token);
      if (known) return known;
      try {
        const payload = await verify(token, secret, {
          alg: "HS256",
          exp: false,
          nbf: false,
          iat: false,
        });
        const parsed = claimsSchema.safeParse(payload);
        if (!parsed.success) return null;
        // The oldest checked token makes room (Map order is insertion order).
        if (verified.size >= VERIFIED_TOKENS) {
          verified.delete(verified.keys().next().value!);
        }
        verified.set(token, Object.freeze(parsed.data));
        return parsed.data;
      } catch {
        return null;
      }
    },
  };
}
