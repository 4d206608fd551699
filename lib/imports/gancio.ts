/**
 * Moving from Gancio: a Gancio instance's events brought into Quando, from
 * its public API (`GET /api/events`, then `GET /api/event/detail/{id}` for
 * each) or from its SQLite database (rows the caller reads; users and the
 * trusted and blocked fediverse actors and instances, and the settings,
 * too). Events are applied with applyImport under the origin
 * `gancio:<origin>` (the same whichever way the instance is read), keyed by
 * the Gancio event id, so that running it again, in either mode, updates
 * instead of duplicating; `gancio_links` keeps where each Gancio event went,
 * for its old URLs.
 *
 * A Gancio series (a parent event with `recurrent`, never listed, and the
 * occurrences Gancio materialises one at a time) becomes a Quando series:
 * Quando lays out its occurrences itself, so the series goes on after the
 * move. Occurrences Gancio already has are linked to the series' occurrence
 * at the same slot of the rule (changed ones as exceptions, a moved one at
 * the nearest free slot); those from before the series came in (history)
 * become single events. A parent that is not
 * public, or whose rule Quando cannot repeat, leaves its occurrences to be
 * imported one by one.
 *
 * This module is the import itself; its parts are in `gancio/`:
 * `mapping.ts` (Gancio events as import items), `api.ts` (reading the public
 * API), `database.ts` (reading the database, users and peers), `settings.ts`
 * (its settings) and `links.ts` (the origin, owners and old URLs).
 *
 * No filesystem and no Deno APIs here: it bundles for Workers.
 */
import type { PasswordHasher } from "../auth/hasher.ts";
import type { FetchLimits } from "../federation/loader.ts";
import type { SyncCounts } from "../../db/schema.ts";
import type { MediaStore } from "../media/store.ts";
import { applyImport, type ImportDeps } from "./apply.ts";
import { urlImageLoader } from "./images.ts";
import {
  fetchGancioEvents,
  fetchGancioNodeInfo,
  gancioMediaUrl,
  gancioOrigin,
} from "./gancio/api.ts";
import {
  assignGancioOwners,
  forgetMovedOccurrenceKeys,
  recordGancioLinks,
  resolveImportOrigin,
} from "./gancio/links.ts";
import {
  importGancioSettings,
  type SettingsOutcome,
} from "./gancio/settings.ts";
import {
  type GancioQuery,
  importGancioPeers,
  importGancioUsers,
  importingUser,
  type PeersOutcome,
  readGancioDatabase,
  type UsersOutcome,
} from "./gancio/database.ts";
import {
  GancioError,
  type GancioEvent,
  gancioItems,
} from "./gancio/mapping.ts";

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
  /** The settings carried over (from the database, or the API's NodeInfo). */
  settings: Omit<SettingsOutcome, "settings"> & { fromApi: boolean };
  /** Sentences on how this run matched earlier ones. */
  notes: string[];
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
  let settingsOutcome: SettingsOutcome | null = null;
  if (options.database) {
    const dump = readGancioDatabase(options.database);
    problems.push(...dump.problems);
    // Settings first: series keep their wall-clock time in the time zone.
    settingsOutcome = await importGancioSettings(deps, dump.settings, problems);
    deps = { ...deps, settings: settingsOutcome.settings };
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
    // The API does not show Gancio's settings; its NodeInfo tells a few
    // (written once the events could be read).
    settingsOutcome = await importGancioSettings(
      deps,
      await fetchGancioNodeInfo(origin, options.fetchLimits),
      problems,
    );
    deps = { ...deps, settings: settingsOutcome.settings };
  } else {
    throw new GancioError("give --url or --sqlite");
  }
  const fromUrl = urlImageLoader(options.fetchLimits);
  const readUpload = options.readUpload;
  // One origin whichever mode reads the instance: a Gancio event is matched
  // by it and its Gancio id.
  const resolved = await resolveImportOrigin(deps.db, origin);
  // The instance's address: given, or known from an earlier import by --url.
  const knownOrigin = origin ?? resolved.url;
  const { items, links, problems: itemProblems } = gancioItems(events, {
    timeZone: deps.settings.instance_timezone,
    imageRef: (url) =>
      readUpload && !/^https?:/i.test(url)
        ? `${UPLOAD_REF}${url}`
        : knownOrigin
        ? gancioMediaUrl(knownOrigin, url)
        : /^https?:/i.test(url)
        ? url
        : null,
    // The same image whether read from the uploads folder or the instance.
    imageKey: (url) => knownOrigin ? gancioMediaUrl(knownOrigin, url) : url,
    seriesAllowed: deps.settings.allow_recurrent_event,
    ownerOf: usersOutcome
      ? (id) => {
        const owner = id === null ? undefined : usersOutcome.byGancioId.get(id);
        return owner?.is_active ? owner : undefined;
      }
      : undefined,
  });
  problems.push(...itemProblems);
  problems.push(
    ...await forgetMovedOccurrenceKeys(deps.db, resolved.origin, items),
  );
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
    origin: resolved.origin,
    user,
    defaultTags: [],
    defaultPlaceId: null,
    needsConfirmation: false,
    complete: false,
  }, items);
  problems.push(...outcome.problems);
  await recordGancioLinks(deps, resolved.origin, links);
  await assignGancioOwners(deps.db, resolved.origin, links);
  return {
    events: outcome.counts,
    users: usersOutcome
      ? { created: usersOutcome.created, existing: usersOutcome.existing }
      : null,
    peers,
    settings: {
      taken: settingsOutcome?.taken ?? [],
      kept: settingsOutcome?.kept ?? [],
      fromApi: !options.database,
    },
    notes: resolved.notes,
    problems,
  };
}

/** The summary as lines for a terminal. */
export function summaryLines(summary: GancioSummary): string[] {
  const e = summary.events;
  const lines = [
    `events: ${e.created} created, ${e.updated} updated, ${e.unchanged} unchanged, ${e.skipped} skipped`,
  ];
  lines.push(...summary.notes);
  const { taken, kept, fromApi } = summary.settings;
  lines.push(
    `settings: ${
      taken.length > 0 ? `taken from Gancio: ${taken.join(", ")}` : "none taken"
    }${kept.length > 0 ? `; already set here (left): ${kept.join(", ")}` : ""}`,
  );
  if (fromApi) {
    lines.push(
      "  Gancio's API does not show its time zone: set it at /admin/settings (series keep their wall-clock time in it), or import with --sqlite",
    );
  }
  if (summary.users) {
    lines.push(
      `users: ${summary.users.created} created, ${summary.users.existing} already here (left as they are)`,
    );
    if (summary.users.created > 0) {
      lines.push(
        "  new accounts have no usable password: an admin sends each a password-setting link from /admin/users (or sets one: deno task user reset-password --email <e-mail>)",
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
