/**
 * The browse pages: home (upcoming events by day, each series once with its
 * rule in words and its next dates; an empty instance says what it is and
 * where to go), the month calendar, a day, past events, and the indexes of
 * tags and places. Listed events are h-events (event.tsx, EventItem).
 */
import type { Child } from "hono/jsx";
import type { Translate } from "../../../lib/i18n.ts";
import type {
  Entry,
  EventsPage,
  HomeEntries,
  IndexPage,
  MonthCounts,
  PlaceCount,
  TagCount,
} from "../../../lib/pages/browse.ts";
import {
  type CalendarDay,
  calendarDayLabel,
  dayKeyOf,
  firstWeekday,
  monthKey,
  monthLabel,
  monthWeeks,
  shiftDay,
  shiftMonth,
  shortDate,
  startOfDay,
  weekdayNames,
} from "../../../lib/pages/calendar.ts";
import { isoInZone, timeOfDay } from "../../../lib/pages/format.ts";
import { repeatsInWords, seriesRule } from "../../../lib/pages/repeats.ts";
import {
  allEvents,
  EventItem,
  EventList,
  ListedEventHead,
  PageLinks,
  PageNumber,
  StatusBadge,
  TagLinks,
} from "./event.tsx";
import { feedUrls, type SiteInfo, SitePage } from "./shell.tsx";
import { eventPath, placePath, tagPath } from "./structured.ts";

/** A page's address with `?page=` (none for the first). */
function paged(path: string, page: number): string {
  return page === 1 ? path : `${path}?page=${page}`;
}

/** A paged list page's canonical address and its previous and next pages' (SitePage meta). */
function pageLinks(
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

/** Previous and next page links, when there are such pages. */
function Pager(
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
    <li class={`h-event event-item series${cancelled ? " is-cancelled" : ""}`}>
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
            </>
          ))}
          {" · "}
          <a href={`${eventPath(event.slug)}#dates-title`}>
            {t("public.browse.series.all")}
          </a>
        </p>
      )}
      <TagLinks tags={event.tags} t={t} />
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
      <p class="intro">
        {site.description ||
          t("public.browse.empty.about", { site: site.title })}
      </p>
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
        ...pageLinks(site, "/", data),
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
              <p class="muted intro">{site.description}</p>
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
      <Pager t={t} path="/" {...data} />
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
        ...pageLinks(site, path, data),
      }}
    >
      <h1>
        {props.heading}
        <PageNumber t={t} page={data.page} />
      </h1>
      {props.empty !== null
        ? <p class="empty">{props.empty}</p>
        : props.children}
      <Pager t={t} path={path} {...data} />
    </SitePage>
  );
}

