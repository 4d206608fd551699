/**
 * Grants and the tokens that descend from them: code exchange, refresh-token
 * rotation with reuse detection, revocation, and the checks requireAuth makes.
 */
import { and, eq, inArray, isNull, lt, max, min, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthTokens,
  users,
} from "../../db/schema.ts";
import {
  issueAccessToken,
  randomToken,
  type TokenCodec,
} from "../auth/tokens.ts";
import type { Clock } from "../clock.ts";
import type { UserRow } from "../users.ts";
import type { OAuthClientRow } from "./clients.ts";
import { constantTimeEqual, pkceChallenge, sha256Hex } from "./crypto.ts";
import { invalidGrant, invalidOAuthRequest, invalidScope } from "./errors.ts";
import { grantsWithLiveToken } from "./grant-queries.ts";
import { isSubset, parseScopes } from "./scopes.ts";

export interface GrantDeps {
  db: Db;
  clock: Clock;
  tokens: TokenCodec;
  /** Seconds. */
  accessTokenTtl: number;
  /** Seconds. */
  refreshTokenTtl: number;
}

/** The token endpoint's success body (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token: string;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The scope a token request may narrow to: a subset of what was granted. */
function narrowScope(requested: string | undefined, granted: string): string {
  if (requested === undefined || requested.trim() === "") return granted;
  const scopes = parseScopes(requested);
  if (scopes === null || !isSubset(scopes, granted.split(" "))) {
    throw invalidScope("The scope exceeds what was granted");
  }
  return scopes.join(" ");
}

/** Builds a fresh access and refresh token for a grant, and the rows recording them. */
async function mintTokens(
  deps: GrantDeps,
  grant: { id: string; clientId: string; userId: number },
  scope: string,
) {
  const now = deps.clock.now().getTime();
  const access = await issueAccessToken(
    deps.tokens,
    deps.clock,
    grant.userId,
    deps.accessTokenTtl,
    { scope, client_id: grant.clientId },
  );
  const refreshToken = randomToken(32);
  const rows = [
    {
      id: access.claims.jti,
      kind: "access" as const,
      grantId: grant.id,
      expiresAt: new Date(now + deps.accessTokenTtl * 1000),
    },
    {
      id: await sha256Hex(refreshToken),
      kind: "refresh" as const,
      grantId: grant.id,
      expiresAt: new Date(now + deps.refreshTokenTtl * 1000),
    },
  ];
  const response: TokenResponse = {
    access_token: access.access_token,
    token_type: "Bearer",
    expires_in: deps.accessTokenTtl,
    scope,
    refresh_token: refreshToken,
  };
  return { rows, response };
}

/** Revokes a grant and so every token issued under it. */
async function revokeGrant(db: Db, grantId: string, at: Date): Promise<void> {
  await db.update(oauthGrants).set({ revokedAt: at }).where(
    and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)),
  );
}

async function isActiveUser(db: Db, userId: number): Promise<boolean> {
  const [user] = await db.select({ is_active: users.is_active }).from(users)
    .where(eq(users.id, userId));
  return user?.is_active === true;
}

/**
 * `grant_type=authorization_code` (RFC 6749 section 4.1.3 with PKCE). A code
 * presented twice is a replay: it fails and the tokens issued from it are revoked.
 */
export async function exchangeAuthorizationCode(
  deps: GrantDeps,
  client: OAuthClientRow,
  params: {
    code?: string;
    redirect_uri?: string;
    code_verifier?: string;
    scope?: string;
  },
): Promise<TokenResponse> {
  const { db, clock } = deps;
  if (!params.code) throw invalidOAuthRequest("code is required");
  if (!params.redirect_uri) {
    throw invalidOAuthRequest("redirect_uri is required");
  }
  const codeHash = await sha256Hex(params.code);
  const [row] = await db.select().from(oauthCodes).where(
    eq(oauthCodes.codeHash, codeHash),
  );
  if (!row || row.clientId !== client.id) {
    throw invalidGrant("The code is unknown or was issued to another client");
  }
  const now = clock.now();
  if (row.usedAt !== null) {
    if (row.grantId) await revokeGrant(db, row.grantId, now);
    throw invalidGrant(
      "The code was already used; the tokens issued from it are revoked",
    );
  }
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw invalidGrant("The code has expired");
  }
  if (params.redirect_uri !== row.redirect_uri) {
    throw invalidGrant(
      "redirect_uri differs from the one of the authorization request",
    );
  }
  if (row.codeChallenge !== null) {
    if (!params.code_verifier) {
      throw invalidGrant("code_verifier is required (PKCE)");
    }
    if (
      !VERIFIER.test(params.code_verifier) ||
      !constantTimeEqual(
        await pkceChallenge(params.code_verifier),
        row.codeChallenge,
      )
    ) {
      throw invalidGrant("code_verifier does not match the code_challenge");
    }
  } else if (params.code_verifier !== undefined) {
    // RFC 9700 section 4.8.2: a verifier without a challenge is a downgrade attempt.
    throw invalidGrant("No code_challenge was sent for this code");
  }
  const scope = narrowScope(params.scope, row.scope);
  if (!await isActiveUser(db, row.userId)) {
    throw invalidGrant("The user who approved is disabled");
  }

  const grant = {
    id: crypto.randomUUID(),
    clientId: client.id,
    userId: row.userId,
  };
  const { rows, response } = await mintTokens(deps, grant, scope);
  const [claim] = await db.batch([
    // The WHERE makes the code single use even under concurrent exchanges.
    db.update(oauthCodes).set({ usedAt: now, grantId: grant.id }).where(
      and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)),
    ),
    db.insert(oauthGrants).values({
      ...grant,
      scope: row.scope,
      createdAt: now,
      lastUsedAt: now,
    }),
    db.insert(oauthTokens).values(rows),
  ]);
  if (claim.rowsAffected !== 1) {
    // Another exchange won the race: this one is the replay.
    await db.delete(oauthGrants).where(eq(oauthGrants.id, grant.id));
    const [winner] = await db.select({ grantId: oauthCodes.grantId }).from(
      oauthCodes,
    ).where(eq(oauthCodes.codeHash, codeHash));
    if (winner?.grantId) await revokeGrant(db, winner.grantId, now);
    throw invalidGrant("The code was already used");
  }
  return response;
}

