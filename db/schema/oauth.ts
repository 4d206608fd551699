/** OAuth 2.0: registered clients, grants, authorization codes, tokens. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts.ts";

export const OAUTH_AUTH_METHODS = [
  "client_secret_basic",
  "client_secret_post",
  "none",
] as const;
export type OAuthAuthMethod = (typeof OAUTH_AUTH_METHODS)[number];

/** Registered OAuth 2.0 clients (`POST /api/client`). */
export const oauthClients = sqliteTable("oauth_clients", {
  /** The public client_id: random, URL-safe. */
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  website: text("website"),
  /** Registered redirect URIs, compared exactly. */
  redirect_uris: text("redirect_uris", { mode: "json" }).$type<string[]>()
    .notNull(),
  /** Space-separated scopes the client may ask for. */
  scopes: text("scopes").notNull(),
  /** SHA-256 (hex) of the secret; null for public clients. */
  secretHash: text("secretHash"),
  token_endpoint_auth_method: text("token_endpoint_auth_method", {
    enum: OAUTH_AUTH_METHODS,
  }).notNull(),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
});

/**
 * One approval turned into tokens: the chain of access and refresh tokens that
 * descend from one authorization code. Revoking it revokes them all.
 */
export const oauthGrants = sqliteTable("oauth_grants", {
  id: text("id").primaryKey(),
  clientId: text("clientId").notNull().references(() => oauthClients.id, {
    onDelete: "cascade",
  }),
  userId: integer("userId").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  scope: text("scope").notNull(),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  lastUsedAt: integer("lastUsedAt", { mode: "timestamp_ms" }).notNull(),
  revokedAt: integer("revokedAt", { mode: "timestamp_ms" }),
}, (t) => [index("oauth_grants_user_client_idx").on(t.userId, t.clientId)]);

/** Authorization codes, single use, short-lived. Only their hash is stored. */
export const oauthCodes = sqliteTable("oauth_codes", {
  /** SHA-256 (hex) of the code. */
  codeHash: text("codeHash").primaryKey(),
  clientId: text("clientId").notNull().references(() => oauthClients.id, {
    onDelete: "cascade",
  }),
  userId: integer("userId").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  redirect_uri: text("redirect_uri").notNull(),
  scope: text("scope").notNull(),
  /** PKCE S256 challenge; null when the confidential client sent none. */
  codeChallenge: text("codeChallenge"),
  expiresAt: integer("expiresAt", { mode: "timestamp_ms" }).notNull(),
  /** Set when exchanged; a second exchange is a replay. */
  usedAt: integer("usedAt", { mode: "timestamp_ms" }),
  /** The grant the exchange created, revoked on replay. */
  grantId: text("grantId"),
}, (t) => [index("oauth_codes_expires_idx").on(t.expiresAt)]);

export const OAUTH_TOKEN_KINDS = ["access", "refresh"] as const;

/**
 * Tokens issued to clients. Access tokens are JWTs recorded by `jti` so that
 * they can be revoked; refresh tokens are opaque and stored hashed.
 */
export const oauthTokens = sqliteTable("oauth_tokens", {
  /** The access token's jti, or the SHA-256 (hex) of the refresh token. */
  id: text("id").primaryKey(),
  kind: text("kind", { enum: OAUTH_TOKEN_KINDS }).notNull(),
  grantId: text("grantId").notNull().references(() => oauthGrants.id, {
    onDelete: "cascade",
  }),
  expiresAt: integer("expiresAt", { mode: "timestamp_ms" }).notNull(),
  /** Refresh tokens: set when exchanged for new tokens (rotation). */
  usedAt: integer("usedAt", { mode: "timestamp_ms" }),
  revokedAt: integer("revokedAt", { mode: "timestamp_ms" }),
}, (t) => [
  index("oauth_tokens_grant_idx").on(t.grantId),
  index("oauth_tokens_expires_idx").on(t.expiresAt),
]);
