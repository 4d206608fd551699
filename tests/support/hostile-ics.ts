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

/** One long line: `prefix` and `suffix` around `unit` repeated to fill `bytes`. */
function longLine(bytes: number, prefix: string, unit: string, suffix = "") {
  const room = bytes - HEAD.length - TAIL.length - prefix.length -
    suffix.length - 2;
  return HEAD + prefix + unit.repeat(Math.floor(room / unit.length)) +
    suffix + "\r\n" + TAIL;
}

/** What Quando makes of a shape: refused over the budget, its event read, or its event skipped with a problem. */
export type HostileOutcome = "refused" | "read" | "skipped";

/** A zone whose yearly rule changes the offset every day (ical.js expands each change). */
const DAILY_ZONE = [
  "BEGIN:VCALENDAR",
  "BEGIN:VTIMEZONE",
  "TZID:Daily",
  "BEGIN:STANDARD",
  "DTSTART:16010101T000000",
  "TZOFFSETFROM:+0100",
  "TZOFFSETTO:+0000",
  "RRULE:FREQ=YEARLY;BYDAY=SU,MO,TU,WE,TH,FR,SA",
  "END:STANDARD",
  "END:VTIMEZONE",
  "BEGIN:VEVENT",
  "UID:hostile@example",
  "DTSTART;TZID=Daily:20301231T100000",
  "SUMMARY:Hostile",
  "LOCATION:Somewhere",
].join("\r\n") + "\r\n";

/** EXDATE lines of 2,000 dates each. */
const exdates = (bytes: number) => {
  const line = "EXDATE;VALUE=DATE:" +
    Array.from({ length: 2_000 }, () => "20300101").join(",") + "\r\n";
  return filled(bytes, line, HEAD + "RRULE:FREQ=WEEKLY\r\n");
};

/** The shapes, by name: how to make one of a size, and what Quando makes of it. */
export const HOSTILE_SHAPES: Record<
  string,
  { make: (bytes: number) => string; outcome: HostileOutcome }
> = {
  /** ~900k one-letter lines (the reported crash). */
  "x-lines": { make: (bytes) => filled(bytes, "X:\r\n"), outcome: "refused" },
  /** Properties Quando reads, repeated in one event. */
  "categories-lines": {
    make: (bytes) => filled(bytes, "CATEGORIES:a\r\n"),
    outcome: "refused",
  },
  /** One property with a parameter every four bytes. */
  "parameters": {
    make: (bytes) => longLine(bytes, "DTSTART", ";A=1", ":20300101T100000Z"),
    outcome: "refused",
  },
  /** One unknown property with a parameter every four bytes (dropped). */
  "x-parameters": {
    make: (bytes) => longLine(bytes, "X-P", ";A=1", ":v"),
    outcome: "read",
  },
  /** One list with a value every two bytes. */
  "values": {
    make: (bytes) => longLine(bytes, "CATEGORIES:a", ",a"),
    outcome: "refused",
  },
  /** Components nested in one another. */
  "nesting": {
    make: (bytes) => filled(bytes, "BEGIN:X\r\n"),
    outcome: "refused",
  },
  /** Many small events. */
  "components": {
    make: (bytes) =>
      filled(
        bytes,
        "BEGIN:VEVENT\r\nEND:VEVENT\r\n",
        "BEGIN:VCALENDAR\r\n",
        "END:VCALENDAR\r\n",
      ),
    outcome: "refused",
  },
  /** One description folded into one-byte continuation lines. */
  "folded": {
    make: (bytes) => filled(bytes, " x\r\n", HEAD + "DESCRIPTION:a\r\n"),
    outcome: "refused",
  },
  /** One huge description line. */
  "huge-line": {
    make: (bytes) => longLine(bytes, "DESCRIPTION:", "a"),
    outcome: "refused",
  },
  /** One huge unknown line (dropped). */
  "huge-x-line": {
    make: (bytes) => longLine(bytes, "X-HUGE:", "a"),
    outcome: "read",
  },
  /** Alarms (not read) in every event. */
  "alarms": {
    make: (bytes) =>
      filled(bytes, "BEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\n"),
    outcome: "refused",
  },
  /** Half a million EXDATE values in one event, within every per-line limit. */
  "exdates": { make: exdates, outcome: "skipped" },
  /** An RRULE with long lists, repeated (only the first is read). */
  "rrules": {
    make: (bytes) =>
      filled(
        bytes,
        "RRULE:FREQ=YEARLY;BYDAY=" + Array(1_500).fill("MO").join(",") +
          "\r\n",
      ),
    outcome: "read",
  },
  /** A zone changing every day since 1601 (refused: its times are read in the instance's zone). */
  "daily-zone": {
    make: (bytes) =>
      DAILY_ZONE + "X-PAD:" +
      "a".repeat(bytes - DAILY_ZONE.length - TAIL.length - 8) + "\r\n" + TAIL,
    outcome: "read",
  },
};
