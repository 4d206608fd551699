/**
 * A bounded first pass over an iCalendar text, before ical.js sees any of
 * it. ical.js builds a jCal array per content line and an object per
 * parameter, so its memory grows with the file's shape, not its size: 3.5 MiB
 * of one-letter lines fill a 128 MB heap. This pass walks the text once,
 * without splitting it, and refuses a file over the budget (lines,
 * components, nesting, properties per component, parameters, values, line
 * length) before anything is parsed. What it keeps is only what Quando reads:
 * each VEVENT and VTIMEZONE as its own small text, with the properties the
 * reader uses, so the parse runs one component at a time.
 */

/** The budget of one file. */
export interface IcsBudget {
  /** Physical lines (folded continuations included). */
  maxLines: number;
  /** Components (BEGIN lines), of every kind. */
  maxComponents: number;
  /** Components nested in one another (VCALENDAR > VEVENT > VALARM is 3). */
  maxDepth: number;
  /** Properties of one component, read or not. */
  maxProperties: number;
  /** Parameters of one property Quando reads. */
  maxParameters: number;
  /** Comma-separated values of one property Quando reads. */
  maxValues: number;
  /** Characters of one unfolded text property Quando reads (SUMMARY, DESCRIPTION...). */
  maxTextChars: number;
  /** Characters of any other unfolded property Quando reads. */
  maxOtherChars: number;
}

/** The budget every calendar is read under (upload, subscription). */
export const ICS_BUDGET: IcsBudget = {
  maxLines: 200_000,
  maxComponents: 50_000,
  maxDepth: 8,
  maxProperties: 2_000,
  maxParameters: 20,
  maxValues: 2_000,
  maxTextChars: 256 * 1024,
  maxOtherChars: 64 * 1024,
};

/** VEVENTs kept; the others are left out with a problem. */
export const ICS_MAX_EVENTS = 5_000;
/** VTIMEZONEs kept, and observances (STANDARD/DAYLIGHT) kept per zone. */
const MAX_ZONES = 100;
/** One more than the reader accepts, so that it can say why a zone is refused. */
const MAX_OBSERVANCES_KEPT = 41;
/** ATTACH/IMAGE values longer than this are inline data, never a link: left out. */
const MAX_LINK_CHARS = 8 * 1024;

/** A file over the budget: nothing of it is read. */
export class IcsBudgetError extends Error {
  constructor(message: string) {
    super(`The calendar is over the import budget: ${message}`);
    this.name = "IcsBudgetError";
  }
}

/** The properties the reader uses, by component; everything else is dropped. */
const KEPT: Record<string, ReadonlySet<string>> = {
  VEVENT: new Set([
    "UID",
    "DTSTART",
    "DTEND",
    "DURATION",
    "RECURRENCE-ID",
    "SUMMARY",
    "DESCRIPTION",
    "X-ALT-DESC",
    "LOCATION",
    "GEO",
    "URL",
    "CATEGORIES",
    "STATUS",
    "RRULE",
    "EXDATE",
    "IMAGE",
    "ATTACH",
  ]),
  VTIMEZONE: new Set(["TZID"]),
  STANDARD: new Set([
    "DTSTART",
    "TZOFFSETFROM",
    "TZOFFSETTO",
    "RRULE",
    "RDATE",
    "TZNAME",
  ]),
};
KEPT.DAYLIGHT = KEPT.STANDARD;
const TEXT = new Set(["SUMMARY", "DESCRIPTION", "X-ALT-DESC", "LOCATION"]);
const LINKS = new Set(["IMAGE", "ATTACH"]);

/**
 * How much of a read property one component keeps: the reader takes the
 * first of most properties, so later copies are dropped (each would cost
 * ical.js a parse, an RRULE's lists most of all); listed properties keep
 * values up to a count, one more than the reader accepts so it can say why
 * it refuses.
 */
const KEPT_LINES: Record<string, number> = {
  "X-ALT-DESC": 4,
  IMAGE: 20,
  ATTACH: 20,
};
const KEPT_VALUES: Record<string, number> = {
  EXDATE: 1_001,
  CATEGORIES: 200,
  RDATE: 41,
};

