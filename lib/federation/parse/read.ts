/**
 * ActivityPub JSON from other servers -> Quando's data: how its values are
 * read. Pure functions: no I/O, no database. Parsing is liberal
 * (docs/FEDERATION.md): Gancio, Mobilizon and Mastodon each shape events,
 * places and replies a little differently, and a peer's oddity should cost a
 * field, not the whole object. Only what Quando cannot do without (id, title,
 * start) rejects an object. Nothing here throws: the input is whatever
 * arrived in an inbox. The objects themselves: event.ts, note.ts, with
 * location.ts and media.ts.
 */
import { sanitizeDescription } from "../../events/sanitize.ts";

/** What a parse returns: the value, or the reason it was refused. */
export type ParseResult<T> = { ok: true; value: T } | {
  ok: false;
  reason: string;
};

// Limits: remote data is cut to what local data may hold (routes/api/events/schemas.ts),
// so a peer cannot store more than a local user; the title is a little roomier
// because other software allows longer titles than Quando's own form. Each
// file keeps the limits of its own fields.
/** Characters of HTML read from content (and kept after sanitising). */
export const MAX_HTML = 50_000;
/** Characters in a URL, id or type term. */
export const MAX_URL = 2048;
/** Entries read from any one list: bounds the work a hostile array can cause. */
const MAX_ITEMS = 50;
/** Keys scanned when looking for a prefixed term ("schema:x", "mz:x"). */
const MAX_KEYS = 200;
/** Unix seconds from 1970 up to (not including) 2200-01-01, as the local API. */
const MAX_TIMESTAMP = 7_258_118_400;

/** A JSON object. */
export type Json = Record<string, unknown>;

/** A parsed value. */
export const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });
/** A refusal, with the reason. */
export const fail = <T>(reason: string): ParseResult<T> => ({
  ok: false,
  reason,
});

/** Whether `v` is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The local part of a term: "https://schema.org/Place", "schema:Place",
 * "mz:Place" and "Place" all name a Place. Peers compact with different
 * contexts (or not at all), so terms are compared by this part only.
 */
export function localName(term: string): string {
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
export function getAll(obj: Json, names: readonly string[]): unknown[] {
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

/** The value of the first of `names` present, exact keys first (see getAll). */
export function get(obj: Json, ...names: string[]): unknown {
  for (const name of names) {
    if (Object.hasOwn(obj, name) && obj[name] != null) return obj[name];
  }
  return getAll(obj, names)[0];
}

/** A JSON-LD value as a string: plain, or `{"@value": "..."}` (expanded form). */
export function text(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObject(v) && typeof v["@value"] === "string") return v["@value"];
  return undefined;
}

/** `name`, else the first non-empty value of `nameMap` (language maps). */
export function mapText(obj: Json, name: string): string | undefined {
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
export function list(v: unknown): unknown[] {
  if (v == null) return [];
  return Array.isArray(v) ? v.slice(0, MAX_ITEMS) : [v];
}

/** The object's types by local name, lower case. */
export function types(obj: Json): Set<string> {
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
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Plain text on one line: control characters and runs of spaces become one space. */
export function oneLine(v: unknown, max: number): string {
  const s = text(v);
  if (s === undefined) return "";
  // Cut before the regex so a huge string costs little.
  const line = clip(s, max * 4).replace(/[\p{Cc}\s]+/gu, " ").trim();
  return clip(line, max).trim();
}

/** An absolute http(s) URL as given (trimmed), or null: never `javascript:` and the like. */
export function httpUrl(v: unknown): string | null {
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
export function linkUrl(v: unknown): string | null {
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

/** The object's `mediaType`, lower case; "" when none. */
export function mediaTypeOf(obj: Json): string {
  return oneLine(get(obj, "mediaType"), 100).toLowerCase();
}

/**
 * The human page: a string, a Link, or an array where the first text/html
 * entry wins (PeerTube lists the page beside video files), else the first
 * usable one.
 */
export function pageUrl(v: unknown): string | null {
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
export function instant(v: unknown): number | null {
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
export function timeZone(v: unknown): string | null {
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

// --- text ---

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
export function description(obj: Json, field: string, max: number): string {
  const raw = mapText(obj, field);
  if (raw === undefined) return "";
  const mediaType = mediaTypeOf(obj);
  const plain = mediaType !== "" && !mediaType.includes("html");
  return sanitizeDescription(
    plain ? plainToHtml(clip(raw, max)) : clip(raw, max),
  );
}
