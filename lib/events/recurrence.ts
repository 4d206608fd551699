import * as rrule from "rrule";
import type { Options, Weekday } from "rrule";
import { invalidRequest } from "../errors.ts";
import { offsetSeconds } from "../feeds/zoned.ts";

// Deno loads rrule's CommonJS build, whose exports sit on `default` (named
// imports type-check but fail there); bundlers take its ES module build,
// which has named exports and no default (`import rrule from` breaks them).
const { RRule } = (Reflect.get(rrule, "default") as typeof rrule | undefined) ??
  rrule;

/** A validated recurrence rule. */
export interface RecurrenceRule {
  /** Normalized count + unit, e.g. "1w", "2w", "1m", "3d", "1y". */
  frequency: string;
  /** Normalized: "ordinal" | "1" | "2" | "3" | "4" | "-1". */
  type: string;
  /** Unix seconds: no occurrence starts after this moment (absent: no end). */
  until?: number;
}

const FREQUENCY_RE = /^(\d{1,2})([dwmy])$/;
const MONTHLY_TYPES = new Set(["ordinal", "1", "2", "3", "4", "-1"]);
const DEFAULT_MAX_COUNT = 500;
const DAY_MS = 86_400_000;
/** Unix seconds of 2200-01-01, the API's bound on times. */
const MAX_UNTIL = 7_258_118_400;
// rrule stops at year 9999 anyway; an explicit bound keeps `between` usable.
const FAR_FUTURE = new Date(Date.UTC(9999, 11, 31, 23, 59, 59));

/** Validates a client-supplied `recurrent` object; throws invalidRequest (400) when unsupported. */
export function parseRecurrence(
  input: unknown,
  field = "recurrent",
): RecurrenceRule {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalidRequest("Invalid recurrence", [
      { field, message: "Must be an object with a frequency" },
    ]);
  }
  const rec = input as Record<string, unknown>;

  const rawFrequency = rec.frequency;
  const match = typeof rawFrequency === "string"
    ? FREQUENCY_RE.exec(rawFrequency.trim().toLowerCase())
    : null;
  const count = match ? Number(match[1]) : 0;
  if (!match || count < 1 || count > 99) {
    throw invalidRequest("Invalid recurrence", [{
      field: `${field}.frequency`,
      message:
        'Must be a count from 1 to 99 followed by d, w, m or y (e.g. "1w")',
    }]);
  }
  const unit = match[2];
  const frequency = `${count}${unit}`;

  const rawType = rec.type;
  const type = rawType === undefined || rawType === null
    ? "ordinal"
    : typeof rawType === "number" || typeof rawType === "string"
    ? String(rawType).trim().toLowerCase()
    : undefined;

  const rawUntil = rec.until;
  if (
    rawUntil !== undefined && rawUntil !== null &&
    (typeof rawUntil !== "number" || !Number.isInteger(rawUntil) ||
      rawUntil < 0 || rawUntil >= MAX_UNTIL)
  ) {
    throw invalidRequest("Invalid recurrence", [{
      field: `${field}.until`,
      message: "Must be Unix seconds (the last moment an occurrence may start)",
    }]);
  }
  const until = typeof rawUntil === "number" ? { until: rawUntil } : {};

  if (unit === "m") {
    if (type === undefined || !MONTHLY_TYPES.has(type)) {
      throw invalidRequest("Invalid recurrence", [{
        field: `${field}.type`,
        message: 'Monthly type must be "ordinal", 1, 2, 3, 4 or -1',
      }]);
    }
    return { frequency, type, ...until };
  }
  // Days, weeks and years have no relative variant, so the type only matters
  // as far as rejecting garbage.
  if (type !== "ordinal" && type !== "relative") {
    throw invalidRequest("Invalid recurrence", [{
      field: `${field}.type`,
      message: 'Must be "ordinal" or "relative" (or omitted)',
    }]);
  }
  return { frequency, type: "ordinal", ...until };
}

/**
 * Occurrence start times (Unix seconds) of a series, in order: from `from`,
 * until `until` or `minCount` slots (whichever gives more), never more than
 * `maxCount`, and never one starting after the rule's own `until`.
 */
