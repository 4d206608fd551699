/**
 * iCalendar (RFC 5545) export with ical-generator: the feeds' ICS format and
 * the single-event `.ics` files.
 *
 * Decisions:
 * - UID is `{id}@{host of BASE_URL}`, stable across fetches and edits. A series
 *   is ONE VEVENT with the UID of its template (the parent event) and an
 *   RRULE; its occurrences edited on their own are override VEVENTs with the
 *   same UID and a RECURRENCE-ID (the slot the rule gave them).
 * - DTSTAMP and LAST-MODIFIED are the event's updatedAt (not the time of the
 *   request), CREATED its createdAt, SEQUENCE the `sequence` column (+1 on
 *   every change of the event; an occurrence changed on its own also counts
 *   one for its series). The same data always gives the same bytes, so ETags
 *   work.
 * - STATUS: EventScheduled, EventRescheduled and EventMovedOnline ->
 *   CONFIRMED (the new date or the online location is in the entry itself);
 *   EventCancelled -> CANCELLED; EventPostponed -> TENTATIVE (the date shown is
 *   no longer certain, but the event is not called off).
 * - Times: single events in UTC. A series (its DTSTART, EXDATEs, RECURRENCE-IDs
 *   and overrides) is written with TZID of the instance time zone and a
 *   VTIMEZONE (built from the runtime's Intl data), so that its wall-clock
 *   time is kept across DST changes as the server's own expansion keeps it.
 *   An event without an end has no DTEND.
 * - LOCATION is the place's name and address, with GEO when it has both
 *   coordinates; an event with no place has its first online location as
 *   LOCATION. Online locations are also listed in DESCRIPTION (plain text of
 *   the sanitised HTML, which goes to X-ALT-DESC). URL is the public page
 *   `{BASE_URL}/event/{slug}`. CATEGORIES are the tags.
 * - Bounds: at most 200 upcoming entries, 200 recent ones (ended within
 *   `past_days`, default 30, at most 365) and 200 series (newest first).
 * - A series is exported once, whole, when its template is visible and the
 *   feed's scope selects it (a rule without end always has upcoming dates).
 *   Its DTSTART is the first slot of the rule still running at the start of
 *   the window, so history before the window is left out; the RRULE is open
 *   ended and calendar apps project it beyond the dates materialised so far.
 * - EXDATE: every slot up to the last materialised one whose occurrence was
 *   deleted (the template's `exclude`), is hidden, is cancelled, or is not
 *   selected by the feed's scope (say, an occurrence whose tag was removed,
 *   in that tag's feed). So the expansion is exactly the occurrences listed.
 * - RECURRENCE-ID overrides: occurrences edited on their own
 *   (`occurrence_edited`) or whose start or end differs from their slot's.
 * - Occurrences the rule no longer gives (the series was re-timed after they
 *   were created), and selected occurrences of a series that is not exported
 *   (hidden template, or a template the scope does not select), are single
 *   VEVENTs with their own UID. So is an occurrence fetched alone through the
 *   single-event endpoints, while a template fetched there gives its series.
 * - Hidden events and templates are never exported; the single-event
 *   endpoints answer 404 for them, whoever asks (they are public, cacheable
 *   URLs).
 * - Control characters (other than tab) are left out of every value: RFC 5545
 *   TEXT cannot carry them and ical-generator writes them as they are.
 */
import ical, {
  type ICalCalendar,
  type ICalEventData,
  ICalEventStatus,
} from "ical-generator";
import type { EventStatus } from "../../db/schema.ts";
import type { CalendarContent } from "./calendar.ts";
import type { FeedEvent, FeedOccurrence } from "./rows.ts";
import type { RulePlan } from "./series.ts";
import { vtimezone } from "./vtimezone.ts";
import { htmlToText } from "./words.ts";
import { icalLocal, isUtc, wallClock, zonedInstant } from "./zoned.ts";

