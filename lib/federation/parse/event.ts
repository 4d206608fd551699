/**
 * A remote Event -> Quando's event data: title, times, status, tags, and the
 * place and pictures (location.ts, media.ts). Pure, liberal and never
 * throwing, like the rest of parse/ (read.ts).
 */
import { EVENT_STATUSES, type EventStatus } from "../../../db/schema.ts";
import { cleanTag, uniqueTags } from "../../events/tags.ts";
import { MAX_ONLINE, parseLocations, type RemotePlace } from "./location.ts";
import { parseMedia, type RemoteMedia, websiteLink } from "./media.ts";
import {
  clip,
  description,
  fail,
  get,
  getAll,
  httpUrl,
  idOf,
  instant,
  isObject,
  type Json,
  list,
  localName,
  mapText,
  MAX_HTML,
  MAX_URL,
  ok,
  oneLine,
  pageUrl,
  type ParseResult,
  text,
  timeZone,
  types,
} from "./read.ts";

/** An Event as Quando's event data. */
export interface RemoteEvent {
  ap_id: string;
  title: string;
  /** Sanitised HTML; "" when none. */
  description: string;
  /** Unix seconds. */
  start_datetime: number;
  /** Unix seconds, after the start; null when absent or invalid. */
  end_datetime: number | null;
  status: EventStatus;
  place: RemotePlace | null;
  online_locations: string[];
  tags: string[];
  media: RemoteMedia[];
  url: string | null;
  attributedTo: string | null;
  timezone: string | null;
}

// Limits: see read.ts.
const MAX_TITLE = 250;
const MAX_TAGS = 20;
const MAX_TAG = 100;

// --- status ---

/**
 * Status words by lower-case local name: schema.org's EventStatusType (with or
 * without the "Event" prefix) and Mobilizon's iCal-style values, where a
 * tentative event is still on (Quando has no "tentative").
 */
const STATUS_BY_NAME = new Map<string, EventStatus>([
  ...EVENT_STATUSES.map((s) => [s.toLowerCase(), s] as const),
  ...EVENT_STATUSES.map((s) => [s.slice(5).toLowerCase(), s] as const),
  ["eventcanceled", "EventCancelled"],
  ["canceled", "EventCancelled"],
  ["confirmed", "EventScheduled"],
  ["tentative", "EventScheduled"],
]);

function parseStatus(obj: Json): EventStatus {
  // schema.org's eventStatus first, then Mobilizon's status / ical:status / mz:status.
  for (const value of getAll(obj, ["eventStatus", "status"]).slice(0, 10)) {
    const term = text(value) ??
      (isObject(value) ? text(get(value, "id", "@id")) : undefined);
    if (term === undefined || term.length > MAX_URL) continue;
    const status = STATUS_BY_NAME.get(localName(term.trim()).toLowerCase());
    if (status) return status;
  }
  return "EventScheduled";
}

// --- tags ---

function parseTags(tag: unknown): string[] {
  const names: string[] = [];
  for (const item of list(tag)) {
    let name: string | undefined;
    if (typeof item === "string") {
      // Mobilizon reads bare strings as tag titles; a URL is a reference.
      if (!httpUrl(item)) name = item;
    } else if (isObject(item)) {
      const t = types(item);
      // Mentions and emoji share `tag`; untyped entries are read as hashtags.
      if (t.size > 0 && !t.has("hashtag")) continue;
      name = text(get(item, "name"));
    }
    if (name === undefined) continue;
    const clean = cleanTag(oneLine(name, MAX_TAG * 2).replace(/^#+/, ""));
    if (clean && clean.length <= MAX_TAG) names.push(clean);
  }
  return uniqueTags(names).slice(0, MAX_TAGS).map((t) => t.tag);
}

// --- events ---

function parseEvent(object: unknown): ParseResult<RemoteEvent> {
  if (!isObject(object)) return fail("not an object");
  const t = types(object);
  if (t.size > 0 && !t.has("event")) {
    return fail(`not an Event (type ${clip([...t].join(", "), 100)})`);
  }
  const ap_id = httpUrl(get(object, "id", "@id"));
  if (!ap_id) return fail("id: missing or not an absolute http(s) URL");
  const title = oneLine(mapText(object, "name"), MAX_TITLE);
  if (!title) return fail("name: missing or empty");
  const start = instant(get(object, "startTime"));
  if (start === null) {
    return fail("startTime: missing or not an ISO 8601 date-time with offset");
  }
  const end = instant(get(object, "endTime"));
  const locations = parseLocations(get(object, "location"));
  if (!locations.ok) return locations;
  const online = [...locations.value.online_locations];

  const attachment = get(object, "attachment");
  // Decision on Mobilizon's "Website" link (its `online_address`): it is the
  // event's own web address, so it becomes `url` when the object has none;
  // when Mobilizon flags the event `isOnline`, the link is also where people
  // attend, so it joins online_locations. Otherwise a physical event's
  // website is not a place and is not listed as one.
  const website = websiteLink(attachment);
  if (
    website && get(object, "isOnline") === true && !online.includes(website) &&
    online.length < MAX_ONLINE
  ) online.push(website);

  return ok({
    ap_id,
    title,
    description: description(object, "content", MAX_HTML),
    start_datetime: start,
    end_datetime: end !== null && end > start ? end : null,
    status: parseStatus(object),
    place: locations.value.place,
    online_locations: online,
    tags: parseTags(get(object, "tag")),
    media: parseMedia(attachment, get(object, "image")),
    url: pageUrl(get(object, "url")) ?? website,
    // Mobilizon falls back to `actor` when `attributedTo` is absent; so do we.
    attributedTo: idOf(get(object, "attributedTo")) ??
      idOf(get(object, "actor")),
    timezone: timeZone(get(object, "timezone")),
  });
}

/** Parses an Event object; never throws. */
export function parseRemoteEvent(object: unknown): ParseResult<RemoteEvent> {
  try {
    return parseEvent(object);
  } catch {
    return fail("unreadable event");
  }
}
