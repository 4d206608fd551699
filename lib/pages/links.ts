/**
 * Links an event page offers, built on the server as plain URLs (no script,
 * nothing asked of a third party until the visitor follows one): adding the
 * event to Google Calendar or Outlook.com, directions and the map on
 * OpenStreetMap; and where a remote event comes from.
 */
import type { PlaceRow } from "../events/serialize.ts";
import { htmlToText } from "../feeds/words.ts";

/** Only http(s) URLs become links; anything else (javascript:, data:) stays text. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url);
}

/** What a calendar service is told about one date of an event. */
export interface CalendarEntry {
  title: string;
  /** Unix seconds. */
  start: number;
  /** Unix seconds, or null when the event has no announced end. */
  end: number | null;
  /** Sanitised HTML. */
  description: string;
  place: Pick<PlaceRow, "name" | "address"> | null;
  online: string[];
  /** The event's public page, added under the description. */
  pageUrl: string;
}

/** How long an event without an end lasts in a calendar service: one hour. */
export const DEFAULT_DURATION = 3600;
/** How much of the description goes into a calendar link. */
const DESCRIPTION_MAX = 600;

/** `20260606T170000Z` (iCalendar basic form, UTC), as Google wants it. */
function utcBasic(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/[-:]/g, "").replace(
    /\.\d{3}/,
    "",
  );
}

/** `2026-06-06T17:00:00Z`, as Outlook.com wants it. */
function utcExtended(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}/, "");
}

/** The place in one line, or the first online link. */
function locationLine(entry: CalendarEntry): string {
  if (entry.place) {
    return entry.place.address
      ? `${entry.place.name}, ${entry.place.address}`
      : entry.place.name;
  }
  return entry.online.find(isWebUrl) ?? "";
}

/** The description as plain text, cut short, with the page's address. */
function details(entry: CalendarEntry): string {
  let text = htmlToText(entry.description);
  if (text.length > DESCRIPTION_MAX) {
    const cut = text.slice(0, DESCRIPTION_MAX - 1);
    const space = cut.lastIndexOf(" ");
    text = `${
      (space > DESCRIPTION_MAX * 0.6 ? cut.slice(0, space) : cut).trimEnd()
    }…`;
  }
  const online = entry.place ? entry.online.filter(isWebUrl) : [];
  return [text, ...online, entry.pageUrl].filter(Boolean).join("\n\n");
}

function endOf(entry: CalendarEntry): number {
  return entry.end !== null && entry.end > entry.start
    ? entry.end
    : entry.start + DEFAULT_DURATION;
}

/** Google Calendar's "create event" page filled with this date (times in UTC). */
export function googleCalendarUrl(entry: CalendarEntry): string {
  const params = new URLSearchParams({
    action: "TEMPLATE",
    text: entry.title,
    dates: `${utcBasic(entry.start)}/${utcBasic(endOf(entry))}`,
    details: details(entry),
    location: locationLine(entry),
  });
  return `https://calendar.google.com/calendar/render?${params}`;
}

/** Outlook.com's "new event" page filled with this date (times in UTC). */
export function outlookCalendarUrl(entry: CalendarEntry): string {
  const params = new URLSearchParams({
    path: "/calendar/action/compose",
    rru: "addevent",
    subject: entry.title,
    startdt: utcExtended(entry.start),
    enddt: utcExtended(endOf(entry)),
    body: details(entry),
    location: locationLine(entry),
  });
  return `https://outlook.live.com/calendar/0/deeplink/compose?${params}`;
}

/** Coordinates as OpenStreetMap writes them (at most 6 decimals, about 10 cm). */
function coordinate(value: number): string {
  return String(Math.round(value * 1e6) / 1e6);
}

/** The OpenStreetMap page centred on a place, or null without coordinates. */
export function mapUrl(
  place: Pick<PlaceRow, "latitude" | "longitude">,
): string | null {
  if (place.latitude === null || place.longitude === null) return null;
  const lat = coordinate(place.latitude), lon = coordinate(place.longitude);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`;
}

/**
 * Directions to a place on OpenStreetMap: to its coordinates, else a search
 * for its address (`kind` says which); null when it has neither.
 */
export function directionsUrl(
  place: Pick<PlaceRow, "latitude" | "longitude" | "address">,
): { kind: "route" | "search"; url: string } | null {
  if (place.latitude !== null && place.longitude !== null) {
    const lat = coordinate(place.latitude), lon = coordinate(place.longitude);
    const to = new URLSearchParams({ to: `${lat},${lon}` });
    return {
      kind: "route",
      url:
        `https://www.openstreetmap.org/directions?${to}#map=16/${lat}/${lon}`,
    };
  }
  const address = place.address.trim();
  if (!address) return null;
  return {
    kind: "search",
    url: `https://www.openstreetmap.org/search?${new URLSearchParams({
      query: address,
    })}`,
  };
}

/** Where a remote event comes from. */
export interface EventOrigin {
  /** The host of the actor that published it (`gancio.example`). */
  host: string;
  /** The actor's name, when it has one. */
  actor: string | null;
  /** The original page (http(s)), or null. */
  url: string | null;
}

/** The first http(s) address of an ActivityStreams `url` (a string, a Link, or a list of them). */
function firstWebUrl(value: unknown): string | null {
  for (const item of Array.isArray(value) ? value : [value]) {
    const href = typeof item === "string"
      ? item
      : item && typeof item === "object"
      ? (item as Record<string, unknown>).href
      : null;
    if (typeof href === "string" && isWebUrl(href)) {
      // A Link may say it is not a page (an image, a feed): keep HTML ones.
      const type = (item as Record<string, unknown>)?.mediaType;
      if (typeof type === "string" && !/html/i.test(type)) continue;
      return href;
    }
  }
  return null;
}

/** A string of an actor's JSON-LD (`name`, or `preferredUsername`), trimmed and bounded. */
function actorName(object: unknown): string | null {
  if (!object || typeof object !== "object") return null;
  const o = object as Record<string, unknown>;
  for (const value of [o.name, o.preferredUsername]) {
    if (typeof value === "string" && value.trim()) {
      return value.trim().slice(0, 100);
    }
  }
  return null;
}

/**
 * Where a remote event (received over federation) comes from: its actor's
 * host and name, and its original page (the object's `url`, else its id
 * when that is a web address). Null for a local event.
 */
export function eventOrigin(
  event: {
    apUserApId: string | null;
    ap_id: string | null;
    ap_object: unknown;
  },
  actorObject: unknown,
): EventOrigin | null {
  if (!event.apUserApId) return null;
  let host: string;
  try {
    host = new URL(event.apUserApId).host;
  } catch {
    return null;
  }
  const object = event.ap_object && typeof event.ap_object === "object"
    ? event.ap_object as Record<string, unknown>
    : {};
  const url = firstWebUrl(object.url) ??
    (event.ap_id && isWebUrl(event.ap_id) ? event.ap_id : null);
  return { host, actor: actorName(actorObject), url };
}
