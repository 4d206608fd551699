/**
 * The public pages: home (upcoming events by day), event, tag, place,
 * collection, and the HTML error page. Events carry h-event microformats.
 */
import { publicMediaUrl } from "../../lib/media/public.ts";
import { raw } from "hono/html";
import type { EventStatus } from "../../db/schema.ts";
import type { EventSummary, PlaceRow } from "../../lib/events/serialize.ts";
import {
  endLabel,
  fullDateTime,
  isoInZone,
  plainText,
  shortDateTime,
  timeOfDay,
  whenInWords,
} from "../../lib/pages/format.ts";
import {
  type EventPage,
  type HomePage,
  LISTING_LIMITS,
  type SplitListing,
} from "../../lib/pages/load.ts";
import { type FeedScope, type SiteInfo, SitePage } from "./site.tsx";
import {
  eventJsonLd,
  eventPath,
  isWebUrl,
  mapUrl,
  placePath,
  tagPath,
} from "./structured.ts";

const STATUS_WORDS: Record<EventStatus, { badge: string; notice: string }> = {
  EventScheduled: { badge: "", notice: "" },
  EventCancelled: {
    badge: "Cancelled",
    notice: "This event has been cancelled.",
  },
  EventPostponed: {
    badge: "Postponed",
    notice: "This event has been postponed; the new date is not known yet.",
  },
  EventRescheduled: {
    badge: "Rescheduled",
    notice: "This event has been rescheduled: check the new date below.",
  },
  EventMovedOnline: {
    badge: "Moved online",
    notice: "This event has moved online.",
  },
};

function StatusBadge(props: { status: EventStatus }) {
  const words = STATUS_WORDS[props.status];
  if (!words?.badge) return null;
  return <span class={`badge st-${props.status}`}>{words.badge}</span>;
}

