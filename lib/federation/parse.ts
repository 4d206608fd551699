/**
 * ActivityPub JSON from other servers -> Quando's data. Pure functions: no I/O,
 * no database. Parsing is liberal (docs/FEDERATION.md): Gancio, Mobilizon and
 * Mastodon each shape events, places and replies a little differently, and a
 * peer's oddity should cost a field, not the whole object. Only what Quando
 * cannot do without (id, title, start) rejects an object. Nothing here throws:
 * the input is whatever arrived in an inbox.
 */
import { EVENT_STATUSES, type EventStatus } from "../../db/schema.ts";
import { sanitizeDescription } from "../events/sanitize.ts";
import { cleanTag, uniqueTags } from "../events/tags.ts";

export interface RemotePlace {
  name: string;
  /** One line: the string address, or the PostalAddress parts joined ", "; "" when none. */
  address: string;
  /** The PostalAddress fields when given. */
  postal_address: Record<string, string> | null;
  latitude: number | null;
  longitude: number | null;
  /** The Place's id when it has one. */
  ap_id: string | null;
}

export interface RemoteMedia {
  url: string;
  name: string;
  focalpoint: [number, number];
  width: number | null;
  height: number | null;
}

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

export type ParseResult<T> = { ok: true; value: T } | {
  ok: false;
  reason: string;
};

/** A Note (reply) as resource data. */
export interface RemoteNote {
  ap_id: string;
  /** Sanitised HTML. */
  content: string;
  /** Ids (http(s) URLs) of the objects replied to. */
  inReplyTo: string[];
  attributedTo: string | null;
  url: string | null;
  /** ISO 8601 in UTC, or null. */
  published: string | null;
  /** Sanitised HTML (Mastodon's content warning), or null. */
  summary: string | null;
  /** The raw attachment objects, at most 4. */
  attachment: unknown[];
}

// Limits: remote data is cut to what local data may hold
// (routes/events/schemas.ts), so a peer cannot store more than a local user;
// the title is a little roomier because other software allows longer titles
// than Quando's own form.
const MAX_TITLE = 250;
const MAX_PLACE_NAME = 200;
const MAX_ADDRESS = 300;
const MAX_POSTAL_FIELD = 200;
const MAX_HTML = 50_000;
const MAX_SUMMARY = 5_000;
const MAX_MEDIA = 10;
const MAX_MEDIA_NAME = 500;
const MAX_ONLINE = 10;
const MAX_TAGS = 20;
const MAX_TAG = 100;
const MAX_URL = 2048;
const MAX_NOTE_ATTACHMENTS = 4;
/** Entries read from any one list: bounds the work a hostile array can cause. */
const MAX_ITEMS = 50;
/** Keys scanned when looking for a prefixed term ("schema:x", "mz:x"). */
const MAX_KEYS = 200;
/** Unix seconds from 1970 up to (not including) 2200-01-01, as the local API. */
const MAX_TIMESTAMP = 7_258_118_400;

type Json = Record<string, unknown>;

const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });
const fail = <T>(reason: string): ParseResult<T> => ({ ok: false, reason });

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The local part of a term: "https://schema.org/Place", "schema:Place",
 * "mz:Place" and "Place" all name a Place. Peers compact with different
 * contexts (or not at all), so terms are compared by this part only.
 */
function localName(term: string): string {
  const i = Math.max(
    term.lastIndexOf("#"),
    term.lastIndexOf("/"),
    term.lastIndexOf(":"),
  );
  return term.slice(i + 1);
}

/**
 * Values of the first matching own key, best first: exact keys in the order of
 * `names`, then keys whose local part matches (e.g. "ical:status" for
 * "status"). Null values count as absent.
 */
function getAll(obj: Json, names: readonly string[]): unknown[] {
  const found: { rank: number; value: unknown }[] = [];
  names.forEach((name, i) => {
    if (Object.hasOwn(obj, name) && obj[name] != null) {
      found.push({ rank: 2 * i, value: obj[name] });
    }
  });
  let seen = 0;
  for (const key in obj) {
    if (++seen > MAX_KEYS) break;
    if (!Object.hasOwn(obj, key) || names.includes(key)) continue;
    const i = names.indexOf(localName(key));
    if (i >= 0 && obj[key] != null) {
      found.push({ rank: 2 * i + 1, value: obj[key] });
    }
  }
  return found.sort((a, b) => a.rank - b.rank).map((f) => f.value);
}

