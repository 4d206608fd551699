/**
 * Wall-clock times in an IANA time zone with Intl only (no time zone
 * database, no Temporal), so that it runs on every runtime the server targets.
 */
import type { ICalLuxonDateTimeStub } from "ical-generator";

export interface WallClock {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday .. 6 = Saturday */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, fmt);
  }
  return fmt;
}

/** The wall clock of `timeZone` at an instant (milliseconds). */
export function wallClock(instantMs: number, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (
    const p of formatterFor(timeZone).formatToParts(
      new Date(Math.floor(instantMs / 1000) * 1000),
    )
  ) {
    parts[p.type] = p.value;
  }
  let year = Number(parts.year);
  if (parts.era === "BC" || parts.era === "B") year = 1 - year;
  const month = Number(parts.month);
  const day = Number(parts.day);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return {
    year,
    month,
    day,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday,
  };
}

/** The zone's offset from UTC at an instant, in seconds (east positive). */
export function offsetSeconds(instantMs: number, timeZone: string): number {
  const w = wallClock(instantMs, timeZone);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const asUtc = new Date(0);
  asUtc.setUTCFullYear(w.year, w.month - 1, w.day);
  asUtc.setUTCHours(w.hour, w.minute, w.second, 0);
  return Math.round(
    (asUtc.getTime() - Math.floor(instantMs / 1000) * 1000) / 1000,
  );
}

/** Whether a zone name is UTC (ical-generator writes such times with `Z`). */
export function isUtc(timeZone: string): boolean {
  return /^(etc\/)?(utc|uct|gmt|zulu|universal)$/i.test(timeZone);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `YYYYMMDDTHHMMSS` of a wall clock (the iCalendar local DATE-TIME form). */
export function icalLocal(w: WallClock): string {
  return `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}T${pad(w.hour)}${
    pad(w.minute)
  }${pad(w.second)}`;
}

/**
 * An instant that ical-generator formats in a given zone. ical-generator
 * formats a plain `Date` with the zone of the process, so zoned properties
 * (DTSTART;TZID=..., EXDATE, RECURRENCE-ID) get this Luxon-shaped stub,
 * which knows only the two formats the library asks for.
 */
export function zonedInstant(
  instantMs: number,
  timeZone: string,
): ICalLuxonDateTimeStub {
  const zone = isUtc(timeZone) ? "UTC" : timeZone;
  return {
    isValid: true,
    zone: { type: "iana" },
    setZone: (other?: string) => zonedInstant(instantMs, other ?? zone),
    toFormat(fmt: string): string {
      const w = wallClock(instantMs, zone);
      if (fmt === "yyyyLLdd") return icalLocal(w).slice(0, 8);
      if (fmt === "HHmmss") return icalLocal(w).slice(9);
      throw new Error(`unsupported format ${fmt}`);
    },
    toJSDate: () => new Date(instantMs),
    toJSON: () => new Date(instantMs).toISOString(),
  };
}
