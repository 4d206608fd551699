/**
 * Invitations to an account: an admin names an e-mail and a role and gets a
 * one-time link to hand over; the invitee opens it, chooses a password and
 * the account exists. The database keeps only the SHA-256 of the link's
 * token; a link works once, for INVITATION_TTL_MS.
 */
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { invitations, type UserRole, users } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { ApiError, conflict, notFound } from "../errors.ts";
import { sha256Hex } from "../oauth/crypto.ts";
import {
  createUser,
  findUserByEmail,
  normalizeEmail,
  requireEmailAddress,
  type UserRow,
} from "../users.ts";
import type { PasswordHasher } from "./password.ts";
import { requirePasswordLength } from "./register.ts";
import { randomToken } from "./tokens.ts";

/** How long an invitation link works: 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** An invitation as stored (no token: only its hash). */
export type InvitationRow = typeof invitations.$inferSelect;

/** A link's token shape (randomToken(32): 43 base64url characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Invites `email` with `role`, replacing an earlier invitation of the same
 * e-mail. Returns the token of the link, which is not stored and so can be
 * shown once only. 400 (field `email`) for a bad address, 409 when an account
 * with the e-mail exists.
 */
export async function createInvitation(
  db: Db,
  clock: Clock,
  input: { email: string; role: UserRole },
): Promise<{ token: string; invitation: InvitationRow }> {
  const email = normalizeEmail(input.email);
  requireEmailAddress(email);
  if (await findUserByEmail(db, email)) {
    throw conflict("A user with this e-mail already exists");
  }
  const token = randomToken(32);
  const now = clock.now();
  const row = {
    id: await sha256Hex(token),
    email,
    role: input.role,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    usedAt: null,
  };
  const [invitation] = await db.insert(invitations).values(row)
    .onConflictDoUpdate({ target: invitations.email, set: row }).returning();
  return { token, invitation };
}

/** What a link's token leads to. */
export type InvitationLookup =
  | { state: "valid"; invitation: InvitationRow }
  | { state: "unknown" | "used" | "expired" };

/** The invitation of a link's token, and whether it can still be used. */
export async function findInvitation(
  db: Db,
  clock: Clock,
  token: string,
): Promise<InvitationLookup> {
  if (!TOKEN.test(token)) return { state: "unknown" };
  const [invitation] = await db.select().from(invitations).where(
    eq(invitations.id, await sha256Hex(token)),
  );
  if (!invitation) return { state: "unknown" };
  if (invitation.usedAt) return { state: "used" };
  if (invitation.expiresAt <= clock.now()) return { state: "expired" };
  return { state: "valid", invitation };
}

/** The error a link that cannot be used answers with (404, or 410 when spent or expired). */
function unusable(state: "unknown" | "used" | "expired"): ApiError {
  if (state === "unknown") return notFound("Invitation");
  return new ApiError(
    410,
    state === "used" ? "invitation_used" : "invitation_expired",
    state === "used"
      ? "This invitation was used already"
      : "This invitation has expired",
  );
}

/**
 * Creates the invited account with `password` and spends the link. 400
 * (field `password`) for a short password, 404 for an unknown link, 410
 * (`invitation_used`, `invitation_expired`) for a spent or expired one, 409
 * when an account with the e-mail appeared meanwhile; nothing is written then.
 */
export async function acceptInvitation(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  token: string,
  password: string,
): Promise<UserRow> {
  const { db, clock } = deps;
  requirePasswordLength(password);
  const found = await findInvitation(db, clock, token);
  if (found.state !== "valid") throw unusable(found.state);
  const { id } = found.invitation;
  const now = clock.now();
  // Spent first, conditionally: of two acceptances at once, one gets it.
  const [claimed] = await db.update(invitations).set({ usedAt: now }).where(
    and(
      eq(invitations.id, id),
      isNull(invitations.usedAt),
      gt(invitations.expiresAt, now),
    ),
  ).returning();
  if (!claimed) throw unusable("used");
  try {
    return await createUser(db, deps.hasher, clock, {
      email: claimed.email,
      password,
      role: claimed.role,
    });
  } catch (err) {
    // No account was made: the link stays usable.
    await db.update(invitations).set({ usedAt: null }).where(
      eq(invitations.id, id),
    );
    throw err;
  }
}

/**
 * The invitations not used yet (expired ones included) of e-mails that have
 * no account meanwhile, newest first, at most `limit`.
 */
export async function listOpenInvitations(
  db: Db,
  limit = 100,
): Promise<InvitationRow[]> {
  return await db.select().from(invitations).where(
    and(
      isNull(invitations.usedAt),
      sql`not exists (select 1 from ${users} where ${users.email} = ${invitations.email})`,
    ),
  ).orderBy(desc(invitations.createdAt), desc(invitations.email)).limit(limit);
}

/** Withdraws the unused invitation of an e-mail (its link stops working); whether there was one. */
export async function withdrawInvitation(
  db: Db,
  email: string,
): Promise<boolean> {
  const rows = await db.delete(invitations).where(
    and(
      eq(invitations.email, normalizeEmail(email)),
      isNull(invitations.usedAt),
    ),
  ).returning({ id: invitations.id });
  return rows.length > 0;
}