export function occurrenceStarts(params: {
  start: number;
  rule: RecurrenceRule;
  timeZone: string;
  from: number;
  until: number;
  minCount: number;
  maxCount?: number;
}): number[] {
  const { start, rule, timeZone, from, until, minCount } = params;
  const maxCount = params.maxCount ?? DEFAULT_MAX_COUNT;
  const out: number[] = [];
  if (maxCount <= 0) return out;

  // Returns false when no more slots are wanted.
  const offer = (slot: number): boolean => {
    if (out.length >= maxCount) return false;
    if (rule.until !== undefined && slot > rule.until) return false;
    if (slot >= until && out.length >= minCount) return false;
    out.push(slot);
    return out.length < maxCount;
  };

  // The series start is always the first slot, even if it does not match the
  // rule pattern (RFC 5545 counts DTSTART as the first instance).
  if (start >= from && !offer(start)) return out;

  const localStart = new Date(start * 1000 + offsetMs(start * 1000, timeZone));
  const rr = new RRule(ruleOptions(rule, localStart), true);
  // Floating (local) times differ from instants by at most a zone offset
  // (< 1 day), so begin a day early and filter on real instants below.
  const lowerMs = Math.max(from, start) * 1000 - DAY_MS;
  rr.between(new Date(lowerMs), FAR_FUTURE, true, (d) => {
    const slot = Math.floor(localToInstantMs(d.getTime(), timeZone) / 1000);
    if (slot <= start || slot < from) return true;
    return offer(slot);
  });
  return out;
}

/** rrule options for a rule whose dtstart is the floating local start. */
function ruleOptions(rule: RecurrenceRule, dtstart: Date): Partial<Options> {
  const match = FREQUENCY_RE.exec(rule.frequency);
  if (!match) throw new Error(`Unparsed recurrence rule: ${rule.frequency}`);
  const interval = Number(match[1]);
  const base = { dtstart, interval, tzid: null };
  switch (match[2]) {
    case "d":
      return { ...base, freq: RRule.DAILY };
    case "w":
      return { ...base, freq: RRule.WEEKLY, byweekday: weekdayOf(dtstart) };
    case "y":
      return {
        ...base,
        freq: RRule.YEARLY,
        bymonth: dtstart.getUTCMonth() + 1,
        bymonthday: dtstart.getUTCDate(),
      };
    default: {
      if (rule.type === "ordinal") {
        return {
          ...base,
          freq: RRule.MONTHLY,
          bymonthday: dtstart.getUTCDate(),
        };
      }
      const nth = Number(rule.type);
      return {
        ...base,
        freq: RRule.MONTHLY,
        byweekday: weekdayOf(dtstart).nth(nth),
      };
    }
  }
}

/** The rrule weekday of a floating date (read from its UTC fields). */
function weekdayOf(d: Date): Weekday {
  // JS: 0 = Sunday; rrule's table starts at Monday.
  const days = [
    RRule.SU,
    RRule.MO,
    RRule.TU,
    RRule.WE,
    RRule.TH,
    RRule.FR,
    RRule.SA,
  ];
  return days[d.getUTCDay()];
}

/** Zone names that are UTC at every instant. */
const FIXED_UTC = new Set(["UTC", "Etc/UTC", "Etc/UCT", "Etc/GMT", "GMT"]);

/** Zone offset (local minus UTC, ms) in force at an instant. */
function offsetMs(instantMs: number, timeZone: string): number {
  // The default zone: no need to ask Intl (three calls per series slot).
  if (FIXED_UTC.has(timeZone)) return 0;
  return offsetSeconds(instantMs, timeZone) * 1000;
}

/**
 * The instant (ms) a floating local time (ms, its UTC fields read as the
 * wall clock) denotes in `timeZone`: in a fall-back overlap the earlier
 * one, in a spring-forward gap the wall time moved forward by the gap.
 */
export function localToInstantMs(localMs: number, timeZone: string): number {
  // Zones change offset at most once within a couple of days, so the
  // offsets a day either side cover every candidate.
  const before = offsetMs(localMs - DAY_MS, timeZone);
  const after = offsetMs(localMs + DAY_MS, timeZone);
  const candidates = [...new Set([before, after])]
    .map((o) => localMs - o)
    .filter((t) => t + offsetMs(t, timeZone) === localMs);
  // Ambiguous (fall back): the earlier instant.
  if (candidates.length > 0) return Math.min(...candidates);
  // Nonexistent (spring forward gap): using the pre-transition offset lands
  // after the transition, i.e. the wall time moved forward by the gap.
  return localMs - before;
}