/** What an empty page of a list says, or null when it has entries. */
function emptyWords(
  data: { page: number },
  count: number,
  first: string,
  later: string,
): string | null {
  if (count > 0) return null;
  return data.page === 1 ? first : later;
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

/** "3 events" in a calendar cell. */
function eventCount(t: Translate, n: number): string {
  return n === 1
    ? t("public.browse.calendar.events.one")
    : t("public.browse.calendar.events.many", { count: n });
}

/** The month calendar: a grid of its weeks, days with events linked to their list. */
export function MonthView(
  props: {
    site: SiteInfo;
    nonce: string;
    data: MonthCounts;
    today: CalendarDay;
  },
) {
  const { site, data, today } = props;
  const { t } = site;
  const { year, month } = data;
  const label = monthLabel(year, month, site);
  const path = `/calendar/${monthKey(year, month)}`;
  const prev = shiftMonth(year, month, -1);
  const next = shiftMonth(year, month, 1);
  const monthPath = (m: { year: number; month: number }) =>
    `/calendar/${monthKey(m.year, m.month)}`;
  const first = firstWeekday(site.locale);
  const names = weekdayNames(site.locale, first);
  const isCurrent = today.year === year && today.month === month;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: t("public.browse.calendar.title", { month: label }),
        description: t("public.browse.calendar.description", {
          site: site.title,
          month: label,
        }),
        canonical: `${site.baseUrl}${path}`,
        section: "calendar",
        feeds: allEvents(t),
        prev: prev ? monthPath(prev) : undefined,
        next: next ? monthPath(next) : undefined,
      }}
    >
      <h1>{label}</h1>
      <nav class="steps" aria-label={t("public.browse.calendar.months")}>
        {prev && (
          <a
            class="prev"
            rel="prev"
            href={monthPath(prev)}
            aria-label={t("public.browse.calendar.previous", {
              month: monthLabel(prev.year, prev.month, site),
            })}
          >
            ← {monthLabel(prev.year, prev.month, site)}
          </a>
        )}
        {!isCurrent && (
          <a class="current" href={monthPath(today)}>
            {t("public.browse.calendar.current")}
          </a>
        )}
        {next && (
          <a
            class="next"
            rel="next"
            href={monthPath(next)}
            aria-label={t("public.browse.calendar.next", {
              month: monthLabel(next.year, next.month, site),
            })}
          >
            {monthLabel(next.year, next.month, site)} →
          </a>
        )}
      </nav>
      <table class="month">
        <caption>
          {t("public.browse.calendar.caption", { month: label })}
        </caption>
        <thead>
          <tr>
            {names.map((name) => (
              <th scope="col">
                <abbr title={name.long}>{name.short}</abbr>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {monthWeeks(year, month, first).map((week) => (
            <tr>
              {week.map((d) => {
                if (d === null) return <td class="out"></td>;
                const day = { year, month, day: d };
                const n = data.counts[d];
                const isToday = isCurrent && today.day === d;
                const cls = [n > 0 ? "has" : "", isToday ? "today" : ""]
                  .filter(Boolean).join(" ");
                const words = eventCount(t, n);
                return (
                  <td class={cls || undefined}>
                    {n > 0
                      ? (
                        <a
                          href={`/calendar/${dayKeyOf(day)}`}
                          aria-current={isToday ? "date" : undefined}
                        >
                          <span class="d">{d}</span>{" "}
                          <span class="n" aria-hidden="true">{n}</span>
                          <span class="w">{words}</span>
                          {isToday && (
                            <span class="visually-hidden">
                              {` (${t("public.browse.calendar.today")})`}
                            </span>
                          )}
                        </a>
                      )
                      : (
                        <span
                          class="d"
                          aria-current={isToday ? "date" : undefined}
                        >
                          {d}
                        </span>
                      )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        {data.total === 0
          ? t("public.browse.calendar.none", { month: label })
          : data.total === 1
          ? t("public.browse.calendar.total.one", { month: label })
          : t("public.browse.calendar.total.many", {
            count: data.total,
            month: label,
          })}
      </p>
    </SitePage>
  );
}

/** A day's events: those running when it begins, and those starting during it. */
export function DayView(
  props: {
    site: SiteInfo;
    nonce: string;
    day: CalendarDay;
    data: EventsPage;
  },
) {
  const { site, day, data } = props;
  const { t } = site;
  const label = calendarDayLabel(day, site);
  const path = `/calendar/${dayKeyOf(day)}`;
  const prev = shiftDay(day, -1);
  const next = shiftDay(day, 1);
  const month = monthLabel(day.year, day.month, site);
  const begins = startOfDay(day, site.timezone);
  const empty = emptyWords(
    data,
    data.events.length,
    t("public.browse.day.empty"),
    t("public.browse.noMore"),
  );
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: t("public.browse.day.title", { day: label }),
        description: t("public.browse.day.description", {
          site: site.title,
          day: label,
        }),
        canonical: `${site.baseUrl}${paged(path, data.page)}`,
        section: "calendar",
        feeds: allEvents(t),
      }}
    >
      <h1>
        {t("public.browse.day.title", { day: label })}
        <PageNumber t={t} page={data.page} />
      </h1>
      <nav class="steps" aria-label={t("public.browse.day.days")}>
        {prev && (
          <a class="prev" href={`/calendar/${dayKeyOf(prev)}`}>
            ← {t("public.browse.day.previous")}
          </a>
        )}
        <a class="current" href={`/calendar/${monthKey(day.year, day.month)}`}>
          {t("public.browse.day.month", { month })}
        </a>
        {next && (
          <a class="next" href={`/calendar/${dayKeyOf(next)}`}>
            {t("public.browse.day.next")} →
          </a>
        )}
      </nav>
      {empty !== null
        ? <p class="empty">{empty}</p>
        : (
          <ol class="events h-feed">
            {data.events.map((event) => (
              <EventItem
                event={event}
                site={site}
                withDate={event.start_datetime < begins}
              />
            ))}
          </ol>
        )}
      <Pager t={t} path={path} {...data} />
    </SitePage>
  );
}

/** "12 upcoming events". */
function upcomingCount(t: Translate, n: number): string {
  return n === 1
    ? t("public.browse.count.one")
    : t("public.browse.count.many", { count: n });
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
