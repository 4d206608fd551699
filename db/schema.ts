/**
 * Drizzle schema. Column names are the API's field names
 * (`start_datetime`, `is_visible`, `userId`, `createdAt`, ...), so the wire
 * shapes map onto rows without renaming.
 *
 * The tables live in db/schema/ by concern; this module re-exports them all,
 * and is the one the app imports and drizzle-kit reads (drizzle.config.ts).
 */
export * from "./schema/accounts.ts";
export * from "./schema/collections.ts";
export * from "./schema/events.ts";
export * from "./schema/federation.ts";
export * from "./schema/media.ts";
export * from "./schema/oauth.ts";
export * from "./schema/reports.ts";
export * from "./schema/sources.ts";
export * from "./schema/mail.ts";
