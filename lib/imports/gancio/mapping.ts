/** Gancio events read into Quando import items: parsing, series rules. */
import { occurrenceStarts, parseRecurrence } from "../../events/recurrence.ts";
import type { UserRow } from "../../users.ts";
import type { ImportItem } from "../apply.ts";

/** A network failure or an answer that is not Gancio's: the import stops. */
export class GancioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GancioError";
  }
}

/** A Gancio place as its API and tables give it. */
export interface GancioPlace {
  name: string;
  address: string;
  latitude: number | null;
  longitude: number | null;
}

/** A Gancio event, from its API detail or its `events` row, normalised. */
export interface GancioEvent {
  id: number;
  /** Gancio's slug (its page is `/event/<slug>`); null when not given. */
  slug: string | null;
  title: string;
  description: string;
  start_datetime: number;
  end_datetime: number | null;
  online_locations: string[];
  tags: string[];
  place: GancioPlace | null;
  /** Gancio keeps one image: `url` is a file name under /media/ (or an absolute URL). */
  media: { url: string; name: string; focalpoint: [number, number] }[];
  recurrent: Record<string, unknown> | null;
  parentId: number | null;
  is_visible: boolean;
  userId: number | null;
}

/** A number, or a numeric string, as a number; null otherwise. */
export const asNumber = (v: unknown): number | null => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

/** A string, or a number as a string; "" otherwise. */
export const asString = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : "";

/** JSON columns come as text from SQLite and as values from the API. */
export function json(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

/** A boolean as SQLite (0 or 1) or the API gives it. */
export const asBool = (v: unknown): boolean =>
  v === true || v === 1 || v === "1" || v === "true";

function focalPoint(v: unknown): [number, number] {
  const value = json(v);
  if (Array.isArray(value) && value.length === 2) {
    const [x, y] = value.map(Number);
    if ([x, y].every((n) => Number.isFinite(n))) {
      const clamp = (n: number) => Math.max(-1, Math.min(1, n));
      return [clamp(x), clamp(y)];
    }
  }
  return [0, 0];
}

/** A Gancio place, or null when it has no name. */
export function placeOf(v: unknown): GancioPlace | null {
  if (typeof v !== "object" || v === null) return null;
  const p = v as Record<string, unknown>;
  const name = asString(p.name).trim();
  if (!name) return null;
  return {
    name,
    address: asString(p.address).trim(),
    latitude: asNumber(p.latitude),
    longitude: asNumber(p.longitude),
  };
}

/**
 * A Gancio event from its API detail (or a row with its place and tags
 * joined in); a sentence when it is not one.
 */
export function parseGancioEvent(raw: unknown): GancioEvent | string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return "not an event object";
  }
  const e = raw as Record<string, unknown>;
  const id = asNumber(e.id);
  const start = asNumber(e.start_datetime);
  if (id === null || !Number.isInteger(id)) return "no numeric id";
  if (start === null) return `event ${id}: no start_datetime`;
  const end = asNumber(e.end_datetime);
  const media = json(e.media);
  const online = json(e.online_locations);
  const recurrent = json(e.recurrent);
  const tags = Array.isArray(e.tags) ? e.tags : [];
  const parent = e.parent as Record<string, unknown> | null | undefined;
  return {
    id,
    slug: asString(e.slug).trim() || null,
    title: asString(e.title).trim(),
    description: asString(e.description),
    start_datetime: Math.trunc(start),
    end_datetime: end !== null && end > start ? Math.trunc(end) : null,
    online_locations: Array.isArray(online)
      ? online.filter((u): u is string =>
        typeof u === "string" && /^https?:\/\//i.test(u.trim())
      ).map((u) => u.trim())
      : [],
    tags: tags.map((t) =>
      typeof t === "object" && t !== null
        ? asString((t as Record<string, unknown>).tag)
        : asString(t)
    ).map((t) => t.trim()).filter(Boolean),
    place: placeOf(e.place),
    media: Array.isArray(media)
      ? media.filter((m) =>
        typeof m === "object" && m !== null &&
        asString((m as Record<string, unknown>).url) !== ""
      ).slice(0, 1).map((m) => {
        const item = m as Record<string, unknown>;
        return {
          url: asString(item.url),
          name: asString(item.name),
          focalpoint: focalPoint(item.focalpoint ?? item.focalPoint),
        };
      })
      : [],
    recurrent: typeof recurrent === "object" && recurrent !== null &&
        !Array.isArray(recurrent)
      ? recurrent as Record<string, unknown>
      : null,
    parentId: asNumber(e.parentId) ?? asNumber(parent?.id) ?? null,
    is_visible: e.is_visible === undefined ? true : asBool(e.is_visible),
    userId: asNumber(e.userId),
  };
}

