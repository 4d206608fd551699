/**
 * The event form of the web interface (submit and edit): its fields as an
 * event write's input, and an event as the form's fields. Times are typed
 * in the instance's time zone; an all-day event runs from midnight of its
 * first day to midnight after its last (the API has no all-day flag); tags
 * are separated by commas; the plain-text description keeps its paragraphs,
 * line breaks and links (then sanitised with every description).
 */
import type { MediaItem, Recurrence } from "../../db/schema.ts";
import { wallClock } from "../feeds/zoned.ts";
import { decodeEntities, escapeHtml } from "../html.ts";
import { localToInstantMs } from "./recurrence.ts";
import type { EventInput } from "./input.ts";

/** What the form posts (every field a string, possibly empty). */
export interface EventFormFields {
  title: string;
  /** `YYYY-MM-DDTHH:MM`, or `YYYY-MM-DD` for an all-day event. */
  start: string;
  end: string;
  /** "on" when ticked. */
  all_day: string;
  place_name: string;
  place_address: string;
  online_link: string;
  tags: string;
  description: string;
  /** "", "1w", "2w", "1m", "1m-nth", "1m-last", or "keep" (a series' other rule). */
  recurrence: string;
  /** `YYYY-MM-DD`: the last day of a series, or "". */
  until: string;
  image_alt: string;
  focal_x: string;
  focal_y: string;
  /** "on": take the event's image away. */
  image_remove: string;
}

/** The names of the form's text fields. */
export const EVENT_FORM_FIELDS: readonly (keyof EventFormFields)[] = [
  "title",
  "start",
  "end",
  "all_day",
  "place_name",
  "place_address",
  "online_link",
  "tags",
  "description",
  "recurrence",
  "until",
  "image_alt",
  "focal_x",
  "focal_y",
  "image_remove",
];

/** Every field empty: a new event's form. */
export const EMPTY_EVENT_FORM: EventFormFields = Object.fromEntries(
  EVENT_FORM_FIELDS.map((name) => [name, ""]),
) as unknown as EventFormFields;

/** A field of the form that a problem may be shown next to. */
export type EventFormField = keyof EventFormFields | "image" | "focal";

/** What can be wrong with a field (the page says it in its language). */
export type FormProblem =
  | "start"
  | "end"
  | "endBeforeStart"
  | "recurrence"
  | "lastWeekday"
  | "until"
  | "untilBeforeStart"
  | "online"
  | "tags"
  | "focal";

/** A field's problem, shown next to it. */
export interface FieldError {
  field: EventFormField;
  problem: FormProblem;
}

/** What the form is for: a new event, or changing a single event, a series or one of its dates. */
export type EventFormMode = "create" | "single" | "series" | "occurrence";

/** The image settings of the form. */
export interface ImageFields {
  alt: string;
  focalpoint: [number, number];
  remove: boolean;
}

/** Unix seconds of 2200-01-01: the API's bound on times. */
const MAX_TIME = 7_258_118_400;
const DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** A calendar day, its month 1..12. */
type Day = [year: number, month: number, day: number];

/** The day of a `YYYY-MM-DD` value (or the day of a datetime value), or null. */
function dayOf(value: string): Day | null {
  const match = DATE.exec(value.trim());
  if (!match) return null;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return [y, m, d];
}

/** Unix seconds of a wall-clock time in `timeZone`; null outside the API's range. */
function wallToUnix(floatingMs: number, timeZone: string): number | null {
  try {
    const unix = Math.floor(localToInstantMs(floatingMs, timeZone) / 1000);
    return unix >= 0 && unix < MAX_TIME ? unix : null;
  } catch {
    return null;
  }
}

/** Midnight starting `day` (plus `add` days) in `timeZone`, as Unix seconds. */
function midnight(day: Day, timeZone: string, add = 0): number | null {
  return wallToUnix(Date.UTC(day[0], day[1] - 1, day[2] + add), timeZone);
}

