/** Events and what hangs off them: places, tags, search, messages, resources. */
import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { users } from "./accounts.ts";
import { timestamps } from "./columns.ts";
import { apUsers } from "./federation.ts";

export const places = sqliteTable("places", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  address: text("address").notNull().default(""),
  ap_id: text("ap_id").unique(),
  postal_address: text("postal_address", { mode: "json" }),
  latitude: real("latitude"),
  longitude: real("longitude"),
  ...timestamps,
}, (t) => [
  // Places are deduplicated by name and address together.
  uniqueIndex("places_name_address_idx").on(t.name, t.address),
]);

export const EVENT_STATUSES = [
  "EventScheduled",
  "EventCancelled",
  "EventPostponed",
  "EventRescheduled",
  "EventMovedOnline",
] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export interface MediaItem {
  name: string;
  url: string;
  height: number | null;
  width: number | null;
  size: number | null;
  focalpoint: [number, number];
}

export interface Recurrence {
  frequency: string;
  type: string;
  [key: string]: unknown;
}

export const events = sqliteTable("events", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  title: text("title").notNull(),
  slug: text("slug").notNull().unique(),
  status: text("status", { enum: EVENT_STATUSES }).notNull().default(
    "EventScheduled",
  ),
  /** Unix seconds. */
  start_datetime: integer("start_datetime").notNull(),
  /** Unix seconds, or null when the event has no announced end. */
  end_datetime: integer("end_datetime"),
  description: text("description").notNull().default(""),
  is_visible: integer("is_visible", { mode: "boolean" }).notNull().default(
    true,
  ),
  online_locations: text("online_locations", { mode: "json" }).$type<
    string[]
  >().notNull().default(sql`'[]'`),
  recurrent: text("recurrent", { mode: "json" }).$type<Recurrence | null>(),
  media: text("media", { mode: "json" }).$type<MediaItem[]>().notNull()
    .default(sql`'[]'`),
  ld_signature: text("ld_signature", { mode: "json" }),
  ap_object: text("ap_object", { mode: "json" }),
  likes: text("likes", { mode: "json" }).$type<unknown[]>().notNull().default(
    sql`'[]'`,
  ),
  boost: text("boost", { mode: "json" }).$type<unknown[]>().notNull().default(
    sql`'[]'`,
  ),
  ap_id: text("ap_id").unique(),
  userId: integer("userId").references(() => users.id, {
    onDelete: "set null",
  }),
  parentId: integer("parentId").references((): AnySQLiteColumn => events.id, {
    onDelete: "cascade",
  }),
  placeId: integer("placeId").references(() => places.id, {
    onDelete: "restrict",
  }),
  apUserApId: text("apUserApId").references(() => apUsers.ap_id, {
    onDelete: "cascade",
  }),
  /**
   * For an occurrence: the start its parent's rule gave it. Stays when the
   * occurrence is moved, so the series never re-creates that slot.
   */
  recurrence_slot: integer("recurrence_slot"),
  /** An occurrence edited on its own; edits of the parent no longer overwrite it. */
  occurrence_edited: integer("occurrence_edited", { mode: "boolean" })
    .notNull().default(false),
  /** iCalendar SEQUENCE: 0 when created, +1 on each change of the event. */
  sequence: integer("sequence").notNull().default(0),
  /**
   * Created to followers (while visible): every local event but the
   * occurrences of a series beyond its federation horizon, which the hourly
   * job announces as they come into range (lib/federation/publishing.ts).
   */
  announced: integer("announced", { mode: "boolean" }).notNull().default(
    true,
  ),
  ...timestamps,
}, (t) => [
  index("events_start_idx").on(t.start_datetime),
  // Also `events_last_idx` on coalesce(end_datetime, start_datetime), the value
  // that decides upcoming vs past: written by hand in 0001_events.sql because
  // drizzle-kit 0.31 mangles expression indexes.
  uniqueIndex("events_parent_slot_idx").on(t.parentId, t.recurrence_slot),
  index("events_end_idx").on(t.end_datetime),
  // Partial: most events are local and single, and an index over NULLs would
  // tempt the planner into scanning every local event for `IS NULL`.
  index("events_parent_idx").on(t.parentId).where(
    sql`${t.parentId} is not null`,
  ),
  index("events_user_idx").on(t.userId),
  // The occurrences still to announce: a few per series, for the hourly job.
  index("events_unannounced_idx").on(t.start_datetime).where(
    sql`${t.announced} = 0`,
  ),
  index("events_place_idx").on(t.placeId),
  index("events_ap_user_idx").on(t.apUserApId).where(
    sql`${t.apUserApId} is not null`,
  ),
  // Series templates, newest first for the feeds: a few hundred rows. The
  // (always null) parentId leads so that `parentId is null` is an equality
  // here too: without statistics the planner would otherwise prefer
  // events_parent_slot_idx, which holds every single event.
  index("events_series_idx").on(t.parentId, t.id).where(
    sql`${t.recurrent} is not null and ${t.parentId} is null`,
  ),
  // Also `events_long_last_idx` on coalesce(end_datetime, start_datetime)
  // `where end_datetime - start_datetime > 86400`: the events longer than a
  // day, for the "still running" half of the listings (lib/events/list.ts).
  // Written by hand in 0005_listing_indexes.sql, like `events_last_idx`.
  // And `events_unconfirmed_idx` on (createdAt, id) `where is_visible = 0`,
  // the moderation queue, written by hand in 0010_unconfirmed_index.sql.
  // The browse pages' (0014_browse_indexes.sql, by hand like the others):
  // `events_parent_start_idx` on (parentId, start_datetime) `where parentId is
  // not null`, a series' next dates; `events_listed_last_place_idx` on
  // (coalesce(end_datetime, start_datetime), placeId, parentId) where listed
  // (visible, local, not a template), the tags and places indexes' counts.
  // `events_online_last_idx` on coalesce(end_datetime, start_datetime) `where
  // json_array_length(online_locations) > 0`: the search's online filter
  // (0015_online_index.sql, by hand).
]);

