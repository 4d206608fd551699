/** Instance settings: a typed list of known keys with defaults, stored as JSON rows. */
import { inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { settings } from "../db/schema.ts";
import type { Clock } from "./clock.ts";
import { randomToken } from "./auth/tokens.ts";
import { isTimeZone } from "./timezones.ts";

/** The longest federation horizon of a series: the days its occurrences are laid out for. */
export const MAX_SERIES_HORIZON_DAYS = 90;

/** Every setting an admin may read and write, with its type. */
export const settingsSchema = z.strictObject({
  instance_title: z.string().trim().min(1).max(100),
  instance_description: z.string().max(2000),
  instance_timezone: z.string().refine(isTimeZone, "unknown IANA time zone"),
  instance_locale: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/),
  allow_registration: z.boolean(),
  /** New accounts wait for an admin's approval before they may sign in. */
  registration_approval: z.boolean(),
  allow_anon_event: z.boolean(),
  allow_recurrent_event: z.boolean(),
  recurrent_event_visible: z.boolean(),
  enable_federation: z.boolean(),
  enable_resources: z.boolean(),
  hide_boosts: z.boolean(),
  /**
   * A series federates its occurrences starting within this many days (and
   * always its next one); the hourly job announces the others as they come
   * into range. 0: only the next one.
   */
  federation_series_horizon_days: z.number().int().min(0).max(
    MAX_SERIES_HORIZON_DAYS,
  ),
  instance_actor: z.string().regex(
    /^[a-z0-9_]{1,30}$/,
    "lower-case letters, digits and _ (1-30)",
  ),
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingKey = keyof Settings;

/** What anyone may know of the instance (GET /api/instance). */
export interface PublicInstance {
  title: string;
  description: string;
  /** The public origin. */
  url: string;
  timezone: string;
  locale: string;
}

/** The public facts of the instance at `baseUrl`. */
export function publicInstance(
  settings: Settings,
  baseUrl: string,
): PublicInstance {
  return {
    title: settings.instance_title,
    description: settings.instance_description,
    url: baseUrl,
    timezone: settings.instance_timezone,
    locale: settings.instance_locale,
  };
}

/** Defaults for keys never written. */
export const DEFAULT_SETTINGS: Settings = {
  instance_title: "Quando",
  instance_description: "",
  instance_timezone: "UTC",
  instance_locale: "en",
  allow_registration: false,
  registration_approval: false,
  allow_anon_event: false,
  allow_recurrent_event: true,
  recurrent_event_visible: true,
  enable_federation: true,
  enable_resources: true,
  hide_boosts: false,
  federation_series_horizon_days: 14,
  instance_actor: "relay",
};

const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as SettingKey[];

/** Keys that live in the same table but are never shown through the API. */
const JWT_SECRET_KEY = "internal:jwt_secret";

/**
 * Settings are read on most requests and change rarely: a read is reused for
 * this long. Writes through `updateSettings` drop it at once; other processes'
 * writes are seen within this delay.
 */
const SETTINGS_REUSE_MS = 1_000;

interface CachedSettings {
  settings: Settings;
  readAt: number;
  /** Which read this was (see settingsReadOf). */
  read: number;
}
/** Per database handle (weakly held): the last read and a write version. */
const settingsCache = new WeakMap<Db, CachedSettings>();
const settingsVersions = new WeakMap<Db, number>();
/** Per database handle: how many reads of the settings it made. */
const settingsReads = new WeakMap<Db, number>();
/** The read each Settings object getSettings gave came from (one per read). */
const readOfSettings = new WeakMap<Settings, number>();

/**
 * Which read of the database's settings `settings` (as getSettings gave it)
 * came from: the same for every request that reuses a read, so what is worked out
 * from the settings can be reused with it (lib/events/bodies.ts: the variant
 * of kept answers). Undefined for settings made otherwise.
 */
export function settingsReadOf(settings: Settings): number | undefined {
  return readOfSettings.get(settings);
}

/**
 * All known settings, stored values over defaults: one frozen object per read
 * of the database, shared by the requests that reuse it (a copy and a WeakMap
 * entry per request cost more than the rest of a reused read).
 */
export async function getSettings(db: Db): Promise<Settings> {
  const cached = settingsCache.get(db);
  const started = performance.now();
  if (cached && started - cached.readAt < SETTINGS_REUSE_MS) {
    return cached.settings;
  }
  const version = settingsVersions.get(db) ?? 0;
  const rows = await db.select().from(settings).where(
    inArray(settings.key, SETTING_KEYS),
  );
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const row of rows) {
    // A stored value of the wrong type (hand-edited database) falls back to the default.
    const check = settingsSchema.shape[row.key as SettingKey].safeParse(
      row.value,
    );
    if (check.success) out[row.key] = check.data;
  }
  const read = (settingsReads.get(db) ?? 0) + 1;
  settingsReads.set(db, read);
  const result = Object.freeze(out) as Settings;
  readOfSettings.set(result, read);
  // A write that ran meanwhile may not be in these rows: keep nothing then.
  if ((settingsVersions.get(db) ?? 0) === version) {
    settingsCache.set(db, { settings: result, readAt: started, read });
  }
  return result;
}

/** Forgets the reused read, before and after a write. */
function settingsChanged(db: Db): void {
  settingsVersions.set(db, (settingsVersions.get(db) ?? 0) + 1);
  settingsCache.delete(db);
}

/** Writes a validated partial update atomically and returns the new settings. */
export async function updateSettings(
  db: Db,
  clock: Clock,
  patch: Partial<Settings>,
): Promise<Settings> {
  const now = clock.now();
  const writes = Object.entries(patch).filter(([, v]) => v !== undefined).map((
    [key, value],
  ) =>
    db.insert(settings).values({ key, value, updatedAt: now })
      .onConflictDoUpdate({
        target: settings.key,
        set: { value: sql`excluded.value`, updatedAt: now },
      })
  );
  if (writes.length > 0) {
    settingsChanged(db);
    try {
      await db.batch(writes as [typeof writes[0], ...typeof writes]);
    } finally {
      settingsChanged(db);
    }
  }
  return getSettings(db);
}

/**
 * The HS256 secret: the configured one, or one generated on first start and kept
 * in `settings` so tokens survive restarts. Safe against two processes racing.
 */
export async function ensureJwtSecret(
  db: Db,
  clock: Clock,
  configured?: string,
): Promise<string> {
  if (configured) return configured;
  await db.insert(settings).values({
    key: JWT_SECRET_KEY,
    value: randomToken(48),
    updatedAt: clock.now(),
  }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(
    inArray(settings.key, [JWT_SECRET_KEY]),
  );
  return String(row.value);
}
