/**
 * The public pages: event, tag, place, collection (the home page and the
 * other browse pages are in browse.tsx), and the HTML error page. Events carry h-event microformats.
 */
import type { Translate } from "../../lib/i18n.ts";
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

const MARKED_STATUSES = new Set<EventStatus>([
  "EventCancelled",
  "EventPostponed",
  "EventRescheduled",
  "EventMovedOnline",
]);

/** A status's badge and notice in the page's language (empty when scheduled). */
function statusWords(
  status: EventStatus,
  t: Translate,
): { badge: string; notice: string } {
  if (!MARKED_STATUSES.has(status)) return { badge: "", notice: "" };
  const marked = status as
    | "EventCancelled"
    | "EventPostponed"
    | "EventRescheduled"
    | "EventMovedOnline";
  return {
    badge: t(`public.status.${marked}.badge`),
    notice: t(`public.status.${marked}.notice`),
  };
}

export function StatusBadge(props: { status: EventStatus; t: Translate }) {
  const words = statusWords(props.status, props.t);
  if (!words.badge) return null;
  return <span class={`badge st-${props.status}`}>{words.badge}</span>;
}

/** One event in a list, as an h-event. */
export function EventItem(
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
        <StatusBadge status={event.status} t={site.t} />
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
        <ul class="tags" aria-label={site.t("public.tags")}>
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

export function EventList(
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

function PlaceDetails(
  props: { place: PlaceRow; link: boolean; t: Translate },
) {
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
            {props.t("public.map")}
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
  const { t } = site;
  const { event, place } = data;
  const canonical = `${site.baseUrl}${eventPath(event.slug)}`;
  const image = event.media
    .map((m) => ({ item: m, url: publicMediaUrl(site.baseUrl, m) }))
    .find((m) => m.url !== null);
  const end = endLabel(event.start_datetime, event.end_datetime, site, "full");
  const online = event.online_locations;
  const status = statusWords(event.status, t);
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
          status.badge
            ? t("public.statusPrefix", { status: status.badge })
            : "",
          summary,
          excerpt ? `. ${excerpt}` : "",
        ].join(""),
        canonical,
        feeds: allEvents(t),
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
          <dt>{t("public.event.when")}</dt>
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
            <span class="muted">
              {t("public.event.zone", { zone: site.timezone })}
            </span>
          </dd>
          {place && (
            <>
              <dt>{t("public.event.where")}</dt>
              <dd>
                <PlaceDetails place={place} link t={t} />
              </dd>
            </>
          )}
          {online.length > 0 && (
            <>
              <dt>{t("public.event.online")}</dt>
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
            {t("public.event.addToCalendar")}
          </a>
        </p>
        {event.description && (
          <section aria-labelledby="about">
            <h2 id="about">{t("public.event.about")}</h2>
            <div class="e-content description">{raw(event.description)}</div>
          </section>
        )}
        {data.tags.length > 0 && (
          <section aria-labelledby="tags-title">
            <h2 id="tags-title">{t("public.tags")}</h2>
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
            <h2 id="dates-title">{t("public.event.nextDates")}</h2>
            <ul>
              {data.occurrences.map((o) => (
                <li>
                  <a href={eventPath(o.slug)}>
                    {shortDateTime(o.start_datetime, site)}
                  </a>
                  <StatusBadge status={o.status} t={t} />
                </li>
              ))}
            </ul>
          </section>
        )}
        <p class="muted permalink">
          {t("public.event.link")}{" "}
          <a class="u-url" href={canonical}>{canonical}</a>
          {original && (
            <>
              <br />
              {t("public.event.original")}{" "}
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
        <h2 id="upcoming-title">{site.t("public.upcoming")}</h2>
        {listing.events.length
          ? <EventList events={listing.events} site={site} withDate />
          : <p class="empty">{props.emptyText}</p>}
      </section>
      {listing.pastEvents.length > 0 && (
        <section aria-labelledby="past-title">
          <h2 id="past-title">{site.t("public.past")}</h2>
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

/** The feeds of the whole instance, in the page's language. */
export function allEvents(t: Translate): FeedScope {
  return {
    path: "",
    label: t("public.feed.all"),
    heading: t("public.subscribe.all"),
  };
}

/** How many upcoming events a listing has, in words ("3 upcoming events"). */
function upcomingCount(t: Translate, listing: SplitListing): string {
  const n = listing.events.length;
  return n === 0
    ? t("public.count.none")
    : n === 1
    ? t("public.count.one")
    : t("public.count.many", {
      count: `${n}${n >= LISTING_LIMITS.limit ? "+" : ""}`,
    });
}

/** The page of a tag. */
export function TagView(props: ListingProps & { tag: string }) {
  const { site, tag } = props;
  const { t } = site;
  const feeds: FeedScope = {
    path: `/tag/${encodeURIComponent(tag)}`,
    label: t("public.feed.tag", { tag }),
    heading: t("public.subscribe.tag", { tag }),
  };
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: `#${tag}`,
        description: t("public.tag.description", {
          count: upcomingCount(t, props.listing),
          tag,
          site: site.title,
        }),
        canonical: `${site.baseUrl}${tagPath(tag)}`,
        feeds,
      }}
    >
      <h1>{t("public.tag.heading", { tag })}</h1>
      <Listing
        site={site}
        listing={props.listing}
        emptyText={t("public.tag.empty")}
      />
    </SitePage>
  );
}

/** The page of a place: where it is, and its events. */
export function PlaceView(props: ListingProps & { place: PlaceRow }) {
  const { site, place } = props;
  const { t } = site;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: place.name,
        description: [
          place.address,
          t("public.place.description", {
            count: upcomingCount(t, props.listing),
            place: place.name,
            site: site.title,
          }),
        ].filter(Boolean).join(". "),
        canonical: `${site.baseUrl}${placePath(place.id)}`,
        feeds: {
          path: `/place/${place.id}`,
          label: t("public.feed.place", { place: place.name }),
          heading: t("public.subscribe.place", { place: place.name }),
        },
      }}
    >
      <h1>{place.name}</h1>
      <PlaceDetails place={place} link={false} t={t} />
      <Listing
        site={site}
        listing={props.listing}
        emptyText={t("public.place.empty")}
      />
    </SitePage>
  );
}

/** The page of a collection. */
export function CollectionView(props: ListingProps & { name: string }) {
  const { site, name } = props;
  const { t } = site;
  const path = `/collection/${encodeURIComponent(name)}`;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: name,
        description: t("public.collection.description", {
          count: upcomingCount(t, props.listing),
          name,
          site: site.title,
        }),
        canonical: `${site.baseUrl}${path}`,
        feeds: {
          path,
          label: name,
          heading: t("public.subscribe.collection", { name }),
        },
      }}
    >
      <h1>{name}</h1>
      <Listing
        site={site}
        listing={props.listing}
        emptyText={t("public.collection.empty")}
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
        feeds: allEvents(site.t),
        noindex: true,
      }}
    >
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href="/">{site.t("public.seeUpcoming")}</a>
      </p>
    </SitePage>
  );
}
