/** E-mail and password login, with a per-address and per-e-mail failure limit. */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import {
  clearRateLimit,
  type RateLimit,
  rateLimitRetryAfter,
  recordRateLimitHit,
} from "../ratelimit.ts";
import { findUserByEmail, normalizeEmail, type UserRow } from "../users.ts";
import type { PasswordHasher } from "./password.ts";

/** 10 failed attempts in 15 minutes, per client address and per e-mail. */
export const LOGIN_FAILURE_LIMIT: RateLimit = {
  limit: 10,
  windowMs: 15 * 60 * 1000,
};

// A hash to verify against when the e-mail is unknown, so the answer takes as
// long as for a wrong password. One per hasher, made on first use.
const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();
function dummyHash(hasher: PasswordHasher): Promise<string> {
  let hash = dummyHashes.get(hasher);
  if (!hash) {
    hash = hasher.hash(crypto.randomUUID());
    dummyHashes.set(hasher, hash);
  }
  return hash;
}

function invalidCredentials(): ApiError {
  return new ApiError(
    401,
    "invalid_credentials",
    "Wrong e-mail or password, or the account is disabled",
  );
}

/**
 * Checks credentials and returns the user. Unknown e-mail, wrong password and
 * inactive account fail alike (401 `invalid_credentials`); too many failures
 * answer 429 with the seconds to wait.
 */
export async function authenticateWithPassword(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  email: string,
  password: string,
  clientAddress: string,
): Promise<UserRow> {
  const { db, clock, hasher } = deps;
  const emailKey = `login:email:${normalizeEmail(email)}`;
  const keys = [`login:ip:${clientAddress}`, emailKey];
  const retryAfter = await rateLimitRetryAfter(
    db,
    clock,
    keys,
    LOGIN_FAILURE_LIMIT,
  );
  if (retryAfter !== null) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many failed login attempts; try again later",
      undefined,
      { "Retry-After": String(retryAfter) },
    );
  }
  const user = await findUserByEmail(db, email);
  const ok = await hasher.verify(
    user?.password ?? await dummyHash(hasher),
    password,
  );
  if (!user || !ok || !user.is_active) {
    await recordRateLimitHit(db, clock, keys, LOGIN_FAILURE_LIMIT);
    throw invalidCredentials();
  }
  await clearRateLimit(db, [emailKey]);
  return user;
}
