/**
 * The browse pages: home (upcoming events by day, each series once with its
 * rule in words and its next dates; an empty instance says what it is and
 * where to go), past events, and the indexes of tags and places (the month
 * and the day are in calendar.tsx). Listed events are h-events
 * (components.tsx, EventItem).
 */
import type { Child } from "hono/jsx";
import type {
  Entry,
  EventsPage,
  HomeEntries,
  IndexPage,
  PlaceCount,
  TagCount,
} from "../../../lib/pages/browse.ts";
import { shortDate } from "../../../lib/pages/calendar.ts";
import { isoInZone, timeOfDay } from "../../../lib/pages/format.ts";
import { repeatsInWords, seriesRule } from "../../../lib/pages/repeats.ts";
import {
  allEvents,
  emptyWords,
  EventItem,
  EventList,
  hasThumbnail,
  ListedEventHead,
  pagedMeta,
  PageNumber,
  PagesNav,
  StatusBadge,
  TagLinks,
  TextParagraphs,
  Thumbnail,
  upcomingCount,
} from "./components.tsx";
import { feedUrls, type SiteInfo, SitePage } from "./shell.tsx";
import { eventPath, placePath, tagPath } from "./structured.ts";

/** A series once, by its next date (an h-event), with its rule and following dates. */
function SeriesItem(
  props: { entry: Entry; site: SiteInfo; withDate: boolean },
) {
  const { entry, site } = props;
  const { event } = entry;
  const series = entry.series!;
  const { t } = site;
  const plan = seriesRule(series.rule, series.start, site.timezone);
  const rule = plan ? repeatsInWords(plan, series.start, site, t) : null;
  const start = props.withDate
    ? shortDate(event.start_datetime, site) + ", " +
      timeOfDay(event.start_datetime, site)
    : timeOfDay(event.start_datetime, site);
  const cancelled = event.status === "EventCancelled";
  return (
    <li
      class={`h-event event-item series${cancelled ? " is-cancelled" : ""}${
        hasThumbnail(event) ? " has-thumb" : ""
      }`}
    >
      <ListedEventHead event={event} site={site} start={start} showPlace />
      {rule && <p class="rule">{rule}</p>}
      {series.following.length > 0 && (
        <p class="following">
          {t("public.browse.series.following")}{" "}
          {series.following.map((date, i) => (
            <>
              {i > 0 && ", "}
              <a href={eventPath(date.slug)}>
                <time datetime={isoInZone(date.start_datetime, site.timezone)}>
                  {shortDate(date.start_datetime, site)}
                </time>
              </a>
              <StatusBadge status={date.status} t={t} />
              {
                /* A date changed on its own says how it differs. */
                date.title !== series.title && ` (${date.title})`
              }
              {date.placeId !== series.placeId && date.placeName &&
                ` (${date.placeName})`}
            </>
          ))}
          {" · "}
          <a href={`${eventPath(event.slug)}#dates-title`}>
            {t("public.browse.series.all")}
          </a>
        </p>
      )}
      <TagLinks tags={event.tags} t={t} />
      <Thumbnail event={event} />
    </li>
  );
}

/** What an instance without upcoming events says: what it is, and where to go. */
function EmptyHome(
  props: {
    site: SiteInfo;
    submit: { anonymous: boolean; registration: boolean };
  },
) {
  const { site, submit } = props;
  const { t } = site;
  const feeds = feedUrls(site, allEvents(t));
  return (
    <div class="welcome">
      {site.description
        ? <TextParagraphs text={site.description} class="intro" />
        : (
          <p class="intro">
            {t("public.browse.empty.about", { site: site.title })}
          </p>
        )}
      <p class="empty">
        <strong>{t("public.browse.empty.text")}</strong>
      </p>
      <h2>{t("public.browse.empty.whereHeading")}</h2>
      <ul class="next-steps">
        <li>
          {submit.anonymous
            ? t("public.browse.empty.anyone")
            : t("public.browse.empty.members")}
          <br />
          <a
            class="button"
            href={submit.anonymous ? "/submit" : "/login?next=%2Fsubmit"}
          >
            {submit.anonymous
              ? t("public.browse.empty.submit")
              : t("public.browse.empty.signIn")}
          </a>
          {!submit.anonymous && submit.registration && (
            <>
              {" "}
              <a class="button secondary" href="/register">
                {t("public.browse.empty.register")}
              </a>
            </>
          )}
        </li>
        <li>
          {t("public.browse.empty.subscribe")}
          <br />
          <a class="button secondary" href={feeds.webcal}>
            {t("public.subscribe.app")}
          </a>{" "}
          <a href={feeds.rss} type="application/rss+xml">RSS</a>
        </li>
        <li>
          <a href="/past">{t("public.browse.empty.past")}</a>
        </li>
      </ul>
    </div>
  );
}

