/**
 * One-time links sent by mail or shown to an admin (`account_links`): the
 * database keeps only the SHA-256 of a link's token; a link works once,
 * until it expires. Setting a password, confirming a registration and
 * confirming a changed address all use them.
 */
import { and, eq, gt, isNull, lt, ne } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { type AccountLinkKind, accountLinks } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { sha256Hex } from "../oauth/crypto.ts";
import { randomToken } from "./tokens.ts";

/** A link as stored (no token: only its hash). */
export type AccountLinkRow = typeof accountLinks.$inferSelect;

/** A link's token shape (randomToken(32): 43 base64url characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a link's token leads to. */
export type AccountLinkLookup =
  | { state: "valid"; link: AccountLinkRow }
  | { state: "unknown" | "used" | "expired" };

/**
 * Makes a link of `kind` for `email` (and `userId`), working for `ttlMs`;
 * an earlier unused link of the same kind and account (or address, for a
 * registration) stops working. Returns the token, which is not stored.
 */
export async function createAccountLink(
  db: Db,
  clock: Clock,
  input: {
    kind: AccountLinkKind;
    email: string;
    userId?: number;
    secret?: string;
    ttlMs: number;
  },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + input.ttlMs);
  const same = input.userId !== undefined
    ? eq(accountLinks.userId, input.userId)
    : eq(accountLinks.email, input.email);
  await db.batch([
    db.delete(accountLinks).where(
      and(eq(accountLinks.kind, input.kind), same, isNull(accountLinks.usedAt)),
    ),
    db.insert(accountLinks).values({
      id: await sha256Hex(token),
      kind: input.kind,
      userId: input.userId ?? null,
      email: input.email,
      secret: input.secret ?? null,
      createdAt: now,
      expiresAt,
    }),
  ]);
  return { token, expiresAt };
}

/** The link of a token, of one of `kinds`, and whether it can still be used. */
export async function findAccountLink(
  db: Db,
  clock: Clock,
  token: string,
  kinds: readonly AccountLinkKind[],
): Promise<AccountLinkLookup> {
  if (!TOKEN.test(token)) return { state: "unknown" };
  const [link] = await db.select().from(accountLinks).where(
    eq(accountLinks.id, await sha256Hex(token)),
  );
  if (!link || !kinds.includes(link.kind)) return { state: "unknown" };
  if (link.usedAt) return { state: "used" };
  if (link.expiresAt <= clock.now()) return { state: "expired" };
  return { state: "valid", link };
}

/**
 * Spends a valid link, conditionally (of two uses at once, one gets it):
 * the row when it was still usable, else null.
 */
export async function spendAccountLink(
  db: Db,
  clock: Clock,
  id: string,
): Promise<AccountLinkRow | null> {
  const now = clock.now();
  const [spent] = await db.update(accountLinks).set({ usedAt: now }).where(
    and(
      eq(accountLinks.id, id),
      isNull(accountLinks.usedAt),
      gt(accountLinks.expiresAt, now),
    ),
  ).returning();
  return spent ?? null;
}

/** Gives a spent link back (what it was for could not be done). */
export async function unspendAccountLink(db: Db, id: string): Promise<void> {
  await db.update(accountLinks).set({ usedAt: null }).where(
    eq(accountLinks.id, id),
  );
}

/** Ends the other unused links of an account (its password was just set). */
export async function endOtherAccountLinks(
  db: Db,
  userId: number,
  keep: string,
): Promise<void> {
  await db.delete(accountLinks).where(
    and(
      eq(accountLinks.userId, userId),
      isNull(accountLinks.usedAt),
      ne(accountLinks.id, keep),
    ),
  );
}

/** Forgets links that expired more than a day ago (used or not). */
export async function purgeExpiredAccountLinks(
  db: Db,
  clock: Clock,
): Promise<void> {
  const before = new Date(clock.now().getTime() - 24 * 3600 * 1000);
  await db.delete(accountLinks).where(lt(accountLinks.expiresAt, before));
}
