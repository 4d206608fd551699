/**
 * Getting into an account without its password: a one-time link to set a
 * new one, asked for on /login's "forgot password" (sent by mail, working
 * for an hour) or made by an admin on /admin/users (mailed or shown, for a
 * week: imported accounts have no usable password). Asking answers the same
 * whether the address has an account or not, and is rate limited per
 * address and per client. Setting the password ends every session, login
 * token and app grant of the account.
 */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { Mailer } from "../mail/outbox.ts";
import { type MailContext, passwordMail } from "../mail/messages.ts";
import { type RateLimit, reserveRateLimitHit } from "../ratelimit.ts";
import {
  findUserByEmail,
  findUserById,
  normalizeEmail,
  requireEmailAddress,
  updateUser,
  type UserRow,
} from "../users.ts";
import {
  createAccountLink,
  endOtherAccountLinks,
  findAccountLink,
  spendAccountLink,
  unspendAccountLink,
} from "./account-links.ts";
import type { PasswordHasher } from "./password.ts";
import { requirePasswordLength } from "./register.ts";

/** How long a link asked for on /forgot works: an hour. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** How long a link an admin made works: a week (as an invitation). */
export const ADMIN_PASSWORD_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** Three requests an hour per address, ten per client address. */
export const PASSWORD_RESET_ADDRESS_LIMIT: RateLimit = {
  limit: 3,
  windowMs: 60 * 60 * 1000,
};
export const PASSWORD_RESET_CLIENT_LIMIT: RateLimit = {
  limit: 10,
  windowMs: 60 * 60 * 1000,
};

/** What password links need. */
export interface PasswordLinkDeps {
  db: Db;
  clock: Clock;
  mailer?: Mailer;
}

/** The 429 of a request past a limit. */
function tooMany(retryAfter: number): ApiError {
  return new ApiError(
    429,
    "rate_limited",
    "Too many requests; try again later",
    undefined,
    { "Retry-After": String(retryAfter) },
  );
}

/**
 * Sends a link to set the password to `email`'s account, if an active one
 * has it and mail is on; nothing otherwise, and the caller answers the same
 * either way. 400 (field `email`) for a bad address; 429 past either limit
 * (counted whether or not an account has the address).
 */
export async function requestPasswordReset(
  deps: PasswordLinkDeps,
  mailContext: (user: UserRow) => MailContext,
  input: string,
  clientAddress: string,
): Promise<void> {
  const email = normalizeEmail(input);
  requireEmailAddress(email);
  const perClient = await reserveRateLimitHit(
    deps.db,
    deps.clock,
    [`password-reset:ip:${clientAddress}`],
    PASSWORD_RESET_CLIENT_LIMIT,
  );
  if ("retryAfter" in perClient) throw tooMany(perClient.retryAfter);
  const perAddress = await reserveRateLimitHit(
    deps.db,
    deps.clock,
    [`password-reset:email:${email}`],
    PASSWORD_RESET_ADDRESS_LIMIT,
  );
  if ("retryAfter" in perAddress) throw tooMany(perAddress.retryAfter);
  if (!deps.mailer?.enabled) return;
  const user = await findUserByEmail(deps.db, email);
  if (!user || !user.is_active) return;
  const { token, expiresAt } = await createAccountLink(deps.db, deps.clock, {
    kind: "password",
    email: user.email,
    userId: user.id,
    ttlMs: PASSWORD_RESET_TTL_MS,
  });
  await deps.mailer.queue(
    passwordMail(mailContext(user), {
      email: user.email,
      token,
      expiresAt,
      byAdmin: false,
    }),
  );
}

/**
 * An admin's link to set the password of account `userId`, working for a
 * week; mailed to the account when `send` (and mail is on). Returns the
 * token (to show when not mailed); 404 for an unknown account.
 */
export async function createAdminPasswordLink(
  deps: PasswordLinkDeps,
  mailContext: (user: UserRow) => MailContext,
  userId: number,
  send: boolean,
): Promise<{ user: UserRow; token: string; expiresAt: Date; sent: boolean }> {
  const user = await findUserById(deps.db, userId);
  if (!user) {
    throw new ApiError(404, "not_found", "User not found");
  }
  const { token, expiresAt } = await createAccountLink(deps.db, deps.clock, {
    kind: "password",
    email: user.email,
    userId: user.id,
    ttlMs: ADMIN_PASSWORD_LINK_TTL_MS,
  });
  const sent = send && deps.mailer?.enabled === true;
  if (sent) {
    await deps.mailer!.queue(
      passwordMail(mailContext(user), {
        email: user.email,
        token,
        expiresAt,
        byAdmin: true,
      }),
    );
  }
  return { user, token, expiresAt, sent };
}

/** The account a password link's token sets the password of, or why it cannot. */
export async function findPasswordLink(
  db: Db,
  clock: Clock,
  token: string,
): Promise<
  { state: "valid"; user: UserRow } | {
    state: "unknown" | "used" | "expired";
  }
> {
  const found = await findAccountLink(db, clock, token, ["password"]);
  if (found.state !== "valid") return found;
  const user = found.link.userId === null
    ? undefined
    : await findUserById(db, found.link.userId);
  return user ? { state: "valid", user } : { state: "unknown" };
}

/**
 * Sets the password of a link's account and spends the link: every
 * session, login token and app grant of the account ends (its token
 * generation moves on), and its other password links stop working. An
 * account deactivated by an admin stays so. 400 (field `password`) for a
 * short password; 404 for an unknown link, 410 (`link_used`,
 * `link_expired`) for a spent or expired one; nothing is written then.
 */
export async function resetPassword(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  token: string,
  password: string,
): Promise<UserRow> {
  const { db, clock } = deps;
  requirePasswordLength(password);
  const found = await findAccountLink(db, clock, token, ["password"]);
  if (found.state === "unknown") {
    throw new ApiError(404, "not_found", "Link not found");
  }
  if (found.state !== "valid") {
    throw new ApiError(410, `link_${found.state}`, "This link cannot be used");
  }
  const link = await spendAccountLink(db, clock, found.link.id);
  if (!link || link.userId === null) {
    throw new ApiError(410, "link_used", "This link cannot be used");
  }
  try {
    const user = await updateUser(db, deps.hasher, clock, link.userId, {
      password,
    });
    await endOtherAccountLinks(db, user.id, link.id);
    return user;
  } catch (error) {
    await unspendAccountLink(db, link.id);
    throw error;
  }
}
