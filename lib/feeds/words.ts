/** Dates, places and descriptions of feed entries in words, for people. */
import type { EventStatus } from "../../db/schema.ts";
import { NAMED_ENTITIES } from "../html.ts";
import type { FeedEvent } from "./rows.ts";

export interface Locality {
  locale: string;
  timeZone: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatter(
  locality: Locality,
  kind: "full" | "time",
): Intl.DateTimeFormat {
  const key = `${locality.locale}|${locality.timeZone}|${kind}`;
  let fmt = formats.get(key);
  if (!fmt) {
    const options: Intl.DateTimeFormatOptions = kind === "full"
      ? { dateStyle: "full", timeStyle: "short", timeZone: locality.timeZone }
      : { timeStyle: "short", timeZone: locality.timeZone };
    try {
      fmt = new Intl.DateTimeFormat(locality.locale, options);
    } catch {
      fmt = new Intl.DateTimeFormat("en", options);
    }
    formats.set(key, fmt);
  }
  return fmt;
}

/** "Monday, June 8, 2026 at 7:00 PM – 9:00 PM" in the instance's locale and zone. */
export function whenInWords(
  start: number,
  end: number | null,
  locality: Locality,
): string {
  const full = formatter(locality, "full");
  const from = new Date(start * 1000);
  if (end === null) return full.format(from);
  return full.formatRange(from, new Date(end * 1000));
}

/** Place name and address, or the online locations. */
export function whereInWords(event: FeedEvent): string {
  const place = event.place;
  if (place) {
    return place.address ? `${place.name}, ${place.address}` : place.name;
  }
  return event.row.online_locations.length ? "Online" : "";
}

const STATUS_WORDS: Partial<Record<EventStatus, string>> = {
  EventCancelled: "Cancelled",
  EventPostponed: "Postponed",
  EventRescheduled: "Rescheduled",
  EventMovedOnline: "Moved online",
};

/** A word for a status other than scheduled, or null. */
export function statusInWords(status: EventStatus): string | null {
  return STATUS_WORDS[status] ?? null;
}

export { escapeHtml } from "../html.ts";

/** Plain text of (already sanitised) HTML: block ends become line breaks. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|li|blockquote|pre|tr)>/gi, "\n")
    .replace(/<li[^>]*>/gi, "- ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, code: string) => {
      if (code[0] === "#") {
        const n = code[1] === "x" || code[1] === "X"
          ? parseInt(code.slice(2), 16)
          : parseInt(code.slice(1), 10);
        try {
          return String.fromCodePoint(n);
        } catch {
          return m;
        }
      }
      return NAMED_ENTITIES[code.toLowerCase()] ?? m;
    })
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