function get(obj: Json, ...names: string[]): unknown {
  for (const name of names) {
    if (Object.hasOwn(obj, name) && obj[name] != null) return obj[name];
  }
  return getAll(obj, names)[0];
}

/** A JSON-LD value as a string: plain, or `{"@value": "..."}` (expanded form). */
function text(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObject(v) && typeof v["@value"] === "string") return v["@value"];
  return undefined;
}

/** `name`, else the first non-empty value of `nameMap` (language maps). */
function mapText(obj: Json, name: string): string | undefined {
  const direct = text(get(obj, name));
  if (direct !== undefined && direct.trim() !== "") return direct;
  const map = get(obj, `${name}Map`);
  if (!isObject(map)) return direct;
  let seen = 0;
  for (const key in map) {
    if (++seen > MAX_KEYS) break;
    const value = Object.hasOwn(map, key) ? text(map[key]) : undefined;
    if (value !== undefined && value.trim() !== "") return value;
  }
  return direct;
}

/** A list from a value that may be one item, an array or absent; bounded. */
function list(v: unknown): unknown[] {
  if (v == null) return [];
  return Array.isArray(v) ? v.slice(0, MAX_ITEMS) : [v];
}

/** The object's types by local name, lower case. */
function types(obj: Json): Set<string> {
  const out = new Set<string>();
  for (const t of list(get(obj, "type", "@type"))) {
    const s = text(t);
    if (s !== undefined && s.length <= MAX_URL) {
      out.add(localName(s.trim()).toLowerCase());
    }
  }
  return out;
}

/** Cut to `max` UTF-16 units without leaving half a surrogate pair. */
function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Plain text on one line: control characters and runs of spaces become one space. */
function oneLine(v: unknown, max: number): string {
  const s = text(v);
  if (s === undefined) return "";
  // Cut before the regex so a huge string costs little.
  const line = clip(s, max * 4).replace(/[\p{Cc}\s]+/gu, " ").trim();
  return clip(line, max).trim();
}

/** An absolute http(s) URL as given (trimmed), or null: never `javascript:` and the like. */
function httpUrl(v: unknown): string | null {
  const s = text(v)?.trim();
  if (!s || s.length > MAX_URL || /[\p{Cc}\s]/u.test(s)) return null;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.hostname ? s : null;
}

/** A URL given as a string or as a Link (`href`, else `url`). */
function linkUrl(v: unknown): string | null {
  const direct = httpUrl(v);
  if (direct || !isObject(v)) return direct;
  return httpUrl(get(v, "href")) ?? httpUrl(get(v, "url"));
}

/** An id given as a string, an object with `id`, or an array of those (first usable http(s) one). */
export function idOf(v: unknown): string | null {
  for (const item of list(v)) {
    const id = isObject(item) ? httpUrl(get(item, "id", "@id")) : httpUrl(item);
    if (id) return id;
  }
  return null;
}

function mediaTypeOf(obj: Json): string {
  return oneLine(get(obj, "mediaType"), 100).toLowerCase();
}

/**
 * The human page: a string, a Link, or an array where the first text/html
 * entry wins (PeerTube lists the page beside video files), else the first
 * usable one.
 */
function pageUrl(v: unknown): string | null {
  if (!Array.isArray(v)) return linkUrl(v);
  const items = list(v);
  for (const item of items) {
    if (isObject(item) && mediaTypeOf(item).startsWith("text/html")) {
      const url = linkUrl(item);
      if (url) return url;
    }
  }
  for (const item of items) {
    const url = linkUrl(item);
    if (url) return url;
  }
  return null;
}

// --- dates ---

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * Unix seconds of an ISO 8601 date-time with an offset or Z. A time without an
 * offset is rejected rather than guessed: the server's zone would be a guess.
 * Parsed by hand because Date.parse accepts (and reinterprets) much more.
 */
