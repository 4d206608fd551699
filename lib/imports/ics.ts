/**
 * An iCalendar file (RFC 5545) as the events Quando would hold: one item per
 * VEVENT, keyed by UID and RECURRENCE-ID. Times with an IANA TZID, with a
 * VTIMEZONE of the file, in UTC or floating (then in the instance's zone)
 * all become Unix seconds; DATE values are all-day. A simple RRULE becomes a
 * Quando series (weekly, every n weeks, monthly by date or by weekday,
 * daily, yearly, until a date or for a count); other rules are expanded into
 * single events for the next 90 days. Parsing is by ical.js.
 */
import ICAL from "ical.js";
import { plainTextToHtml } from "../events/form.ts";
import { ICS_MAX_EVENTS, scanIcs } from "./ics-scan.ts";

export { IcsBudgetError } from "./ics-scan.ts";

/** An event of the file, as Quando's write input wants it. */
export interface IcsItem {
  uid: string;
  /** The original start (Unix seconds) an exception replaces; null for the event itself. */
  recurrenceId: number | null;
  title: string;
  /** HTML (sanitised later, with every description). */
  description: string;
  start: number;
  end: number | null;
  allDay: boolean;
  place: {
    name: string;
    address: string;
    latitude: number | null;
    longitude: number | null;
  } | null;
  online_locations: string[];
  tags: string[];
  cancelled: boolean;
  /** A Quando recurrence when the RRULE maps onto one. */
  recurrent: { frequency: string; type: string } | null;
  /** The last start of a series (UNTIL or COUNT), Unix seconds. */
  until: number | null;
  /** Starts (Unix seconds) the series skips (EXDATE). */
  exdates: number[];
  /** An image the event names (ATTACH with an image type, or IMAGE). */
  image: string | null;
}

/** What was read, and what could not be (one sentence per VEVENT skipped). */
export interface IcsReading {
  items: IcsItem[];
  problems: string[];
}

/** How far ahead a rule that is not a Quando series is expanded. */
const EXPANSION_SECONDS = 90 * 86_400;
const EXPANSION_MAX = 100;
/** Items (events, expanded dates) one file gives at most. */
const MAX_ITEMS = 10_000;
/** How long the reader works before letting other requests run. */
const YIELD_AFTER_MS = 20;
/** The most dates a COUNT gives a series, and the most EXDATEs read per event. */
const MAX_COUNT = 1_000;
const MAX_EXDATES = 1_000;
/** Observances (STANDARD/DAYLIGHT) a file's VTIMEZONE may have. */
const MAX_OBSERVANCES = 40;
/** Steps of a rule simulated to tell whether it ever gives a date. */
const PRODUCTIVE_STEPS = 800;

const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  isDate: boolean;
}

/** Converts the wall-clock times of one file, knowing its VTIMEZONEs. */
class TimeReader {
  #zones = new Map<string, ICAL.Timezone>();