export const tags = sqliteTable("tags", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** The first spelling ever stored. */
  tag: text("tag").notNull(),
  /** NFC + lower case; the one key tags are matched on. */
  normalizedTag: text("normalizedTag").notNull().unique(),
});

export const eventTags = sqliteTable("event_tags", {
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  tagId: integer("tagId").notNull().references(() => tags.id, {
    onDelete: "cascade",
  }),
  /**
   * Copies of the event's start and of coalesce(end, start), for the tag
   * listing's index ranges. Kept by triggers (0005_listing_indexes.sql): filled
   * after each insert here, updated when the event's start or end changes.
   * Never written by the application.
   */
  start_datetime: integer("start_datetime"),
  last_moment: integer("last_moment"),
}, (t) => [
  primaryKey({ columns: [t.eventId, t.tagId] }),
  index("event_tags_tag_idx").on(t.tagId, t.eventId),
  index("event_tags_tag_start_idx").on(t.tagId, t.start_datetime, t.eventId),
  index("event_tags_tag_last_idx").on(t.tagId, t.last_moment),
]);

/**
 * Events whose row in the full-text index `event_search` waits for their tags:
 * filled by triggers on event_tags, and each row deleted from here refreshes
 * that event's index row once (0007_event_search.sql). Writes that change
 * tags end their batch by emptying it (lib/search.ts, refreshStaleSearchRows),
 * so an event gets one refresh per write instead of one per tag.
 *
 * Also in 0007, written by hand (drizzle-kit has no virtual tables): the FTS5
 * table `event_search` (title, description without HTML, place name and
 * address, tags; rowid = event id), the view `event_search_source` that
 * computes those columns, and the triggers on events, places and tags that
 * keep the index in step.
 */
export const eventSearchStale = sqliteTable("event_search_stale", {
  eventId: integer("eventId").primaryKey(),
});

export const messages = sqliteTable("messages", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  message: text("message").notNull(),
  author: text("author").notNull(),
  is_author_visible: integer("is_author_visible", { mode: "boolean" })
    .notNull().default(false),
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  ...timestamps,
}, (t) => [index("messages_event_idx").on(t.eventId)]);

export const resources = sqliteTable("resources", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  activitypub_id: text("activitypub_id").notNull().unique(),
  hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
  data: text("data", { mode: "json" }),
  apUserApId: text("apUserApId").references(() => apUsers.ap_id, {
    onDelete: "cascade",
  }),
  eventId: integer("eventId").references(() => events.id, {
    onDelete: "cascade",
  }),
  ...timestamps,
}, (t) => [
  index("resources_event_idx").on(t.eventId),
  index("resources_created_idx").on(t.createdAt),
  index("resources_ap_user_idx").on(t.apUserApId),
]);

/**
 * The answer of `GET /api/events/{id}` to an anonymous reader, kept as the
 * JSON text it went out as (lib/events/bodies.ts), so that the next
 * anonymous read is one lookup. Derived data: filled after a read that
 * computed it, and deleted, in the same transaction, by any change it
 * depends on (triggers of db/migrations/0023_event_bodies.sql on events,
 * places, tags, users, remote actors, resources and settings). `variant`
 * names what else it depends on (the base URL, whether federation is on, the
 * form's code); `valid_until` is when the first of a series' listed dates
 * ends (a later read lists one date fewer), null when nothing expires.
 */
export const eventBodies = sqliteTable("event_bodies", {
  eventId: integer("event_id").primaryKey().references(() => events.id, {
    onDelete: "cascade",
  }),
  variant: text("variant").notNull(),
  validUntil: integer("valid_until"),
  body: text("body").notNull(),
});

/**
 * One row: raised by every trigger that deletes bodies, so that a body
 * computed before a change is never stored after it (a fill names the
 * generation its read saw).
 */
export const eventBodyState = sqliteTable("event_body_state", {
  id: integer("id").primaryKey(),
  generation: integer("generation").notNull().default(0),
});