/** A Gancio rule as a Quando recurrence, or null when Quando cannot repeat it. */
export function seriesRule(
  recurrent: Record<string, unknown>,
): { frequency: string; type: string } | null {
  const frequency = asString(recurrent.frequency).trim().toLowerCase();
  const rule = frequency.endsWith("m")
    ? { frequency, type: asString(recurrent.type) || "ordinal" }
    : { frequency, type: "ordinal" };
  try {
    const parsed = parseRecurrence(rule);
    return { frequency: parsed.frequency, type: parsed.type };
  } catch {
    return null;
  }
}

/** A Gancio event and the key (uid, RECURRENCE-ID) of the item it is imported as. */
export interface GancioLink {
  gancioId: number;
  slug: string | null;
  uid: string;
  recurrenceId: number;
  /**
   * Its owner in Quando when the database tells (null: an anonymous
   * submission); absent when unknown (the API does not say, or the author's
   * account is not active).
   */
  ownerId?: number | null;
}

/** What the items are made with. */
export interface ItemOptions {
  /** The reference of an image (a Gancio media file name or URL); null: left out. */
  imageRef: (url: string) => string | null;
  /** What names the image whichever way it is read (absent: its reference). */
  imageKey?: (url: string) => string;
  /** Whether Quando repeats series here (the setting allow_recurrent_event). */
  seriesAllowed: boolean;
  /** The owner of an event by its Gancio user id (absent: the import's user). */
  ownerOf?: (userId: number | null) => UserRow | undefined;
  /** The instance time zone, in which series keep their wall-clock time. */
  timeZone: string;
}

/**
 * Whether a place is Gancio's "online" pseudo-place (what Gancio files an
 * event held only online under), not a place anyone goes to.
 */
export function isOnlinePseudoPlace(place: GancioPlace | null): boolean {
  return place !== null && place.name.trim().toLowerCase() === "online" &&
    place.latitude === null && place.longitude === null &&
    ["", "online"].includes(place.address.trim().toLowerCase());
}

/**
 * The place of an event in Quando: none for an event held online (it keeps
 * its links); the pseudo-place is kept, with a problem line, only when the
 * event has no link to hold it without one.
 */
function placeIn(event: GancioEvent, problems: string[]): GancioPlace | null {
  if (!isOnlinePseudoPlace(event.place)) return event.place;
  if (event.online_locations.length > 0) return null;
  problems.push(
    `${event.id}: held online but without a link: kept at a place named "${
      event.place!.name
    }" (add its link in Quando)`,
  );
  return event.place;
}

function baseItem(
  event: GancioEvent,
  options: ItemOptions,
  problems: string[],
): ImportItem {
  const media = event.media[0];
  const image = media ? options.imageRef(media.url) : null;
  if (media && image === null) {
    problems.push(
      `${event.id}: its image ${media.url} is not reachable and was left out`,
    );
  }
  return {
    uid: String(event.id),
    recurrenceId: null,
    title: event.title,
    description: event.description,
    start: event.start_datetime,
    end: event.end_datetime,
    allDay: false,
    place: placeIn(event, problems),
    online_locations: event.online_locations,
    tags: event.tags,
    cancelled: false,
    recurrent: null,
    until: null,
    exdates: [],
    image,
    imageKey: media && image ? options.imageKey?.(media.url) : undefined,
    imageName: media && image ? media.name : undefined,
    imageFocalpoint: media && image ? media.focalpoint : undefined,
    owner: options.ownerOf?.(event.userId),
    visible: event.is_visible,
  };
}

/**
 * The Quando owner of an event when the database tells: its author's
 * account, or null (nobody) for an anonymous submission.
 */
function ownerIdOf(
  event: GancioEvent,
  options: ItemOptions,
): number | null | undefined {
  if (!options.ownerOf) return undefined;
  if (event.userId === null) return null;
  return options.ownerOf(event.userId)?.id;
}

/** Whether an occurrence says only what its series says. */
function sameAsParent(occurrence: GancioEvent, parent: GancioEvent): boolean {
  const duration = (e: GancioEvent) =>
    e.end_datetime === null ? null : e.end_datetime - e.start_datetime;
  return occurrence.title === parent.title &&
    occurrence.description === parent.description &&
    JSON.stringify(occurrence.place) === JSON.stringify(parent.place) &&
    JSON.stringify([...occurrence.tags].sort()) ===
      JSON.stringify([...parent.tags].sort()) &&
    JSON.stringify(occurrence.online_locations) ===
      JSON.stringify(parent.online_locations) &&
    occurrence.media[0]?.url === parent.media[0]?.url &&
    duration(occurrence) === duration(parent) &&
    occurrence.is_visible === parent.is_visible;
}

/** The length of one period of a rule, in seconds (a month counts 28 days). */
function periodSeconds(frequency: string): number {
  const [, count, unit] = /^(\d+)([dwmy])$/.exec(frequency) ?? [, "1", "w"];
  const days = { d: 1, w: 7, m: 28, y: 365 }[unit as "d" | "w" | "m" | "y"];
  return Number(count) * days * 86_400;
}

