/** Machine-readable descriptions of the public pages: schema.org JSON-LD and link helpers. */
import { publicMediaUrl } from "../../lib/media/public.ts";
import type { PlaceRow } from "../../lib/events/serialize.ts";
import { isoInZone, plainText } from "../../lib/pages/format.ts";
import type { EventPage } from "../../lib/pages/load.ts";
import type { SiteInfo } from "./site.tsx";

/** The public page of an event. */
export function eventPath(slug: string): string {
  return `/event/${encodeURIComponent(slug)}`;
}

/** The page of a tag. */
export function tagPath(tag: string): string {
  return `/tag/${encodeURIComponent(tag)}`;
}

/** The page of a place. */
export function placePath(id: number): string {
  return `/place/${id}`;
}

/** The page of a collection. */
export function collectionPath(name: string): string {
  return `/collection/${encodeURIComponent(name)}`;
}

/** Only http(s) URLs become links; anything else (javascript:, data:) is shown as text. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(url);
}

/** The OpenStreetMap page centred on a place, or null without coordinates. */
export function mapUrl(place: PlaceRow): string | null {
  if (place.latitude === null || place.longitude === null) return null;
  const lat = place.latitude, lon = place.longitude;
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`;
}

const POSTAL_FIELDS = [
  "streetAddress",
  "addressLocality",
  "addressRegion",
  "postalCode",
  "addressCountry",
] as const;

function postalAddress(place: PlaceRow) {
  const stored = place.postal_address;
  const out: Record<string, string> = { "@type": "PostalAddress" };
  if (stored && typeof stored === "object" && !Array.isArray(stored)) {
    for (const field of POSTAL_FIELDS) {
      const value = (stored as Record<string, unknown>)[field];
      if (typeof value === "string" && value.trim()) out[field] = value;
    }
  }
  if (!out.streetAddress && place.address) out.streetAddress = place.address;
  return out;
}

/** The place as a schema.org Place with its PostalAddress and coordinates. */
function schemaPlace(place: PlaceRow) {
  return {
    "@type": "Place",
    name: place.name,
    address: postalAddress(place),
    ...(place.latitude !== null && place.longitude !== null
      ? {
        geo: {
          "@type": "GeoCoordinates",
          latitude: place.latitude,
          longitude: place.longitude,
        },
      }
      : {}),
  };
}

/** A schema.org Event (https://schema.org/Event) for the event page's JSON-LD block. */
export function eventJsonLd(
  page: EventPage,
  site: SiteInfo,
  canonical: string,
) {
  const { event, place } = page;
  const online = event.online_locations.filter(isWebUrl);
  const locations: unknown[] = [
    ...(place ? [schemaPlace(place)] : []),
    ...online.map((url) => ({ "@type": "VirtualLocation", url })),
  ];
  const mode = place && online.length
    ? "MixedEventAttendanceMode"
    : online.length
    ? "OnlineEventAttendanceMode"
    : "OfflineEventAttendanceMode";
  const images = event.media.map((m) => publicMediaUrl(site.baseUrl, m)).filter(
    (
      u,
    ): u is string => u !== null,
  );
  const description = plainText(event.description, 5000);
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: event.title,
    url: canonical,
    startDate: isoInZone(event.start_datetime, site.timezone),
    ...(event.end_datetime !== null
      ? { endDate: isoInZone(event.end_datetime, site.timezone) }
      : {}),
    eventStatus: `https://schema.org/${event.status}`,
    eventAttendanceMode: `https://schema.org/${mode}`,
    ...(locations.length === 1
      ? { location: locations[0] }
      : locations.length > 1
      ? { location: locations }
      : {}),
    ...(images.length ? { image: images } : {}),
    ...(description ? { description } : {}),
    ...(page.tags.length ? { keywords: page.tags.join(", ") } : {}),
    organizer: {
      "@type": "Organization",
      name: site.title,
      url: `${site.baseUrl}/`,
    },
  };
}
