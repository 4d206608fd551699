/**
 * Local events as ActivityStreams objects (FEP-8a8e, Gancio-compatible):
 * what `/federation/m/{id}` serves and what Create/Update carry.
 */
import type { MediaItem } from "../../db/schema.ts";
import { escapeHtml } from "../html.ts";
import { imageTypeOf, publicMediaUrl } from "../media/public.ts";
import type { EventRow, PlaceRow } from "../events/serialize.ts";
import { formatter } from "../pages/format.ts";

/** How an object's summary writes its start. */
const SUMMARY_DATE: Intl.DateTimeFormatOptions = {
  dateStyle: "full",
  timeStyle: "short",
};

export const AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/** The JSON-LD context of our objects: ActivityStreams plus the schema.org and Mobilizon terms used. */
export const EVENT_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    toot: "http://joinmastodon.org/ns#",
    schema: "http://schema.org/",
    mz: "https://joinmobilizon.org/ns#",
    ical: "http://www.w3.org/2002/12/cal/ical#",
    Hashtag: "as:Hashtag",
    PostalAddress: "schema:PostalAddress",
    VirtualLocation: "schema:VirtualLocation",
    address: { "@id": "schema:address" },
    addressCountry: "schema:addressCountry",
    addressLocality: "schema:addressLocality",
    addressRegion: "schema:addressRegion",
    postalCode: "schema:postalCode",
    streetAddress: "schema:streetAddress",
    eventStatus: { "@id": "schema:eventStatus" },
    timezone: { "@id": "mz:timezone", "@type": "schema:Text" },
    joinMode: { "@id": "mz:joinMode", "@type": "mz:joinModeType" },
    externalParticipationUrl: {
      "@id": "mz:externalParticipationUrl",
      "@type": "schema:URL",
    },
    // Mobilizon's term for the iCalendar status (it sends and reads both
    // `status` and `ical:status`).
    status: { "@id": "ical:status" },
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
  },
];

/** URLs of the federation surface, all derived from the public origin. */
export interface FederationUrls {
  base: string;
  actorName: string;
}

/** The instance actor's id. */
export function actorUrl(u: FederationUrls): string {
  return `${u.base}/federation/u/${encodeURIComponent(u.actorName)}`;
}

/** An event's AP id. */
export function eventObjectUrl(base: string, id: number): string {
  return `${base}/federation/m/${id}`;
}

