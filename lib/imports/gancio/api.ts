/** Reading a Gancio instance's public API: its events, page by page, then each in detail. */
import { type FetchLimits, limitedGet } from "../../federation/loader.ts";
import {
  asNumber,
  asString,
  GancioError,
  type GancioEvent,
  parseGancioEvent,
} from "./mapping.ts";

/** Events asked for per page of `GET /api/events`. */
export const GANCIO_PAGE = 100;
/** Events read at most from one instance. */
export const GANCIO_MAX_EVENTS = 20_000;
const LIST_MAX_BYTES = 10 * 1024 * 1024;
const DETAIL_MAX_BYTES = 2 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

/** A Gancio instance's origin (`https://gancio.example`), from what an owner typed. */
export function gancioOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new GancioError(`${value} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new GancioError(`${value} is not an http(s) URL`);
  }
  return url.origin;
}

/** The most values (and nesting) a Gancio answer may hold: its events' fields, with room. */
const JSON_MAX_VALUES = 1_000_000;
const JSON_MAX_DEPTH = 64;

/**
 * Why a JSON text is over the budget, or null: JSON.parse's memory grows with
 * the number of values, not the bytes (10 MiB of `[[],[],…]` is millions of
 * arrays), so they are counted, outside strings, before it runs.
 */
export function jsonOverBudget(text: string): string | null {
  let values = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // a backslash escapes the next character
      else if (ch === 34) inString = false;
      continue;
    }
    if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) { // { [
      values++;
      if (++depth > JSON_MAX_DEPTH) {
        return `nested deeper than ${JSON_MAX_DEPTH} levels`;
      }
    } else if (ch === 125 || ch === 93) depth--; // } ]
    else if (ch === 44 || ch === 58) values++; // , :
    if (values > JSON_MAX_VALUES) {
      return `more than ${JSON_MAX_VALUES} values`;
    }
  }
  return null;
}

async function getJson(
  url: string,
  limits: FetchLimits,
  maxBytes: number,
): Promise<{ status: number; body: unknown }> {
  let got;
  try {
    got = await limitedGet(url, { ...limits, maxBytes }, {
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(limits.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new GancioError(
      `${url} could not be read: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  if (got.status < 200 || got.status >= 300) {
    return { status: got.status, body: null };
  }
  const text = new TextDecoder().decode(got.body);
  const refusal = jsonOverBudget(text);
  if (refusal) {
    throw new GancioError(`${url} is over the import budget: ${refusal}`);
  }
  try {
    return { status: got.status, body: JSON.parse(text) };
  } catch {
    throw new GancioError(
      `${url} did not answer JSON: is this a Gancio instance?`,
    );
  }
}

/** What was read from an instance. */
export interface GancioReading {
  events: GancioEvent[];
  problems: string[];
}

/**
 * Reads every public event of the instance at `origin` starting from
 * `since` (Unix seconds; 0: all of them), with the parents of the series
 * they belong to. Pages by start: each request asks for the events from the
 * last start seen on, so pages stay right while the list changes and on
 * versions that ignore `page`.
 */
