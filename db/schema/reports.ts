/** Reports of events ("report this event"), for the moderators' queue. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./accounts.ts";
import { events } from "./events.ts";

export const REPORT_REASONS = [
  "spam",
  "inaccurate",
  "inappropriate",
  "other",
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REPORT_STATUSES = ["open", "dismissed", "resolved"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/**
 * A visitor's report of an event (db/migrations/0019_reports.sql): a reason
 * and plain text (never HTML), open until a moderator dismisses or resolves
 * it. Who reported is not kept (anonymous reports are allowed; the rate
 * limit counts by address in rate_limit_hits). Goes with its event.
 */
export const reports = sqliteTable("reports", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  eventId: integer("eventId").notNull().references(() => events.id, {
    onDelete: "cascade",
  }),
  reason: text("reason", { enum: REPORT_REASONS }).notNull(),
  text: text("text").notNull().default(""),
  status: text("status", { enum: REPORT_STATUSES }).notNull().default("open"),
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  /** When a moderator dismissed or resolved it, and who. */
  closedAt: integer("closedAt", { mode: "timestamp_ms" }),
  closedBy: integer("closedBy").references(() => users.id, {
    onDelete: "set null",
  }),
}, (t) => [
  // The queue: open reports, oldest first; and those of one event.
  index("reports_status_created_idx").on(t.status, t.createdAt, t.id),
  index("reports_event_idx").on(t.eventId),
]);
