/**
 * The hourly jobs, in one function that every runtime calls: main.ts's
 * interval (Deno), `Deno.cron` (Deno Deploy) and worker.ts's `scheduled`
 * handler (Cloudflare Workers). Each job is independent: one failing is
 * logged and the others still run.
 */
import type { Db } from "../db/client.ts";
import type { Clock } from "./clock.ts";
import { materializeOccurrences } from "./events/series.ts";
import type { FederationService } from "./federation/service.ts";
import type { Logger } from "./log.ts";
import { sweepMedia } from "./media/cleanup.ts";
import type { MediaStore } from "./media/store.ts";
import type { EgressFetch } from "./net/egress.ts";
import { purgeExpiredOAuth } from "./oauth/grants.ts";
import { purgeExpiredSessions } from "./auth/sessions.ts";
import { purgeExpiredAccountLinks } from "./auth/account-links.ts";
import { purgeOldMail } from "./mail/outbox.ts";
import { getSettings } from "./settings.ts";
import { syncDepsOf, syncDueSources } from "./imports/sources.ts";

export interface ScheduledJobDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  media: MediaStore;
  federation?: FederationService;
  /** The fetch rules calendar subscriptions are synced under (absent: not synced). */
  fetching?: {
    allowPrivateAddresses: boolean;
    /** The egress guard (the portable one when absent). */
    egress?: EgressFetch;
    baseUrl: string;
    /** The upload limits feeds' images are stored under (config mediaMaxBytes, mediaQuotaBytes). */
    mediaMaxBytes?: number;
    mediaQuotaBytes?: number;
  };
}

/** What one run did; a job that failed is named in `failed`. */
export interface ScheduledJobsResult {
  occurrencesCreated: number;
  /** Occurrences that came into their series' federation horizon, announced. */
  occurrencesAnnounced: number;
  sourcesSynced: number;
  remoteEventsPurged: number;
  mediaRemoved: number;
  failed: string[];
}

/** The largest feed image stored when the caller gives no upload limit (the default MEDIA_MAX_BYTES). */
const DEFAULT_IMAGE_MAX_BYTES = 10 * 1024 * 1024;

/** How often the jobs are meant to run. */
export const SCHEDULED_JOBS_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Lays recurring series out ahead for their horizon, announces the
 * occurrences that came into their federation horizon, syncs the calendar
 * subscriptions due, drops expired OAuth
 * codes and tokens (kept only to detect their reuse), sessions, mailed
 * links and messages settled a month ago, purges ended remote
 * events, then removes uploads no event references (after the purges, whose
 * events' files may now be unreferenced).
 */
export async function runScheduledJobs(
  deps: ScheduledJobDeps,
): Promise<ScheduledJobsResult> {
  const { db, clock, log } = deps;
  const result: ScheduledJobsResult = {
    occurrencesCreated: 0,
    occurrencesAnnounced: 0,
    sourcesSynced: 0,
    remoteEventsPurged: 0,
    mediaRemoved: 0,
    failed: [],
  };
  const run = async (name: string, job: () => Promise<void>) => {
    try {
      await job();
    } catch (err) {
      result.failed.push(name);
      log.error(`${name} failed`, { error: String(err) });
    }
  };
  await run("extending recurring events", async () => {
    const settings = await getSettings(db);
    result.occurrencesCreated = await materializeOccurrences({
      db,
      clock,
      settings,
    });
    if (result.occurrencesCreated > 0) {
      log.info("created occurrences of recurring events", {
        created: result.occurrencesCreated,
      });
    }
  });
  const announcing = deps.federation;
  if (announcing) {
    // After the extension: occurrences that came into their series'
    // federation horizon are announced to followers (a Create each, through
    // the queue), once each.
    await run("announcing occurrences", async () => {
      result.occurrencesAnnounced = await announcing
        .announceDueOccurrences();
      if (result.occurrencesAnnounced > 0) {
        log.info("announced occurrences of recurring events", {
          announced: result.occurrencesAnnounced,
        });
      }
    });
  }
  const fetching = deps.fetching;
  if (fetching) {
    await run("syncing calendar subscriptions", async () => {
      result.sourcesSynced = await syncDueSources(
        syncDepsOf(
          {
            db,
            clock,
            federation: deps.federation,
            ...fetching,
            images: {
              media: deps.media,
              maxBytes: fetching.mediaMaxBytes ?? DEFAULT_IMAGE_MAX_BYTES,
              quotaBytes: fetching.mediaQuotaBytes ?? 0,
            },
          },
          await getSettings(db),
        ),
      );
      if (result.sourcesSynced > 0) {
        log.info("synced calendar subscriptions", {
          sources: result.sourcesSynced,
        });
      }
    });
  }
  await run("purging expired OAuth tokens", async () => {
    await purgeExpiredOAuth(db, clock);
  });
  await run("purging expired sessions", async () => {
    await purgeExpiredSessions(db, clock);
  });
  await run("purging old mail and links", async () => {
    await purgeOldMail(db, clock);
    await purgeExpiredAccountLinks(db, clock);
  });
  const federation = deps.federation;
  if (federation) {
    await run("purging remote events", async () => {
      result.remoteEventsPurged = await federation.purgeEndedRemoteEvents();
      if (result.remoteEventsPurged > 0) {
        log.info("purged ended remote events", {
          purged: result.remoteEventsPurged,
        });
      }
    });
  }
  await run("sweeping media", async () => {
    const swept = await sweepMedia({ db, clock, media: deps.media });
    result.mediaRemoved = swept.removed;
    if (swept.removed > 0 || swept.storeFailed > 0) {
      log.info("removed unreferenced media", { ...swept });
    }
  });
  return result;
}