export interface IcsOptions {
  baseUrl: string;
  /**
   * The instance time zone (IANA). Must be the one the content was selected
   * and planned in (CalendarContent.timeZone).
   */
  timeZone: string;
  /** X-WR-CALNAME. */
  name: string;
  description?: string;
  /** Where the calendar itself is fetched from (SOURCE). */
  sourceUrl?: string;
  /** Unix seconds. */
  now: number;
  /**
   * Unix seconds: entries ended before this are left out. Must be the
   * content's (CalendarContent.windowStart).
   */
  windowStart: number;
}

const STATUS: Record<EventStatus, ICalEventStatus> = {
  EventScheduled: ICalEventStatus.CONFIRMED,
  EventRescheduled: ICalEventStatus.CONFIRMED,
  EventMovedOnline: ICalEventStatus.CONFIRMED,
  EventCancelled: ICalEventStatus.CANCELLED,
  EventPostponed: ICalEventStatus.TENTATIVE,
};

/** The iCalendar STATUS of an event status. */
export function icalStatus(status: EventStatus): ICalEventStatus {
  return STATUS[status] ?? ICalEventStatus.CONFIRMED;
}

/** The UID of an event. */
export function eventUid(id: number, baseUrl: string): string {
  return `${id}@${new URL(baseUrl).host}`;
}

/**
 * Control characters a calendar cannot carry. ical-generator itself writes
 * only CR LF line ends and tab, and turns line breaks in values into `\n`.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const NOT_ICALENDAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** TEXT escaping for the calendar properties ical-generator writes raw. */
function escapeText(text: string): string {
  return text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(
    /\r\n|\r|\n/g,
    "\\n",
  );
}