  constructor(
    calendar: ICAL.Component,
    private instanceZone: string,
    problems: string[],
  ) {
    for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) {
      const tzid = vtimezone.getFirstPropertyValue("tzid");
      if (typeof tzid !== "string") continue;
      const refusal = (why: string) =>
        problems.push(
          `time zone ${
            tzid.slice(0, 100)
          }: ${why}; its times are read as ${instanceZone}`,
        );
      try {
        if (!plainZone(vtimezone)) {
          // ical.js expands every change of a zone up to the time asked: a
          // zone that changes hourly, or daily by a yearly rule's lists,
          // would fill the memory.
          refusal("its changes are not yearly");
          continue;
        }
        // Kept for this file only: never registered globally.
        this.#zones.set(tzid, new ICAL.Timezone(vtimezone));
      } catch (error) {
        refusal((error as Error).message.slice(0, 200));
      }
    }
  }

  /** Unix seconds of a time whose zone is `tzid` ("Z" for UTC, null when floating). */
  toUnix(time: WallClock, tzid: string | null): number {
    if (tzid === "Z") {
      return Date.UTC(
        time.year,
        time.month - 1,
        time.day,
        time.hour,
        time.minute,
        time.second,
      ) / 1000;
    }
    const own = tzid ? this.#zones.get(tzid) : undefined;
    const iana = tzid && !own ? ianaZone(tzid) : null;
    // A file's own zone is expanded from its first change to the time asked:
    // only for times of these centuries (others are read in the instance's).
    if (own && !iana && time.year >= 1900 && time.year <= 2200) {
      // The wall-clock fields only: a time read from a component parsed on
      // its own carries no zone of the file, and its own (floating) zone
      // would win over `own`.
      const { year, month, day, hour, minute, second } = time;
      const at = ICAL.Time.fromData(
        { year, month, day, hour, minute, second, isDate: false },
        own,
      );
      return at.toUnixTime();
    }
    const zone = iana ?? this.instanceZone;
    return Temporal.PlainDateTime.from({
      year: time.year,
      month: time.month,
      day: time.day,
      hour: time.isDate ? 0 : time.hour,
      minute: time.isDate ? 0 : time.minute,
      second: time.isDate ? 0 : Math.min(time.second, 59),
    }).toZonedDateTime(zone, { disambiguation: "compatible" })
      .epochMilliseconds / 1000;
  }

  /** A property's time in Unix seconds, with whether it is a DATE. */
  read(
    prop: ICAL.Property | null,
  ): { at: number; isDate: boolean; tzid: string | null } | null {
    if (!prop) return null;
    const value = prop.getFirstValue();
    if (!(value instanceof ICAL.Time)) return null;
    const tzid = tzidOf(prop, value);
    return { at: this.toUnix(value, tzid), isDate: value.isDate, tzid };
  }
}

/**
 * Whether a VTIMEZONE changes at most once a year per observance (a yearly
 * rule on one day: BYMONTH, BYDAY and BYMONTHDAY with one value each), with
 * a bounded number of observances and dates.
 */
function plainZone(vtimezone: ICAL.Component): boolean {
  const observances = vtimezone.getAllSubcomponents();
  if (observances.length > MAX_OBSERVANCES) return false;
  return observances.every((o) => {
    const rules = o.getAllProperties("rrule");
    const dates = o.getAllProperties("rdate").flatMap((p) => p.getValues());
    if (dates.length > MAX_OBSERVANCES) return false;
    return rules.length <= 1 && rules.every((r) => {
      const rule = r.getFirstValue();
      if (!(rule instanceof ICAL.Recur) || rule.freq !== "YEARLY") {
        return false;
      }
      if ((rule.interval ?? 1) !== 1) return false;
      const parts = (rule.parts ?? {}) as Record<string, unknown[]>;
      return Object.entries(parts).every(([part, values]) =>
        ["BYMONTH", "BYDAY", "BYMONTHDAY"].includes(part) &&
        values.length <= 1
      );
    });
  });
}

/** The TZID a time is in: "Z" for UTC, null when floating or a date. */
function tzidOf(prop: ICAL.Property, value: ICAL.Time): string | null {
  if (value.isDate) return null;
  const param = prop.getParameter("tzid");
  if (typeof param === "string" && param) return param;
  return value.zone === ICAL.Timezone.utcTimezone || value.zone?.tzid === "UTC"
    ? "Z"
    : null;
}

/** The IANA zone a TZID names (also "/Europe/Rome" and similar spellings), or null. */
function ianaZone(tzid: string): string | null {
  const candidates = [
    tzid,
    tzid.replace(/^\/+/, ""),
    tzid.split("/").slice(-2).join("/"),
  ];
  for (const candidate of candidates) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: candidate });
      return candidate;
    } catch {
      // not this spelling
    }
  }
  return null;
}

function text(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? value.trim() : "";
}

