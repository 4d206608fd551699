/**
 * Dates, times and text for the public pages, in the instance's time zone
 * and locale. Pure functions: no database, no HTTP.
 */
import { decodeEntities } from "../html.ts";

/** Where and how to show times: the instance's IANA time zone and BCP 47 locale. */
export interface Locality {
  timezone: string;
  locale: string;
}

const cache = new Map<string, Intl.DateTimeFormat>();

/** A cached formatter; falls back to English, then UTC, if the settings are unusable. */
export function formatter(
  locality: Locality,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locality.locale}|${locality.timezone}|${
    JSON.stringify(options)
  }`;
  let f = cache.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat(locality.locale, {
        ...options,
        timeZone: locality.timezone,
      });
    } catch {
      f = new Intl.DateTimeFormat("en", { ...options, timeZone: "UTC" });
    }
    if (cache.size > 200) cache.clear();
    cache.set(key, f);
  }
  return f;
}

function dateOf(unix: number): Date {
  return new Date(unix * 1000);
}

/** The calendar day of a moment in the time zone, as `YYYY-MM-DD`. */
export function dayKey(unix: number, timezone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return formatter({ locale: "en-CA", timezone }, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(dateOf(unix));
}

/** ISO 8601 with the time zone's offset at that moment: `2026-06-06T19:00:00+02:00`. */
export function isoInZone(unix: number, timezone: string): string {
  const parts: Record<string, string> = {};
  for (
    const p of formatter({ locale: "en-US", timezone }, {
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    }).formatToParts(dateOf(unix))
  ) {
    parts[p.type] = p.value;
  }
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour) % 24,
    Number(parts.minute),
    Number(parts.second),
  );
  const offsetMinutes = Math.round((wall - unix * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const offset = offsetMinutes === 0
    ? "Z"
    : `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${
      String(abs % 60).padStart(2, "0")
    }`;
  const time = `${parts.year}-${parts.month}-${parts.day}T${
    String(Number(parts.hour) % 24).padStart(2, "0")
  }:${parts.minute}:${parts.second}`;
  return `${time}${offset}`;
}

/** A day heading: "Saturday, June 6, 2026" (in the locale's words). */
export function dayLabel(unix: number, locality: Locality): string {
  return formatter(locality, { dateStyle: "full" }).format(dateOf(unix));
}

/** When an event happens, in full words: date, start and end (one string). */
export function whenInWords(
  start: number,
  end: number | null,
  locality: Locality,
): string {
  const f = formatter(locality, { dateStyle: "full", timeStyle: "short" });
  return end !== null && end > start
    ? f.formatRange(dateOf(start), dateOf(end))
    : f.format(dateOf(start));
}

/** A moment in full words: "Saturday, June 6, 2026 at 7:00 PM". */
export function fullDateTime(unix: number, locality: Locality): string {
  return formatter(locality, { dateStyle: "full", timeStyle: "short" })
    .format(dateOf(unix));
}

/** The time of day: "7:00 PM". */
export function timeOfDay(unix: number, locality: Locality): string {
  return formatter(locality, { timeStyle: "short" }).format(dateOf(unix));
}

/** The fields of shortDateTime (the embed script formats with the same). */
export const SHORT_DATE_TIME: Readonly<Intl.DateTimeFormatOptions> = {
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
};

/** A short date and time for lists that span days: "Sat, Jun 6, 2026, 7:00 PM". */
export function shortDateTime(unix: number, locality: Locality): string {
  return formatter(locality, SHORT_DATE_TIME).format(dateOf(unix));
}

/** True when both moments fall on the same calendar day in the time zone. */
export function sameDay(a: number, b: number, timezone: string): boolean {
  return dayKey(a, timezone) === dayKey(b, timezone);
}

/**
 * How to write an event's end next to its start: the time alone when it ends
 * the same day, otherwise with its date (`style` "full" or "short"). Null
 * when there is no end after the start.
 */
export function endLabel(
  start: number,
  end: number | null,
  locality: Locality,
  style: "full" | "short",
): string | null {
  if (end === null || end <= start) return null;
  if (sameDay(start, end, locality.timezone)) return timeOfDay(end, locality);
  return style === "full"
    ? fullDateTime(end, locality)
    : shortDateTime(end, locality);
}

/** Plain text of (sanitised) HTML, whitespace collapsed, cut at `max` characters. */
export function plainText(html: string, max = 300): string {
  const stripped = html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<\/?(p|div|br|li|h[1-6]|blockquote|pre|tr)\b[^>]*>/gi, " ")
    .replace(/<[^>]*>/g, "");
  const text = decodeEntities(stripped)
    .replace(/\s+/g, " ")
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
