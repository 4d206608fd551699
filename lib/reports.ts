/**
 * Reports of events: anyone (signed in or not) reports a visible event
 * with a reason and plain text, at most REPORT_LIMIT an hour from one
 * address; editors and admins read the open ones, dismiss or resolve them,
 * and may hide the event (one write with the report's closing).
 */
import { and, asc, count, desc, eq, ne } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import {
  events,
  REPORT_REASONS,
  type ReportReason,
  reports,
  type ReportStatus,
} from "../db/schema.ts";
import type { Clock } from "./clock.ts";
import { ApiError, invalidRequest, notFound } from "./errors.ts";
import type { WriteDeps, WriteResult } from "./events/commit.ts";
import { toggleEvent } from "./events/write.ts";
import { type RateLimit, reserveRateLimitHit } from "./ratelimit.ts";
import type { UserRow } from "./users.ts";

/** Ten reports an hour from one address. */
export const REPORT_LIMIT: RateLimit = { limit: 10, windowMs: 60 * 60 * 1000 };

/** Longest text of a report. */
export const MAX_REPORT_TEXT = 1000;

/** The Report resource of the API. */
export interface ReportJson {
  id: number;
  eventId: number;
  event: { id: number; title: string; slug: string; is_visible: boolean };
  reason: ReportReason;
  text: string;
  status: ReportStatus;
  createdAt: string;
  closedAt: string | null;
}

/** A report's text: trimmed, line ends kept, other control characters refused; never HTML. */
export function reportText(text: string): string {
  const plain = text.replace(/\r\n?/g, "\n").trim();
  const problems: string[] = [];
  if (plain.length > MAX_REPORT_TEXT) {
    problems.push(`must be at most ${MAX_REPORT_TEXT} characters`);
  }
  // deno-lint-ignore no-control-regex -- control characters are what it finds
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(plain)) {
    problems.push("must not contain control characters");
  }
  if (/<\/?[a-z!][^>]*>/i.test(plain)) {
    problems.push("must be plain text, not HTML");
  }
  if (problems.length > 0) {
    throw invalidRequest(
      "The request is not valid",
      problems.map((message) => ({ field: "text", message })),
    );
  }
  return plain;
}

/** Whether `value` is a reason a report may give. */
export function isReportReason(value: string): value is ReportReason {
  return (REPORT_REASONS as readonly string[]).includes(value);
}

/** The title and slug of the visible event `id` (what may be reported), or undefined. */
export async function reportableEvent(
  db: Db,
  id: number,
): Promise<{ title: string; slug: string } | undefined> {
  const [event] = await db.select({ title: events.title, slug: events.slug })
    .from(events).where(and(eq(events.id, id), eq(events.is_visible, true)));
  return event;
}

/**
 * Files a report of the visible event `eventId` (404 for any other). 400
 * for a bad reason or text, 429 past the limit of the address; nothing is
 * written then.
 */
export async function reportEvent(
  deps: { db: Db; clock: Clock },
  eventId: number,
  input: { reason: string; text?: string },
  clientAddress: string,
): Promise<{ id: number; createdAt: string }> {
  const { db, clock } = deps;
  if (!isReportReason(input.reason)) {
    throw invalidRequest("The request is not valid", [{
      field: "reason",
      message: `must be one of ${REPORT_REASONS.join(", ")}`,
    }]);
  }
  const text = reportText(input.text ?? "");
  if (!await reportableEvent(db, eventId)) throw notFound("Event");
  const reserved = await reserveRateLimitHit(
    db,
    clock,
    [`report:${clientAddress}`],
    REPORT_LIMIT,
  );
  if ("retryAfter" in reserved) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many reports from this address",
      undefined,
      { "Retry-After": String(reserved.retryAfter) },
    );
  }
  const now = clock.now();
  const [row] = await db.insert(reports).values({
    eventId,
    reason: input.reason,
    text,
    createdAt: now,
  }).returning({ id: reports.id });
  return { id: row.id, createdAt: now.toISOString() };
}

const reportColumns = {
  report: reports,
  event: {
    id: events.id,
    title: events.title,
    slug: events.slug,
    is_visible: events.is_visible,
  },
};

type ReportRow = {
  report: typeof reports.$inferSelect;
  event: ReportJson["event"];
};

function serializeReport({ report, event }: ReportRow): ReportJson {
  return {
    id: report.id,
    eventId: report.eventId,
    event,
    reason: report.reason,
    text: report.text,
    status: report.status,
    createdAt: report.createdAt.toISOString(),
    closedAt: report.closedAt?.toISOString() ?? null,
  };
}

/**
 * One page of reports: the open ones oldest first (`open`), or the closed
 * ones newest first (`closed`), with the total count.
 */
export async function listReports(
  db: Db,
  which: "open" | "closed",
  page: number,
  pageSize: number,
): Promise<{ data: ReportJson[]; count: number; totalPages: number }> {
  const where = which === "open"
    ? eq(reports.status, "open")
    : ne(reports.status, "open");
  const order = which === "open"
    ? [asc(reports.createdAt), asc(reports.id)]
    : [desc(reports.closedAt), desc(reports.id)];
  const [rows, [{ total }]] = await db.batch([
    db.select(reportColumns).from(reports)
      .innerJoin(events, eq(events.id, reports.eventId)).where(where)
      .orderBy(...order).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(reports).where(where),
  ]);
  return {
    data: (rows as ReportRow[]).map(serializeReport),
    count: total,
    totalPages: Math.ceil(total / pageSize),
  };
}

/** How a moderator closes a report. */
export interface ReportClosing {
  status: "dismissed" | "resolved";
  /** Hide the event too (and close every open report of it as resolved). */
  hideEvent?: boolean;
}

/**
 * Closes the report `id` (editors and admins): 404 for an unknown one.
 * With `hideEvent`, the event is hidden (unpublished from the fediverse)
 * and its open reports resolved, in the same batch. Returns the report and
 * the event write to federate (null when the event stays as it is).
 */
export async function closeReport(
  deps: WriteDeps,
  moderator: UserRow,
  id: number,
  closing: ReportClosing,
): Promise<{ report: ReportJson; write: WriteResult<undefined> | null }> {
  const { db, clock } = deps;
  const [found] = await db.select(reportColumns).from(reports)
    .innerJoin(events, eq(events.id, reports.eventId))
    .where(eq(reports.id, id)) as ReportRow[];
  if (!found) throw notFound("Report");
  const now = clock.now();
  const closed = { closedAt: now, closedBy: moderator.id };
  let write: WriteResult<undefined> | null = null;
  if (closing.hideEvent) {
    write = await toggleEvent(deps, moderator, found.event.id, {
      to: false,
      alsoWrite: () => [
        db.update(reports).set({ status: closing.status, ...closed }).where(
          eq(reports.id, id),
        ),
        db.update(reports).set({ status: "resolved", ...closed }).where(
          and(
            eq(reports.eventId, found.event.id),
            eq(reports.status, "open"),
            ne(reports.id, id),
          ),
        ),
      ],
    });
  } else {
    await db.update(reports).set({ status: closing.status, ...closed }).where(
      eq(reports.id, id),
    );
  }
  const [after] = await db.select(reportColumns).from(reports)
    .innerJoin(events, eq(events.id, reports.eventId))
    .where(eq(reports.id, id)) as ReportRow[];
  return { report: serializeReport(after), write };
}
