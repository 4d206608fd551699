/** What the routes that write events and their images (the API and the web pages) share around a write. */
import type { WriteDeps, WriteResult } from "../../lib/events/commit.ts";
import type { UploadDeps } from "../../lib/media/upload.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppDeps } from "../env.ts";

/** What an event write needs, with this instance's settings. */
export function eventWriteDeps(deps: AppDeps, settings: Settings): WriteDeps {
  return {
    db: deps.database.db,
    clock: deps.clock,
    settings,
    publication: deps.federation?.publicationWrite(settings) ?? undefined,
  };
}

/**
 * Tells the fediverse what a change did to an event and its occurrences
 * (its write queued that in its own batch). A failure is logged: the
 * change itself has happened and the queue retries.
 */
export async function federateChange(
  deps: Pick<AppDeps, "federation" | "log">,
  result: WriteResult<unknown>,
): Promise<void> {
  try {
    await deps.federation?.publishWritten(result);
  } catch (err) {
    deps.log.error("federating an event change failed", {
      event: result.id,
      error: String(err),
    });
  }
}

/** What storing an uploaded image needs: the media store and this instance's quota and size limits. */
export function imageUploadDeps(
  deps: AppDeps,
): UploadDeps & { maxBytes: number } {
  return {
    db: deps.database.db,
    clock: deps.clock,
    media: deps.media,
    quotaBytes: deps.config.mediaQuotaBytes,
    maxBytes: deps.config.mediaMaxBytes,
  };
}
