/**
 * Hostile iCalendar files of a given size, one per shape that costs a naive
 * parser memory out of proportion to the bytes: many lines, many
 * properties, parameters, values, deep nesting, folded lines, one huge line,
 * many components. Used by tests/ics-budget.test.ts and
 * tests/bench/hostile-ics.ts.
 */

const HEAD = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//Quando tests//hostile//EN",
  "BEGIN:VEVENT",
  "UID:hostile@example",
  "DTSTART:20300101T100000Z",
  "SUMMARY:Hostile",
  "LOCATION:Somewhere",
].join("\r\n") + "\r\n";
const TAIL = "END:VEVENT\r\nEND:VCALENDAR\r\n";

/** `unit` repeated to fill `bytes` between the head and the tail. */
function filled(bytes: number, unit: string, head = HEAD, tail = TAIL) {
  const times = Math.max(
    1,
    Math.floor((bytes - head.length - tail.length) / unit.length),
  );
  return head + unit.repeat(times) + tail;
}

/** One long line: `name` and `rest` around `bytes` of `fill`. */
function longLine(bytes: number, prefix: string, unit: string, suffix = "") {
  const room = bytes - HEAD.length - TAIL.length - prefix.length -
    suffix.length - 2;
  return HEAD + prefix + unit.repeat(Math.floor(room / unit.length)) +
    suffix + "\r\n" + TAIL;
}

/** The shapes, by name, each a function of the file's size in bytes. */
export const HOSTILE_SHAPES: Record<string, (bytes: number) => string> = {
  /** ~900k one-letter lines (the reported crash). */
  "x-lines": (bytes) => filled(bytes, "X:\r\n"),
  /** Properties Quando reads, repeated in one event. */
  "categories-lines": (bytes) => filled(bytes, "CATEGORIES:a\r\n"),
  /** One property with a parameter every four bytes. */
  "parameters": (bytes) =>
    longLine(bytes, "DTSTART", ";A=1", ":20300101T100000Z"),
  /** One unknown property with a parameter every four bytes (dropped). */
  "x-parameters": (bytes) => longLine(bytes, "X-P", ";A=1", ":v"),
  /** One list with a value every two bytes. */
  "values": (bytes) => longLine(bytes, "CATEGORIES:a", ",a"),
  /** Components nested in one another. */
  "nesting": (bytes) => filled(bytes, "BEGIN:X\r\n"),
  /** Many small events. */
  "components": (bytes) =>
    filled(
      bytes,
      "BEGIN:VEVENT\r\nEND:VEVENT\r\n",
      "BEGIN:VCALENDAR\r\n",
      "END:VCALENDAR\r\n",
    ),
  /** One description folded into one-byte continuation lines. */
  "folded": (bytes) => filled(bytes, " x\r\n", HEAD + "DESCRIPTION:a\r\n"),
  /** One huge description line. */
  "huge-line": (bytes) => longLine(bytes, "DESCRIPTION:", "a"),
  /** One huge unknown line (dropped). */
  "huge-x-line": (bytes) => longLine(bytes, "X-HUGE:", "a"),
  /** Alarms (not read) in every event. */
  "alarms": (bytes) =>
    filled(
      bytes,
      "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\n",
    ),
};
