/** Machine-readable descriptions of the public pages: schema.org JSON-LD and link helpers. */
import { publicMediaUrl } from "../../../lib/media/public.ts";
import type { PlaceRow } from "../../../lib/events/serialize.ts";
import { isoInZone, plainText } from "../../../lib/pages/format.ts";
import { isWebUrl } from "../../../lib/pages/links.ts";
import type { EventPage, Occurrence } from "../../../lib/pages/load.ts";
import { scheduleJsonLd, seriesRule } from "../../../lib/pages/repeats.ts";
import type { RulePlan } from "../../../lib/feeds/series.ts";
import type { SiteInfo } from "./shell.tsx";

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

export { isWebUrl, mapUrl } from "../../../lib/pages/links.ts";
import { mapUrl } from "../../../lib/pages/links.ts";

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
export function schemaPlace(place: PlaceRow) {
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

/**
 * What an event page shows as its dates and rule: a series' page is about
 * its next date (the first upcoming one not cancelled; its own first date
 * when none is left) and its rule; an occurrence's carries its series' rule.
 */
export interface Shown {
  start: number;
  end: number | null;
  /** For a series: the date shown (null when none is to come). */
  next: Occurrence | null;
  /** The rule of the series (the event's own, or its series'), or null. */
  rule: RulePlan | null;
  /** Where the rule starts: the series' first start. */
  ruleStart: number;
  ruleEnd: number | null;
  isSeries: boolean;
}

export function shownDates(page: EventPage, timezone: string): Shown {
  const { event, series } = page;
  const isSeries = event.recurrent !== null && event.parentId === null;
  if (isSeries) {
    const next = page.occurrences.find((o) => o.status !== "EventCancelled") ??
      null;
    return {
      start: next?.start_datetime ?? event.start_datetime,
      end: next ? next.end_datetime : event.end_datetime,
      next,
      rule: seriesRule(event.recurrent, event.start_datetime, timezone),
      ruleStart: event.start_datetime,
      ruleEnd: event.end_datetime,
      isSeries,
    };
  }
  return {
    start: event.start_datetime,
    end: event.end_datetime,
    next: null,
    rule: series
      ? seriesRule(series.recurrent, series.start_datetime, timezone)
      : null,
    ruleStart: series?.start_datetime ?? event.start_datetime,
    ruleEnd: series?.end_datetime ?? null,
    isSeries,
  };
}

/**
 * A schema.org Event (https://schema.org/Event) for the event page's JSON-LD
 * block: a series carries its `eventSchedule`, an occurrence its series as
 * `superEvent`; a remote event's organiser is its actor, with the original
 * page as `sameAs`.
 */
export function eventJsonLd(
  page: EventPage,
  site: SiteInfo,
  canonical: string,
) {
  const { event, place, origin } = page;
  const shown = shownDates(page, site.timezone);
  const online = event.online_locations.filter(isWebUrl);
  const movedOnline = event.status === "EventMovedOnline" && online.length > 0;
  const locations: unknown[] = [
    ...(place && !movedOnline ? [schemaPlace(place)] : []),
    ...online.map((url) => ({ "@type": "VirtualLocation", url })),
  ];
  const mode = movedOnline
    ? "OnlineEventAttendanceMode"
    : place && online.length
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
  const schedule = shown.rule
    ? scheduleJsonLd(
      shown.rule,
      shown.ruleStart,
      shown.ruleEnd,
      site.timezone,
    )
    : null;
  const series = page.series;
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: event.title,
    url: canonical,
    startDate: isoInZone(shown.start, site.timezone),
    ...(shown.end !== null
      ? { endDate: isoInZone(shown.end, site.timezone) }
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
    ...(shown.isSeries && schedule ? { eventSchedule: schedule } : {}),
    ...(series && series.is_visible
      ? {
        superEvent: {
          "@type": "Event",
          name: series.title,
          url: `${site.baseUrl}${eventPath(series.slug)}`,
          ...(schedule ? { eventSchedule: schedule } : {}),
        },
      }
      : {}),
    ...(origin?.url ? { sameAs: origin.url } : {}),
    organizer: origin
      ? {
        "@type": "Organization",
        name: origin.actor ?? origin.host,
        url: event.apUserApId,
      }
      : {
        "@type": "Organization",
        name: site.title,
        url: `${site.baseUrl}/`,
      },
  };
}

/** A schema.org Place for a place's page. */
export function placeJsonLd(place: PlaceRow, canonical: string) {
  return {
    "@context": "https://schema.org",
    ...schemaPlace(place),
    url: canonical,
    ...(place.latitude !== null && place.longitude !== null
      ? { hasMap: mapUrl(place) }
      : {}),
  };
}
