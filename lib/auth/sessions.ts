/**
 * Browser sessions of the web interface. The cookie carries a random token;
 * the database keeps only its SHA-256, so a copy of the database opens no
 * session. A session ends when it expires, at logout, when its user is
 * deactivated or deleted, and when the password changes (the user's
 * token_generation, which ends login tokens too, is checked at every use).
 * Forms of a session carry a CSRF token derived from it (HMAC).
 */
import { and, eq, gt, lte } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { sessions, users } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { constantTimeEqual, hmacSha256, sha256Hex } from "../oauth/crypto.ts";
import type { UserRow } from "../users.ts";
import { randomToken } from "./tokens.ts";

/** How long a session lasts from its login. */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** A session's token shape (randomToken(32): 43 base64url characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Starts a session for `user`; returns the token for the cookie. */
export async function createSession(
  db: Db,
  clock: Clock,
  user: UserRow,
): Promise<string> {
  const token = randomToken(32);
  const now = clock.now();
  await db.insert(sessions).values({
    id: await sha256Hex(token),
    userId: user.id,
    generation: user.token_generation,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  });
  return token;
}

/** A session that is in force: its id (the token's hash) and its user. */
export interface ActiveSession {
  id: string;
  user: UserRow;
}

/** The session of a cookie's token, or null when it is not (or no longer) in force. */
export async function findSession(
  db: Db,
  clock: Clock,
  token: string | undefined,
): Promise<ActiveSession | null> {
  if (!token || !TOKEN.test(token)) return null;
  const id = await sha256Hex(token);
  const [row] = await db.select({
    user: users,
    generation: sessions.generation,
  })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, clock.now())));
  if (!row || !row.user.is_active) return null;
  if (row.generation !== row.user.token_generation) return null;
  return { id, user: row.user };
}

/** Ends a session (logout). */
/** Removes the sessions past their expiry (the hourly jobs); returns how many. */
export async function purgeExpiredSessions(
  db: Db,
  clock: Clock,
): Promise<number> {
  const gone = await db.delete(sessions).where(
    lte(sessions.expiresAt, clock.now()),
  ).returning({ id: sessions.id });
  return gone.length;
}

export async function endSession(db: Db, id: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id));
}

/** The CSRF token of a session's forms. */
export function sessionCsrfToken(secret: string, sessionId: string) {
  return hmacSha256(secret, `quando-session-csrf:${sessionId}`);
}

/** Whether a form's token is the session's. */
export async function isSessionCsrfToken(
  secret: string,
  sessionId: string,
  token: string | undefined,
): Promise<boolean> {
  if (!token) return false;
  return constantTimeEqual(await sessionCsrfToken(secret, sessionId), token);
}
