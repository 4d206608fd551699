/**
 * Self-registration (the setting `allow_registration`): a new account with
 * the role `user`, at most REGISTRATION_LIMIT new accounts per client address
 * (kept in the database like the login limit, so it holds across processes).
 */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { type RateLimit, reserveRateLimitHit } from "../ratelimit.ts";
import { createUser, requireEmailAddress, type UserRow } from "../users.ts";
import type { PasswordHasher } from "./password.ts";

/** Five new accounts an hour from one address. */
export const REGISTRATION_LIMIT: RateLimit = {
  limit: 5,
  windowMs: 60 * 60 * 1000,
};

/** Shortest password accepted (as the API's). */
export const MIN_PASSWORD_LENGTH = 8;

/** Throws 400 (field `password`) unless the length of a new password is acceptable. */
export function requirePasswordLength(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
    throw invalidRequest("The request is not valid", [
      {
        field: "password",
        message: `must be at least ${MIN_PASSWORD_LENGTH} characters`,
      },
    ]);
  }
}

/**
 * Registers an account with the role `user`. 400 (field `email` or
 * `password`) for bad input, 409 when the e-mail is taken, 429 past the
 * limit; nothing is written then. Every attempt with good input counts toward
 * the limit, a taken e-mail too, so the 409 (which tells that an account has
 * the address) is limited with the rest (docs/SECURITY.md).
 */
/**
 * Counts a registration from `clientAddress` against REGISTRATION_LIMIT;
 * past it, a 429 `rate_limited` with Retry-After.
 */
export async function reserveRegistration(
  deps: { db: Db; clock: Clock },
  clientAddress: string,
): Promise<void> {
  const reserved = await reserveRateLimitHit(
    deps.db,
    deps.clock,
    [`register:${clientAddress}`],
    REGISTRATION_LIMIT,
  );
  if ("retryAfter" in reserved) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many new accounts from this address",
      undefined,
      { "Retry-After": String(reserved.retryAfter) },
    );
  }
}

export async function registerUser(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  input: { email: string; password: string },
  clientAddress: string,
  options: { pending?: boolean } = {},
): Promise<UserRow> {
  const email = input.email.trim();
  requireEmailAddress(email);
  requirePasswordLength(input.password);
  await reserveRegistration(deps, clientAddress);
  return await createUser(deps.db, deps.hasher, deps.clock, {
    email,
    password: input.password,
    role: "user",
    // The setting registration_approval: the account waits for an admin.
    pending: options.pending,
  });
}