/** One event in a list, as an h-event. */
function EventItem(
  props: { event: EventSummary; site: SiteInfo; withDate: boolean },
) {
  const { event, site } = props;
  const start = props.withDate
    ? shortDateTime(event.start_datetime, site)
    : timeOfDay(event.start_datetime, site);
  const end = endLabel(
    event.start_datetime,
    event.end_datetime,
    site,
    "short",
  );
  const cancelled = event.status === "EventCancelled";
  return (
    <li class={`h-event event-item${cancelled ? " is-cancelled" : ""}`}>
      <h3>
        <a class="p-name u-url" href={eventPath(event.slug)}>{event.title}</a>
        <StatusBadge status={event.status} />
      </h3>
      <p class="meta">
        <time
          class="dt-start"
          datetime={isoInZone(event.start_datetime, site.timezone)}
        >
          {start}
        </time>
        {end !== null && event.end_datetime !== null && (
          <>
            {" – "}
            <time
              class="dt-end"
              datetime={isoInZone(event.end_datetime, site.timezone)}
            >
              {end}
            </time>
          </>
        )}
        {event.place && (
          <>
            {" · "}
            <a class="p-location" href={placePath(event.place.id)}>
              {event.place.name}
            </a>
          </>
        )}
      </p>
      {event.tags.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {event.tags.map((tag) => (
            <li>
              <a class="p-category" href={tagPath(tag)}>#{tag}</a>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function EventList(
  props: { events: EventSummary[]; site: SiteInfo; withDate: boolean },
) {
  return (
    <ol class="events">
      {props.events.map((event) => (
        <EventItem event={event} site={props.site} withDate={props.withDate} />
      ))}
    </ol>
  );
}

/** The home page: upcoming events grouped by day, with paging. */
export function HomeView(
  props: { site: SiteInfo; nonce: string; data: HomePage },
) {
  const { site, data } = props;
  const base = site.baseUrl;
  const pageUrl = (n: number) => n === 1 ? "/" : `/?page=${n}`;
  const empty = data.days.length === 0;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: data.page === 1
          ? site.title
          : `Upcoming events, page ${data.page}`,
        description: site.description ||
          `Upcoming events on ${site.title}`,
        canonical: `${base}${pageUrl(data.page)}`,
        feeds: { path: "", label: "all events" },
        prev: data.hasPrevious ? pageUrl(data.page - 1) : undefined,
        next: data.hasNext ? pageUrl(data.page + 1) : undefined,
      }}
    >
      <h1>
        Upcoming events
        {data.page > 1 && <span class="muted">(page {data.page})</span>}
      </h1>
      {site.description && data.page === 1 && (
        <p class="muted intro">{site.description}</p>
      )}
      {empty && (
        <p class="empty">
          {data.page === 1
            ? "No upcoming events yet."
            : "There are no more upcoming events."}
        </p>
      )}
      <div class="h-feed">
        {data.days.map((day) => {
          const id = `day-${day.key}`;
          return (
            <section class="day" aria-labelledby={id}>
              <h2 id={id}>{day.label ?? "Happening now"}</h2>
              <EventList
                events={day.events}
                site={site}
                withDate={day.label === null}
              />
            </section>
          );
        })}
      </div>
      {(data.hasPrevious || data.hasNext) && (
        <nav class="pager" aria-label="Pages">
          {data.hasPrevious && (
            <a class="prev" rel="prev" href={pageUrl(data.page - 1)}>
              ← Previous page
            </a>
          )}
          {data.hasNext && (
            <a class="next" rel="next" href={pageUrl(data.page + 1)}>
              Next page →
            </a>
          )}
        </nav>
      )}
    </SitePage>
  );
}

function PlaceDetails(props: { place: PlaceRow; link: boolean }) {
  const { place } = props;
  const map = mapUrl(place);
  return (
    <div class="p-location h-card">
      {props.link
        ? <a class="p-name u-url" href={placePath(place.id)}>{place.name}</a>
        : <span class="p-name">{place.name}</span>}
      {place.address && (
        <>
          <br />
          <span class="p-street-address">{place.address}</span>
        </>
      )}
      {map && (
        <>
          <data class="p-latitude" value={String(place.latitude)}></data>
          <data class="p-longitude" value={String(place.longitude)}></data>
          <br />
          <a class="map" href={map} rel="noopener">
            Show on the map (OpenStreetMap)
          </a>
        </>
      )}
    </div>
  );
}

/** An event's page: an h-event with JSON-LD, OpenGraph and a calendar link. */
export function EventView(
  props: { site: SiteInfo; nonce: string; data: EventPage },
) {
  const { site, data } = props;
  const { event, place } = data;
  const canonical = `${site.baseUrl}${eventPath(event.slug)}`;
  const image = event.media
    .map((m) => ({ item: m, url: publicMediaUrl(site.baseUrl, m) }))
    .find((m) => m.url !== null);
  const end = endLabel(event.start_datetime, event.end_datetime, site, "full");
  const online = event.online_locations;
  const status = STATUS_WORDS[event.status];
  const summary = [
    whenInWords(event.start_datetime, event.end_datetime, site),
    place?.name,
  ].filter(Boolean).join(" · ");
  const excerpt = plainText(event.description, 240);
  const original = event.apUserApId && event.ap_id && isWebUrl(event.ap_id)
    ? event.ap_id
    : null;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: event.title,
        description: [
          status.badge ? `${status.badge}: ` : "",
          summary,
          excerpt ? `. ${excerpt}` : "",
        ].join(""),
        canonical,
        feeds: { path: "", label: "all events" },
        image: image ? { url: image.url!, alt: image.item.name ?? "" } : null,
        jsonLd: eventJsonLd(data, site, canonical),
      }}
    >
      <article
        class={`h-event event${
          event.status === "EventCancelled" ? " is-cancelled" : ""
        }`}
      >
        <h1 class="p-name">{event.title}</h1>
        {status.notice && (
          <p class={`status st-${event.status}`}>
            {status.notice}
          </p>
        )}
        {image && (
          <figure class="image">
            <img
              class="u-photo"
              src={image.url!}
              alt={image.item.name ?? ""}
              width={image.item.width ?? undefined}
              height={image.item.height ?? undefined}
              decoding="async"
            />
          </figure>
        )}
        <dl class="facts">
          <dt>When</dt>
          <dd>
            <time
              class="dt-start"
              datetime={isoInZone(event.start_datetime, site.timezone)}
            >
              {fullDateTime(event.start_datetime, site)}
            </time>
            {end !== null && event.end_datetime !== null && (
              <>
                {" – "}
                <time
                  class="dt-end"
                  datetime={isoInZone(event.end_datetime, site.timezone)}
                >
                  {end}
                </time>
              </>
            )}
            <br />
            <span class="muted">{site.timezone} time</span>
          </dd>
          {place && (
            <>
              <dt>Where</dt>
              <dd>
                <PlaceDetails place={place} link />
              </dd>
            </>
          )}
          {online.length > 0 && (
            <>
              <dt>Online</dt>
              <dd>
                <ul>
                  {online.map((url) => (
                    <li>
                      {isWebUrl(url)
                        ? (
                          <a href={url} rel="noopener nofollow">
                            {url}
                          </a>
                        )
                        : url}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
        </dl>
        <p class="actions">
          <a
            class="button"
            href={`${eventPath(event.slug)}.ics`}
            type="text/calendar"
          >
            Add to calendar
          </a>
        </p>
        {event.description && (
          <section aria-labelledby="about">
            <h2 id="about">About this event</h2>
            <div class="e-content description">{raw(event.description)}</div>
          </section>
        )}
        {data.tags.length > 0 && (
          <section aria-labelledby="tags-title">
            <h2 id="tags-title">Tags</h2>
            <ul class="tags">
              {data.tags.map((tag) => (
                <li>
                  <a class="p-category" href={tagPath(tag)}>#{tag}</a>
                </li>
              ))}
            </ul>
          </section>
        )}
        {data.occurrences.length > 0 && (
          <section aria-labelledby="dates-title">
            <h2 id="dates-title">Next dates</h2>
            <ul>
              {data.occurrences.map((o) => (
                <li>
                  <a href={eventPath(o.slug)}>
                    {shortDateTime(o.start_datetime, site)}
                  </a>
                  <StatusBadge status={o.status} />
                </li>
              ))}
            </ul>
          </section>
        )}
        <p class="muted permalink">
          Link to this page: <a class="u-url" href={canonical}>{canonical}</a>
          {original && (
            <>
              <br />
              Published on another server:{" "}
              <a href={original} rel="noopener nofollow">{original}</a>
            </>
          )}
        </p>
      </article>
    </SitePage>
  );
}

/** Upcoming and past sections of a tag, place or collection page. */
function Listing(
  props: {
    site: SiteInfo;
    listing: SplitListing;
    emptyText: string;
  },
) {
  const { site, listing } = props;
  return (
    <>
      <section aria-labelledby="upcoming-title">
        <h2 id="upcoming-title">Upcoming</h2>
        {listing.events.length
          ? <EventList events={listing.events} site={site} withDate />
          : <p class="empty">{props.emptyText}</p>}
      </section>
      {listing.pastEvents.length > 0 && (
        <section aria-labelledby="past-title">
          <h2 id="past-title">Past</h2>
          <EventList events={listing.pastEvents} site={site} withDate />
        </section>
      )}
    </>
  );
}

interface ListingProps {
  site: SiteInfo;
  nonce: string;
  listing: SplitListing;
}

function listingDescription(
  site: SiteInfo,
  what: string,
  listing: SplitListing,
): string {
  const n = listing.events.length;
  return `${
    n === 0
      ? "No upcoming events"
      : n === 1
      ? "1 upcoming event"
      : `${n}${n >= LISTING_LIMITS.limit ? "+" : ""} upcoming events`
  } ${what} on ${site.title}`;
}

/** The page of a tag. */
export function TagView(props: ListingProps & { tag: string }) {
  const { site } = props;
  const feeds: FeedScope = {
    path: `/tag/${encodeURIComponent(props.tag)}`,
    label: `events tagged #${props.tag}`,
  };
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: `#${props.tag}`,
        description: listingDescription(
          site,
          `tagged #${props.tag}`,
          props.listing,
        ),
        canonical: `${site.baseUrl}${tagPath(props.tag)}`,
        feeds,
      }}
    >
      <h1>Events tagged #{props.tag}</h1>
      <Listing
        site={site}
        listing={props.listing}
        emptyText="No upcoming events with this tag."
      />
    </SitePage>
  );
}

/** The page of a place: where it is, and its events. */
export function PlaceView(props: ListingProps & { place: PlaceRow }) {
  const { site, place } = props;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: place.name,
        description: [
          place.address,
          listingDescription(site, `at ${place.name}`, props.listing),
        ].filter(Boolean).join(". "),
        canonical: `${site.baseUrl}${placePath(place.id)}`,
        feeds: { path: `/place/${place.id}`, label: `events at ${place.name}` },
      }}
    >
      <h1>{place.name}</h1>
      <PlaceDetails place={place} link={false} />
      <Listing
        site={site}
        listing={props.listing}
        emptyText="No upcoming events at this place."
      />
    </SitePage>
  );
}

/** The page of a collection. */
export function CollectionView(props: ListingProps & { name: string }) {
  const { site } = props;
  const path = `/collection/${encodeURIComponent(props.name)}`;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: props.name,
        description: listingDescription(
          site,
          `in ${props.name}`,
          props.listing,
        ),
        canonical: `${site.baseUrl}${path}`,
        feeds: { path, label: props.name },
      }}
    >
      <h1>{props.name}</h1>
      <Listing
        site={site}
        listing={props.listing}
        emptyText="No upcoming events in this collection."
      />
    </SitePage>
  );
}

/** An HTML error page (404, 400) with a way back. */
export function ErrorView(
  props: {
    site: SiteInfo;
    nonce: string;
    path: string;
    title: string;
    message: string;
  },
) {
  const { site } = props;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: props.title,
        description: props.message,
        canonical: `${site.baseUrl}${props.path}`,
        feeds: { path: "", label: "all events" },
        noindex: true,
      }}
    >
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href="/">See the upcoming events</a>
      </p>
    </SitePage>
  );
}
