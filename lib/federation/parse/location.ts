/**
 * Where a remote event happens: its `location` as one physical place (with a
 * PostalAddress or a one-line address, and coordinates) and online addresses.
 * Pure and liberal, like the rest of parse/ (read.ts).
 */
import {
  clip,
  fail,
  get,
  httpUrl,
  isObject,
  type Json,
  linkUrl,
  list,
  mapText,
  ok,
  oneLine,
  type ParseResult,
  types,
} from "./read.ts";

/** A physical place from a remote `location`. */
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

// Limits: see read.ts.
const MAX_PLACE_NAME = 200;
const MAX_ADDRESS = 300;
const MAX_POSTAL_FIELD = 200;
/** Online addresses kept per event. */
export const MAX_ONLINE = 10;

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