function instant(v: unknown): number | null {
  const s = text(v)?.trim();
  if (!s || s.length > 40) return null;
  const m = ISO_DATETIME.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) =>
    Number(m[i])
  );
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (
    year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth ||
    hour > 23 || minute > 59 || second > 60
  ) return null;
  let offsetMinutes = 0;
  const zone = m[7];
  if (zone !== "Z" && zone !== "z") {
    const digits = zone.slice(1).replace(":", "");
    const hours = Number(digits.slice(0, 2));
    const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  // A leap second (":60") is read as the last second of its minute.
  const utc = Date.UTC(
    year,
    month - 1,
    day,
    hour,
    minute,
    Math.min(second, 59),
  );
  const seconds = utc / 1000 - offsetMinutes * 60;
  return seconds >= 0 && seconds < MAX_TIMESTAMP ? seconds : null;
}

/**
 * An IANA time zone name that Intl knows; offsets like "+02:00" are not zones.
 * The sender's spelling is kept (ICU would turn "America/Argentina/Buenos_Aires"
 * into its older alias), only its case is fixed when ICU names the same zone.
 */
function timeZone(v: unknown): string | null {
  const s = text(v)?.trim();
  if (
    !s || s.length > 64 ||
    !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(s)
  ) return null;
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: s })
      .resolvedOptions().timeZone;
    return resolved.toLowerCase() === s.toLowerCase() ? resolved : s;
  } catch {
    return null;
  }
}

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

// --- locations ---

/** schema.org PostalAddress fields, in the order of the one-line address. */
const POSTAL_FIELDS = [
  "streetAddress",
  "postOfficeBoxNumber",
  "postalCode",
  "addressLocality",
  "addressRegion",
  "addressCountry",
] as const;

