/**
 * Calendar arithmetic for the month and day pages, in the instance's time
 * zone: which month "now" is in, where a day begins and ends (Unix seconds),
 * a month's weeks from the locale's first weekday, and the words of weekdays
 * and months in the page's locale. Pure functions: no database, no HTTP.
 */
import { offsetSeconds, wallClock } from "../feeds/zoned.ts";
import { formatter, type Locality } from "./format.ts";

/** The zone's offset from UTC at a moment (Unix seconds), in seconds. */
function offsetAt(unix: number, timeZone: string): number {
  return offsetSeconds(unix * 1000, timeZone);
}

/** A calendar day: year, month (1-12), day (1-31). */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** The months the calendar pages accept: from 1970 to 2199 (the API's bound on times). */
export const FIRST_YEAR = 1970;
export const LAST_YEAR = 2199;

/** The day a moment falls on in the time zone. */
export function dayOf(unix: number, timeZone: string): CalendarDay {
  const w = wallClock(unix * 1000, timeZone);
  return { year: w.year, month: w.month, day: w.day };
}

/**
 * The first moment of a day in the time zone (its midnight; where a DST
 * change skips midnight, the first moment that exists). Days beyond the end
 * of a month roll over (the 32nd of January is February 1st).
 */
export function startOfDay(day: CalendarDay, timeZone: string): number {
  const guess = Date.UTC(day.year, day.month - 1, day.day) / 1000;
  let start = guess - offsetAt(guess, timeZone);
  // The offset at the guess may differ from the offset at midnight itself.
  start = guess - offsetAt(start, timeZone);
  // Midnight skipped by a DST change: the day starts an hour later.
  if (dayOf(start, timeZone).day !== new Date(guess * 1000).getUTCDate()) {
    start = guess - offsetAt(start + 3 * 3600, timeZone);
  }
  return start;
}

/** The number of days of a month. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `YYYY-MM`. */
export function monthKey(year: number, month: number): string {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`;
}

/** `YYYY-MM-DD`. */
export function dayKeyOf(day: CalendarDay): string {
  return `${monthKey(day.year, day.month)}-${String(day.day).padStart(2, "0")}`;
}

/** A `YYYY-MM` path segment as a month within the accepted years, or null. */
export function parseMonth(
  text: string,
): { year: number; month: number } | null {
  const m = /^(\d{4})-(\d{2})$/.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (year < FIRST_YEAR || year > LAST_YEAR || month < 1 || month > 12) {
    return null;
  }
  return { year, month };
}

/** A `YYYY-MM-DD` path segment as a day that exists within the accepted years, or null. */
export function parseDay(text: string): CalendarDay | null {
  const m = /^(\d{4}-\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const month = parseMonth(m[1]);
  if (!month) return null;
  const day = Number(m[2]);
  if (day < 1 || day > daysInMonth(month.year, month.month)) return null;
  return { ...month, day };
}

/** The month before or after (`delta` -1 or 1), or null outside the accepted years. */
export function shiftMonth(
  year: number,
  month: number,
  delta: number,
): { year: number; month: number } | null {
  const index = year * 12 + (month - 1) + delta;
  const shifted = { year: Math.floor(index / 12), month: (index % 12) + 1 };
  return shifted.year < FIRST_YEAR || shifted.year > LAST_YEAR ? null : shifted;
}

/** The day before or after (`delta` -1 or 1), or null outside the accepted years. */
export function shiftDay(day: CalendarDay, delta: number): CalendarDay | null {
  const d = new Date(Date.UTC(day.year, day.month - 1, day.day + delta));
  const year = d.getUTCFullYear();
  if (year < FIRST_YEAR || year > LAST_YEAR) return null;
  return { year, month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** ISO weekday of a day: 1 = Monday ... 7 = Sunday. */
export function isoWeekday(day: CalendarDay): number {
  const d = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
  return d === 0 ? 7 : d;
}

/**
 * The first day of the week where the locale says (1 = Monday ... 7 =
 * Sunday); Monday when the runtime does not know.
 */
export function firstWeekday(locale: string): number {
  try {
    const info = new Intl.Locale(locale) as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    const first = info.getWeekInfo?.().firstDay ?? info.weekInfo?.firstDay;
    return first && first >= 1 && first <= 7 ? first : 1;
  } catch {
    return 1;
  }
}

/**
 * A month's weeks as rows of seven cells, from the locale's first weekday:
 * each cell a day of the month, or null before the first and after the last.
 */
export function monthWeeks(
  year: number,
  month: number,
  firstDay: number,
): (number | null)[][] {
  const lead = (isoWeekday({ year, month, day: 1 }) - firstDay + 7) % 7;
  const cells: (number | null)[] = Array.from({ length: lead }, () => null);
  for (let d = 1; d <= daysInMonth(year, month); d++) cells.push(d);
  while (cells.length % 7 !== 0) cells.push(null);
  const weeks: (number | null)[][] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}

/** A noon (UTC) of an ISO weekday, to name it: 2024-01-01 was a Monday. */
function weekdayDate(isoDay: number): Date {
  return new Date(Date.UTC(2024, 0, isoDay, 12));
}

/** The weekdays from `firstDay`, each in long and short words of the locale. */
export function weekdayNames(
  locale: string,
  firstDay: number,
): { long: string; short: string }[] {
  const long = formatter({ locale, timezone: "UTC" }, { weekday: "long" });
  const short = formatter({ locale, timezone: "UTC" }, { weekday: "short" });
  return Array.from({ length: 7 }, (_, i) => {
    const date = weekdayDate(((firstDay - 1 + i) % 7) + 1);
    return { long: long.format(date), short: short.format(date) };
  });
}

/** A month in words: "June 2026". */
export function monthLabel(
  year: number,
  month: number,
  locality: Pick<Locality, "locale">,
): string {
  return formatter({ locale: locality.locale, timezone: "UTC" }, {
    month: "long",
    year: "numeric",
  })
    .format(new Date(Date.UTC(year, month - 1, 15, 12)));
}

/** A day in full words: "Saturday 6 June 2026". */
export function calendarDayLabel(
  day: CalendarDay,
  locality: Pick<Locality, "locale">,
): string {
  return formatter({ locale: locality.locale, timezone: "UTC" }, {
    dateStyle: "full",
  })
    .format(new Date(Date.UTC(day.year, day.month - 1, day.day, 12)));
}

/** A short date of a moment in the time zone: "Tue 9 Jun". */
export function shortDate(unix: number, locality: Locality): string {
  return formatter(locality, {
    weekday: "short",
    day: "numeric",
    month: "short",
  }).format(new Date(unix * 1000));
}
