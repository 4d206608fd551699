/**
 * A signed-in user changing their own e-mail address. Whether another account
 * has the address is never told: a taken one is left to its account and the
 * answer is the same as for a free one. With e-mail on, the caller passes
 * `confirmBy` and the address changes only through the link mailed to it
 * (lib/auth/confirmations.ts). The changes are rate limited
 * (EMAIL_CHANGE_LIMIT).
 */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import {
  type RateLimit,
  releaseRateLimitHit,
  reserveRateLimitHit,
} from "../ratelimit.ts";
import { requireEmailAddress, updateUser, type UserRow } from "../users.ts";
import { confirmOwnPassword } from "./login.ts";
import type { PasswordHasher } from "./password.ts";

/** Five e-mail changes an hour, per account and per client address. */
export const EMAIL_CHANGE_LIMIT: RateLimit = {
  limit: 5,
  windowMs: 60 * 60 * 1000,
};

/**
 * Sets a new e-mail once the current password is confirmed, unless another
 * account has it: then nothing changes, and the caller answers as if it had
 * (the result's `changed` is for logs and tests, not for the answer). 400
 * (field `email`) for a bad address; a wrong password is a 403
 * `invalid_credentials` counted toward the login failure limit (429 past it);
 * past EMAIL_CHANGE_LIMIT a 429 `rate_limited` with Retry-After, before the
 * password is checked. Every attempt with the right password counts toward
 * the limit, taken address or not. Sessions and tokens stay: the account is
 * the same.
 */
export async function changeOwnEmail(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  user: UserRow,
  input: { email: string; password: string },
  clientAddress: string,
  /**
   * With e-mail on: mails the new address a link instead of changing it
   * (lib/auth/confirmations.ts startEmailChange), so the answer tells
   * nothing about the address either way.
   */
  confirmBy?: (email: string) => Promise<void>,
): Promise<{ user: UserRow; changed: boolean }> {
  const email = input.email.trim();
  requireEmailAddress(email);
  // Counted first, in one statement, so parallel posts cannot pass the limit.
  const attempt = await reserveRateLimitHit(
    deps.db,
    deps.clock,
    [`email-change:user:${user.id}`, `email-change:ip:${clientAddress}`],
    EMAIL_CHANGE_LIMIT,
  );
  if ("retryAfter" in attempt) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many e-mail changes; try again later",
      undefined,
      { "Retry-After": String(attempt.retryAfter) },
    );
  }
  try {
    await confirmOwnPassword(deps, user, input.password, clientAddress);
  } catch (err) {
    // Not a change: a wrong password counts toward the login limit instead.
    await releaseRateLimitHit(deps.db, attempt.reservation);
    throw err;
  }
  if (confirmBy) {
    await confirmBy(email);
    return { user, changed: false };
  }
  try {
    const changed = await updateUser(
      deps.db,
      deps.hasher,
      deps.clock,
      user.id,
      { email },
    );
    return { user: changed, changed: true };
  } catch (err) {
    // An e-mail patch conflicts only with another account's address.
    if (err instanceof ApiError && err.status === 409) {
      return { user, changed: false };
    }
    throw err;
  }
}
