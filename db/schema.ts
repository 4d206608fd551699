/**
 * Drizzle schema. Column names are the API's field names
 * (`start_datetime`, `is_visible`, `userId`, `createdAt`, ...), so the wire
 * shapes map onto rows without renaming.
 */
import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  blob,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/** Millisecond timestamps, exposed to the API as ISO 8601 strings. */
const timestamps = {
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
};

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
  ...timestamps,
}, (t) => [index("users_role_idx").on(t.role)]);

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

export const collections = sqliteTable("collections", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  isActive: integer("isActive", { mode: "boolean" }).notNull().default(true),
  /** Pinned collections are shown first. */
  isTop: integer("isTop", { mode: "boolean" }).notNull().default(false),
  sortIndex: integer("sortIndex").notNull().default(0),
  ...timestamps,
}, (t) => [index("collections_sort_idx").on(t.sortIndex)]);

export interface FilterPlace {
  id: number;
  name: string;
}
export interface FilterActor {
  ap_id: string | null;
}

export const filters = sqliteTable("filters", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  negate: integer("negate", { mode: "boolean" }).notNull().default(false),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(
    sql`'[]'`,
  ),
  places: text("places", { mode: "json" }).$type<FilterPlace[]>().notNull()
    .default(sql`'[]'`),
  actors: text("actors", { mode: "json" }).$type<FilterActor[]>().notNull()
    .default(sql`'[]'`),
  collectionId: integer("collectionId").notNull().references(
    () => collections.id,
    { onDelete: "cascade" },
  ),
  ...timestamps,
}, (t) => [index("filters_collection_idx").on(t.collectionId)]);

/**
 * Every uploaded file, whatever the store: events may only reference names
 * registered here. The database store keeps the bytes in `media_chunks`.
 */
export const mediaFiles = sqliteTable("media_files", {
  /** The file name used in URLs: random, with the type's extension. */
  name: text("name").primaryKey(),
  content_type: text("content_type").notNull(),
  size: integer("size").notNull(),
  width: integer("width"),
  height: integer("height"),
  /** Set by every put: with the size, it tells one version of a name from another. */
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  /**
   * The uploader, whose quota the file counts against; null for anonymous
   * submissions, which share one quota. No foreign key on purpose: user ids
   * are never reused, and a deleted user's files (still shown by their events)
   * must not fall into the anonymous quota.
   */
  ownerId: integer("ownerId"),
}, (t) => [
  index("media_files_owner_idx").on(t.ownerId, t.size),
  index("media_files_created_idx").on(t.createdAt),
]);

/**
 * The bytes of a file in the database store, in pieces of MEDIA_CHUNK_BYTES
 * (the last may be shorter), so that a download reads a piece at a time:
 * SQLite reads a whole value even for substr().
 */
export const mediaChunks = sqliteTable("media_chunks", {
  name: text("name").notNull().references(() => mediaFiles.name, {
    onDelete: "cascade",
  }),
  /** 0, 1, 2...: the piece starting at seq * MEDIA_CHUNK_BYTES. */
  seq: integer("seq").notNull(),
  data: blob("data", { mode: "buffer" }).notNull(),
}, (t) => [primaryKey({ columns: [t.name, t.seq] })]);

/** Bytes per row of `media_chunks` (the 0008 migration splits older files by it too). */
export const MEDIA_CHUNK_BYTES = 256 * 1024;

/**
 * Which events reference which uploaded files (an occurrence's copy of its
 * series' media counts). Kept by triggers on `events` (0008_media_quota.sql),
 * deletions included, so it holds even where foreign keys are not enforced;
 * never written by the application. The foreign key on `name` makes removing
 * a referenced file fail, and a write that references a removed file fail.
 */
export const eventMedia = sqliteTable("event_media", {
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  name: text("name").notNull().references(() => mediaFiles.name),
}, (t) => [
  primaryKey({ columns: [t.eventId, t.name] }),
  index("event_media_name_idx").on(t.name),
]);

/**
 * Names removed from `media_files` (filled by a trigger), for a store that
 * keeps the bytes elsewhere (S3) to delete them; emptied once it has.
 */
export const mediaTrash = sqliteTable("media_trash", {
  name: text("name").primaryKey(),
});

/** Hits counted by sliding-window rate limits (failed logins, registrations). */
export const rateLimitHits = sqliteTable("rate_limit_hits", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  key: text("key").notNull(),
  at: integer("at").notNull(),
}, (t) => [index("rate_limit_hits_key_at_idx").on(t.key, t.at)]);

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
