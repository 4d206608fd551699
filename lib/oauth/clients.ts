/** OAuth client registration and authentication. */
import { and, asc, count, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  type OAuthAuthMethod,
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthTokens,
} from "../../db/schema.ts";
import { randomToken } from "../auth/tokens.ts";
import type { Clock } from "../clock.ts";
import { constantTimeEqual, sha256Hex } from "./crypto.ts";
import { invalidClient } from "./errors.ts";
import { grantsWithLiveToken } from "./grant-queries.ts";

export type OAuthClientRow = typeof oauthClients.$inferSelect;

/** Schemes that must never receive a redirect, whatever the client says. */
const FORBIDDEN_SCHEMES = new Set([
  "javascript:",
  "data:",
  "vbscript:",
  "file:",
  "blob:",
  "about:",
  "filesystem:",
  "ws:",
  "wss:",
  "ftp:",
  "mailto:",
  "tel:",
  "urn:",
]);

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute
 * URI without fragment or credentials that is https, http on a loopback host,
 * or a private-use scheme of a native app (RFC 8252 section 7.1).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return "is longer than 2000 characters";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) return "is not an absolute URI";
  if (uri.includes("#")) return "must not contain a fragment";
  if (url.username || url.password) return "must not contain credentials";
  if (url.protocol === "https:") {
    return url.hostname ? null : "has no host";
  }
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : "may use http only for localhost, 127.0.0.1 or [::1]; use https";
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) {
    return `may not use the ${url.protocol} scheme`;
  }
  return null;
}

export interface ClientRegistration {
  client_name: string;
  redirect_uris: string[];
  scopes: string[];
  website: string | null;
  token_endpoint_auth_method: OAuthAuthMethod;
}

/** Registers a client; the secret (null for a public client) is returned once and only its hash kept. */
export async function registerClient(
  db: Db,
  clock: Clock,
  registration: ClientRegistration,
): Promise<{ client: OAuthClientRow; secret: string | null }> {
  const isPublic = registration.token_endpoint_auth_method === "none";
  const secret = isPublic ? null : randomToken(32);
  const [client] = await db.insert(oauthClients).values({
    id: randomToken(16),
    name: registration.client_name,
    website: registration.website,
    redirect_uris: registration.redirect_uris,
    scopes: registration.scopes.join(" "),
    secretHash: secret === null ? null : await sha256Hex(secret),
    token_endpoint_auth_method: registration.token_endpoint_auth_method,
    createdAt: clock.now(),
  }).returning();
  return { client, secret };
}

/** The Application shape of the API (docs/API.md), plus the authentication method. */
export function serializeApplication(
  client: OAuthClientRow,
  secret: string | null,
) {
  return {
    name: client.name,
    scopes: client.scopes,
    website: client.website,
    redirect_uris: client.redirect_uris.join(" "),
    client_id: client.id,
    client_secret: secret,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
  };
}

/** A client by id, or null. */
export async function findClient(
  db: Db,
  clientId: string,
): Promise<OAuthClientRow | null> {
  if (clientId.length > 200) return null;
  const [client] = await db.select().from(oauthClients).where(
    eq(oauthClients.id, clientId),
  );
  return client ?? null;
}

/** Client credentials as sent to the token or revocation endpoint. */
export interface ClientCredentials {
  clientId: string;
  /** null when no secret was sent (public clients). */
  secret: string | null;
}

/**
 * Authenticates a client (RFC 6749 section 2.3): a confidential client must
 * present its secret, a public one must present none. Any failure is 401
 * `invalid_client`, without saying which part was wrong.
 */
export async function authenticateClient(
  db: Db,
  credentials: ClientCredentials,
): Promise<OAuthClientRow> {
  const client = await findClient(db, credentials.clientId);
  // Hash even when the client is unknown, so both failures take as long.
  const presented = credentials.secret === null
    ? null
    : await sha256Hex(credentials.secret);
  if (!client) throw invalidClient("Client authentication failed");
  if (client.secretHash === null) {
    if (presented !== null) {
      throw invalidClient("Client authentication failed");
    }
    return client;
  }
  if (presented === null || !constantTimeEqual(presented, client.secretHash)) {
    throw invalidClient("Client authentication failed");
  }
  return client;
}

/** A registered client as the administration lists it. */
export interface ClientSummary {
  client_id: string;
  name: string;
  website: string | null;
  redirect_uris: string[];
  scopes: string;
  createdAt: Date;
  /** Users with a live authorisation (a grant not withdrawn, with a token not expired). */
  users: number;
}

/**
 * Clients with the number of users who authorised each and have not
 * withdrawn it (as their account page lists them), in one query.
 */
function clientSummaries(db: Db, clock: Clock) {
  const alive = grantsWithLiveToken(db, clock);
  const authorised = db.select({
    clientId: oauthGrants.clientId,
    users: sql<number>`count(distinct ${oauthGrants.userId})`.as("users"),
  }).from(oauthGrants).where(
    and(isNull(oauthGrants.revokedAt), inArray(oauthGrants.id, alive)),
  ).groupBy(oauthGrants.clientId).as("authorised");
  return db.select({ client: oauthClients, users: authorised.users })
    .from(oauthClients)
    .leftJoin(authorised, eq(authorised.clientId, oauthClients.id));
}

function summaryOf(
  { client, users }: { client: OAuthClientRow; users: number | null },
): ClientSummary {
  return {
    client_id: client.id,
    name: client.name,
    website: client.website,
    redirect_uris: client.redirect_uris,
    scopes: client.scopes,
    createdAt: client.createdAt,
    users: Number(users ?? 0),
  };
}

/** One page of registered clients, newest first, with their users (one round trip). */
export async function listClients(
  db: Db,
  clock: Clock,
  page: number,
  pageSize: number,
): Promise<{ data: ClientSummary[]; count: number; totalPages: number }> {
  const [rows, [{ n }]] = await db.batch([
    clientSummaries(db, clock)
      .orderBy(desc(oauthClients.createdAt), asc(oauthClients.id))
      .limit(pageSize).offset((page - 1) * pageSize),
    db.select({ n: count() }).from(oauthClients),
  ]);
  return {
    data: rows.map(summaryOf),
    count: n,
    totalPages: Math.ceil(n / pageSize),
  };
}

/** One client with its users, or null. */
export async function findClientSummary(
  db: Db,
  clock: Clock,
  clientId: string,
): Promise<ClientSummary | null> {
  if (clientId.length > 200) return null;
  const [row] = await clientSummaries(db, clock).where(
    eq(oauthClients.id, clientId),
  );
  return row ? summaryOf(row) : null;
}

/**
 * Deletes a client with its codes, grants and tokens, in one batch: its
 * codes can no longer be exchanged and its tokens stop working at once.
 * False when no such client exists.
 */
export async function deleteClient(db: Db, clientId: string): Promise<boolean> {
  if (clientId.length > 200) return false;
  const grants = db.select({ id: oauthGrants.id }).from(oauthGrants).where(
    eq(oauthGrants.clientId, clientId),
  );
  const [, , , deleted] = await db.batch([
    db.delete(oauthTokens).where(inArray(oauthTokens.grantId, grants)),
    db.delete(oauthCodes).where(eq(oauthCodes.clientId, clientId)),
    db.delete(oauthGrants).where(eq(oauthGrants.clientId, clientId)),
    db.delete(oauthClients).where(eq(oauthClients.id, clientId)).returning({
      id: oauthClients.id,
    }),
  ]);
  return deleted.length > 0;
}