/** What the first pass kept. */
export interface ScannedCalendar {
  /** Whether the text has a VCALENDAR at all. */
  calendar: boolean;
  /** Each VTIMEZONE of the first VCALENDAR, as its own text. */
  zones: string[];
  /** Each VEVENT of the first VCALENDAR, as its own text. */
  events: string[];
  /** VEVENTs left out past ICS_MAX_EVENTS. */
  eventsLeftOut: number;
  /** Whether the text holds a VCALENDAR after the first (not read). */
  moreCalendars: boolean;
}

/** An open component while the text is walked. */
interface Frame {
  name: string;
  /** Properties met in it. */
  properties: number;
  /** Lines and values of each read property kept in it. */
  taken: Map<string, { lines: number; values: number }>;
}

/** The name of a content line (before its first `;` or `:`), upper-cased. */
function nameOf(line: string): string {
  const end = line.search(/[;:]/);
  return (end < 0 ? line : line.slice(0, end)).toUpperCase();
}

/** Parameters of a line and, when `listed`, its comma-separated values (counted outside quotes). */
function shapeOf(
  line: string,
  listed: boolean,
): { parameters: number; values: number } {
  let parameters = 0;
  let values = 1;
  let quoted = false;
  let inValue = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (inValue) {
      // Text values are one value whatever their commas.
      if (!listed) break;
      // 44 ",", 92 "\" (an escaped comma is text, not a separator).
      if (ch === 92) i++;
      else if (ch === 44) values++;
    } else if (ch === 34) quoted = !quoted;
    else if (!quoted && ch === 59) parameters++;
    else if (!quoted && ch === 58) inValue = true;
  }
  return { parameters, values };
}

/**
 * Walks `source` once under `budget` and returns the components Quando
 * reads, each as a small text; throws IcsBudgetError for a file over the
 * budget. Lines outside the first VCALENDAR, unknown components (VALARM,
 * VTODO...) and properties Quando does not read are skipped without being
 * kept.
 */
