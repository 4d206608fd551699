/**
 * Addresses confirmed by mail (when e-mail is on): a registration makes
 * the account only when the link sent to its address is followed (the
 * chosen password waits hashed in the link's row), and a changed address
 * takes effect only when the link sent to the new one is followed. Both
 * answer the same whether another account has the address: that account
 * is told instead (registration) or nothing is sent (change).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { accountLinks, users } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { ApiError, isUniqueViolation } from "../errors.ts";
import type { Mailer } from "../mail/outbox.ts";
import {
  emailChangeMail,
  type MailContext,
  registrationMail,
  registrationTakenMail,
} from "../mail/messages.ts";
import {
  findUserByEmail,
  findUserById,
  normalizeEmail,
  requireEmailAddress,
  type UserRow,
} from "../users.ts";
import {
  type AccountLinkRow,
  createAccountLink,
  findAccountLink,
  spendAccountLink,
  unspendAccountLink,
} from "./account-links.ts";
import type { PasswordHasher } from "./password.ts";
import { requirePasswordLength, reserveRegistration } from "./register.ts";

/** How long a confirmation link works: a day. */
export const CONFIRMATION_TTL_MS = 24 * 3600 * 1000;

/** What confirmations need. */
export interface ConfirmationDeps {
  db: Db;
  clock: Clock;
  hasher: PasswordHasher;
  mailer: Mailer;
}

/**
 * A registration waiting for its address: 400 (field `email` or
 * `password`) for bad input, 429 past REGISTRATION_LIMIT (the same limit as
 * registering at once); otherwise a link is mailed to the address (or, when
 * an account has it, a note saying so) and the answer is the same.
 */
export async function startRegistration(
  deps: ConfirmationDeps,
  context: MailContext,
  input: { email: string; password: string },
  clientAddress: string,
): Promise<void> {
  const email = normalizeEmail(input.email);
  requireEmailAddress(email);
  requirePasswordLength(input.password);
  await reserveRegistration(deps, clientAddress);
  if (await findUserByEmail(deps.db, email)) {
    await deps.mailer.queue(registrationTakenMail(context, { email }));
    return;
  }
  const { token, expiresAt } = await createAccountLink(deps.db, deps.clock, {
    kind: "register",
    email,
    secret: await deps.hasher.hash(input.password),
    ttlMs: CONFIRMATION_TTL_MS,
  });
  await deps.mailer.queue(
    registrationMail(context, { email, token, expiresAt }),
  );
}

/**
 * Mails a link confirming `email` as `user`'s new address, unless another
 * account has it (then nothing is sent, and the caller answers the same).
 */
export async function startEmailChange(
  deps: Pick<ConfirmationDeps, "db" | "clock" | "mailer">,
  context: MailContext,
  user: UserRow,
  input: string,
): Promise<void> {
  const email = normalizeEmail(input);
  if (email === user.email || await findUserByEmail(deps.db, email)) return;
  const { token, expiresAt } = await createAccountLink(deps.db, deps.clock, {
    kind: "email",
    email,
    userId: user.id,
    ttlMs: CONFIRMATION_TTL_MS,
  });
  await deps.mailer.queue(
    emailChangeMail(context, { email, token, expiresAt }),
  );
}

/** What a confirmation link leads to. */
export type ConfirmationLookup =
  | { state: "valid"; link: AccountLinkRow }
  | { state: "unknown" | "used" | "expired" };

/** The confirmation link of a token. */
export function findConfirmation(
  db: Db,
  clock: Clock,
  token: string,
): Promise<ConfirmationLookup> {
  return findAccountLink(db, clock, token, ["register", "email"]);
}

/**
 * Follows a confirmation link: the registered account is made (role
 * `user`; inactive and pending, waiting for an admin, when `pending`: the
 * setting `registration_approval` at the time of the click), or the new
 * address set. 404/410 for a link that cannot be
 * used; 409 (`taken`) when another account took the address meanwhile
 * (the link stays unused).
 */
export async function confirmAddress(
  deps: { db: Db; clock: Clock },
  token: string,
  options: { pending?: boolean } = {},
): Promise<{ kind: "register" | "email"; user: UserRow }> {
  const { db, clock } = deps;
  const found = await findConfirmation(db, clock, token);
  if (found.state === "unknown") {
    throw new ApiError(404, "not_found", "Link not found");
  }
  if (found.state !== "valid") {
    throw new ApiError(410, `link_${found.state}`, "This link cannot be used");
  }
  const link = await spendAccountLink(db, clock, found.link.id);
  if (!link) throw new ApiError(410, "link_used", "This link cannot be used");
  const now = clock.now();
  try {
    if (link.kind === "register") {
      const [user] = await db.insert(users).values({
        email: link.email,
        password: link.secret ?? "",
        role: "user",
        is_active: !options.pending,
        pending: options.pending ?? false,
        createdAt: now,
        updatedAt: now,
      }).returning();
      // The password's hash now lives in the account only.
      await db.update(accountLinks).set({ secret: null }).where(
        eq(accountLinks.id, link.id),
      );
      return { kind: "register", user };
    }
    const current = link.userId === null
      ? undefined
      : await findUserById(db, link.userId);
    if (!current) throw new ApiError(404, "not_found", "Link not found");
    const [user] = await db.update(users).set({
      email: link.email,
      updatedAt: now,
    }).where(eq(users.id, current.id)).returning();
    return { kind: "email", user };
  } catch (error) {
    await unspendAccountLink(db, link.id);
    if (isUniqueViolation(error)) {
      throw new ApiError(409, "taken", "The address has an account now");
    }
    throw error;
  }
}
