/**
 * VTIMEZONE components built from the runtime's Intl time zone data, for
 * ical-generator (which has no time zone database of its own).
 *
 * The zone's offset transitions over the given years are found by sampling.
 * When each kind of transition (to summer time, to standard time) falls every
 * year on the same "n-th / last weekday of a month" (or the same day of the
 * month) at the same local time, it is written as a yearly RRULE, so that the
 * component stays right for any later date; otherwise (zones whose rules
 * change, e.g. ones following a lunar calendar) every transition in the range
 * is written out.
 */
import { offsetSeconds } from "./zoned.ts";

interface Transition {
  /** The instant of the change (ms). */
  at: number;
  /** Offsets before and after, in seconds. */
  from: number;
  to: number;
}

const HOUR_MS = 3_600_000;
const DAY_NAMES = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

function transitions(
  timeZone: string,
  startMs: number,
  endMs: number,
): Transition[] {
  const out: Transition[] = [];
  const step = 12 * HOUR_MS;
  let prevT = startMs;
  let prevO = offsetSeconds(startMs, timeZone);
  for (let t = startMs + step; t <= endMs; t += step) {
    const o = offsetSeconds(t, timeZone);
    if (o === prevO) {
      prevT = t;
      continue;
    }
    // The first whole second with the new offset.
    let lo = prevT;
    let hi = t;
    while (hi - lo > 1000) {
      const mid = Math.floor((lo + hi) / 2000) * 1000;
      if (mid <= lo) break;
      if (offsetSeconds(mid, timeZone) === prevO) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, from: prevO, to: o });
    prevT = t;
    prevO = o;
  }
  return out;
}

function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${sign}${pad(h)}${pad(m)}${s ? pad(s) : ""}`;
}

/** Local wall time (in the offset before the change) as UTC fields. */
function localBefore(t: Transition): Date {
  return new Date(t.at + t.from * 1000);
}

function icalLocal(d: Date): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${
    pad(d.getUTCDate())
  }T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/** The yearly rule all these transitions follow, or null. */
function yearlyRule(list: Transition[], years: number[]): string | null {
  if (list.length < 2 || list.length !== years.length) return null;
  const locals = list.map(localBefore);
  if (locals.some((d, i) => d.getUTCFullYear() !== years[i])) return null;
  const first = locals[0];
  const same = (f: (d: Date) => number) =>
    locals.every((d) => f(d) === f(first));
  if (
    !same((d) => d.getUTCMonth()) ||
    !same((d) =>
      d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 +
      d.getUTCSeconds()
    )
  ) {
    return null;
  }
  const month = first.getUTCMonth() + 1;
  if (same((d) => d.getUTCDay())) {
    const day = DAY_NAMES[first.getUTCDay()];
    const isLast = (d: Date) =>
      d.getUTCDate() + 7 > daysInMonth(d.getUTCFullYear(), d.getUTCMonth());
    if (locals.every(isLast)) {
      return `FREQ=YEARLY;BYMONTH=${month};BYDAY=-1${day}`;
    }
    if (same((d) => Math.ceil(d.getUTCDate() / 7))) {
      return `FREQ=YEARLY;BYMONTH=${month};BYDAY=${
        Math.ceil(first.getUTCDate() / 7)
      }${day}`;
    }
  }
  if (same((d) => d.getUTCDate())) {
    return `FREQ=YEARLY;BYMONTH=${month};BYMONTHDAY=${first.getUTCDate()}`;
  }
  return null;
}

function observance(t: Transition, rrule: string | null): string[] {
  const kind = t.to > t.from ? "DAYLIGHT" : "STANDARD";
  return [
    `BEGIN:${kind}`,
    `TZOFFSETFROM:${formatOffset(t.from)}`,
    `TZOFFSETTO:${formatOffset(t.to)}`,
    `DTSTART:${icalLocal(localBefore(t))}`,
    ...(rrule ? [`RRULE:${rrule}`] : []),
    `END:${kind}`,
  ];
}

const cache = new Map<string, string>();

/** The VTIMEZONE of an IANA zone, right at least for the years given. */
export function vtimezone(
  timeZone: string,
  fromYear: number,
  toYear: number,
): string {
  const last = Math.max(toYear, fromYear + 1);
  const key = `${timeZone}|${fromYear}|${last}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const startMs = Date.UTC(fromYear, 0, 1);
  const found = transitions(timeZone, startMs, Date.UTC(last + 1, 0, 1) - 1);
  const lines = ["BEGIN:VTIMEZONE", `TZID:${timeZone}`];
  if (found.length === 0) {
    const offset = formatOffset(offsetSeconds(startMs, timeZone));
    lines.push(
      "BEGIN:STANDARD",
      `TZOFFSETFROM:${offset}`,
      `TZOFFSETTO:${offset}`,
      "DTSTART:19700101T000000",
      "END:STANDARD",
    );
  } else {
    const years = Array.from(
      { length: last - fromYear + 1 },
      (_, i) => fromYear + i,
    );
    const groups = new Map<string, Transition[]>();
    for (const t of found) {
      const k = `${t.from}|${t.to}`;
      groups.set(k, [...groups.get(k) ?? [], t]);
    }
    const rules = [...groups.values()].map((g) => ({
      first: g[0],
      rule: yearlyRule(g, years),
    }));
    if (rules.every((r) => r.rule !== null)) {
      for (const r of rules) lines.push(...observance(r.first, r.rule));
    } else {
      // Irregular: the offset before the range, then every change in it.
      const before = found[0].from;
      lines.push(
        "BEGIN:STANDARD",
        `TZOFFSETFROM:${formatOffset(before)}`,
        `TZOFFSETTO:${formatOffset(before)}`,
        "DTSTART:19700101T000000",
        "END:STANDARD",
      );
      for (const t of found) lines.push(...observance(t, null));
    }
  }
  lines.push("END:VTIMEZONE");
  const text = lines.join("\r\n");
  if (cache.size > 100) cache.clear();
  cache.set(key, text);
  return text;
}