function postalFields(address: Json): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const field of POSTAL_FIELDS) {
    let value = get(address, field);
    // schema.org allows a Country object for addressCountry.
    if (isObject(value)) value = get(value, "name");
    const s = oneLine(value, MAX_POSTAL_FIELD);
    if (s) out[field] = s;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** "street, postal code + locality, region, country": the order of a written address. */
function postalLine(p: Record<string, string>): string {
  const parts = [
    p.streetAddress,
    p.postOfficeBoxNumber,
    [p.postalCode, p.addressLocality].filter(Boolean).join(" "),
    p.addressRegion,
    p.addressCountry,
  ].filter(Boolean);
  return clip(parts.join(", "), MAX_ADDRESS);
}

function coordinate(v: unknown, limit: number): number | null {
  let n: number;
  if (typeof v === "number") n = v;
  else if (
    typeof v === "string" && /^\s*[+-]?\d{1,3}(\.\d{1,20})?\s*$/.test(v)
  ) {
    n = Number(v);
  } else return null;
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

/** A virtual location's URL: its `url` (string or Link), else `href`, else its id. */
function virtualUrl(obj: Json): string | null {
  return linkUrl(get(obj, "url")) ?? httpUrl(get(obj, "href")) ??
    httpUrl(get(obj, "id", "@id"));
}

function isVirtualAddress(address: Json): boolean {
  if (types(address).has("virtuallocation")) return true;
  // An untyped address carrying only a URL is virtual too (Gancio's own
  // reader keys on `address.url`).
  return types(address).size === 0 && postalFields(address) === null &&
    linkUrl(get(address, "url")) !== null;
}

type LocationEntry =
  | { kind: "place"; place: RemotePlace }
  | { kind: "online"; url: string }
  | { kind: "invalid"; reason: string }
  | { kind: "skip" };

function parseLocationEntry(entry: unknown): LocationEntry {
  // A bare string is a reference we would have to fetch: not ours to do here.
  if (!isObject(entry)) return { kind: "skip" };
  const entryTypes = types(entry);
  if (entryTypes.has("virtuallocation") || entryTypes.has("link")) {
    const url = virtualUrl(entry);
    return url
      ? { kind: "online", url }
      : { kind: "invalid", reason: "a virtual location needs an http(s) url" };
  }

  let address = get(entry, "address");
  if (Array.isArray(address)) {
    address = list(address).find((a) => typeof a === "string" || isObject(a));
  }
  // A bare PostalAddress used as the location is its own address.
  if (address === undefined && entryTypes.has("postaladdress")) address = entry;

  if (isObject(address) && isVirtualAddress(address)) {
    const url = virtualUrl(address) ?? linkUrl(get(entry, "url")) ??
      httpUrl(get(entry, "id", "@id"));
    return url
      ? { kind: "online", url }
      : { kind: "invalid", reason: "a virtual location needs an http(s) url" };
  }

  const name = oneLine(mapText(entry, "name"), MAX_PLACE_NAME);
  if (!name) return { kind: "invalid", reason: "a place needs a name" };

  let line = "";
  let postal: Record<string, string> | null = null;
  if (isObject(address)) {
    postal = postalFields(address);
    line = postal
      ? postalLine(postal)
      : oneLine(mapText(address, "name"), MAX_ADDRESS);
  } else {
    line = oneLine(address, MAX_ADDRESS);
  }

  let latitude = coordinate(get(entry, "latitude"), 90);
  let longitude = coordinate(get(entry, "longitude"), 180);
  // Half a coordinate locates nothing.
  if (latitude === null || longitude === null) latitude = longitude = null;

  return {
    kind: "place",
    place: {
      name,
      address: line,
      postal_address: postal,
      latitude,
      longitude,
      ap_id: httpUrl(get(entry, "id", "@id")),
    },
  };
}

/** Parses `location` alone (object, array, or undefined). */
export function parseLocations(
  location: unknown,
): ParseResult<{ place: RemotePlace | null; online_locations: string[] }> {
  try {
    let place: RemotePlace | null = null;
    const online: string[] = [];
    let valid = 0;
    let invalid: string | null = null;
    for (const entry of list(location)) {
      const parsed = parseLocationEntry(entry);
      if (parsed.kind === "place") {
        valid++;
        place ??= parsed.place; // the first physical place wins
      } else if (parsed.kind === "online") {
        valid++;
        if (!online.includes(parsed.url) && online.length < MAX_ONLINE) {
          online.push(parsed.url);
        }
      } else if (parsed.kind === "invalid") {
        invalid ??= parsed.reason;
      }
    }
    // One bad entry beside good ones is dropped; a location made only of bad
    // entries means the sender meant a place we cannot show, so it fails.
    if (invalid !== null && valid === 0) return fail(`location: ${invalid}`);
    return ok({ place, online_locations: online });
  } catch {
    return fail("location: unreadable");
  }
}

// --- tags, media, attachments ---

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

/** Raster images only: an SVG can carry script. */
function isImageType(mediaType: string): boolean {
  return mediaType.startsWith("image/") && !mediaType.startsWith("image/svg");
}

function dimension(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v > 0 && v <= 100_000
    ? v
    : null;
}

/** Mastodon's focalPoint `[x, y]` in [-1, 1]; [0, 0] (the centre) otherwise. */
function focalPoint(v: unknown): [number, number] {
  const pair = isObject(v) ? v["@list"] : v;
  if (!Array.isArray(pair) || pair.length < 2) return [0, 0];
  const [x, y] = pair;
  if (
    typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) ||
    !Number.isFinite(y)
  ) return [0, 0];
  const clamp = (n: number) => Math.min(1, Math.max(-1, n));
  return [clamp(x), clamp(y)];
}

/** The image URL of a media object: `url` as string, Link or array (image entries first). */
function mediaUrl(obj: Json): string | null {
  const url = get(obj, "url") ?? get(obj, "href");
  if (!Array.isArray(url)) return linkUrl(url);
  const items = list(url);
  for (const item of items) {
    if (isObject(item) && isImageType(mediaTypeOf(item))) {
      const u = linkUrl(item);
      if (u) return u;
    }
  }
  for (const item of items) {
    const u = linkUrl(item);
    if (u) return u;
  }
  return null;
}

function parseMediaItem(item: unknown, fromImage: boolean): RemoteMedia | null {
  if (typeof item === "string" && fromImage) {
    const url = httpUrl(item);
    return url
      ? { url, name: "", focalpoint: [0, 0], width: null, height: null }
      : null;
  }
  if (!isObject(item)) return null;
  const t = types(item);
  const mediaType = mediaTypeOf(item);
  const image = t.has("image")
    ? mediaType === "" || isImageType(mediaType)
    : (t.has("document") || (fromImage && t.size === 0)) &&
      isImageType(mediaType);
  if (!image) return null;
  const url = mediaUrl(item);
  if (!url) return null;
  return {
    url,
    name: oneLine(
      mapText(item, "name") ?? mapText(item, "summary"),
      MAX_MEDIA_NAME,
    ),
    focalpoint: focalPoint(get(item, "focalPoint")),
    width: dimension(get(item, "width")),
    height: dimension(get(item, "height")),
  };
}

/** Image attachments, then `image`, without repeats, at most MAX_MEDIA. */
function parseMedia(attachment: unknown, image: unknown): RemoteMedia[] {
  const out: RemoteMedia[] = [];
  const candidates = [
    ...list(attachment).map((item) => [item, false] as const),
    ...list(image).map((item) => [item, true] as const),
  ];
  for (const [item, fromImage] of candidates) {
    if (out.length >= MAX_MEDIA) break;
    const media = parseMediaItem(item, fromImage);
    if (media && !out.some((m) => m.url === media.url)) out.push(media);
  }
  return out;
}

/** Mobilizon's `online_address`: a Link (or Document) attachment named "Website". */
function websiteLink(attachment: unknown): string | null {
  for (const item of list(attachment)) {
    if (!isObject(item)) continue;
    const t = types(item);
    if (t.size > 0 && !t.has("link") && !t.has("document")) continue;
    if (oneLine(get(item, "name"), 50).toLowerCase() !== "website") continue;
    const url = httpUrl(get(item, "href")) ?? linkUrl(get(item, "url"));
    if (url) return url;
  }
  return null;
}

/** Plain text as HTML: escaped, blank lines make paragraphs, newlines breaks. */
function plainToHtml(s: string): string {
  const escaped = s.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  return escaped.split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, "<br>")}</p>`)
    .join("");
}

/**
 * Sanitised HTML from `field` (or its language map). AS content is HTML unless
 * the object's `mediaType` says otherwise; plain text is escaped so that its
 * "<" survives as text instead of being read as markup.
 */
function description(obj: Json, field: string, max: number): string {
  const raw = mapText(obj, field);
  if (raw === undefined) return "";
  const mediaType = mediaTypeOf(obj);
  const plain = mediaType !== "" && !mediaType.includes("html");
  return sanitizeDescription(
    plain ? plainToHtml(clip(raw, max)) : clip(raw, max),
  );
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

// --- notes ---

/** Object types that can be a reply; Mastodon, Mobilizon and Pleroma send Note. */
const NOTE_TYPES = new Set(["note", "article", "page", "question"]);

function parseNote(object: unknown): ParseResult<RemoteNote> {
  if (!isObject(object)) return fail("not an object");
  const t = types(object);
  if (t.size > 0 && ![...t].some((x) => NOTE_TYPES.has(x))) {
    return fail(`not a Note (type ${clip([...t].join(", "), 100)})`);
  }
  const ap_id = httpUrl(get(object, "id", "@id"));
  if (!ap_id) return fail("id: missing or not an absolute http(s) URL");
  const inReplyTo: string[] = [];
  for (const item of list(get(object, "inReplyTo"))) {
    const id = idOf(item);
    if (id && !inReplyTo.includes(id)) inReplyTo.push(id);
  }
  const published = instant(get(object, "published"));
  const summary = description(object, "summary", MAX_SUMMARY);
  return ok({
    ap_id,
    content: description(object, "content", MAX_HTML),
    inReplyTo,
    attributedTo: idOf(get(object, "attributedTo")) ??
      idOf(get(object, "actor")),
    url: pageUrl(get(object, "url")),
    published: published === null
      ? null
      : new Date(published * 1000).toISOString(),
    summary: summary === "" ? null : summary,
    // Raw, but only objects (strings are references) and only a few.
    attachment: list(get(object, "attachment")).filter(isObject).slice(
      0,
      MAX_NOTE_ATTACHMENTS,
    ),
  });
}

/** Parses a Note (a reply) into resource data; never throws. */
export function parseRemoteNote(object: unknown): ParseResult<RemoteNote> {
  try {
    return parseNote(object);
  } catch {
    return fail("unreadable note");
  }
}