/**
 * `grant_type=refresh_token` with rotation: each refresh token works once; a
 * second use means it leaked, so the whole chain is revoked (RFC 9700 section 4.14.2).
 */
export async function refreshTokens(
  deps: GrantDeps,
  client: OAuthClientRow,
  params: { refresh_token?: string; scope?: string },
): Promise<TokenResponse> {
  const { db, clock } = deps;
  if (!params.refresh_token) {
    throw invalidOAuthRequest("refresh_token is required");
  }
  const tokenId = await sha256Hex(params.refresh_token);
  const [row] = await db.select({
    token: oauthTokens,
    grant: oauthGrants,
  }).from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(and(eq(oauthTokens.id, tokenId), eq(oauthTokens.kind, "refresh")));
  if (!row || row.grant.clientId !== client.id) {
    throw invalidGrant(
      "The refresh token is unknown or was issued to another client",
    );
  }
  const now = clock.now();
  if (row.grant.revokedAt !== null || row.token.revokedAt !== null) {
    throw invalidGrant("The refresh token was revoked");
  }
  if (row.token.usedAt !== null) {
    await revokeGrant(db, row.grant.id, now);
    throw invalidGrant(
      "The refresh token was already used; every token of this authorization is revoked",
    );
  }
  if (row.token.expiresAt.getTime() <= now.getTime()) {
    throw invalidGrant("The refresh token has expired");
  }
  const scope = narrowScope(params.scope, row.grant.scope);
  if (!await isActiveUser(db, row.grant.userId)) {
    throw invalidGrant("The user who approved is disabled");
  }
  const { rows, response } = await mintTokens(deps, row.grant, scope);
  const [claim] = await db.batch([
    db.update(oauthTokens).set({ usedAt: now }).where(
      and(eq(oauthTokens.id, tokenId), isNull(oauthTokens.usedAt)),
    ),
    db.insert(oauthTokens).values(rows),
    db.update(oauthGrants).set({ lastUsedAt: now }).where(
      eq(oauthGrants.id, row.grant.id),
    ),
  ]);
  if (claim.rowsAffected !== 1) {
    // Used twice at once: treat as reuse.
    await revokeGrant(db, row.grant.id, now);
    throw invalidGrant("The refresh token was already used");
  }
  return response;
}

/**
 * RFC 7009: revokes a refresh token (and its whole chain) or one access token
 * of this client. Unknown tokens and other clients' tokens change nothing.
 */
export async function revokeClientToken(
  deps: Pick<GrantDeps, "db" | "clock" | "tokens">,
  client: OAuthClientRow,
  token: string,
): Promise<void> {
  const { db, clock } = deps;
  const now = clock.now();
  const [refresh] = await db.select({ grant: oauthGrants }).from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(
      and(
        eq(oauthTokens.id, await sha256Hex(token)),
        eq(oauthTokens.kind, "refresh"),
      ),
    );
  if (refresh) {
    if (refresh.grant.clientId === client.id) {
      await revokeGrant(db, refresh.grant.id, now);
    }
    return;
  }
  const claims = await deps.tokens.decode(token);
  if (!claims || claims.client_id !== client.id) return;
  await db.update(oauthTokens).set({ revokedAt: now }).where(
    and(
      eq(oauthTokens.id, claims.jti),
      eq(oauthTokens.kind, "access"),
      isNull(oauthTokens.revokedAt),
      inArray(
        oauthTokens.grantId,
        db.select({ id: oauthGrants.id }).from(oauthGrants).where(
          eq(oauthGrants.clientId, client.id),
        ),
      ),
    ),
  );
}

