/**
 * A series as one recurring calendar entry: the rule, its start inside the
 * feed's window, and the exceptions that make its expansion equal the
 * occurrences the API lists (see the decisions at the top of ics.ts).
 */
import {
  occurrenceStarts,
  parseRecurrence,
  type RecurrenceRule,
} from "../events/recurrence.ts";
import type { FeedEvent, FeedOccurrence } from "./rows.ts";
import { wallClock } from "./zoned.ts";

export type RuleFrequency = "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";

/** An RRULE in parts (the wall-clock fields are those of the series start). */
export interface RulePlan {
  freq: RuleFrequency;
  interval: number;
  byDay?: string[];
  byMonthDay?: number[];
  byMonth?: number[];
  /** UNTIL: the last moment an occurrence may start (Unix seconds). */
  until?: number;
}

export interface SeriesPlan {
  /** DTSTART: the first slot of the rule in the window (Unix seconds). */
  anchor: number;
  /** Seconds from start to end, or null when the series has no end. */
  duration: number | null;
  rule: RulePlan;
  /** Slots (Unix seconds) the expansion must skip. */
  exdates: number[];
  /** Occurrences that differ from what the rule gives, by their slot. */
  overrides: { slot: number; occurrence: FeedOccurrence }[];
  /** Selected occurrences the rule no longer gives (the series was re-timed). */
  strays: FeedOccurrence[];
}

export interface FeedSeries {
  parent: FeedEvent;
  /** Its occurrences in the window and ahead (those materialised). */
  occurrences: FeedOccurrence[];
  /**
   * How the series is written (CalendarContent.timeZone and windowStart);
   * null when its rule cannot be read.
   */
  plan: SeriesPlan | null;
}

const DAY_CODES = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
/** Enough slots for a daily series over the longest window plus the horizon. */
const MAX_SLOTS = 1000;

/** The RRULE of a rule, read from the series start's wall clock in `timeZone`. */
export function rulePlan(
  rule: RecurrenceRule,
  start: number,
  timeZone: string,
): RulePlan {
  const match = /^(\d+)([dwmy])$/.exec(rule.frequency);
  if (!match) throw new Error(`Unparsed recurrence rule: ${rule.frequency}`);
  const interval = Number(match[1]);
  const local = wallClock(start * 1000, timeZone);
  const weekday = DAY_CODES[local.weekday];
  const until = rule.until !== undefined ? { until: rule.until } : {};
  switch (match[2]) {
    case "d":
      return { freq: "DAILY", interval, ...until };
    case "w":
      return { freq: "WEEKLY", interval, byDay: [weekday], ...until };
    case "y":
      return {
        freq: "YEARLY",
        interval,
        byMonth: [local.month],
        byMonthDay: [local.day],
        ...until,
      };
    default:
      return rule.type === "ordinal"
        ? { freq: "MONTHLY", interval, byMonthDay: [local.day], ...until }
        : {
          freq: "MONTHLY",
          interval,
          byDay: [`${rule.type}${weekday}`],
          ...until,
        };
  }
}

/**
 * Plans the export of a series, or null when its rule cannot be read. The
 * expansion from the anchor gives every slot; a slot up to the last one
 * materialised is skipped (EXDATE) when its occurrence was deleted, is
 * hidden, cancelled or not selected by the feed's scope; a slot whose
 * occurrence was edited on its own, moved or re-timed gets an override.
 * Slots past the materialised horizon are left to the rule.
 */
export function planSeries(
  series: Pick<FeedSeries, "parent" | "occurrences">,
  timeZone: string,
  windowStart: number,
): SeriesPlan | null {
  const parent = series.parent.row;
  let rule: RecurrenceRule;
  try {
    rule = parseRecurrence(parent.recurrent);
  } catch {
    return null;
  }
  const duration = parent.end_datetime === null
    ? null
    : parent.end_datetime - parent.start_datetime;
  const excluded = new Set(
    ((parent.recurrent?.exclude as unknown[] | undefined) ?? []).filter(
      (s): s is number => typeof s === "number",
    ),
  );
  const bySlot = new Map<number, FeedOccurrence>();
  let lastSlot = -Infinity;
  for (const o of series.occurrences) {
    const slot = o.row.recurrence_slot;
    if (slot === null) continue;
    bySlot.set(slot, o);
    lastSlot = Math.max(lastSlot, slot);
  }
  for (const s of excluded) lastSlot = Math.max(lastSlot, s);
  const slots = occurrenceStarts({
    start: parent.start_datetime,
    rule,
    timeZone,
    from: windowStart - (duration ?? 0),
    until: Number.isFinite(lastSlot) ? lastSlot + 1 : 0,
    minCount: 1,
    maxCount: MAX_SLOTS,
  });
  if (slots.length === 0) return null;
  const exdates: number[] = [];
  const overrides: SeriesPlan["overrides"] = [];
  const given = new Set(slots);
  for (const slot of slots) {
    const o = bySlot.get(slot);
    if (!o) {
      if (slot <= lastSlot) exdates.push(slot);
      continue;
    }
    if (!o.selected || o.row.status === "EventCancelled") {
      exdates.push(slot);
      continue;
    }
    const expectedEnd = duration === null ? null : slot + duration;
    if (
      o.row.occurrence_edited || o.row.start_datetime !== slot ||
      o.row.end_datetime !== expectedEnd
    ) {
      overrides.push({ slot, occurrence: o });
    }
  }
  const strays = series.occurrences.filter((o) =>
    o.selected &&
    (o.row.recurrence_slot === null || !given.has(o.row.recurrence_slot)) &&
    (o.row.end_datetime ?? o.row.start_datetime) >= windowStart
  );
  return {
    anchor: slots[0],
    duration,
    rule: rulePlan(rule, parent.start_datetime, timeZone),
    exdates,
    overrides,
    strays,
  };
}
