/**
 * Queries on grants that the client registry (lib/oauth/clients.ts) and the
 * user accounts (lib/users.ts) share with lib/oauth/grants.ts: here, so that
 * neither imports grants.ts, which imports them for their row types.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { oauthCodes, oauthGrants, oauthTokens } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";

/** The ids of grants with a token still alive (not expired, revoked or used), as a subquery. */
export function grantsWithLiveToken(db: Db, clock: Clock) {
  return db.select({ grantId: oauthTokens.grantId }).from(oauthTokens)
    .where(
      and(
        gt(oauthTokens.expiresAt, clock.now()),
        isNull(oauthTokens.revokedAt),
        isNull(oauthTokens.usedAt),
      ),
    );
}

/**
 * The statements that withdraw every grant of a user (and so all their OAuth
 * tokens) and drop their codes not yet exchanged, for the caller's `db.batch`
 * (a password change or deactivation revokes them with the user's update).
 */
export function revokeUserGrantsStatements(db: Db, userId: number, at: Date) {
  return [
    db.update(oauthGrants).set({ revokedAt: at }).where(
      and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)),
    ),
    db.delete(oauthCodes).where(
      and(eq(oauthCodes.userId, userId), isNull(oauthCodes.usedAt)),
    ),
  ] as const;
}