export function scanIcs(
  source: string,
  budget: IcsBudget = ICS_BUDGET,
): ScannedCalendar {
  const result: ScannedCalendar = {
    calendar: false,
    zones: [],
    events: [],
    eventsLeftOut: 0,
    moreCalendars: false,
  };
  const stack: Frame[] = [];
  /** Depth of the outermost open component not kept (0: every open one is kept). */
  let skipFrom = 0;
  let block: string[] | null = null;
  let observances = 0;
  let lines = 0;
  let components = 0;
  let done = false;
  let pos = 0;
  const length = source.length;

  /** Where the last physical line read ends (before its line break). */
  let lineEnd = 0;
  /** The physical line at `pos` (without its line break); moves `pos` on. */
  const nextPhysical = (): string => {
    let end = source.indexOf("\n", pos);
    if (end < 0) end = length;
    lineEnd = end > pos && source[end - 1] === "\r" ? end - 1 : end;
    const line = source.slice(pos, lineEnd);
    pos = end + 1;
    lines++;
    if (lines > budget.maxLines) {
      throw new IcsBudgetError(`more than ${budget.maxLines} lines`);
    }
    return line;
  };
  const continues = () =>
    pos < length && (source[pos] === " " || source[pos] === "\t");

  /** Closes the innermost open component (its END line is `line`). */
  const close = (line: string) => {
    const depth = stack.length;
    const frame = stack.pop()!;
    if (skipFrom === depth) skipFrom = 0;
    else if (skipFrom === 0 && block) {
      block.push(line);
      if (depth === 2) {
        (frame.name === "VEVENT" ? result.events : result.zones).push(
          block.join("\r\n"),
        );
        block = null;
      }
    }
    // Only the first VCALENDAR is read.
    if (depth === 1 && result.calendar) done = true;
  };

  /** Opens a component; whether it is kept depends on where it is. */
  const open = (name: string, line: string) => {
    components++;
    if (components > budget.maxComponents) {
      throw new IcsBudgetError(`more than ${budget.maxComponents} components`);
    }
    if (stack.length >= budget.maxDepth) {
      throw new IcsBudgetError(
        `components nested more than ${budget.maxDepth} deep`,
      );
    }
    stack.push({ name, properties: 0, taken: new Map() });
    if (skipFrom !== 0) return;
    const depth = stack.length;
    const parent = stack[depth - 2]?.name;
    if (depth === 1 && name === "VCALENDAR") {
      result.calendar = true;
    } else if (
      parent === "VCALENDAR" && name === "VEVENT" &&
      result.events.length < ICS_MAX_EVENTS
    ) {
      block = [line];
    } else if (parent === "VCALENDAR" && name === "VEVENT") {
      result.eventsLeftOut++;
      skipFrom = depth;
    } else if (
      parent === "VCALENDAR" && name === "VTIMEZONE" &&
      result.zones.length < MAX_ZONES
    ) {
      block = [line];
      observances = 0;
    } else if (
      parent === "VTIMEZONE" && block &&
      (name === "STANDARD" || name === "DAYLIGHT") &&
      ++observances <= MAX_OBSERVANCES_KEPT
    ) {
      block.push(line);
    } else skipFrom = depth;
  };

  while (pos < length && !done) {
    const lineStart = pos;
    const first = nextPhysical();
    const frame = stack.at(-1);
    const readHere = skipFrom === 0 && frame !== undefined
      ? KEPT[frame.name]
      : undefined;
    const name = nameOf(first);
    let wanted = readHere?.has(name) ?? false;
    const cap = TEXT.has(name) ? budget.maxTextChars : budget.maxOtherChars;
    // Unfold: continuations are only counted, and a wanted line is put
    // together once, when it is known to be within its cap.
    let size = first.length;
    let folded = false;
    while (continues()) {
      size += nextPhysical().length - 1;
      folded = true;
    }
    if (wanted && size > cap) {
      // A link that long is inline data, never read: left out.
      if (!LINKS.has(name)) {
        throw new IcsBudgetError(
          `a ${name} line is longer than ${cap} characters`,
        );
      }
      wanted = false;
    }
    const line = wanted && folded
      ? source.slice(lineStart, lineEnd).replace(/\r?\n[ \t]/g, "")
      : first;
    if (line.trim() === "") continue;

    if (name === "BEGIN") {
      open(line.slice(line.indexOf(":") + 1).trim().toUpperCase(), line);
      continue;
    }
    if (name === "END") {
      const component = line.slice(line.indexOf(":") + 1).trim()
        .toUpperCase();
      // An END that closes nothing open is ignored; one that closes an outer
      // component closes the ones left open inside it (as lenient readers do).
      const at = stack.findLastIndex((f) => f.name === component);
      if (at < 0) continue;
      while (stack.length > at + 1) close(`END:${stack.at(-1)!.name}`);
      close(line);
      continue;
    }
    if (frame && ++frame.properties > budget.maxProperties) {
      throw new IcsBudgetError(
        `a ${
          frame.name.slice(0, 40)
        } has more than ${budget.maxProperties} properties`,
      );
    }
    // (Set by open and close: TypeScript cannot see it change here.)
    const keeping = block as string[] | null;
    if (!wanted || !keeping || !frame) continue;
    if (LINKS.has(name) && line.length > MAX_LINK_CHARS) continue;
    const shape = shapeOf(line, !TEXT.has(name));
    if (shape.parameters > budget.maxParameters) {
      throw new IcsBudgetError(
        `a ${name} line has more than ${budget.maxParameters} parameters`,
      );
    }
    if (shape.values > budget.maxValues) {
      throw new IcsBudgetError(
        `a ${name} line has more than ${budget.maxValues} values`,
      );
    }
    const taken = frame.taken.get(name) ?? { lines: 0, values: 0 };
    const maxValues = KEPT_VALUES[name];
    if (
      maxValues !== undefined
        ? taken.values >= maxValues
        : taken.lines >= (KEPT_LINES[name] ?? 1)
    ) continue;
    taken.lines++;
    taken.values += shape.values;
    frame.taken.set(name, taken);
    keeping.push(line);
  }
  if (done) {
    result.moreCalendars = /^BEGIN:VCALENDAR\s*$/im.test(source.slice(pos));
  }
  return result;
}
