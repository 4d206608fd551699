/**
 * Moving from Gancio: a Gancio instance's events brought into Quando, from
 * its public API (`GET /api/events`, then `GET /api/event/detail/{id}` for
 * each) or from its SQLite database (rows the caller reads; users and the
 * trusted and blocked fediverse actors and instances too). Events are
 * applied with applyImport under the origin `gancio:<origin>`, keyed by the
 * Gancio event id, so that running it again updates instead of duplicating.
 *
 * A Gancio series (a parent event with `recurrent`, never listed, and the
 * occurrences Gancio materialises one at a time) becomes a Quando series:
 * Quando lays out its occurrences itself, so the series goes on after the
 * move. Occurrences Gancio already has are linked to the series' occurrence
 * at the same start (changed ones as exceptions); those from before the
 * series came in (history) become single events. A parent that is not
 * public, or whose rule Quando cannot repeat, leaves its occurrences to be
 * imported one by one.
 *
 * No filesystem and no Deno APIs here: it bundles for Workers.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apUsers, instances, type UserRole, users } from "../../db/schema.ts";
import type { PasswordHasher } from "../auth/hasher.ts";
import type { Clock } from "../clock.ts";
import { parseRecurrence } from "../events/recurrence.ts";
import { domainOf } from "../federation/actors.ts";
import { type FetchLimits, limitedGet } from "../federation/loader.ts";
import {
  findUserByEmail,
  isEmailAddress,
  normalizeEmail,
  type UserRow,
} from "../users.ts";
import type { SyncCounts } from "../../db/schema.ts";
import type { MediaStore } from "../media/store.ts";
import { applyImport, type ImportDeps, type ImportItem } from "./apply.ts";
import { urlImageLoader } from "./images.ts";

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

const asNumber = (v: unknown): number | null => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

const asString = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : "";

/** JSON columns come as text from SQLite and as values from the API. */
function json(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

const asBool = (v: unknown): boolean =>
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

function placeOf(v: unknown): GancioPlace | null {
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

/** What the items are made with. */
export interface ItemOptions {
  /** The reference of an image (a Gancio media file name or URL); null: left out. */
  imageRef: (url: string) => string | null;
  /** Whether Quando repeats series here (the setting allow_recurrent_event). */
  seriesAllowed: boolean;
  /** The owner of an event by its Gancio user id (absent: the import's user). */
  ownerOf?: (userId: number | null) => UserRow | undefined;
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
    place: event.place,
    online_locations: event.online_locations,
    tags: event.tags,
    cancelled: false,
    recurrent: null,
    until: null,
    exdates: [],
    image,
    imageName: media && image ? media.name : undefined,
    imageFocalpoint: media && image ? media.focalpoint : undefined,
    owner: options.ownerOf?.(event.userId),
    visible: event.is_visible,
  };
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

/**
 * The import items of Gancio events: parents with a rule Quando repeats
 * become series, their occurrences exceptions (linked, changed, or single
 * events from before the series); everything else single events.
 */
export function gancioItems(
  events: GancioEvent[],
  options: ItemOptions,
): { items: ImportItem[]; problems: string[] } {
  const problems: string[] = [];
  const byId = new Map(events.map((e) => [e.id, e]));
  const series = new Set<number>();
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
    series.add(event.id);
    items.push({ ...baseItem(event, options, problems), recurrent: rule });
  }
  for (const event of events) {
    if (event.recurrent && event.parentId === null) continue;
    const parent = event.parentId !== null && series.has(event.parentId)
      ? byId.get(event.parentId)!
      : null;
    const item = baseItem(event, options, problems);
    if (!parent) {
      items.push(item);
      continue;
    }
    items.push({
      ...item,
      uid: String(parent.id),
      recurrenceId: event.start_datetime,
      inheritsSeries: sameAsParent(event, parent),
      orphanAsSingle: true,
    });
  }
  return { items, problems };
}

// ---------------------------------------------------------------------------
// The public API

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

/** The origin recorded in `imported_events` for an instance. */
export function gancioImportOrigin(origin: string): string {
  return `gancio:${origin}`;
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

// ---------------------------------------------------------------------------
// The SQLite database

/** Runs one read-only statement on the Gancio database and returns its rows. */
export type GancioQuery = (sql: string) => Record<string, unknown>[];

export interface GancioUser {
  id: number;
  email: string;
  role: UserRole;
  is_active: boolean;
  description: string;
}

export interface GancioActor {
  ap_id: string;
  trusted: boolean;
  blocked: boolean;
  object: unknown;
}

export interface GancioInstance {
  domain: string;
  name: string | null;
  blocked: boolean;
  data: unknown;
  applicationActor: string | null;
}

/** What a Gancio database holds that Quando takes. */
export interface GancioDatabase {
  users: GancioUser[];
  actors: GancioActor[];
  instances: GancioInstance[];
  /** Local events (remote ones come back over federation). */
  events: GancioEvent[];
  problems: string[];
}

/** Reads a Gancio database through `query`; GancioError when it is not one. */
export function readGancioDatabase(query: GancioQuery): GancioDatabase {
  const tables = new Set(
    query("select name from sqlite_master where type = 'table'").map((r) =>
      String(r.name)
    ),
  );
  for (const needed of ["events", "places", "users"]) {
    if (!tables.has(needed)) {
      throw new GancioError(
        `this is not a Gancio database: it has no ${needed} table`,
      );
    }
  }
  const columns = (table: string) =>
    new Set(
      query(`select name from pragma_table_info('${table}')`).map((r) =>
        String(r.name)
      ),
    );
  const problems: string[] = [];

  const userColumns = columns("users");
  const users: GancioUser[] = [];
  for (const row of query("select * from users order by id")) {
    const email = normalizeEmail(asString(row.email));
    if (!isEmailAddress(email)) {
      problems.push(`user ${row.id}: no usable e-mail; skipped`);
      continue;
    }
    const role = userColumns.has("role")
      ? asString(row.role)
      : asBool(row.is_admin)
      ? "admin"
      : "user";
    users.push({
      id: Number(row.id),
      email,
      role: role === "admin" || role === "editor" ? role : "user",
      is_active: asBool(row.is_active),
      description: asString(row.description),
    });
  }

  const places = new Map(
    query("select * from places").map((r) => [Number(r.id), placeOf(r)]),
  );
  const tagsOf = new Map<number, string[]>();
  if (tables.has("event_tags")) {
    const link = columns("event_tags");
    const rows = link.has("tagTag")
      ? query('select "eventId", "tagTag" as tag from event_tags')
      : link.has("tagId") && tables.has("tags")
      ? query(
        'select et."eventId", t.tag as tag from event_tags et join tags t on t.id = et."tagId"',
      )
      : [];
    for (const row of rows) {
      const id = Number(row.eventId);
      tagsOf.set(id, [...(tagsOf.get(id) ?? []), asString(row.tag)]);
    }
  }
  const eventColumns = columns("events");
  const events: GancioEvent[] = [];
  const local = eventColumns.has("apUserApId")
    ? ' where "apUserApId" is null'
    : "";
  for (const row of query(`select * from events${local} order by id`)) {
    const event = parseGancioEvent({
      ...row,
      place: places.get(Number(row.placeId)) ?? null,
      tags: tagsOf.get(Number(row.id)) ?? [],
    });
    if (typeof event === "string") {
      problems.push(`${row.id}: ${event}; skipped`);
      continue;
    }
    events.push(event);
  }

  const actors: GancioActor[] = tables.has("ap_users")
    ? query("select * from ap_users").flatMap((r) => {
      const apId = asString(r.ap_id);
      if (!/^https?:\/\//.test(apId)) return [];
      return [{
        ap_id: apId,
        trusted: asBool(r.trusted),
        blocked: asBool(r.blocked),
        object: json(r.object),
      }];
    })
    : [];
  const instanceRows: GancioInstance[] = tables.has("instances")
    ? query("select * from instances").flatMap((r) => {
      const domain = asString(r.domain).trim().toLowerCase();
      if (!domain) return [];
      return [{
        domain,
        name: asString(r.name) || null,
        blocked: asBool(r.blocked),
        data: json(r.data),
        applicationActor: asString(r.applicationActor) || null,
      }];
    })
    : [];
  return { users, actors, instances: instanceRows, events, problems };
}

/** What bringing users in did. */
export interface UsersOutcome {
  created: number;
  /** Accounts that already existed (by e-mail): left as they are. */
  existing: number;
  /** Quando's user for each Gancio user id. */
  byGancioId: Map<number, UserRow>;
}

/**
 * Creates the Gancio users Quando does not have (by e-mail) with their role
 * and state and a password nobody knows (a random one, hashed): they set
 * theirs with a reset. Accounts that exist are left as they are.
 */
export async function importGancioUsers(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  list: GancioUser[],
): Promise<UsersOutcome> {
  const outcome: UsersOutcome = {
    created: 0,
    existing: 0,
    byGancioId: new Map(),
  };
  for (const user of list) {
    let row = await findUserByEmail(deps.db, user.email);
    if (row) {
      outcome.existing++;
    } else {
      const random = crypto.getRandomValues(new Uint8Array(32));
      const now = deps.clock.now();
      [row] = await deps.db.insert(users).values({
        email: user.email,
        password: await deps.hasher.hash(
          Array.from(random, (b) => b.toString(16).padStart(2, "0")).join(""),
        ),
        role: user.role,
        is_active: user.is_active,
        description: user.description,
        createdAt: now,
        updatedAt: now,
      }).returning();
      outcome.created++;
    }
    outcome.byGancioId.set(user.id, row);
  }
  return outcome;
}

/** What bringing the fediverse peers in did. */
export interface PeersOutcome {
  trusted: number;
  blocked: number;
  blockedInstances: number;
}

/**
 * Records Gancio's trusted and blocked actors and blocked instances. Trust
 * and blocks are added, never taken away from what Quando already has;
 * follows are not carried over (Quando's actor is a new one: trusted actors
 * are followed again with add_trust).
 */
export async function importGancioPeers(
  deps: { db: Db; clock: Clock },
  dump: Pick<GancioDatabase, "actors" | "instances">,
): Promise<PeersOutcome> {
  const { db } = deps;
  const now = deps.clock.now();
  const outcome: PeersOutcome = { trusted: 0, blocked: 0, blockedInstances: 0 };
  const known = new Map(dump.instances.map((i) => [i.domain, i]));
  const upsertInstance = (domain: string) => {
    const info = known.get(domain);
    return db.insert(instances).values({
      domain,
      name: info?.name ?? null,
      blocked: info?.blocked ?? false,
      data: info?.data ?? null,
      applicationActor: info?.applicationActor ?? null,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoUpdate({
      target: instances.domain,
      set: {
        blocked: sql`${instances.blocked} or excluded.blocked`,
        name: sql`coalesce(${instances.name}, excluded.name)`,
        applicationActor:
          sql`coalesce(${instances.applicationActor}, excluded."applicationActor")`,
        updatedAt: now,
      },
    });
  };
  for (const instance of dump.instances) {
    if (!instance.blocked) continue;
    await upsertInstance(instance.domain);
    outcome.blockedInstances++;
  }
  for (const actor of dump.actors) {
    if (!actor.trusted && !actor.blocked) continue;
    const domain = domainOf(actor.ap_id);
    await db.batch([
      upsertInstance(domain),
      db.insert(apUsers).values({
        ap_id: actor.ap_id,
        object: actor.object ?? null,
        instanceDomain: domain,
        trusted: actor.trusted,
        blocked: actor.blocked,
        createdAt: now,
        updatedAt: now,
      }).onConflictDoUpdate({
        target: apUsers.ap_id,
        set: {
          trusted: sql`${apUsers.trusted} or excluded.trusted`,
          blocked: sql`${apUsers.blocked} or excluded.blocked`,
          object: sql`coalesce(${apUsers.object}, excluded.object)`,
          updatedAt: now,
        },
      }),
    ]);
    if (actor.trusted) outcome.trusted++;
    if (actor.blocked) outcome.blocked++;
  }
  return outcome;
}

/** The user events are created as: `email` when given, else the first active admin. */
export async function importingUser(
  db: Db,
  email: string | undefined,
): Promise<UserRow> {
  if (email) {
    const row = await findUserByEmail(db, email);
    if (!row || !row.is_active) {
      throw new GancioError(`no active account has the e-mail ${email}`);
    }
    return row;
  }
  const [admin] = await db.select().from(users).where(
    sql`${users.role} = 'admin' and ${users.is_active} = 1`,
  ).orderBy(users.id).limit(1);
  if (!admin) {
    throw new GancioError(
      "no active admin to create the events as: add one (deno task user add --role admin) or name one with --as",
    );
  }
  return admin;
}

// ---------------------------------------------------------------------------
// One import, from the API or a database

/** The scheme of image references read from a Gancio uploads folder. */
const UPLOAD_REF = "gancio-upload:";

/** What `deno task import:gancio` asked for. */
export interface GancioImportOptions {
  /** The instance (its origin): the API is read unless `database` is given; images come from it. */
  url?: string;
  /** The Gancio SQLite database, read through this. */
  database?: GancioQuery;
  /** Reads a file of the Gancio uploads folder (absent: images from `url`, or left out). */
  readUpload?: (name: string, maxBytes: number) => Promise<Uint8Array>;
  /** The e-mail of the account events are created as (default: the first active admin). */
  as?: string;
  /** Only events from then on (Unix seconds); 0: all. */
  since?: number;
  fetchLimits: FetchLimits;
}

/** What an import needs: the writes', a hasher for the users, where images go. */
export interface GancioImportDeps extends Omit<ImportDeps, "images"> {
  hasher: PasswordHasher;
  media: MediaStore;
  /** The upload size limit, per image. */
  maxBytes: number;
}

/** What an import did. */
export interface GancioSummary {
  events: SyncCounts;
  users: { created: number; existing: number } | null;
  peers: PeersOutcome | null;
  problems: string[];
}

/**
 * Imports a Gancio instance (its API, or its database with users and
 * peers). Throws GancioError when the instance cannot be read at all;
 * everything else is a problem line.
 */
export async function importGancio(
  deps: GancioImportDeps,
  options: GancioImportOptions,
): Promise<GancioSummary> {
  const origin = options.url ? gancioOrigin(options.url) : null;
  const user = await importingUser(deps.db, options.as);
  const problems: string[] = [];
  let events: GancioEvent[];
  let usersOutcome: UsersOutcome | null = null;
  let peers: PeersOutcome | null = null;
  if (options.database) {
    const dump = readGancioDatabase(options.database);
    problems.push(...dump.problems);
    usersOutcome = await importGancioUsers(deps, dump.users);
    peers = await importGancioPeers(deps, dump);
    const since = options.since ?? 0;
    events = dump.events.filter((e) =>
      (e.end_datetime ?? e.start_datetime) >= since ||
      (e.recurrent !== null && e.parentId === null)
    );
  } else if (origin) {
    const reading = await fetchGancioEvents(
      origin,
      options.fetchLimits,
      options.since ?? 0,
    );
    problems.push(...reading.problems);
    events = reading.events;
  } else {
    throw new GancioError("give --url or --sqlite");
  }
  const fromUrl = urlImageLoader(options.fetchLimits);
  const readUpload = options.readUpload;
  const { items, problems: itemProblems } = gancioItems(events, {
    imageRef: (url) =>
      readUpload && !/^https?:/i.test(url)
        ? `${UPLOAD_REF}${url}`
        : origin
        ? gancioMediaUrl(origin, url)
        : /^https?:/i.test(url)
        ? url
        : null,
    seriesAllowed: deps.settings.allow_recurrent_event,
    ownerOf: usersOutcome
      ? (id) => {
        const owner = id === null ? undefined : usersOutcome.byGancioId.get(id);
        return owner?.is_active ? owner : undefined;
      }
      : undefined,
  });
  problems.push(...itemProblems);
  const outcome = await applyImport({
    ...deps,
    images: {
      media: deps.media,
      maxBytes: deps.maxBytes,
      // The owner chose to move: imported images are not held to the upload quota.
      quotaBytes: 0,
      load: (ref, maxBytes) =>
        readUpload && ref.startsWith(UPLOAD_REF)
          ? readUpload(ref.slice(UPLOAD_REF.length), maxBytes)
          : fromUrl(ref, maxBytes),
    },
  }, {
    origin: origin ? gancioImportOrigin(origin) : "gancio:database",
    user,
    defaultTags: [],
    defaultPlaceId: null,
    needsConfirmation: false,
    complete: false,
  }, items);
  problems.push(...outcome.problems);
  return {
    events: outcome.counts,
    users: usersOutcome
      ? { created: usersOutcome.created, existing: usersOutcome.existing }
      : null,
    peers,
    problems,
  };
}

/** The summary as lines for a terminal. */
export function summaryLines(summary: GancioSummary): string[] {
  const e = summary.events;
  const lines = [
    `events: ${e.created} created, ${e.updated} updated, ${e.unchanged} unchanged, ${e.skipped} skipped`,
  ];
  if (summary.users) {
    lines.push(
      `users: ${summary.users.created} created, ${summary.users.existing} already here (left as they are)`,
    );
    if (summary.users.created > 0) {
      lines.push(
        "  new accounts have no usable password: each sets one with `deno task user reset-password --email <e-mail>` (or an admin invites them again from /admin/users)",
      );
    }
  }
  if (summary.peers) {
    lines.push(
      `fediverse: ${summary.peers.trusted} trusted actors, ${summary.peers.blocked} blocked actors, ${summary.peers.blockedInstances} blocked instances`,
    );
    if (summary.peers.trusted > 0) {
      lines.push(
        "  trusted actors are not followed yet: follow them again with POST /api/ap_actors/add_trust",
      );
    }
  }
  if (summary.problems.length > 0) {
    lines.push(`problems (${summary.problems.length}):`);
    lines.push(...summary.problems.map((p) => `  ${p}`));
  }
  return lines;
}