function linkList(urls: string[]): string {
  return urls.map((u) => {
    const safe = u.replace(/&/g, "&amp;").replace(/"/g, "&quot;")
      .replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return `<a href="${safe}">${safe}</a>`;
  }).join("<br>");
}

/** What every VEVENT of an event carries besides its times and UID. */
function details(fe: FeedEvent, options: IcsOptions) {
  const e = fe.row;
  const online = e.online_locations;
  const plain = [
    htmlToText(e.description),
    online.length ? `Online:\n${online.join("\n")}` : "",
  ].filter(Boolean).join("\n\n");
  const html = [
    e.description,
    online.length ? `<p>Online:<br>${linkList(online)}</p>` : "",
  ].filter(Boolean).join("");
  const place = fe.place;
  const location: ICalEventData["location"] = place
    ? {
      title: place.name,
      ...(place.address ? { address: place.address } : {}),
      ...(place.latitude !== null && place.longitude !== null
        ? { geo: { lat: place.latitude, lon: place.longitude } }
        : {}),
    }
    : online[0] ?? null;
  return {
    summary: e.title,
    description: plain || html ? { plain, html: html || undefined } : null,
    location,
    url: `${options.baseUrl}/event/${e.slug}`,
    categories: fe.tags.map((name) => ({ name })),
    status: icalStatus(e.status),
    sequence: e.sequence,
    stamp: e.updatedAt,
    lastModified: e.updatedAt,
    created: e.createdAt,
  } satisfies Partial<ICalEventData>;
}

function singleEvent(fe: FeedEvent, options: IcsOptions): ICalEventData {
  const e = fe.row;
  return {
    ...details(fe, options),
    id: eventUid(e.id, options.baseUrl),
    start: new Date(e.start_datetime * 1000),
    end: e.end_datetime === null ? null : new Date(e.end_datetime * 1000),
  };
}

/**
 * RRULE and EXDATE lines. Written out rather than through ical-generator's
 * object form, which only takes plain weekdays in BYDAY (not `2TU`, `-1FR`).
 */
function recurrenceLines(
  rule: RulePlan,
  exdates: number[],
  timeZone: string,
): string {
  const parts = [`FREQ=${rule.freq}`, `INTERVAL=${rule.interval}`];
  if (rule.byMonth) parts.push(`BYMONTH=${rule.byMonth.join(",")}`);
  if (rule.byMonthDay) parts.push(`BYMONTHDAY=${rule.byMonthDay.join(",")}`);
  if (rule.byDay) parts.push(`BYDAY=${rule.byDay.join(",")}`);
  // With a TZID'd DTSTART, UNTIL is in UTC (RFC 5545 3.3.10).
  if (rule.until !== undefined) {
    parts.push(
      `UNTIL=${
        new Date(rule.until * 1000).toISOString().replace(/[-:]|\.\d+/g, "")
      }`,
    );
  }
  const lines = [`RRULE:${parts.join(";")}`];
  if (exdates.length) {
    const utc = isUtc(timeZone);
    const values = exdates.map((s) =>
      icalLocal(wallClock(s * 1000, utc ? "UTC" : timeZone)) + (utc ? "Z" : "")
    );
    lines.push(
      `EXDATE${utc ? "" : `;TZID=${timeZone}`}:${values.join(",")}`,
    );
  }
  return lines.join("\n");
}

/** The entry of an occurrence the plan writes out (loaded by select.ts). */
function entryOf(occurrence: FeedOccurrence): FeedEvent {
  if (occurrence.entry) return occurrence.entry;
  throw new Error(`Occurrence ${occurrence.row.id} was not loaded in full`);
}

/** The VCALENDAR text of a feed's (or one event's) content. */
export function renderCalendar(
  content: CalendarContent,
  options: IcsOptions,
): string {
  const tz = options.timeZone;
  // The plans (and which occurrences were read in full) depend on both.
  if (tz !== content.timeZone || options.windowStart !== content.windowStart) {
    throw new Error(
      `Calendar content selected for ${content.timeZone} from ` +
        `${content.windowStart}, written for ${tz} from ${options.windowStart}`,
    );
  }
  // UTC series are written in UTC (`Z`), like single events.
  const eventZone = isUtc(tz) ? null : tz;
  const at = (seconds: number) => zonedInstant(seconds * 1000, tz);
  const entries: ICalEventData[] = [];
  let earliest = options.windowStart;
  for (const series of content.series) {
    const plan = series.plan;
    if (!plan) continue;
    earliest = Math.min(earliest, plan.anchor);
    const uid = eventUid(series.parent.row.id, options.baseUrl);
    entries.push({
      ...details(series.parent, options),
      id: uid,
      timezone: eventZone,
      start: at(plan.anchor),
      end: plan.duration === null ? null : at(plan.anchor + plan.duration),
      repeating: recurrenceLines(plan.rule, plan.exdates, tz),
    });
    for (const { slot, occurrence } of plan.overrides) {
      const o = occurrence.row;
      entries.push({
        ...details(entryOf(occurrence), options),
        id: uid,
        timezone: eventZone,
        recurrenceId: at(slot),
        start: at(o.start_datetime),
        end: o.end_datetime === null ? null : at(o.end_datetime),
      });
    }
    for (const stray of plan.strays) {
      entries.push(singleEvent(entryOf(stray), options));
    }
  }
  for (const single of content.singles) {
    entries.push(singleEvent(single, options));
  }

  const fromYear = new Date(earliest * 1000).getUTCFullYear() - 1;
  const toYear = new Date(options.now * 1000).getUTCFullYear() + 2;
  const calendar: ICalCalendar = ical({
    prodId: { company: "Quando", product: "Quando", language: "EN" },
    name: escapeText(options.name),
    description: options.description ? escapeText(options.description) : null,
    url: `${options.baseUrl}/`,
    source: options.sourceUrl ?? null,
    ttl: 3600,
    // No calendar-wide zone (DTSTAMP & co. stay in UTC); the generator only
    // writes a VTIMEZONE for the zones the entries use.
    timezone: {
      name: null,
      generator: (zone) => vtimezone(zone, fromYear, toYear),
    },
    events: entries,
  });
  return calendar.toString().replace(NOT_ICALENDAR, "");
}
