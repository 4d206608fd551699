/**
 * The submission form's fields as an event write's input: times typed in
 * the instance's time zone, tags separated by commas, a plain-text
 * description whose paragraphs, line breaks and links are kept (then
 * sanitised with every description).
 */
import { escapeHtml } from "../html.ts";
import type { EventInput } from "./write.ts";

/** What the form posts (every field a string, possibly empty). */
export interface EventFormFields {
  title: string;
  start: string;
  end: string;
  place_name: string;
  place_address: string;
  online_link: string;
  tags: string;
  description: string;
}

/** A field's problem, shown next to it. */
export interface FieldError {
  field: keyof EventFormFields;
  message: string;
}

/** A `datetime-local` value in `timeZone`, as Unix seconds; null when it is not one. */
export function localTimeToUnix(
  value: string,
  timeZone: string,
): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  try {
    return Temporal.PlainDateTime.from(value).toZonedDateTime(timeZone)
      .epochMilliseconds / 1000;
  } catch {
    return null;
  }
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

/** The write input of the form's fields, or what is wrong with them. */
export function eventInputFromForm(
  fields: EventFormFields,
  timeZone: string,
): { input: EventInput; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const start = localTimeToUnix(fields.start, timeZone);
  if (start === null) {
    errors.push({
      field: "start",
      message: "Give the date and time it starts.",
    });
  }
  const end = fields.end === "" ? null : localTimeToUnix(fields.end, timeZone);
  if (fields.end !== "" && end === null) {
    errors.push({ field: "end", message: "Give a date and time, or nothing." });
  }
  const input: EventInput = {
    title: fields.title.trim(),
    ...(start !== null ? { start_datetime: start } : {}),
    end_datetime: end,
    description: plainTextToHtml(fields.description),
    tags: fields.tags.split(",").map((t) => t.trim()).filter(Boolean),
    online_locations: fields.online_link.trim()
      ? [fields.online_link.trim()]
      : [],
    ...(fields.place_name.trim()
      ? {
        place_name: fields.place_name.trim(),
        place_address: fields.place_address.trim(),
      }
      : {}),
  };
  return { input, errors };
}
