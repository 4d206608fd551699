/**
 * Calendar subscriptions: an ICS/webcal feed kept in step with Quando every
 * hour and on demand. A sync fetches under the federation fetch rules (size
 * cap, timeout, no private addresses unless configured), conditionally
 * (ETag, Last-Modified), reads the file (lib/imports/ics.ts) and applies it
 * as the source's whole calendar (lib/imports/apply.ts). One sync per source
 * at a time (a lease in the row).
 */
import { and, asc, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  importedEvents,
  places,
  sources,
  type SyncCounts,
} from "../../db/schema.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { type RateLimit, reserveRateLimitHit } from "../ratelimit.ts";
import type { Settings } from "../settings.ts";
import {
  type FetchLimits,
  limitedGet,
  quandoUserAgent,
} from "../federation/loader.ts";
import type { FederationService } from "../federation/service.ts";
import type { Clock } from "../clock.ts";
import { findUserById, type UserRow } from "../users.ts";
import { applyImport, type ImportDeps } from "./apply.ts";
import { urlImageImport } from "./images.ts";
import type { MediaStore } from "../media/store.ts";
import type { EgressFetch } from "../net/egress.ts";
import { IcsBudgetError, type IcsReading, readIcs } from "./ics.ts";

export type SourceRow = typeof sources.$inferSelect;

/** Largest feed read (a year of a busy calendar is well under this). */
export const SOURCE_MAX_BYTES = 5 * 1024 * 1024;
export const SOURCE_TIMEOUT_MS = 20_000;
/** How often each source is synced by the hourly job. */
export const SOURCE_SYNC_INTERVAL_MS = 60 * 60 * 1000;
/** A sync holds its source this long at most (a crashed one lets go). */
const LEASE_MS = 10 * 60 * 1000;
/** How long one sync may write; the rest waits for the next one. */
const SYNC_BUDGET_MS = 8 * 60 * 1000;
/** Sources synced by one run of the hourly job. */
const SOURCES_PER_RUN = 20;
/** Sources per page of their list (GET /api/sources, /admin/sources), by default. */
export const SOURCES_PAGE_SIZE = 50;
/** The largest page of their list. */
export const SOURCES_PAGE_MAX = 200;
/** Problems kept in `last_error`. */
const PROBLEMS_KEPT = 10;
/** Failures in a row after which a source is paused until an editor resumes it. */
export const SOURCE_PAUSE_AFTER = 8;
/** The longest wait between two automatic tries of a failing source. */
const BACKOFF_MAX_MS = 24 * 60 * 60 * 1000;