/**
 * The slot of the series each of its Gancio occurrences stands for (by
 * Gancio id). Gancio keeps no record of it: an occurrence still at a start
 * the rule gives holds that one; one edited on its own to another time
 * (moved) holds the nearest slot no other occurrence holds, within half a
 * period; one too far from any keeps its own start (it is history, or a
 * stray, and comes in as a single event).
 */
export function occurrenceSlots(
  parent: GancioEvent,
  rule: { frequency: string; type: string },
  occurrences: GancioEvent[],
  timeZone: string,
): Map<number, number> {
  const out = new Map<number, number>();
  if (occurrences.length === 0) return out;
  const half = periodSeconds(rule.frequency) / 2;
  const starts = occurrences.map((o) => o.start_datetime);
  const slots = occurrenceStarts({
    start: parent.start_datetime,
    rule: parseRecurrence(rule),
    timeZone,
    from: Math.min(...starts) - half,
    until: Math.max(...starts) + half,
    minCount: 0,
    maxCount: 100_000,
  });
  const free = new Set(slots);
  const moved: GancioEvent[] = [];
  for (const o of occurrences) {
    if (free.has(o.start_datetime)) {
      out.set(o.id, o.start_datetime);
      free.delete(o.start_datetime);
    } else moved.push(o);
  }
  for (const o of moved.sort((a, b) => a.start_datetime - b.start_datetime)) {
    let best: number | null = null;
    for (const slot of free) {
      const distance = Math.abs(slot - o.start_datetime);
      if (
        distance <= half &&
        (best === null || distance < Math.abs(best - o.start_datetime))
      ) best = slot;
    }
    if (best === null) {
      out.set(o.id, o.start_datetime);
    } else {
      out.set(o.id, best);
      free.delete(best);
    }
  }
  return out;
}

/**
 * The import items of Gancio events: parents with a rule Quando repeats
 * become series, their occurrences exceptions (linked, changed, or single
 * events from before the series); everything else single events.
 */
export function gancioItems(
  events: GancioEvent[],
  options: ItemOptions,
): { items: ImportItem[]; links: GancioLink[]; problems: string[] } {
  const problems: string[] = [];
  const links: GancioLink[] = [];
  const byId = new Map(events.map((e) => [e.id, e]));
  const series = new Map<number, { frequency: string; type: string }>();
  const items: ImportItem[] = [];
  for (const event of events) {
    if (!event.recurrent || event.parentId !== null) continue;
    const rule = seriesRule(event.recurrent);
    if (!rule || !options.seriesAllowed) {
      problems.push(
        `${event.id}: ${
          rule
            ? "series are disabled here (allow_recurrent_event)"
            : `its rule ${
              JSON.stringify(event.recurrent)
            } is not one Quando repeats`
        }; its occurrences are imported one by one`,
      );
      continue;
    }
    series.set(event.id, rule);
    links.push({
      gancioId: event.id,
      slug: event.slug,
      uid: String(event.id),
      recurrenceId: 0,
      ownerId: ownerIdOf(event, options),
    });
    items.push({ ...baseItem(event, options, problems), recurrent: rule });
  }
  const occurrencesOf = new Map<number, GancioEvent[]>();
  for (const event of events) {
    if (event.parentId === null || !series.has(event.parentId)) continue;
    const list = occurrencesOf.get(event.parentId) ?? [];
    list.push(event);
    occurrencesOf.set(event.parentId, list);
  }
  const slotOf = new Map<number, number>();
  for (const [parentId, occurrences] of occurrencesOf) {
    for (
      const [id, slot] of occurrenceSlots(
        byId.get(parentId)!,
        series.get(parentId)!,
        occurrences,
        options.timeZone,
      )
    ) slotOf.set(id, slot);
  }
  for (const event of events) {
    if (event.recurrent && event.parentId === null) continue;
    const parent = event.parentId !== null && series.has(event.parentId)
      ? byId.get(event.parentId)!
      : null;
    const item = baseItem(event, options, problems);
    if (!parent) {
      links.push({
        gancioId: event.id,
        slug: event.slug,
        uid: item.uid,
        recurrenceId: 0,
        ownerId: ownerIdOf(event, options),
      });
      items.push(item);
      continue;
    }
    const slot = slotOf.get(event.id) ?? event.start_datetime;
    items.push({
      ...item,
      uid: String(parent.id),
      recurrenceId: slot,
      inheritsSeries: slot === event.start_datetime &&
        sameAsParent(event, parent),
      orphanAsSingle: true,
    });
    links.push({
      gancioId: event.id,
      slug: event.slug,
      uid: String(parent.id),
      recurrenceId: slot,
      ownerId: ownerIdOf(event, options),
    });
  }
  return { items, links, problems };
}