/** A `datetime-local` value in `timeZone`, as Unix seconds; null when it is not one. */
export function localTimeToUnix(
  value: string,
  timeZone: string,
): number | null {
  const match = DATETIME.exec(value);
  if (!match || !dayOf(value)) return null;
  const [hour, minute, second] = [
    Number(match[4]),
    Number(match[5]),
    Number(match[6] ?? 0),
  ];
  if (hour > 23 || minute > 59 || second > 59) return null;
  return wallToUnix(
    Date.UTC(
      Number(match[1]),
      Number(match[2]) - 1,
      Number(match[3]),
      hour,
      minute,
      second,
    ),
    timeZone,
  );
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `YYYY-MM-DD` of an instant in `timeZone`. */
export function localDate(unix: number, timeZone: string): string {
  const w = wallClock(unix * 1000, timeZone);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/** `YYYY-MM-DDTHH:MM` of an instant in `timeZone` (a `datetime-local` value). */
export function localDateTime(unix: number, timeZone: string): string {
  const w = wallClock(unix * 1000, timeZone);
  return `${localDate(unix, timeZone)}T${pad(w.hour)}:${pad(w.minute)}`;
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

/** Plain text as HTML: paragraphs at blank lines, line breaks kept, links made clickable. */
export function plainTextToHtml(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim().split(/\n{2,}/)
    .filter((p) => p.trim() !== "")
    .map((paragraph) => {
      const lines = paragraph.split("\n").map((line) => {
        let out = "";
        let at = 0;
        for (const match of line.matchAll(URL_IN_TEXT)) {
          out += escapeHtml(line.slice(at, match.index));
          const url = escapeHtml(match[0]);
          out += `<a href="${url}">${url}</a>`;
          at = match.index! + match[0].length;
        }
        return out + escapeHtml(line.slice(at));
      });
      return `<p>${lines.join("<br>")}</p>`;
    }).join("");
}

/**
 * A description (sanitised HTML) as the form's plain text: paragraphs
 * apart by a blank line, line breaks kept, a link as its address (after
 * its text when that differs). The inverse of plainTextToHtml on its output.
 */
export function htmlToPlainText(html: string): string {
  const text = html
    // In HTML a line break in the source is a space.
    .replace(/\s*\n\s*/g, " ")
    .replace(
      /<a\b[^>]*?\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi,
      (_, href: string, inner: string) => {
        const label = inner.replace(/<[^>]*>/g, "");
        return decodeEntities(label) === decodeEntities(href)
          ? href
          : `${label} (${href})`;
      },
    )
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/li>/gi, "\n")
    .replace(/<\/(p|div|h[1-6]|blockquote|ul|ol|pre)>/gi, "\n\n")
    .replace(/<[^>]*>/g, "");
  return decodeEntities(text).replace(/[ \t]+\n/g, "\n")
    .replace(/\n[ \t]+/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** Whether `text` is an http(s) address, as the API's online locations must be. */
function isWebAddress(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") &&
      url.hostname !== "";
  } catch {
    return false;
  }
}

/** The `recurrent` object of the form's choice, or a problem. */
function ruleOf(
  choice: string,
  start: number | null,
  timeZone: string,
  currentRule: Recurrence | null | undefined,
): { frequency: string; type: string } | FormProblem | null {
  switch (choice) {
    case "":
      return null;
    case "1w":
    case "2w":
      return { frequency: choice, type: "ordinal" };
    case "1m":
      return { frequency: "1m", type: "ordinal" };
    case "keep":
      return currentRule
        ? { frequency: currentRule.frequency, type: currentRule.type }
        : "recurrence";
    case "1m-nth":
    case "1m-last": {
      if (start === null) return null;
      const w = wallClock(start * 1000, timeZone);
      const monthDays = new Date(Date.UTC(w.year, w.month, 0)).getUTCDate();
      if (choice === "1m-last") {
        return w.day + 7 > monthDays
          ? { frequency: "1m", type: "-1" }
          : "lastWeekday";
      }
      // The fifth such weekday of a month is always its last.
      const nth = Math.ceil(w.day / 7);
      return { frequency: "1m", type: nth >= 5 ? "-1" : String(nth) };
    }
    default:
      return "recurrence";
  }
}

/**
 * The write input of the form's fields, what is wrong with them, and its
 * image settings. `mode` says what the form changes: an occurrence has no
 * rule of its own, a series keeps one, and a changed event's emptied place
 * is taken away (`place_id: null`). `currentRule`: a series' rule, for the
 * choice "keep".
 */
export function eventInputFromForm(
  fields: EventFormFields,
  timeZone: string,
  mode: EventFormMode = "create",
  currentRule?: Recurrence | null,
): { input: EventInput; errors: FieldError[]; image: ImageFields } {
  const errors: FieldError[] = [];
  const allDay = fields.all_day !== "";
  let start: number | null;
  let end: number | null = null;
  if (allDay) {
    const first = dayOf(fields.start);
    const last = fields.end.trim() === "" ? first : dayOf(fields.end);
    start = first && midnight(first, timeZone);
    if (start === null) errors.push({ field: "start", problem: "start" });
    if (!last) errors.push({ field: "end", problem: "end" });
    else if (first && Date.UTC(...last) < Date.UTC(...first)) {
      errors.push({ field: "end", problem: "endBeforeStart" });
    } else if (first) {
      end = midnight(last, timeZone, 1);
      if (end === null) errors.push({ field: "end", problem: "end" });
    }
  } else {
    start = localTimeToUnix(fields.start.trim(), timeZone);
    if (start === null) errors.push({ field: "start", problem: "start" });
    if (fields.end.trim() !== "") {
      end = localTimeToUnix(fields.end.trim(), timeZone);
      if (end === null) errors.push({ field: "end", problem: "end" });
      else if (start !== null && end <= start) {
        errors.push({ field: "end", problem: "endBeforeStart" });
      }
    }
  }

  let recurrent: EventInput["recurrent"];
  if (mode !== "occurrence") {
    const rule = ruleOf(fields.recurrence, start, timeZone, currentRule);
    if (typeof rule === "string") {
      errors.push({ field: "recurrence", problem: rule });
    } else if (rule === null && mode === "series" && start !== null) {
      // A series stays one (the API refuses to turn it into a single event).
      errors.push({ field: "recurrence", problem: "recurrence" });
    } else if (rule) {
      let until: number | undefined;
      if (fields.until.trim() !== "") {
        const day = dayOf(fields.until);
        // The whole last day: no occurrence starts after its end.
        const next = day && midnight(day, timeZone, 1);
        if (!next) errors.push({ field: "until", problem: "until" });
        else if (start !== null && next - 1 < start) {
          errors.push({ field: "until", problem: "untilBeforeStart" });
        } else until = next - 1;
      }
      recurrent = until === undefined ? rule : { ...rule, until };
    }
  }

  const focal = (value: string) => {
    if (value.trim() === "") return 0;
    const n = Number(value);
    return Number.isFinite(n) && n >= -1 && n <= 1 ? n : null;
  };
  const x = focal(fields.focal_x);
  const y = focal(fields.focal_y);
  if (x === null || y === null) {
    errors.push({ field: "focal", problem: "focal" });
  }

  const link = fields.online_link.trim();
  if (link !== "" && !isWebAddress(link)) {
    errors.push({ field: "online_link", problem: "online" });
  }
  const tags = fields.tags.split(",").map((t) => t.trim()).filter(Boolean);
  // The API's bounds (its schema checks them before the domain does).
  if (tags.length > 20 || tags.some((t) => t.length > 100)) {
    errors.push({ field: "tags", problem: "tags" });
  }

  const placeName = fields.place_name.trim();
  const input: EventInput = {
    title: fields.title.trim(),
    ...(start !== null ? { start_datetime: start } : {}),
    end_datetime: end,
    description: plainTextToHtml(fields.description),
    tags,
    online_locations: link ? [link] : [],
    ...(placeName
      ? { place_name: placeName, place_address: fields.place_address.trim() }
      : mode === "create"
      ? {}
      : { place_id: null }),
    ...(recurrent !== undefined ? { recurrent } : {}),
  };
  return {
    input,
    errors,
    image: {
      alt: fields.image_alt.trim(),
      focalpoint: [x ?? 0, y ?? 0],
      remove: fields.image_remove !== "",
    },
  };
}

/** What an event's form is filled from (the API's full form will do). */
export interface EventFormSource {
  title: string;
  start_datetime: number;
  end_datetime: number | null;
  description: string;
  online_locations: string[];
  tags: { tag: string }[] | string[];
  place: { name: string; address: string } | null;
  recurrent: Recurrence | null;
  media: MediaItem[];
}

/** The form's choice of a series' rule ("keep" when the form has none for it). */
export function recurrenceChoice(rule: Recurrence | null): string {
  if (!rule) return "";
  if (rule.frequency === "1w" || rule.frequency === "2w") {
    return rule.frequency;
  }
  if (rule.frequency === "1m") {
    if (rule.type === "ordinal") return "1m";
    if (rule.type === "-1") return "1m-last";
    return "1m-nth";
  }
  return "keep";
}

/**
 * An event as the form shows it, in `timeZone`: an event from midnight to
 * a later midnight is all-day (its last day shown as the end).
 */
export function formFieldsOfEvent(
  event: EventFormSource,
  timeZone: string,
): EventFormFields {
  const { start_datetime: start, end_datetime: end } = event;
  const atMidnight = (t: number) => {
    const w = wallClock(t * 1000, timeZone);
    return w.hour === 0 && w.minute === 0 && w.second === 0;
  };
  const allDay = end !== null && end > start && atMidnight(start) &&
    atMidnight(end);
  const image = event.media[0];
  const until = event.recurrent?.until;
  return {
    title: event.title,
    start: allDay ? localDate(start, timeZone) : localDateTime(start, timeZone),
    // The last day: the day before the midnight it ends at.
    end: end === null
      ? ""
      : allDay
      ? localDate(end - 43_200, timeZone)
      : localDateTime(end, timeZone),
    all_day: allDay ? "on" : "",
    place_name: event.place?.name ?? "",
    place_address: event.place?.address ?? "",
    online_link: event.online_locations[0] ?? "",
    tags: event.tags.map((t) => typeof t === "string" ? t : t.tag).join(", "),
    description: htmlToPlainText(event.description),
    recurrence: recurrenceChoice(event.recurrent),
    until: typeof until === "number" ? localDate(until, timeZone) : "",
    image_alt: image?.name ?? "",
    focal_x: image ? String(image.focalpoint[0]) : "0",
    focal_y: image ? String(image.focalpoint[1]) : "0",
    image_remove: "",
  };
}
