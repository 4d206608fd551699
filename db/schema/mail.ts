/** E-mail: the messages sent and the one-time links they carry (db/migrations/0018_mail.sql). */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts.ts";

export const MAIL_STATUSES = ["queued", "retrying", "sent", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * Every message the instance sends: queued with its body (a `fedify_queue`
 * row names it by id), then sent or failed; the body is cleared once it is
 * settled. Attempts and the last error are what admins see.
 */
export const mailMessages = sqliteTable("mail_messages", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  recipient: text("recipient").notNull(),
  subject: text("subject").notNull(),
  text: text("text"),
  html: text("html"),
  /** Extra headers (List-Unsubscribe), as JSON. */
  headers: text("headers", { mode: "json" }).$type<Record<string, string>>()
    .notNull().default(sql`'{}'`),
  status: text("status", { enum: MAIL_STATUSES }).notNull().default("queued"),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("lastError"),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
  sentAt: integer("sentAt", { mode: "timestamp_ms" }),
}, (t) => [index("mail_messages_status_idx").on(t.status, t.updatedAt)]);

export const ACCOUNT_LINK_KINDS = ["password", "register", "email"] as const;
export type AccountLinkKind = (typeof ACCOUNT_LINK_KINDS)[number];

/**
 * One-time links: setting a password (`userId`), confirming a registration
 * (`email`, `secret`: the chosen password's hash; the account is made when
 * the link is followed) or a changed address (`userId`, the new `email`).
 * `id` is the SHA-256 of the link's token; `usedAt` marks it spent.
 */
export const accountLinks = sqliteTable("account_links", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ACCOUNT_LINK_KINDS }).notNull(),
  userId: integer("userId").references(() => users.id, {
    onDelete: "cascade",
  }),
  email: text("email").notNull(),
  secret: text("secret"),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expiresAt", { mode: "timestamp_ms" }).notNull(),
  usedAt: integer("usedAt", { mode: "timestamp_ms" }),
}, (t) => [index("account_links_user_idx").on(t.userId)]);
