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

/** A TokenCodec for the given secret. Lifetimes are checked by the caller against the app clock. */
export function createJwtCodec(secret: string): TokenCodec {
  return {
    sign: (claims) => sign({ ...claims }, secret, "HS256"),
    async decode(token): Promise<AccessClaims | null> {
      try {
        const payload = await verify(token, secret, {
          alg: "HS256",
          exp: false,
          nbf: false,
          iat: false,
        });
        const parsed = claimsSchema.safeParse(payload);
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
  };
}