/**
 * A row when an OAuth access token is active (not revoked, nor its grant;
 * the client and user its claims name), to run in a batch with other reads; null when the claims cannot name an
 * OAuth token (no client_id).
 */
export function activeOAuthAccessTokenQuery(
  db: Db,
  claims: { jti: string; sub: string; client_id?: string },
) {
  if (!claims.client_id) return null;
  return db.select({ id: oauthTokens.id }).from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(
      and(
        eq(oauthTokens.id, claims.jti),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        isNull(oauthGrants.revokedAt),
        eq(oauthGrants.clientId, claims.client_id),
        eq(oauthGrants.userId, Number(claims.sub)),
      ),
    );
}

/**
 * The user a token names and, for an OAuth token, whether the token is still
 * active: one round trip (a batch of both reads).
 */
export async function findTokenUser(
  db: Db,
  claims: { jti: string; sub: string; client_id?: string },
  oauth: boolean,
): Promise<{ user: UserRow | undefined; oauthActive: boolean }> {
  const userQuery = db.select().from(users).where(
    eq(users.id, Number(claims.sub)),
  );
  const activeQuery = oauth ? activeOAuthAccessTokenQuery(db, claims) : null;
  if (!activeQuery) {
    const [user] = await userQuery;
    return { user, oauthActive: false };
  }
  const [[user], active] = await db.batch([userQuery, activeQuery]);
  return { user, oauthActive: active.length > 0 };
}

/** What a user granted to one application. */
export interface Authorization {
  client_id: string;
  name: string;
  website: string | null;
  scopes: string;
  createdAt: string;
  lastUsedAt: string;
}

/** The applications a user has authorised and not withdrawn, with a token still alive. */
export async function listAuthorizations(
  db: Db,
  clock: Clock,
  userId: number,
): Promise<Authorization[]> {
  const alive = grantsWithLiveToken(db, clock);
  const rows = await db.select({
    client_id: oauthClients.id,
    name: oauthClients.name,
    website: oauthClients.website,
    scopes: sql<string>`group_concat(distinct ${oauthGrants.scope})`,
    createdAt: min(oauthGrants.createdAt),
    lastUsedAt: max(oauthGrants.lastUsedAt),
  }).from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(
      and(
        eq(oauthGrants.userId, userId),
        isNull(oauthGrants.revokedAt),
        inArray(oauthGrants.id, alive),
      ),
    )
    .groupBy(oauthClients.id)
    .orderBy(oauthClients.name, oauthClients.id);
  return rows.map((r) => ({
    client_id: r.client_id,
    name: r.name,
    website: r.website,
    scopes: [...new Set(r.scopes.split(/[ ,]/).filter(Boolean))].sort().join(
      " ",
    ),
    createdAt: new Date(r.createdAt ?? 0).toISOString(),
    lastUsedAt: new Date(r.lastUsedAt ?? 0).toISOString(),
  }));
}

/**
 * Withdraws everything a user granted to a client: its grants (and so tokens)
 * and codes not yet exchanged. False when there was nothing to withdraw.
 */
export async function withdrawAuthorization(
  db: Db,
  clock: Clock,
  userId: number,
  clientId: string,
): Promise<boolean> {
  const now = clock.now();
  const [grants, codes] = await db.batch([
    db.update(oauthGrants).set({ revokedAt: now }).where(
      and(
        eq(oauthGrants.userId, userId),
        eq(oauthGrants.clientId, clientId),
        isNull(oauthGrants.revokedAt),
      ),
    ),
    db.delete(oauthCodes).where(
      and(
        eq(oauthCodes.userId, userId),
        eq(oauthCodes.clientId, clientId),
        isNull(oauthCodes.usedAt),
      ),
    ),
  ]);
  return grants.rowsAffected + codes.rowsAffected > 0;
}

/**
 * Deletes codes and tokens past their lifetime and grants left without
 * tokens. Used refresh tokens stay until they expire, to catch their reuse.
 */
export async function purgeExpiredOAuth(db: Db, clock: Clock): Promise<void> {
  const now = clock.now();
  const dayAgo = new Date(now.getTime() - 86_400_000);
  await db.batch([
    db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, dayAgo)),
    db.delete(oauthTokens).where(lt(oauthTokens.expiresAt, now)),
    db.delete(oauthGrants).where(
      and(
        lt(oauthGrants.createdAt, dayAgo),
        sql`not exists (select 1 from ${oauthTokens} where ${oauthTokens.grantId} = ${oauthGrants.id})`,
        sql`not exists (select 1 from ${oauthCodes} where ${oauthCodes.grantId} = ${oauthGrants.id})`,
      ),
    ),
  ]);
}