/** A source as the API shows it. */
export function serializeSource(row: SourceRow) {
  return {
    id: row.id,
    url: row.url,
    name: row.name,
    userId: row.userId,
    default_tags: row.default_tags,
    default_place_id: row.default_place_id,
    needs_confirmation: row.needs_confirmation,
    last_sync_at: row.last_sync_at?.toISOString() ?? null,
    last_success_at: row.last_success_at?.toISOString() ?? null,
    last_error: row.last_error,
    last_counts: row.last_counts ?? null,
    failures: row.failures,
    next_sync_at: row.next_sync_at?.toISOString() ?? null,
    paused: row.paused,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What a client sends to add or change a source. */
export interface SourceInput {
  url?: string;
  name?: string;
  default_tags?: string[];
  default_place_id?: number | null;
  needs_confirmation?: boolean;
  /** Pause (true) or resume (false, which also forgets the failures) the hourly syncs. */
  paused?: boolean;
}

/** A feed URL as fetched: webcal(s):// is https://; only http(s) otherwise. */
export function feedUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim().replace(/^webcals?:\/\//i, "https://"));
  } catch {
    throw invalidRequest("Invalid source", [
      { field: "url", message: "Must be an http, https or webcal URL" },
    ]);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw invalidRequest("Invalid source", [
      { field: "url", message: "Must be an http, https or webcal URL" },
    ]);
  }
  if (url.username || url.password) {
    throw invalidRequest("Invalid source", [
      { field: "url", message: "Credentials in the URL are not kept" },
    ]);
  }
  return url.href;
}

async function checkPlace(db: Db, id: number | null | undefined) {
  if (id === null || id === undefined) return;
  const [row] = await db.select({ id: places.id }).from(places).where(
    eq(places.id, id),
  );
  if (!row) {
    throw invalidRequest("Invalid source", [
      { field: "default_place_id", message: "No such place" },
    ]);
  }
}

/** Adds a source owned by `user` (whose events it creates). */
export async function createSource(
  db: Db,
  now: Date,
  user: UserRow,
  input: SourceInput & { url: string },
): Promise<SourceRow> {
  const url = feedUrl(input.url);
  await checkPlace(db, input.default_place_id);
  const [row] = await db.insert(sources).values({
    url,
    name: input.name?.trim() ?? "",
    userId: user.id,
    default_tags: input.default_tags ?? [],
    default_place_id: input.default_place_id ?? null,
    needs_confirmation: input.needs_confirmation ?? false,
    createdAt: now,
    updatedAt: now,
  }).returning();
  return row;
}

/** How many sources there are. */
export async function countSources(db: Db): Promise<number> {
  return await db.$count(sources);
}

/** A page of the sources, oldest first. */
export async function listSources(
  db: Db,
  page = 1,
  pageSize = SOURCES_PAGE_SIZE,
): Promise<SourceRow[]> {
  return await db.select().from(sources).orderBy(asc(sources.id))
    .limit(pageSize).offset((page - 1) * pageSize);
}

/** One source, or a 404. */
export async function getSource(db: Db, id: number): Promise<SourceRow> {
  const [row] = await db.select().from(sources).where(eq(sources.id, id));
  if (!row) throw new ApiError(404, "not_found", "No such source");
  return row;
}

/** Changes a source; a new URL forgets the old feed's validators. */
export async function updateSource(
  db: Db,
  now: Date,
  id: number,
  input: SourceInput,
): Promise<SourceRow> {
  const current = await getSource(db, id);
  const url = input.url === undefined ? current.url : feedUrl(input.url);
  await checkPlace(db, input.default_place_id);
  const [row] = await db.update(sources).set({
    url,
    ...(url !== current.url ? { etag: null, last_modified: null } : {}),
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.default_tags !== undefined
      ? { default_tags: input.default_tags }
      : {}),
    ...(input.default_place_id !== undefined
      ? { default_place_id: input.default_place_id }
      : {}),
    ...(input.needs_confirmation !== undefined
      ? { needs_confirmation: input.needs_confirmation }
      : {}),
    // An editor's pause starts the count anew, so that only a pause the
    // failures caused ends at a successful sync.
    ...(input.paused === true
      ? { paused: true, failures: 0, next_sync_at: null }
      : {}),
    ...(input.paused === false
      ? { paused: false, failures: 0, next_sync_at: null }
      : {}),
    updatedAt: now,
  }).where(eq(sources.id, id)).returning();
  return row;
}

/** Removes a source; the events it brought stay, as ordinary events. */
export async function deleteSource(db: Db, id: number): Promise<void> {
  await getSource(db, id);
  await db.batch([
    db.delete(importedEvents).where(
      eq(importedEvents.origin, sourceOrigin(id)),
    ),
    db.delete(sources).where(eq(sources.id, id)),
  ]);
}

/** The origin of a source's items in `imported_events`. */
export function sourceOrigin(id: number): string {
  return `source:${id}`;
}

/** What a sync needs: the writes' dependencies, the settings, the fetch rules. */
export interface SyncDeps extends ImportDeps {
  settings: Settings;
  fetchLimits: FetchLimits;
}

/** Where imported images go and how big they may be. */
export interface ImportMedia {
  media: MediaStore;
  /** The upload limits (config mediaMaxBytes, mediaQuotaBytes). */
  maxBytes: number;
  quotaBytes: number;
}

/** .ics files one user may import per hour (each may hold thousands of events). */
export const FILE_IMPORT_LIMIT: RateLimit = { limit: 20, windowMs: 3_600_000 };

/** Counts one .ics import of a user, or refuses it (429) past FILE_IMPORT_LIMIT. */
export async function reserveFileImport(
  db: Db,
  clock: Clock,
  userId: number,
): Promise<void> {
  const reserved = await reserveRateLimitHit(
    db,
    clock,
    [`ics-import:${userId}`],
    FILE_IMPORT_LIMIT,
  );
  if ("retryAfter" in reserved) {
    throw new ApiError(
      429,
      "rate_limited",
      "Too many .ics imports: try again later",
      undefined,
      { "Retry-After": String(reserved.retryAfter) },
    );
  }
}

