/** E-mail and password login, with a per-address and per-e-mail failure limit. */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import {
  type RateLimit,
  releaseRateLimitHit,
  reserveRateLimitHit,
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
 * Confirms a signed-in user's current password under the login failure limit:
 * a wrong one is a 403 `invalid_credentials` (and counts toward the limit,
 * 429 past it).
 */
export async function confirmOwnPassword(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  user: UserRow,
  password: string,
  clientAddress: string,
): Promise<void> {
  const confirmed = await checkPasswordWithinLimit(
    deps,
    user.email,
    password,
    clientAddress,
  );
  if (!confirmed || confirmed.id !== user.id) {
    throw new ApiError(
      403,
      "invalid_credentials",
      "The current password is wrong",
    );
  }
}

/**
 * Checks a password under the login failure limit: the user when it belongs to
 * an active account, null otherwise (the failure stays counted). The attempt is
 * counted before the hash is checked, so parallel attempts cannot exceed the
 * limit; a success takes it back and clears the e-mail's count. Throws 429 with
 * the seconds to wait when the address or the e-mail is limited.
 */
export async function checkPasswordWithinLimit(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  email: string,
  password: string,
  clientAddress: string,
): Promise<UserRow | null> {
  const { db, clock, hasher } = deps;
  const emailKey = `login:email:${normalizeEmail(email)}`;
  const keys = [`login:ip:${clientAddress}`, emailKey];
  const attempt = await reserveRateLimitHit(
    db,
    clock,
    keys,
    LOGIN_FAILURE_LIMIT,
  );
  if ("retryAfter" in attempt) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many failed login attempts; try again later",
      undefined,
      { "Retry-After": String(attempt.retryAfter) },
    );
  }
  let user: UserRow | undefined;
  let ok = false;
  try {
    user = await findUserByEmail(db, email);
    ok = await hasher.verify(
      user?.password ?? await dummyHash(hasher),
      password,
    );
  } catch (err) {
    // Not an answer about the password: the attempt does not count.
    await releaseRateLimitHit(db, attempt.reservation);
    throw err;
  }
  if (user?.pending && ok) {
    // The right password of a registration waiting for approval: not a
    // failure, and the person is told why they cannot sign in yet.
    await releaseRateLimitHit(db, attempt.reservation, [emailKey]);
    throw new ApiError(
      403,
      "account_pending",
      "This account waits for an admin's approval",
    );
  }
  if (!user || !ok || !user.is_active) return null;
  await releaseRateLimitHit(db, attempt.reservation, [emailKey]);
  return user;
}

/**
 * Checks credentials and returns the user. Unknown e-mail, wrong password and
 * inactive account fail alike (401 `invalid_credentials`); the right password
 * of a registration waiting for approval is a 403 `account_pending`; too many
 * failures answer 429 with the seconds to wait.
 */
export async function authenticateWithPassword(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  email: string,
  password: string,
  clientAddress: string,
): Promise<UserRow> {
  const user = await checkPasswordWithinLimit(
    deps,
    email,
    password,
    clientAddress,
  );
  if (!user) throw invalidCredentials();
  return user;
}
