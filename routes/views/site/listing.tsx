/**
 * The pages of a tag, a place and a collection: their upcoming and past
 * events, each list paged on its own (`?page=`, `?past=`).
 */
import type { Translate } from "../../../lib/i18n.ts";
import type { EventSummary, PlaceRow } from "../../../lib/events/serialize.ts";
import { normalizeTag } from "../../../lib/events/tags.ts";
import type { PagedListing } from "../../../lib/pages/load.ts";
import { type FeedScope, type SiteInfo, SitePage } from "./shell.tsx";
import {
  EventList,
  type Omitted,
  PageLinks,
  PageNumber,
  PlaceLinks,
  upcomingCount,
} from "./components.tsx";
import { placeJsonLd, placePath, tagPath } from "./structured.ts";

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

/** How many upcoming events a listing's first page has, in words ("3 upcoming events", "50+"). */
function listingCount(t: Translate, listing: PagedListing): string {
  return upcomingCount(t, listing.events.length, listing.moreUpcoming);
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
          count: listingCount(t, props.listing),
          tag,
          site: site.title,
        }),
        ...listingMeta(site, `#${tag}`, tagPath(tag), props.listing),
        feeds,
      }}
    >
      <h1>{t("public.tag.heading", { tag })}</h1>
      {props.listing.part === "both" && (
        <p class="muted count">{listingCount(t, props.listing)}</p>
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
            count: listingCount(t, props.listing),
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
        <p class="muted count">{listingCount(t, props.listing)}</p>
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

/** The public page of a collection (the admin page of one is app/collections.tsx). */
export function PublicCollectionView(props: ListingProps & { name: string }) {
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
          count: listingCount(t, props.listing),
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