/**
 * What an import runs with: the writes' dependencies and the federation of
 * its changes; with `images`, items' images are fetched (under `images.fetch`)
 * and stored.
 */
export function importDepsOf(
  parts: { db: Db; clock: Clock; federation?: FederationService },
  settings: Settings,
  images?: ImportMedia & { fetch: FetchLimits },
): ImportDeps {
  const federation = parts.federation;
  return {
    images: images
      ? urlImageImport(images.media, images.fetch, images)
      : undefined,
    db: parts.db,
    clock: parts.clock,
    settings,
    publication: federation?.publicationWrite(settings) ?? undefined,
    publish: federation
      ? (change) => federation.publishWritten(change)
      : undefined,
  };
}

/** A sync's dependencies: an import's, plus the fetch rules of the configuration. */
export function syncDepsOf(
  parts: {
    db: Db;
    clock: Clock;
    federation?: FederationService;
    allowPrivateAddresses: boolean;
    /** The egress guard (the portable one when absent). */
    egress?: EgressFetch;
    baseUrl: string;
    /** Where feeds' images are stored (absent: images are left out). */
    images?: ImportMedia;
  },
  settings: Settings,
): SyncDeps {
  const fetchLimits: FetchLimits = {
    allowPrivateAddress: parts.allowPrivateAddresses,
    userAgent: quandoUserAgent(parts.baseUrl),
    egress: parts.egress,
  };
  return {
    ...importDepsOf(
      parts,
      settings,
      parts.images ? { ...parts.images, fetch: fetchLimits } : undefined,
    ),
    settings,
    fetchLimits,
  };
}

/** What one sync did. */
export interface SyncOutcome {
  /** "synced", "not_modified" (304), "failed", or "busy" (another sync holds it). */
  result: "synced" | "not_modified" | "failed" | "busy";
  counts: SyncCounts | null;
  problems: string[];
  source: SourceRow;
}

const NO_CHANGE: SyncCounts = {
  created: 0,
  updated: 0,
  cancelled: 0,
  unchanged: 0,
  skipped: 0,
};

/**
 * Syncs one source: fetches its feed (conditionally unless `force`), applies
 * it, and records the outcome in the row. Never throws for what the feed or
 * its server do: those end in `last_error`.
 */
