/**
 * The public pages: event, tag, place, collection (the home page and the
 * other browse pages are in browse.tsx), and the HTML error page. Events carry h-event microformats.
 */
import type { Translate } from "../../../lib/i18n.ts";
import { publicMediaUrl } from "../../../lib/media/public.ts";
import { raw } from "hono/html";
import type { EventStatus } from "../../../db/schema.ts";
import type { EventSummary, PlaceRow } from "../../../lib/events/serialize.ts";
import { normalizeTag } from "../../../lib/events/tags.ts";
import {
  endLabel,
  fullDateTime,
  isoInZone,
  plainText,
  shortDateTime,
  timeOfDay,
  whenInWords,
} from "../../../lib/pages/format.ts";
import { descriptionHtml } from "../../../lib/pages/description.ts";
import {
  directionsUrl,
  type EventOrigin,
  googleCalendarUrl,
  outlookCalendarUrl,
} from "../../../lib/pages/links.ts";
import type { EventPage, PagedListing } from "../../../lib/pages/load.ts";
import { repeatsInWords } from "../../../lib/pages/repeats.ts";
import { type FeedScope, type SiteInfo, SitePage } from "./shell.tsx";
import {
  eventJsonLd,
  eventPath,
  isWebUrl,
  mapUrl,
  placeJsonLd,
  placePath,
  type Shown,
  shownDates,
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

/**
 * What a listed h-event shows first: its name with its status, then its
 * start (as `start` words it), end and place.
 */
export function ListedEventHead(
  props: {
    event: EventSummary;
    site: SiteInfo;
    start: string;
    showPlace: boolean;
  },
) {
  const { event, site } = props;
  const end = endLabel(
    event.start_datetime,
    event.end_datetime,
    site,
    "short",
  );
  return (
    <>
      <h3>
        <a class="p-name u-url" href={eventPath(event.slug)}>{event.title}</a>
        <StatusBadge status={event.status} t={site.t} />
      </h3>
      <p class="meta">
        <time
          class="dt-start"
          datetime={isoInZone(event.start_datetime, site.timezone)}
        >
          {props.start}
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
        {props.showPlace && event.place && (
          <>
            {" · "}
            <a class="p-location" href={placePath(event.place.id)}>
              {event.place.name}
            </a>
          </>
        )}
      </p>
    </>
  );
}

/** An event's tags as links to their pages (p-category), if it has any. */
export function TagLinks(props: { tags: string[]; t: Translate }) {
  if (props.tags.length === 0) return null;
  return (
    <ul class="tags" aria-label={props.t("public.tags")}>
      {props.tags.map((tag) => (
        <li>
          <a class="p-category" href={tagPath(tag)}>#{tag}</a>
        </li>
      ))}
    </ul>
  );
}

/** One event in a list, as an h-event. */
export function EventItem(
  props: {
    event: EventSummary;
    site: SiteInfo;
    withDate: boolean;
    omit?: Omitted;
  },
) {
  const { event, site, omit } = props;
  // A place's page names the place once, a tag's page its tag.
  const tags = omit?.tag
    ? event.tags.filter((tag) => normalizeTag(tag) !== omit.tag)
    : event.tags;
  const start = props.withDate
    ? shortDateTime(event.start_datetime, site)
    : timeOfDay(event.start_datetime, site);
  const cancelled = event.status === "EventCancelled";
  return (
    <li class={`h-event event-item${cancelled ? " is-cancelled" : ""}`}>
      <ListedEventHead
        event={event}
        site={site}
        start={start}
        showPlace={event.place?.id !== omit?.placeId}
      />
      <TagLinks tags={tags} t={site.t} />
    </li>
  );
}

/** What a listing leaves out of its entries: its page's own place or tag (normalised). */
interface Omitted {
  placeId?: number;
  tag?: string;
}

export function EventList(
  props: {
    events: EventSummary[];
    site: SiteInfo;
    withDate: boolean;
    omit?: Omitted;
  },
) {
  return (
    <ol class="events">
      {props.events.map((event) => (
        <EventItem
          event={event}
          site={props.site}
          withDate={props.withDate}
          omit={props.omit}
        />
      ))}
    </ol>
  );
}

/** A small map pin, drawn inline (no request). */
function Pin() {
  return (
    <svg
      class="pin"
      viewBox="0 0 16 16"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        d="M8 1a5 5 0 0 0-5 5c0 3.6 5 9 5 9s5-5.4 5-9a5 5 0 0 0-5-5zm0 7a2 2 0 1 1 0-4 2 2 0 0 1 0 4z"
        fill="currentColor"
      />
    </svg>
  );
}

/** The map and directions links of a place (nothing loaded until followed). */
function PlaceLinks(props: { place: PlaceRow; t: Translate }) {
  const { place, t } = props;
  const map = mapUrl(place);
  const directions = directionsUrl(place);
  if (!map && !directions) return null;
  return (
    <ul class="place-links">
      {map && (
        <li>
          <Pin /> <a class="map" href={map} rel="noopener">{t("public.map")}</a>
        </li>
      )}
      {directions && (
        <li>
          <a class="directions" href={directions.url} rel="noopener">
            {directions.kind === "route"
              ? t("public.event.directions")
              : t("public.event.findAddress")}
          </a>
        </li>
      )}
    </ul>
  );
}

/** The place of an event, as its h-card. */
function PlaceDetails(props: { place: PlaceRow; t: Translate }) {
  const { place } = props;
  return (
    <div class="p-location h-card">
      <a class="p-name u-url" href={placePath(place.id)}>{place.name}</a>
      {place.address && (
        <>
          <br />
          <span class="p-street-address">{place.address}</span>
        </>
      )}
      {place.latitude !== null && place.longitude !== null && (
        <>
          <data class="p-latitude" value={String(place.latitude)}></data>
          <data class="p-longitude" value={String(place.longitude)}></data>
        </>
      )}
      <PlaceLinks place={place} t={props.t} />
    </div>
  );
}

/** The "add to calendar" links: .ics files, Google Calendar, Outlook.com. */
function AddToCalendar(
  props: { data: EventPage; site: SiteInfo; shown: Shown; canonical: string },
) {
  const { data, site, shown } = props;
  const { t } = site;
  const { event, series } = data;
  const seriesIcs = shown.isSeries
    ? `${eventPath(event.slug)}.ics`
    : series?.is_visible
    ? `${eventPath(series.slug)}.ics`
    : null;
  // A series' page adds its next date to the web calendars (they take one
  // date, not the rule); an occurrence's, its own date.
  const dated = shown.isSeries ? shown.next : event;
  const entry = dated && {
    title: event.title,
    start: dated.start_datetime,
    end: dated.end_datetime,
    description: event.description,
    place: data.place,
    online: event.online_locations,
    pageUrl: shown.isSeries && shown.next
      ? `${site.baseUrl}${eventPath(shown.next.slug)}`
      : props.canonical,
  };
  return (
    <section class="add" aria-labelledby="add-title">
      <h2 id="add-title">{t("public.event.addToCalendar")}</h2>
      <ul class="actions">
        {!shown.isSeries && (
          <li>
            <a
              class="button ics"
              href={`${eventPath(event.slug)}.ics`}
              type="text/calendar"
            >
              {seriesIcs
                ? t("public.event.cal.thisDate")
                : t("public.event.cal.file")}
            </a>
          </li>
        )}
        {seriesIcs && (
          <li>
            <a
              class={`button ${shown.isSeries ? "" : "secondary "}ics-series`}
              href={seriesIcs}
              type="text/calendar"
            >
              {t("public.event.cal.series")}
            </a>
          </li>
        )}
        {entry && (
          <>
            <li>
              <a
                class="button secondary google"
                href={googleCalendarUrl(entry)}
                rel="noopener nofollow"
              >
                {shown.isSeries
                  ? t("public.event.cal.googleNext")
                  : t("public.event.cal.google")}
              </a>
            </li>
            <li>
              <a
                class="button secondary outlook"
                href={outlookCalendarUrl(entry)}
                rel="noopener nofollow"
              >
                {shown.isSeries
                  ? t("public.event.cal.outlookNext")
                  : t("public.event.cal.outlook")}
              </a>
            </li>
          </>
        )}
      </ul>
      <p class="muted">{t("public.event.cal.note")}</p>
    </section>
  );
}

/** Where a remote event comes from, with a link to the original. */
function Origin(props: { origin: EventOrigin; t: Translate }) {
  const { origin, t } = props;
  return (
    <p class="origin">
      {origin.actor
        ? t("public.event.fromActor", {
          host: origin.host,
          actor: origin.actor,
        })
        : t("public.event.from", { host: origin.host })}
      {origin.url && (
        <>
          {" · "}
          <a class="original" href={origin.url} rel="noopener nofollow">
            {t("public.event.seeOriginal")}
          </a>
        </>
      )}
    </p>
  );
}

/** The host of a link, for the "join online" buttons. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** An event's page: an h-event with JSON-LD, OpenGraph and calendar links. */
export function EventView(
  props: { site: SiteInfo; nonce: string; data: EventPage },
) {
  const { site, data } = props;
  const { t } = site;
  const { event, place, origin } = data;
  const canonical = `${site.baseUrl}${eventPath(event.slug)}`;
  const shown = shownDates(data, site.timezone);
  const image = event.media
    .map((m) => ({ item: m, url: publicMediaUrl(site.baseUrl, m) }))
    .find((m) => m.url !== null);
  const end = endLabel(shown.start, shown.end, site, "full");
  const online = event.online_locations;
  const status = statusWords(event.status, t);
  const repeats = shown.rule
    ? repeatsInWords(shown.rule, shown.ruleStart, site, t)
    : null;
  const summary = [
    repeats,
    whenInWords(shown.start, shown.end, site),
    place?.name,
  ].filter(Boolean).join(" · ");
  const excerpt = plainText(event.description, 240);
  const description = descriptionHtml(event.description);
  const seriesPage = data.series?.is_visible ? data.series : null;
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
        {origin && <Origin origin={origin} t={t} />}
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
          {repeats && (
            <>
              <dt>{t("public.event.repeats")}</dt>
              <dd class="repeats">
                {repeats}
                {seriesPage && (
                  <>
                    <br />
                    <a class="series" href={eventPath(seriesPage.slug)}>
                      {t("public.event.seriesLink")}
                    </a>
                  </>
                )}
              </dd>
            </>
          )}
          <dt>
            {shown.isSeries && shown.next
              ? t("public.event.nextDate")
              : t("public.event.when")}
          </dt>
          <dd>
            <time
              class="dt-start"
              datetime={isoInZone(shown.start, site.timezone)}
            >
              {fullDateTime(shown.start, site)}
            </time>
            {end !== null && shown.end !== null && (
              <>
                {" – "}
                <time
                  class="dt-end"
                  datetime={isoInZone(shown.end, site.timezone)}
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
                <PlaceDetails place={place} t={t} />
              </dd>
            </>
          )}
          {online.length > 0 && (
            <>
              <dt>{t("public.event.online")}</dt>
              <dd>
                <ul class="online">
                  {online.map((url) => (
                    <li>
                      {isWebUrl(url)
                        ? (
                          <a
                            class="button join"
                            href={url}
                            rel="noopener nofollow"
                          >
                            {t("public.event.join")}{" "}
                            <span class="host">{hostOf(url)}</span>
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
        {event.status !== "EventCancelled" && (
          <AddToCalendar
            data={data}
            site={site}
            shown={shown}
            canonical={canonical}
          />
        )}
        {description && (
          <section aria-labelledby="about">
            <h2 id="about">{t("public.event.about")}</h2>
            <div class="e-content description">{raw(description)}</div>
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
        {shown.isSeries && (
          <section aria-labelledby="dates-title">
            <h2 id="dates-title">{t("public.event.nextDates")}</h2>
            {data.occurrences.length > 0
              ? (
                <ul class="dates">
                  {data.occurrences.map((o) => (
                    <li>
                      <a href={eventPath(o.slug)}>
                        {shortDateTime(o.start_datetime, site)}
                      </a>
                      <StatusBadge status={o.status} t={t} />
                    </li>
                  ))}
                </ul>
              )
              : <p class="empty">{t("public.event.noNextDates")}</p>}
          </section>
        )}
        <p class="muted permalink">
          {t("public.event.link")}{" "}
          <a class="u-url" href={canonical}>{canonical}</a>
        </p>
      </article>
    </SitePage>
  );
}

/** Upcoming and past sections of a tag, place or collection page. */
function Listing(
  props: {
    site: SiteInfo;
    listing: PagedListing;
    /** The listing's address (its first page). */
    path: string;
    emptyText: string;
    omit?: Omitted;
  },
) {
  const { site, listing, path, omit } = props;
  const { part } = listing;
  return (
    <>
      {part !== "past" && (
        <ListingSection
          site={site}
          of="upcoming"
          events={listing.events}
          page={part === "upcoming" ? listing.page : 1}
          more={listing.moreUpcoming}
          path={path}
          emptyText={part === "both"
            ? props.emptyText
            : site.t("public.browse.noMore")}
          omit={omit}
        />
      )}
      {(part === "past" ||
        (part === "both" && listing.pastEvents.length > 0)) &&
        (
          <ListingSection
            site={site}
            of="past"
            events={listing.pastEvents}
            page={part === "past" ? listing.page : 1}
            more={listing.morePast}
            path={path}
            emptyText={site.t("public.browse.past.noMore")}
            omit={omit}
          />
        )}
    </>
  );
}

/** One of a listing's lists (upcoming or past) on its page, with its pager. */
function ListingSection(
  props: {
    site: SiteInfo;
    of: "upcoming" | "past";
    events: EventSummary[];
    page: number;
    more: boolean;
    path: string;
    emptyText: string;
    omit?: Omitted;
  },
) {
  const { site, of, page } = props;
  const { t } = site;
  return (
    <section aria-labelledby={`${of}-title`}>
      <h2 id={`${of}-title`}>
        {t(of === "upcoming" ? "public.upcoming" : "public.past")}
        <PageNumber t={t} page={page} />
      </h2>
      {props.events.length
        ? (
          <EventList
            events={props.events}
            site={site}
            withDate
            omit={props.omit}
          />
        )
        : <p class="empty">{props.emptyText}</p>}
      <ListingPager
        t={t}
        path={props.path}
        of={of}
        page={page}
        more={props.more}
      />
    </section>
  );
}

/**
 * The address of a page of a listing: `?page=` of its upcoming events,
 * `?past=` of its past ones; the first page has neither.
 */
function listingHref(
  path: string,
  of: "upcoming" | "past",
  page: number,
): string {
  return page === 1
    ? path
    : `${path}?${of === "upcoming" ? "page" : "past"}=${page}`;
}

/** " (page 2)" after a heading, from the second page on. */
export function PageNumber(props: { t: Translate; page: number }) {
  if (props.page === 1) return null;
  return (
    <>
      {" "}
      <span class="muted">
        {props.t("public.home.pageNumber", { page: props.page })}
      </span>
    </>
  );
}

/** The previous and next pages of one of a listing's lists, when there are such pages. */
function ListingPager(
  props: {
    t: Translate;
    path: string;
    of: "upcoming" | "past";
    page: number;
    more: boolean;
  },
) {
  const { t, path, of, page } = props;
  return (
    <PageLinks
      t={t}
      label={t(
        of === "upcoming"
          ? "public.listing.upcomingPages"
          : "public.listing.pastPages",
      )}
      page={page}
      hasPrevious={page > 1}
      hasNext={props.more}
      href={(n) => listingHref(path, of, n)}
    />
  );
}

/**
 * Previous and next page links of a public list, when there are such pages.
 * `rel`: the links are the page's own previous and next (one list a page).
 */
export function PageLinks(
  props: {
    t: Translate;
    label: string;
    page: number;
    hasPrevious: boolean;
    hasNext: boolean;
    href: (page: number) => string;
    rel?: boolean;
  },
) {
  const { t, page, href } = props;
  if (!props.hasPrevious && !props.hasNext) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      {props.hasPrevious && (
        <a
          class="prev"
          rel={props.rel ? "prev" : undefined}
          href={href(page - 1)}
        >
          {t("public.previous")}
        </a>
      )}
      {props.hasNext && (
        <a
          class="next"
          rel={props.rel ? "next" : undefined}
          href={href(page + 1)}
        >
          {t("public.next")}
        </a>
      )}
    </nav>
  );
}

/**
 * The title, canonical address and previous and next pages of a listing's
 * page (SitePage meta); later pages are not indexed.
 */
function listingMeta(
  site: SiteInfo,
  title: string,
  path: string,
  listing: PagedListing,
) {
  const { t } = site;
  const of = listing.part === "past" ? "past" : "upcoming";
  const { page } = listing;
  const more = of === "past" ? listing.morePast : listing.moreUpcoming;
  return {
    title: page === 1
      ? title
      : `${title}: ${t(of === "past" ? "public.past" : "public.upcoming")} ${
        t("public.home.pageNumber", { page })
      }`,
    canonical: `${site.baseUrl}${listingHref(path, of, page)}`,
    prev: page > 1 ? listingHref(path, of, page - 1) : undefined,
    next: more ? listingHref(path, of, page + 1) : undefined,
    noindex: page > 1,
  };
}

interface ListingProps {
  site: SiteInfo;
  nonce: string;
  listing: PagedListing;
}

/** The feeds of the whole instance, in the page's language. */
export function allEvents(t: Translate): FeedScope {
  return {
    path: "",
    label: t("public.feed.all"),
    heading: t("public.subscribe.all"),
  };
}

/** How many upcoming events a listing's first page has, in words ("3 upcoming events", "50+"). */
function upcomingCount(t: Translate, listing: PagedListing): string {
  const n = listing.events.length;
  return n === 0
    ? t("public.count.none")
    : n === 1 && !listing.moreUpcoming
    ? t("public.count.one")
    : t("public.count.many", {
      count: `${n}${listing.moreUpcoming ? "+" : ""}`,
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
        description: t("public.tag.description", {
          count: upcomingCount(t, props.listing),
          tag,
          site: site.title,
        }),
        ...listingMeta(site, `#${tag}`, tagPath(tag), props.listing),
        feeds,
      }}
    >
      <h1>{t("public.tag.heading", { tag })}</h1>
      {props.listing.part === "both" && (
        <p class="muted count">{upcomingCount(t, props.listing)}</p>
      )}
      <Listing
        site={site}
        listing={props.listing}
        path={tagPath(tag)}
        emptyText={t("public.tag.empty")}
        omit={{ tag: normalizeTag(tag) }}
      />
    </SitePage>
  );
}

const POSTAL_CLASSES = [
  ["streetAddress", "p-street-address"],
  ["postalCode", "p-postal-code"],
  ["addressLocality", "p-locality"],
  ["addressRegion", "p-region"],
  ["addressCountry", "p-country-name"],
] as const;

/**
 * A place's address as an h-adr: its parts when the place has a postal
 * address (received over federation), else its one-line address.
 */
function PlaceAddress(props: { place: PlaceRow }) {
  const { place } = props;
  const stored = place.postal_address;
  const parts = stored && typeof stored === "object" && !Array.isArray(stored)
    ? POSTAL_CLASSES.map(([field, cls]) => {
      const value = (stored as Record<string, unknown>)[field];
      return typeof value === "string" && value.trim()
        ? { cls, value: value.trim() }
        : null;
    }).filter((p) => p !== null)
    : [];
  if (parts.length === 0 && !place.address) return null;
  return (
    <p class="p-adr h-adr address">
      {parts.length > 0
        ? parts.map((p, i) => (
          <>
            {i > 0 && ", "}
            <span class={p.cls}>{p.value}</span>
          </>
        ))
        : <span class="p-street-address">{place.address}</span>}
    </p>
  );
}

/** A coordinate in the page's number format (up to 5 decimals, about a metre). */
function coordinateText(value: number, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, { maximumFractionDigits: 5 })
      .format(value);
  } catch {
    return String(value);
  }
}

/** The page of a place: where it is, and its events. */
export function PlaceView(props: ListingProps & { place: PlaceRow }) {
  const { site, place } = props;
  const { t } = site;
  const path = placePath(place.id);
  const canonical = `${site.baseUrl}${path}`;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        ...listingMeta(site, place.name, path, props.listing),
        description: [
          place.address,
          t("public.place.description", {
            count: upcomingCount(t, props.listing),
            place: place.name,
            site: site.title,
          }),
        ].filter(Boolean).join(". "),
        jsonLd: placeJsonLd(place, canonical),
        feeds: {
          path: `/place/${place.id}`,
          label: t("public.feed.place", { place: place.name }),
          heading: t("public.subscribe.place", { place: place.name }),
        },
      }}
    >
      <div class="h-card place-card">
        <h1 class="p-name">{place.name}</h1>
        <PlaceAddress place={place} />
        {place.latitude !== null && place.longitude !== null && (
          <p class="p-geo h-geo muted">
            {t("public.event.coordinates", {
              lat: coordinateText(place.latitude, site.locale),
              lon: coordinateText(place.longitude, site.locale),
            })}
            <data class="p-latitude" value={String(place.latitude)}></data>
            <data class="p-longitude" value={String(place.longitude)}></data>
          </p>
        )}
        <PlaceLinks place={place} t={t} />
        <data class="u-url" value={canonical}></data>
      </div>
      {props.listing.part === "both" && (
        <p class="muted count">{upcomingCount(t, props.listing)}</p>
      )}
      <Listing
        site={site}
        listing={props.listing}
        path={path}
        emptyText={t("public.place.empty")}
        omit={{ placeId: place.id }}
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
        ...listingMeta(site, name, path, props.listing),
        description: t("public.collection.description", {
          count: upcomingCount(t, props.listing),
          name,
          site: site.title,
        }),
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
        path={path}
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
