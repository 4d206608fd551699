/**
 * What the public pages share: a listed event (an h-event with its status,
 * times, place and tags), a list of them, a place's map and directions
 * links, the page links and addresses of paged lists, the instance's feeds
 * and the count of upcoming events in words.
 */
import type { Translate } from "../../../lib/i18n.ts";
import type { EventStatus } from "../../../db/schema.ts";
import type { EventSummary, PlaceRow } from "../../../lib/events/serialize.ts";
import { normalizeTag } from "../../../lib/events/tags.ts";
import {
  endLabel,
  isoInZone,
  shortDateTime,
  timeOfDay,
} from "../../../lib/pages/format.ts";
import { directionsUrl } from "../../../lib/pages/links.ts";
import { ownMediaPath } from "../../../lib/media/public.ts";
import type { FeedScope, SiteInfo } from "./shell.tsx";
import { eventPath, mapUrl, placePath, tagPath } from "./structured.ts";

const MARKED_STATUSES = new Set<EventStatus>([
  "EventCancelled",
  "EventPostponed",
  "EventRescheduled",
  "EventMovedOnline",
]);

/** A status's badge and notice in the page's language (empty when scheduled). */
export function statusWords(
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

/** The side of a listed event's thumbnail, in CSS pixels (the CSS keeps the box). */
const THUMBNAIL_SIZE = 88;

/**
 * A listed event's first image of our own (`/media`), as a thumbnail: its
 * description as alt text, loaded lazily into a box of fixed size (nothing
 * moves when it arrives). Nothing for an event without one.
 */
export function Thumbnail(props: { event: EventSummary }) {
  const item = props.event.media.find((m) => ownMediaPath(m) !== null);
  if (!item) return null;
  return (
    <img
      class="thumb"
      src={ownMediaPath(item)!}
      alt={item.name ?? ""}
      width={THUMBNAIL_SIZE}
      height={THUMBNAIL_SIZE}
      loading="lazy"
      decoding="async"
    />
  );
}

/** Whether a listed event shows a thumbnail (its item's class then says so). */
export function hasThumbnail(event: EventSummary): boolean {
  return event.media.some((m) => ownMediaPath(m) !== null);
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
    <li
      class={`h-event event-item${cancelled ? " is-cancelled" : ""}${
        hasThumbnail(event) ? " has-thumb" : ""
      }`}
    >
      <ListedEventHead
        event={event}
        site={site}
        start={start}
        showPlace={event.place?.id !== omit?.placeId}
      />
      <TagLinks tags={tags} t={site.t} />
      <Thumbnail event={event} />
    </li>
  );
}

/** What a listing leaves out of its entries: its page's own place or tag (normalised). */
export interface Omitted {
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
export function PlaceLinks(props: { place: PlaceRow; t: Translate }) {
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

/** The feeds of the whole instance, in the page's language. */
export function allEvents(t: Translate): FeedScope {
  return {
    path: "",
    label: t("public.feed.all"),
    heading: t("public.subscribe.all"),
  };
}

/**
 * How many upcoming events there are, in words ("No upcoming events", "1
 * upcoming event", "3 upcoming events"); `more` when there are more than
 * `count` ("50+ upcoming events").
 */
export function upcomingCount(
  t: Translate,
  count: number,
  more = false,
): string {
  return count === 0
    ? t("public.count.none")
    : count === 1 && !more
    ? t("public.count.one")
    : t("public.count.many", { count: `${count}${more ? "+" : ""}` });
}

/** A page's address with `?page=` (none for the first). */
export function paged(path: string, page: number): string {
  return page === 1 ? path : `${path}?page=${page}`;
}

/** A paged list page's canonical address and its previous and next pages' (SitePage meta). */
export function pagedMeta(
  site: SiteInfo,
  path: string,
  data: { page: number; hasPrevious: boolean; hasNext: boolean },
) {
  return {
    canonical: `${site.baseUrl}${paged(path, data.page)}`,
    prev: data.hasPrevious ? paged(path, data.page - 1) : undefined,
    next: data.hasNext ? paged(path, data.page + 1) : undefined,
  };
}

/** Previous and next page links of a one-list page (`?page=`), when there are such pages. */
export function PagesNav(
  props: {
    t: Translate;
    path: string;
    page: number;
    hasPrevious: boolean;
    hasNext: boolean;
  },
) {
  const { t, path } = props;
  return (
    <PageLinks
      {...props}
      label={t("public.pages")}
      href={(page) => paged(path, page)}
      rel
    />
  );
}

/** What an empty page of a list says, or null when it has entries. */
export function emptyWords(
  data: { page: number },
  count: number,
  first: string,
  later: string,
): string | null {
  if (count > 0) return null;
  return data.page === 1 ? first : later;
}

/**
 * Plain text (the instance's description) as it was typed: a paragraph for
 * each part a blank line apart, its line breaks kept.
 */
export function TextParagraphs(props: { text: string; class?: string }) {
  const paragraphs = props.text.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim()).filter(Boolean);
  return (
    <>
      {paragraphs.map((paragraph) => (
        <p class={props.class}>
          {paragraph.split("\n").map((line, i) => (
            <>
              {i > 0 && <br />}
              {line}
            </>
          ))}
        </p>
      ))}
    </>
  );
}
