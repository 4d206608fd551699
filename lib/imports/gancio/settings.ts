/**
 * A Gancio instance's settings carried into Quando's: its title, description,
 * time zone, language and the switches both have (registration, anonymous
 * submissions, series, resources, boosts). Only settings nobody has set here
 * yet are taken, so importing again never undoes a choice made in Quando.
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { settings as settingsTable } from "../../../db/schema.ts";
import type { Clock } from "../../clock.ts";
import {
  DEFAULT_SETTINGS,
  type SettingKey,
  type Settings,
  settingsSchema,
  updateSettings,
} from "../../settings.ts";

/** Gancio's setting for each Quando setting it maps to. */
const GANCIO_KEYS: [gancio: string, quando: SettingKey][] = [
  ["title", "instance_title"],
  ["description", "instance_description"],
  ["instance_timezone", "instance_timezone"],
  ["instance_locale", "instance_locale"],
  ["allow_registration", "allow_registration"],
  ["allow_anon_event", "allow_anon_event"],
  ["allow_recurrent_event", "allow_recurrent_event"],
  ["recurrent_event_visible", "recurrent_event_visible"],
  ["enable_resources", "enable_resources"],
  ["hide_boosts", "hide_boosts"],
];

/** What carrying the settings did. */
export interface SettingsOutcome {
  /** Quando settings taken from Gancio. */
  taken: SettingKey[];
  /** Quando settings Gancio has too but that were set here already (left). */
  kept: SettingKey[];
  /** The settings now. */
  settings: Settings;
}

/**
 * Writes Gancio's settings (`gancio`, by Gancio's keys) into Quando's where
 * Quando has none stored yet; a value Quando would refuse (an unknown time
 * zone, say) is a problem line and is left out.
 */
export async function importGancioSettings(
  deps: { db: Db; clock: Clock },
  gancio: Record<string, unknown>,
  problems: string[],
): Promise<SettingsOutcome> {
  const candidates = GANCIO_KEYS.filter(([key]) =>
    gancio[key] !== undefined && gancio[key] !== null
  );
  const stored = new Set(
    candidates.length === 0
      ? []
      : (await deps.db.select({ key: settingsTable.key }).from(settingsTable)
        .where(inArray(settingsTable.key, candidates.map(([, q]) => q))))
        .map((r) => r.key),
  );
  const patch: Record<string, unknown> = {};
  const taken: SettingKey[] = [];
  const kept: SettingKey[] = [];
  for (const [key, setting] of candidates) {
    if (stored.has(setting)) {
      kept.push(setting);
      continue;
    }
    let value = gancio[key];
    if (typeof value === "string") value = value.trim();
    if (typeof DEFAULT_SETTINGS[setting] === "boolean") {
      // SQLite's 0 and 1, or text, for a switch.
      if (value === 1 || value === "1" || value === "true") value = true;
      if (value === 0 || value === "0" || value === "false") value = false;
    }
    if (setting === "instance_title" && typeof value === "string") {
      value = value.slice(0, 100);
    }
    const check = settingsSchema.shape[setting].safeParse(value);
    if (!check.success || value === "") {
      problems.push(
        `setting ${key}: ${JSON.stringify(value)} is not one Quando takes`,
      );
      continue;
    }
    patch[setting] = check.data;
    taken.push(setting);
  }
  const settings = await updateSettings(
    deps.db,
    deps.clock,
    patch as Partial<Settings>,
  );
  return { taken, kept, settings };
}