/** A Quando recurrence for a rule, or null when the rule says more than one can. */
function seriesOf(
  rule: ICAL.Recur,
  startDay: number,
): { frequency: string; type: string } | null {
  const interval = rule.interval ?? 1;
  if (interval < 1 || interval > 99) return null;
  const parts = rule.parts ?? {};
  const known = new Set(["BYDAY", "BYMONTHDAY", "BYSETPOS"]);
  if (Object.keys(parts).some((p) => !known.has(p))) return null;
  const byDay = (parts.BYDAY ?? []) as string[];
  const byMonthDay = (parts.BYMONTHDAY ?? []) as number[];
  const bySetPos = (parts.BYSETPOS ?? []) as number[];
  switch (rule.freq) {
    case "DAILY":
      return byDay.length || byMonthDay.length || bySetPos.length
        ? null
        : { frequency: `${interval}d`, type: "ordinal" };
    case "WEEKLY":
      if (byMonthDay.length || bySetPos.length) return null;
      if (byDay.length > 1) return null;
      if (byDay.length === 1 && byDay[0] !== WEEKDAYS[startDay]) return null;
      return { frequency: `${interval}w`, type: "ordinal" };
    case "MONTHLY": {
      if (byMonthDay.length > 1) return null;
      if (byDay.length === 0 && bySetPos.length === 0) {
        return { frequency: `${interval}m`, type: "ordinal" };
      }
      if (byDay.length !== 1 || byMonthDay.length) return null;
      const match = /^([+-]?\d)?(SU|MO|TU|WE|TH|FR|SA)$/.exec(byDay[0]);
      if (!match || match[2] !== WEEKDAYS[startDay]) return null;
      const nth = match[1]
        ? Number(match[1])
        : bySetPos.length === 1
        ? bySetPos[0]
        : NaN;
      return [1, 2, 3, 4, -1].includes(nth)
        ? { frequency: `${interval}m`, type: String(nth) }
        : null;
    }
    case "YEARLY":
      return Object.keys(parts).length
        ? null
        : { frequency: `${interval}y`, type: "ordinal" };
    default:
      return null;
  }
}

/**
 * Reads an iCalendar text under the import budget (lib/imports/ics-scan.ts):
 * throws IcsBudgetError for a file over it, and otherwise never throws for
 * what a feed contains. Each component is parsed on its own, and the event
 * loop is let go between them, so a big file neither holds the memory of
 * its whole parse nor keeps other requests waiting.
 */
export async function readIcs(
  source: string,
  instanceZone: string,
): Promise<IcsReading> {
  const problems: string[] = [];
  const scanned = scanIcs(source);
  if (!scanned.calendar) {
    return { items: [], problems: ["not an iCalendar file: no VCALENDAR"] };
  }
  let zones: ICAL.Component;
  try {
    zones = new ICAL.Component(
      ICAL.parse(
        ["BEGIN:VCALENDAR", ...scanned.zones, "END:VCALENDAR", ""].join("\r\n"),
      ),
    );
  } catch (error) {
    return {
      items: [],
      problems: [`not an iCalendar file: ${(error as Error).message}`],
    };
  }
  const times = new TimeReader(zones, instanceZone, problems);
  if (scanned.eventsLeftOut > 0) {
    problems.push(`only the first ${ICS_MAX_EVENTS} events were read`);
  }
  if (scanned.moreCalendars) {
    problems.push("only the first VCALENDAR of the file was read");
  }
  const items: IcsItem[] = [];
  let slice = performance.now();
  for (const eventText of scanned.events) {
    if (performance.now() - slice > YIELD_AFTER_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      slice = performance.now();
    }
    let uid = "";
    try {
      const vevent = new ICAL.Component(ICAL.parse(eventText + "\r\n"));
      uid = text(vevent, "uid");
      const item = readEvent(vevent, times, uid);
      if (typeof item === "string") problems.push(`${uid || "?"}: ${item}`);
      else items.push(...item);
    } catch (error) {
      problems.push(`${uid || "?"}: ${(error as Error).message}`);
    }
    if (items.length >= MAX_ITEMS) {
      problems.push(`only the first ${MAX_ITEMS} dates were read`);
      items.length = MAX_ITEMS;
      break;
    }
  }
  return { items, problems };
}

