/**
 * The instance settings of a request: read on first use, then shared by its
 * middleware, handler and page rendering (lib/settings.ts reuses a read
 * across requests for a second; within a request it is read once).
 */
import type { Context } from "hono";
import type { Db } from "../../db/client.ts";
import { getSettings, type Settings } from "../../lib/settings.ts";
import type { AppEnv } from "../env.ts";

/** The settings of this request, read once (the same object each time: do not change it). */
export function settingsOf(c: Context<AppEnv>, db: Db): Promise<Settings> {
  let read = c.get("settings");
  if (read === undefined) {
    read = getSettings(db);
    c.set("settings", read);
  }
  return read;
}