/** The home page: upcoming events by day, each series once, with paging. */
export function HomeView(
  props: {
    site: SiteInfo;
    nonce: string;
    data: HomeEntries;
    submit: { anonymous: boolean; registration: boolean };
  },
) {
  const { site, data } = props;
  const { t } = site;
  const empty = data.days.length === 0;
  const welcome = empty && data.page === 1;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: data.page === 1
          ? site.title
          : t("public.home.titlePage", { page: data.page }),
        description: site.description ||
          t("public.home.description", { site: site.title }),
        section: "upcoming",
        feeds: allEvents(t),
        ...pagedMeta(site, "/", data),
      }}
    >
      {welcome
        ? (
          <>
            <h1>{site.title}</h1>
            <EmptyHome site={site} submit={props.submit} />
          </>
        )
        : (
          <>
            <h1>
              {t("public.home.heading")}
              <PageNumber t={t} page={data.page} />
            </h1>
            {site.description && data.page === 1 && (
              <TextParagraphs text={site.description} class="muted intro" />
            )}
            {empty && <p class="empty">{t("public.home.noMore")}</p>}
          </>
        )}
      <div class="h-feed">
        {data.days.map((day) => {
          const id = `day-${day.key}`;
          const withDate = day.label === null;
          return (
            <section class="day" aria-labelledby={id}>
              <h2 id={id}>{day.label ?? t("public.home.now")}</h2>
              <ol class="events">
                {day.entries.map((entry) =>
                  entry.series
                    ? (
                      <SeriesItem
                        entry={entry}
                        site={site}
                        withDate={withDate}
                      />
                    )
                    : (
                      <EventItem
                        event={entry.event}
                        site={site}
                        withDate={withDate}
                      />
                    )
                )}
              </ol>
            </section>
          );
        })}
      </div>
      <PagesNav t={t} path="/" {...data} />
    </SitePage>
  );
}

/**
 * A paged list page (past events, tags, places): its title and heading with
 * the page number, its entries or what an empty page says, and the pager.
 */
function PagedListPage(
  props: {
    site: SiteInfo;
    nonce: string;
    section: "past" | "tags" | "places";
    data: { page: number; hasPrevious: boolean; hasNext: boolean };
    heading: string;
    titlePage: string;
    description: string;
    /** What the page says instead of entries; null when it has some. */
    empty: string | null;
    children?: Child;
  },
) {
  const { site, data } = props;
  const { t } = site;
  const path = `/${props.section}`;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: data.page === 1 ? props.heading : props.titlePage,
        description: props.description,
        section: props.section,
        feeds: allEvents(t),
        ...pagedMeta(site, path, data),
      }}
    >
      <h1>
        {props.heading}
        <PageNumber t={t} page={data.page} />
      </h1>
      {props.empty !== null
        ? <p class="empty">{props.empty}</p>
        : props.children}
      <PagesNav t={t} path={path} {...data} />
    </SitePage>
  );
}

/** Past events, newest first. */
export function PastView(
  props: { site: SiteInfo; nonce: string; data: EventsPage },
) {
  const { site, data } = props;
  const { t } = site;
  return (
    <PagedListPage
      site={site}
      nonce={props.nonce}
      section="past"
      data={data}
      heading={t("public.browse.past.heading")}
      titlePage={t("public.browse.past.titlePage", { page: data.page })}
      description={t("public.browse.past.description", { site: site.title })}
      empty={emptyWords(
        data,
        data.events.length,
        t("public.browse.past.empty"),
        t("public.browse.past.noMore"),
      )}
    >
      <div class="h-feed">
        <EventList events={data.events} site={site} withDate />
      </div>
    </PagedListPage>
  );
}

/** The index of tags with their upcoming events' counts. */
export function TagsView(
  props: { site: SiteInfo; nonce: string; data: IndexPage<TagCount> },
) {
  const { site, data } = props;
  const { t } = site;
  return (
    <PagedListPage
      site={site}
      nonce={props.nonce}
      section="tags"
      data={data}
      heading={t("public.browse.tags.heading")}
      titlePage={t("public.browse.tags.titlePage", { page: data.page })}
      description={t("public.browse.tags.description", { site: site.title })}
      empty={emptyWords(
        data,
        data.items.length,
        t("public.browse.tags.empty"),
        t("public.browse.noMore"),
      )}
    >
      <p class="muted">{t("public.browse.tags.intro")}</p>
      <ul class="index tag-index">
        {data.items.map((item) => (
          <li>
            <a href={tagPath(item.tag)}>#{item.tag}</a>{" "}
            <span class="count">{upcomingCount(t, item.count)}</span>
          </li>
        ))}
      </ul>
    </PagedListPage>
  );
}

/** The index of places with their upcoming events' counts. */
export function PlacesView(
  props: { site: SiteInfo; nonce: string; data: IndexPage<PlaceCount> },
) {
  const { site, data } = props;
  const { t } = site;
  return (
    <PagedListPage
      site={site}
      nonce={props.nonce}
      section="places"
      data={data}
      heading={t("public.browse.places.heading")}
      titlePage={t("public.browse.places.titlePage", { page: data.page })}
      description={t("public.browse.places.description", {
        site: site.title,
      })}
      empty={emptyWords(
        data,
        data.items.length,
        t("public.browse.places.empty"),
        t("public.browse.noMore"),
      )}
    >
      <p class="muted">{t("public.browse.places.intro")}</p>
      <ul class="index place-index">
        {data.items.map((item) => (
          <li class="h-card">
            <a class="p-name u-url" href={placePath(item.id)}>
              {item.name}
            </a>{" "}
            <span class="count">{upcomingCount(t, item.count)}</span>
            {item.address && (
              <>
                <br />
                <span class="p-street-address muted">
                  {item.address}
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
    </PagedListPage>
  );
}
