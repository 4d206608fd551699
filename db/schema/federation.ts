/** ActivityPub peers (instances, actors) and Fedify's key-value store and queue. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns.ts";

export const instances = sqliteTable("instances", {
  domain: text("domain").primaryKey(),
  name: text("name"),
  blocked: integer("blocked", { mode: "boolean" }).notNull().default(false),
  data: text("data", { mode: "json" }),
  applicationActor: text("applicationActor"),
  ...timestamps,
});

export const apUsers = sqliteTable("ap_users", {
  ap_id: text("ap_id").primaryKey(),
  follower: integer("follower", { mode: "boolean" }).notNull().default(false),
  following: integer("following", { mode: "boolean" }).notNull().default(false),
  trusted: integer("trusted", { mode: "boolean" }).notNull().default(false),
  blocked: integer("blocked", { mode: "boolean" }).notNull().default(false),
  object: text("object", { mode: "json" }),
  instanceDomain: text("instanceDomain").references(() => instances.domain, {
    onDelete: "set null",
  }),
  ...timestamps,
}, (t) => [
  index("ap_users_instance_idx").on(t.instanceDomain),
  index("ap_users_follower_idx").on(t.follower),
]);

/** Fedify's key-value store (caches, idempotence keys): JSON keys and values. */
export const fedifyKv = sqliteTable("fedify_kv", {
  /** The KvKey as a JSON array text. */
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  /** Milliseconds; null = never expires. */
  expiresAt: integer("expiresAt"),
}, (t) => [
  index("fedify_kv_expires_idx").on(t.expiresAt).where(
    sql`${t.expiresAt} is not null`,
  ),
]);

/**
 * Fedify's message queue (outgoing deliveries, inbox processing): persistent,
 * so a delivery enqueued before a restart is delivered after it.
 */
export const fedifyQueue = sqliteTable("fedify_queue", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  message: text("message", { mode: "json" }).notNull(),
  /** Milliseconds: not handed out before this time. */
  availableAt: integer("availableAt").notNull(),
  /** Messages with the same key are processed one at a time, in order. */
  orderingKey: text("orderingKey"),
  /** Milliseconds: a worker holds the message until then (a crashed worker's lease runs out). */
  lockedUntil: integer("lockedUntil"),
  attempts: integer("attempts").notNull().default(0),
  createdAt: integer("createdAt").notNull(),
}, (t) => [
  index("fedify_queue_available_idx").on(t.availableAt, t.id),
  index("fedify_queue_ordering_idx").on(t.orderingKey).where(
    sql`${t.orderingKey} is not null`,
  ),
]);
