/** Accounts and sign-in: users, sessions, invitations, rate limits; instance settings. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns.ts";

export const USER_ROLES = ["admin", "editor", "user"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  /** argon2id PHC string; never serialised. */
  password: text("password").notNull(),
  description: text("description").notNull().default(""),
  is_active: integer("is_active", { mode: "boolean" }).notNull().default(true),
  to_notify: integer("to_notify", { mode: "boolean" }).notNull().default(false),
  role: text("role", { enum: USER_ROLES }).notNull().default("user"),
  /**
   * Raised by every password change and deactivation; login tokens carry the
   * value they were issued under (`gen`) and stop working when it moves on.
   */
  token_generation: integer("token_generation").notNull().default(0),
  /**
   * A registration waiting for an admin's approval (the setting
   * `registration_approval`; db/migrations/0022_user_approval.sql): such an
   * account is also inactive until approved.
   */
  pending: integer("pending", { mode: "boolean" }).notNull().default(false),
  /** The language their e-mail is written in (the interface's, at their last sign-in); null: the instance's. */
  language: text("language"),
  /** Moderators: whether they get the mail of new submissions waiting (db/migrations/0018_mail.sql). */
  notify_submissions: integer("notify_submissions", { mode: "boolean" })
    .notNull().default(true),
  /** When they were last sent that mail (ms; at most one per 15 minutes). */
  submissions_notified_at: integer("submissions_notified_at"),
  ...timestamps,
}, (t) => [
  index("users_role_idx").on(t.role),
  // The registrations waiting: a few rows, for /admin/users.
  index("users_pending_idx").on(t.id).where(sql`${t.pending} = 1`),
]);

/**
 * Browser sessions of the web interface (db/migrations/0011_sessions.sql):
 * `id` is the SHA-256 of the cookie's token; `generation` the user's
 * token_generation when it began (a password change ends it).
 */
export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  userId: integer("userId").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  generation: integer("generation").notNull(),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expiresAt", { mode: "timestamp_ms" }).notNull(),
}, (t) => [index("sessions_user_idx").on(t.userId)]);

/**
 * Invitations to an account (db/migrations/0012_invitations.sql): an admin
 * copies a one-time link; `id` is the SHA-256 of its token. The account
 * (`email`, `role`) is created when the invitee sets a password; `usedAt`
 * then marks the link spent. One invitation per e-mail: inviting again
 * replaces the earlier link.
 */
export const invitations = sqliteTable("invitations", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  role: text("role", { enum: USER_ROLES }).notNull().default("user"),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expiresAt", { mode: "timestamp_ms" }).notNull(),
  usedAt: integer("usedAt", { mode: "timestamp_ms" }),
});

/** Instance settings as JSON values; also holds internal keys such as the JWT secret. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
});

/** Hits counted by sliding-window rate limits (failed logins, registrations). */
export const rateLimitHits = sqliteTable("rate_limit_hits", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  key: text("key").notNull(),
  at: integer("at").notNull(),
}, (t) => [index("rate_limit_hits_key_at_idx").on(t.key, t.at)]);
