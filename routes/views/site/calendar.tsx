/**
 * The calendar pages: a month (a grid of its weeks, the days with events
 * linked to their list) and a day (the events running when it begins, and
 * those starting during it).
 */
import type { Translate } from "../../../lib/i18n.ts";
import type { EventsPage, MonthCounts } from "../../../lib/pages/browse.ts";
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
  startOfDay,
  weekdayNames,
} from "../../../lib/pages/calendar.ts";
import {
  allEvents,
  emptyWords,
  EventItem,
  paged,
  PageNumber,
  PagesNav,
} from "./components.tsx";
import { type SiteInfo, SitePage } from "./shell.tsx";

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
      <PagesNav t={t} path={path} {...data} />
    </SitePage>
  );
}