function readEvent(
  vevent: ICAL.Component,
  times: TimeReader,
  uid: string,
): IcsItem[] | string {
  if (!uid) return "no UID";
  const start = times.read(vevent.getFirstProperty("dtstart"));
  if (!start) return "no DTSTART";
  let end = times.read(vevent.getFirstProperty("dtend"))?.at ?? null;
  if (end === null) {
    const duration = vevent.getFirstPropertyValue("duration");
    if (duration instanceof ICAL.Duration) {
      end = start.at + duration.toSeconds();
    }
  }
  if (end !== null && end <= start.at) end = null;
  const recurrenceId =
    times.read(vevent.getFirstProperty("recurrence-id"))?.at ??
      null;
  const locationText = text(vevent, "location");
  const geo = vevent.getFirstPropertyValue("geo");
  const [latitude, longitude] = Array.isArray(geo) && geo.length === 2
    ? geo.map(Number)
    : [null, null];
  const online: string[] = [];
  let place: IcsItem["place"] = null;
  if (/^https?:\/\/\S+$/.test(locationText)) online.push(locationText);
  else if (locationText) {
    const [name, ...rest] = locationText.split(/\s*[,\n]\s*/);
    place = {
      name: name.slice(0, 200),
      address: (rest.join(", ") || locationText).slice(0, 500),
      latitude: Number.isFinite(latitude) ? latitude : null,
      longitude: Number.isFinite(longitude) ? longitude : null,
    };
  }
  const html = vevent.getAllProperties("x-alt-desc").find((p) =>
    String(p.getParameter("fmttype") ?? "").toLowerCase() === "text/html"
  )?.getFirstValue();
  let description = typeof html === "string" && html.trim()
    ? html
    : plainTextToHtml(text(vevent, "description"));
  const url = text(vevent, "url");
  if (/^https?:\/\//.test(url) && !description.includes(url)) {
    description += plainTextToHtml(url);
  }
  const tags = vevent.getAllProperties("categories").flatMap((p) =>
    p.getValues().map((v) => String(v).trim())
  ).filter(Boolean);
  const image = vevent.getAllProperties("image").concat(
    vevent.getAllProperties("attach").filter((p) =>
      /^image\//i.test(String(p.getParameter("fmttype") ?? ""))
    ),
  ).map((p) => String(p.getFirstValue())).find((v) => /^https?:\/\//.test(v)) ??
    null;
  const base: IcsItem = {
    uid,
    recurrenceId,
    title: (text(vevent, "summary") || "(untitled)").slice(0, 200),
    description,
    start: start.at,
    end,
    allDay: start.isDate,
    place,
    online_locations: online,
    tags: [...new Set(tags)].slice(0, 20),
    cancelled: text(vevent, "status").toUpperCase() === "CANCELLED",
    recurrent: null,
    until: null,
    exdates: [],
    image,
  };
  const rule = vevent.getFirstPropertyValue("rrule");
  if (!(rule instanceof ICAL.Recur) || recurrenceId !== null) return [base];

  const dtstart = vevent.getFirstPropertyValue("dtstart") as ICAL.Time;
  const exdateValues = vevent.getAllProperties("exdate").flatMap((p) =>
    p.getValues().map((v) => ({ p, v }))
  );
  if (exdateValues.length > MAX_EXDATES) {
    return `more than ${MAX_EXDATES} EXDATE values`;
  }
  const exdates = exdateValues.map(({ p, v }) =>
    v instanceof ICAL.Time ? times.toUnix(v, tzidOf(p, v)) : NaN
  ).filter(Number.isFinite);
  const startTzid = start.tzid;
  const duration = end === null ? null : end - start.at;
  const horizon = start.at + EXPANSION_SECONDS;
  const series = seriesOf(rule, dtstart.dayOfWeek() - 1);
  if (series) {
    let until: number | null = null;
    if (rule.until) {
      until = times.toUnix(
        rule.until,
        tzidOf(
          vevent.getFirstProperty("dtstart")!,
          rule.until,
        ),
      );
    } else if (rule.count) {
      // The last of COUNT starts; a rule Quando can say as a series gives a
      // date at every step, so this ends after COUNT steps at most.
      const iterator = rule.iterator(dtstart);
      let last: ICAL.Time | null = null;
      const count = Math.min(rule.count, MAX_COUNT);
      for (let i = 0, next; i < count && (next = iterator.next()); i++) {
        last = next;
      }
      if (last) until = times.toUnix(last, startTzid);
    }
    return [{ ...base, recurrent: series, until, exdates }];
  }
  // A rule Quando's series cannot say: its next starts as single events,
  // when the rule is one whose iteration is known to end.
  const refusal = unsafeRule(rule, dtstart);
  if (refusal) return refusal;
  const iterator = rule.iterator(dtstart);
  const singles: IcsItem[] = [];
  for (let next; (next = iterator.next()) && singles.length < EXPANSION_MAX;) {
    const at = times.toUnix(next, startTzid);
    if (at > horizon) break;
    if (exdates.includes(at)) continue;
    singles.push({
      ...base,
      recurrenceId: at,
      start: at,
      end: duration === null ? null : at + duration,
    });
  }
  return singles;
}

/**
 * Why a rule is not expanded, or null. ical.js looks for a rule's next date
 * without a bound (a rule that never gives one loops for ever), so only
 * daily to yearly rules with BYDAY, BYMONTHDAY and BYMONTH are expanded, and
 * only when a simulation of their first steps finds a date.
 */
function unsafeRule(rule: ICAL.Recur, dtstart: ICAL.Time): string | null {
  const unsupported = `its rule (${String(rule.freq)} with ${
    Object.keys(rule.parts ?? {}).join(", ") || "no parts"
  }) is not supported`;
  if (!["DAILY", "WEEKLY", "MONTHLY", "YEARLY"].includes(rule.freq ?? "")) {
    return unsupported;
  }
  const parts = (rule.parts ?? {}) as Record<string, unknown[]>;
  if (
    Object.keys(parts).some((p) =>
      !["BYDAY", "BYMONTHDAY", "BYMONTH"].includes(p)
    )
  ) return unsupported;
  const interval = rule.interval ?? 1;
  if (interval < 1 || interval > 99) return unsupported;
  const byDay = ((parts.BYDAY ?? []) as string[]).map((d) =>
    /^([+-]?\d{1,2})?(SU|MO|TU|WE|TH|FR|SA)$/.exec(String(d))
  );
  if (byDay.some((m) => m === null)) return unsupported;
  if (rule.freq !== "MONTHLY" && byDay.some((m) => m![1])) return unsupported;
  const weekdays = new Set(byDay.map((m) => WEEKDAYS.indexOf(m![2])));
  const monthDays = (parts.BYMONTHDAY ?? []).map(Number);
  const months = new Set((parts.BYMONTH ?? []).map(Number));
  if (
    monthDays.some((d) => !Number.isInteger(d) || d === 0 || d < -31 || d > 31)
  ) {
    return unsupported;
  }
  // Walk the days the rule can reach for PRODUCTIVE_STEPS steps.
  const first = Date.UTC(dtstart.year, dtstart.month - 1, dtstart.day);
  const day = 86_400_000;
  const matches = (at: number) => {
    const date = new Date(at);
    const length = new Date(
      Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0),
    ).getUTCDate();
    return (months.size === 0 || months.has(date.getUTCMonth() + 1)) &&
      (weekdays.size === 0 || weekdays.has(date.getUTCDay())) &&
      (monthDays.length === 0 ||
        monthDays.some((d) =>
          d > 0 ? d === date.getUTCDate() : length + d + 1 === date.getUTCDate()
        ));
  };
  for (let step = 0; step < PRODUCTIVE_STEPS; step++) {
    if (rule.freq === "DAILY") {
      if (matches(first + step * interval * day)) return null;
    } else if (rule.freq === "WEEKLY") {
      const week = first + step * interval * 7 * day;
      for (let d = 0; d < 7; d++) if (matches(week + d * day)) return null;
    } else {
      // Monthly and yearly: ical.js gives up on these by itself when they
      // give no date; still, refuse one no day of the next years matches.
      for (let d = 0; d < 7; d++) {
        if (matches(first + (step * 7 + d) * day)) return null;
      }
    }
  }
  return "its rule never gives a date";
}
