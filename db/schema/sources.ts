/** Calendar subscriptions and the record of imported events. */
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
} from "drizzle-orm/sqlite-core";
import { users } from "./accounts.ts";
import { timestamps } from "./columns.ts";
import { events, places } from "./events.ts";

/** What one sync of a source did, by outcome. */
export interface SyncCounts {
  created: number;
  updated: number;
  cancelled: number;
  unchanged: number;
  skipped: number;
}

/**
 * Calendar subscriptions: an ICS/webcal feed whose events are kept in step
 * with it (lib/imports/sources.ts), created as the admin or editor who added
 * it.
 */
export const sources = sqliteTable("sources", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** The feed's https (or http) URL; webcal:// is stored as https://. */
  url: text("url").notNull(),
  name: text("name").notNull().default(""),
  userId: integer("userId").notNull().references(() => users.id, {
    onDelete: "cascade",
  }),
  default_tags: text("default_tags", { mode: "json" }).$type<string[]>()
    .notNull().default(sql`'[]'`),
  default_place_id: integer("default_place_id").references(() => places.id, {
    onDelete: "set null",
  }),
  /** Imported events wait for an editor's confirmation. */
  needs_confirmation: integer("needs_confirmation", { mode: "boolean" })
    .notNull().default(false),
  /** Validators of the last answer, for a conditional GET. */
  etag: text("etag"),
  last_modified: text("last_modified"),
  last_sync_at: integer("last_sync_at", { mode: "timestamp_ms" }),
  last_success_at: integer("last_success_at", { mode: "timestamp_ms" }),
  last_error: text("last_error"),
  last_counts: text("last_counts", { mode: "json" }).$type<SyncCounts>(),
  /** Milliseconds: a sync holds the source until then (one sync at a time). */
  lockedUntil: integer("lockedUntil"),
  /**
   * Syncs in a row that failed or never finished: counted when a sync
   * starts, so that one that takes the process down counts too; 0 after a
   * success.
   */
  failures: integer("failures").notNull().default(0),
  /** The hourly job leaves the source alone until then (backoff after failures). */
  next_sync_at: integer("next_sync_at", { mode: "timestamp_ms" }),
  /** Quarantined after too many failures: synced again only by hand. */
  paused: integer("paused", { mode: "boolean" }).notNull().default(false),
  ...timestamps,
}, (t) => [index("sources_user_idx").on(t.userId)]);

/**
 * Which event an imported item became: by where it came from (`source:3`,
 * `gancio:https://…`, `ics:user:5`), its UID and its RECURRENCE-ID (0 for the
 * event itself), with a digest of what was imported to see changes.
 */
export const importedEvents = sqliteTable("imported_events", {
  origin: text("origin").notNull(),
  uid: text("uid").notNull(),
  recurrence_id: integer("recurrence_id").notNull().default(0),
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  digest: text("digest").notNull(),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.origin, t.uid, t.recurrence_id] }),
  index("imported_events_event_idx").on(t.eventId),
]);

/**
 * Where each Gancio event went: by the Gancio instance's origin and the
 * event's Gancio id, with its Gancio slug, so that Gancio's event URLs
 * redirect to the imported event (lib/imports/gancio/links.ts).
 */
export const gancioLinks = sqliteTable("gancio_links", {
  /** The Gancio instance (`https://gancio.example`), or `database`. */
  origin: text("origin").notNull(),
  gancio_id: integer("gancio_id").notNull(),
  /** Gancio's slug; null until an import has told it. */
  slug: text("slug"),
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.origin, t.gancio_id] }),
  index("gancio_links_slug_idx").on(t.slug),
  index("gancio_links_gancio_id_idx").on(t.gancio_id),
  index("gancio_links_event_idx").on(t.eventId),
]);