export async function syncSource(
  deps: SyncDeps,
  id: number,
  options: { force?: boolean } = {},
): Promise<SyncOutcome> {
  const { db, clock } = deps;
  const now = clock.now();
  const nowMs = now.getTime();
  // The try counts as a failure (with its backoff, and the pause after
  // SOURCE_PAUSE_AFTER) until it succeeds: a sync that takes the process
  // down is never retried at once, at every start.
  const [leased] = await db.update(sources).set({
    lockedUntil: nowMs + LEASE_MS,
    failures: sql`${sources.failures} + 1`,
    next_sync_at:
      sql`${nowMs} + min(${SOURCE_SYNC_INTERVAL_MS} * (1 << min(${sources.failures}, 10)), ${BACKOFF_MAX_MS})`,
    paused:
      sql`${sources.paused} or ${sources.failures} + 1 >= ${SOURCE_PAUSE_AFTER}`,
  })
    .where(and(
      eq(sources.id, id),
      or(isNull(sources.lockedUntil), lt(sources.lockedUntil, nowMs)),
    )).returning();
  if (!leased) {
    const source = await getSource(db, id);
    return { result: "busy", counts: null, problems: [], source };
  }
  const finish = async (
    result: SyncOutcome["result"],
    fields: Partial<typeof sources.$inferInsert>,
    counts: SyncCounts | null,
    problems: string[],
  ): Promise<SyncOutcome> => {
    const [source] = await db.update(sources).set({
      ...fields,
      last_sync_at: now,
      lockedUntil: null,
    }).where(eq(sources.id, id)).returning();
    return { result, counts, problems, source: source ?? leased };
  };
  /** A success forgets the failures, and ends a pause they caused. */
  const recovered = {
    failures: 0,
    next_sync_at: null,
    ...(leased.failures >= SOURCE_PAUSE_AFTER ? { paused: false } : {}),
  };
  try {
    const user = await findUserById(db, leased.userId);
    if (!user || !user.is_active) {
      return await finish(
        "failed",
        {
          last_error: "The account that added this source is disabled",
        },
        null,
        [],
      );
    }
    const headers: Record<string, string> = {
      Accept: "text/calendar, */*;q=0.5",
    };
    if (!options.force && leased.etag) headers["If-None-Match"] = leased.etag;
    if (!options.force && leased.last_modified) {
      headers["If-Modified-Since"] = leased.last_modified;
    }
    const got = await limitedGet(leased.url, {
      maxBytes: SOURCE_MAX_BYTES,
      ...deps.fetchLimits,
    }, {
      headers,
      signal: AbortSignal.timeout(
        deps.fetchLimits.timeoutMs ?? SOURCE_TIMEOUT_MS,
      ),
    });
    if (got.status === 304) {
      return await finish(
        "not_modified",
        {
          ...recovered,
          last_success_at: now,
          last_error: null,
          last_counts: NO_CHANGE,
        },
        NO_CHANGE,
        [],
      );
    }
    if (got.status < 200 || got.status >= 300) {
      return await finish(
        "failed",
        {
          last_error: `The feed answered HTTP ${got.status}`,
        },
        null,
        [],
      );
    }
    const text = new TextDecoder().decode(got.body);
    let reading: IcsReading;
    try {
      reading = await readIcs(text, deps.settings.instance_timezone);
    } catch (error) {
      if (!(error instanceof IcsBudgetError)) throw error;
      return await finish(
        "failed",
        { last_error: error.message.slice(0, 500) },
        null,
        [error.message],
      );
    }
    if (reading.items.length === 0 && reading.problems.length > 0) {
      return await finish(
        "failed",
        {
          last_error: reading.problems.slice(0, PROBLEMS_KEPT).join("\n"),
        },
        null,
        reading.problems,
      );
    }
    // Done before the lease ends, so that no second sync overlaps this one.
    const outcome = await applyImport({
      ...deps,
      deadline: Date.now() + SYNC_BUDGET_MS,
    }, {
      origin: sourceOrigin(id),
      user,
      defaultTags: leased.default_tags,
      defaultPlaceId: leased.default_place_id,
      needsConfirmation: leased.needs_confirmation,
      complete: true,
    }, reading.items);
    const problems = [...reading.problems, ...outcome.problems];
    return await finish(
      "synced",
      {
        ...recovered,
        etag: got.headers.get("etag"),
        last_modified: got.headers.get("last-modified"),
        last_success_at: now,
        last_error: problems.length
          ? problems.slice(0, PROBLEMS_KEPT).join("\n")
          : null,
        last_counts: outcome.counts,
      },
      outcome.counts,
      problems,
    );
  } catch (error) {
    // The feed's server, not us: unreachable, too big, too slow, refused.
    const message = error instanceof Error ? error.message : String(error);
    return await finish(
      "failed",
      {
        last_error: `The feed could not be read: ${message}`.slice(0, 500),
      },
      null,
      [message],
    );
  }
}

/**
 * Syncs the sources not synced for an hour (the hourly job), leaving out the
 * paused ones and those backing off after failures; returns how many it tried.
 */
export async function syncDueSources(deps: SyncDeps): Promise<number> {
  const now = deps.clock.now().getTime();
  const due = now - SOURCE_SYNC_INTERVAL_MS + 60_000;
  const rows = await deps.db.select({ id: sources.id }).from(sources).where(
    and(
      eq(sources.paused, false),
      or(
        isNull(sources.next_sync_at),
        lte(sources.next_sync_at, new Date(now)),
      ),
      or(isNull(sources.last_sync_at), lt(sources.last_sync_at, new Date(due))),
    ),
  ).orderBy(sql`${sources.last_sync_at} is not null`, asc(sources.last_sync_at))
    .limit(SOURCES_PER_RUN);
  for (const { id } of rows) await syncSource(deps, id);
  return rows.length;
}
