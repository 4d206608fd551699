/** Uploaded files: their registry, bytes, references from events, and trash. */
import {
  blob,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
} from "drizzle-orm/sqlite-core";
import { events } from "./events.ts";

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