export async function fetchGancioEvents(
  origin: string,
  limits: FetchLimits,
  since: number,
): Promise<GancioReading> {
  const problems: string[] = [];
  const listed = new Map<number, number>();
  let cursor = since;
  while (listed.size < GANCIO_MAX_EVENTS) {
    const url = `${origin}/api/events?start=${cursor}` +
      `&show_recurrent=true&show_multidate=true&max=${GANCIO_PAGE}`;
    const { status, body } = await getJson(url, limits, LIST_MAX_BYTES);
    if (status !== 200 || !Array.isArray(body)) {
      throw new GancioError(
        status !== 200
          ? `${url} answered HTTP ${status}: is this a Gancio instance?`
          : `${url} did not answer a list of events: is this a Gancio instance?`,
      );
    }
    let last = cursor;
    for (const raw of body) {
      const r = raw as Record<string, unknown>;
      const id = asNumber(r?.id);
      const start = asNumber(r?.start_datetime);
      if (id === null || start === null) {
        throw new GancioError(
          `${url} answered something else than Gancio events`,
        );
      }
      listed.set(id, start);
      last = Math.max(last, start);
    }
    // A short page is the last; a longer one means `max` is not honoured
    // (everything came at once); no progress means one start holds more
    // events than a page (the rest is left, said so).
    if (body.length < GANCIO_PAGE || body.length > GANCIO_PAGE) break;
    if (last === cursor) {
      problems.push(
        `more than ${GANCIO_PAGE} events start at ${cursor}: some may be missing`,
      );
      cursor = last + 1;
    } else {
      cursor = last;
    }
  }
  const events: GancioEvent[] = [];
  const detail = async (
    id: number,
    quiet = false,
  ): Promise<GancioEvent | null> => {
    const url = `${origin}/api/event/detail/${id}`;
    const { status, body } = await getJson(url, limits, DETAIL_MAX_BYTES);
    if (status !== 200) {
      if (!quiet) {
        problems.push(`${id}: its detail answered HTTP ${status}; skipped`);
      }
      return null;
    }
    const event = parseGancioEvent(body);
    if (typeof event === "string") {
      problems.push(`${id}: ${event}; skipped`);
      return null;
    }
    return event;
  };
  const have = new Set<number>();
  for (const id of listed.keys()) {
    const event = await detail(id);
    if (event) {
      events.push(event);
      have.add(event.id);
    }
  }
  const parents = new Set(
    events.map((e) => e.parentId).filter((p): p is number =>
      p !== null && !have.has(p)
    ),
  );
  for (const id of parents) {
    const parent = await detail(id, true);
    if (parent && parent.recurrent) {
      events.push(parent);
    } else {
      problems.push(
        `series ${id} is not public: its occurrences are imported one by one`,
      );
    }
  }
  return { events, problems };
}

/** The image reference of a Gancio media file on its instance. */
export function gancioMediaUrl(origin: string, url: string): string {
  return /^https?:\/\//i.test(url)
    ? url
    : `${origin}/media/${encodeURIComponent(url)}`;
}

const NODEINFO_MAX_BYTES = 256 * 1024;
const NODEINFO_SCHEMA =
  /^https?:\/\/nodeinfo\.diaspora\.software\/ns\/schema\/2\.[01]$/;

/**
 * The settings an instance publishes in its NodeInfo (`/.well-known/nodeinfo`,
 * then its 2.0 or 2.1 document on the same origin), by Gancio's keys: its
 * title and description (`metadata.nodeName`, `metadata.nodeDescription`) and
 * whether it takes registrations. Best effort: {} when it publishes none or
 * cannot be read (its events are what matters).
 */
export async function fetchGancioNodeInfo(
  origin: string,
  limits: FetchLimits,
): Promise<Record<string, unknown>> {
  try {
    const index = await getJson(
      `${origin}/.well-known/nodeinfo`,
      limits,
      NODEINFO_MAX_BYTES,
    );
    const links = (index.body as { links?: unknown } | null)?.links;
    const href = Array.isArray(links)
      ? links.map((l) => l as Record<string, unknown>).filter((l) =>
        NODEINFO_SCHEMA.test(asString(l.rel))
      ).map((l) => asString(l.href)).find((h) => {
        try {
          return new URL(h).origin === origin;
        } catch {
          return false;
        }
      })
      : undefined;
    if (!href) return {};
    const { body } = await getJson(href, limits, NODEINFO_MAX_BYTES);
    if (typeof body !== "object" || body === null) return {};
    const info = body as Record<string, unknown>;
    const metadata = (typeof info.metadata === "object" && info.metadata) ||
      {};
    const { nodeName, nodeDescription } = metadata as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    if (typeof nodeName === "string" && nodeName.trim()) out.title = nodeName;
    if (typeof nodeDescription === "string") {
      out.description = nodeDescription;
    }
    if (typeof info.openRegistrations === "boolean") {
      out.allow_registration = info.openRegistrations;
    }
    return out;
  } catch {
    return {};
  }
}
