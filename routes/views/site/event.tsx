/**
 * The page of an event: an h-event with JSON-LD, OpenGraph, its dates (a
 * series' next ones), place, online links, "add to calendar" links and
 * origin.
 */
import type { Translate } from "../../../lib/i18n.ts";
import { publicMediaUrl } from "../../../lib/media/public.ts";
import { raw } from "hono/html";
import type { PlaceRow } from "../../../lib/events/serialize.ts";
import {
  endLabel,
  fullDateTime,
  isoInZone,
  plainText,
  shortDateTime,
  whenInWords,
} from "../../../lib/pages/format.ts";
import { descriptionHtml } from "../../../lib/pages/description.ts";
import {
  type EventOrigin,
  googleCalendarUrl,
  outlookCalendarUrl,
} from "../../../lib/pages/links.ts";
import type { EventPage } from "../../../lib/pages/load.ts";
import { repeatsInWords } from "../../../lib/pages/repeats.ts";
import { type SiteInfo, SitePage } from "./shell.tsx";
import {
  allEvents,
  PlaceLinks,
  StatusBadge,
  statusWords,
} from "./components.tsx";
import {
  eventJsonLd,
  eventPath,
  isWebUrl,
  placePath,
  type Shown,
  shownDates,
  tagPath,
} from "./structured.ts";

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
  props: {
    site: SiteInfo;
    nonce: string;
    data: EventPage;
    /** The edit form's address, for a signed-in reader who may change the event. */
    editHref?: string | null;
    /** A moderator's preview of an event waiting for confirmation: what it says. */
    previewNotice?: string;
  },
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
        {props.previewNotice && (
          <p class="status" role="status">{props.previewNotice}</p>
        )}
        <h1 class="p-name">{event.title}</h1>
        {props.editHref && (
          <p>
            <a class="button secondary edit" href={props.editHref}>
              {t("public.event.edit")}
            </a>
          </p>
        )}
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
                      {
                        /* A date changed on its own says how it differs. */
                        o.title !== event.title && (
                          <span class="changed">{` · ${o.title}`}</span>
                        )
                      }
                      {o.placeId !== event.placeId && o.placeName && (
                        <span class="changed">{` · ${o.placeName}`}</span>
                      )}
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
        <p class="muted report">
          <a href={`/events/${event.id}/report`} rel="nofollow">
            {t("public.event.report")}
          </a>
        </p>
      </article>
    </SitePage>
  );
}