/** The local event id behind one of our AP object URLs, or null. */
export function localEventIdFromUrl(base: string, url: string): number | null {
  const prefix = `${base}/federation/m/`;
  if (!url.startsWith(prefix)) return null;
  const rest = url.slice(prefix.length).split(/[#?]/)[0];
  return /^[1-9]\d{0,15}$/.test(rest) ? Number(rest) : null;
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/**
 * The title, then where and when in words: what servers that show only
 * `summary` (Mastodon) or show it as a content warning (Misskey,
 * GoToSocial, Pleroma, Friendica) display.
 */
export function summaryInWords(
  event: EventRow,
  place: PlaceRow | null,
  timezone: string,
  locale: string,
): string {
  // A formatter kept per locale and zone: making one costs more than the
  // rest of the object (an API read builds it when none was sent).
  const when = formatter({ locale, timezone }, SUMMARY_DATE)
    .format(new Date(event.start_datetime * 1000));
  const where = place
    ? [place.name, place.address].filter(Boolean).join(", ")
    : event.online_locations[0] ?? "";
  return [event.title, where && `📍 ${where}`, `📅 ${when}`].filter(Boolean)
    .join("\n");
}

/** The iCalendar status (RFC 5545) Mobilizon reads, from our schema.org `eventStatus`. */
export function icalStatus(
  status: string,
): "CONFIRMED" | "CANCELLED" | "TENTATIVE" {
  switch (status) {
    case "EventCancelled":
      return "CANCELLED";
    case "EventPostponed":
      return "TENTATIVE";
    default:
      // EventScheduled, EventRescheduled, EventMovedOnline.
      return "CONFIRMED";
  }
}

/** Everything the AP form of an event is built from. */
export interface EventObjectInput {
  event: EventRow;
  place: PlaceRow | null;
  tags: string[];
  urls: FederationUrls;
  timezone: string;
  locale: string;
}

/** A place as the `location` of our events, and as served at `/federation/p/{id}`. */
export function placeObject(base: string, place: PlaceRow) {
  const postal = place.postal_address as Record<string, unknown> | null;
  return {
    type: "Place",
    id: `${base}/federation/p/${place.id}`,
    name: place.name,
    address: {
      type: "PostalAddress",
      ...(postal && typeof postal === "object" ? postal : {}),
      streetAddress: typeof postal?.streetAddress === "string"
        ? postal.streetAddress
        : place.address,
    },
    ...(place.latitude !== null ? { latitude: place.latitude } : {}),
    ...(place.longitude !== null ? { longitude: place.longitude } : {}),
  };
}

function virtualLocation(url: string) {
  return {
    type: "Place",
    id: url,
    name: url,
    address: { type: "VirtualLocation", url },
  };
}

function attachment(base: string, item: MediaItem) {
  return {
    type: "Document",
    mediaType: imageTypeOf(item.url),
    url: publicMediaUrl(base, item),
    name: item.name || null,
    focalPoint: item.focalpoint ?? [0, 0],
    ...(item.width ? { width: item.width } : {}),
    ...(item.height ? { height: item.height } : {}),
  };
}

/** The Place object served at `/federation/p/{id}` (the events' location ids). */
export function buildPlaceObject(base: string, place: PlaceRow) {
  return { "@context": EVENT_CONTEXT, ...placeObject(base, place) };
}

/** The Event object as served at `/federation/m/{id}` and carried by activities. */
export function buildEventObject(input: EventObjectInput) {
  const { event, place, tags, urls } = input;
  const base = urls.base;
  const actor = actorUrl(urls);
  const locations = [
    ...(place ? [placeObject(base, place)] : []),
    ...event.online_locations.map(virtualLocation),
  ];
  const summary = summaryInWords(event, place, input.timezone, input.locale);
  const page = `${base}/event/${event.slug}`;
  return {
    "@context": EVENT_CONTEXT,
    id: eventObjectUrl(base, event.id),
    type: "Event",
    name: event.title,
    url: page,
    attributedTo: actor,
    to: [AS_PUBLIC],
    cc: [`${actor}/followers`],
    published: event.createdAt.toISOString(),
    updated: event.updatedAt.toISOString(),
    startTime: isoSeconds(event.start_datetime),
    ...(event.end_datetime !== null
      ? { endTime: isoSeconds(event.end_datetime) }
      : {}),
    timezone: input.timezone,
    mediaType: "text/html",
    content: event.description ||
      `<p>${escapeHtml(summary).replace(/\n/g, "<br>")}</p>`,
    summary,
    // One location as one object: Mobilizon's converter has no case for a
    // list, and Gancio's Update handler reads `location.name` and
    // `location.address` directly. A list only for several (a place and
    // online links), as Gancio sends them; its Create path reads both.
    ...(locations.length === 1
      ? { location: locations[0] }
      : locations.length > 1
      ? { location: locations }
      : {}),
    // Always arrays, even of one: Gancio and Mobilizon read these as lists.
    attachment: event.media.map((m) => attachment(base, m)),
    tag: tags.map((t) => ({
      type: "Hashtag",
      name: `#${t}`,
      href: `${base}/tag/${encodeURIComponent(t)}`,
    })),
    eventStatus: event.status,
    // Mobilizon reads `status` (then `ical:status`): both, as it sends them.
    status: icalStatus(event.status),
    "ical:status": icalStatus(event.status),
    // Quando takes no registrations: participation is on the event's page
    // (FEP-8a8e and Mobilizon allow free, restricted, invite, external).
    joinMode: "external",
    externalParticipationUrl: page,
  };
}

export type EventObject = ReturnType<typeof buildEventObject>;
