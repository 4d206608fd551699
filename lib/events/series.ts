/**
 * Series: their occurrences laid out from their rule up to the horizon (at
 * their creation, when their timing changes, and by the hourly job), and a
 * change of a series carried to its future occurrences.
 */
import { and, eq, gte, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import {
  events,
  type EventStatus,
  eventTags,
  type MediaItem,
  type Recurrence,
} from "../../db/schema.ts";
import { refreshStaleSearchRows } from "../search.ts";
import type { Settings } from "../settings.ts";
import type { WriteDeps } from "./commit.ts";
import { occurrenceStarts, parseRecurrence } from "./recurrence.ts";
import type { EventRow } from "./serialize.ts";
import { firstFreeSlug } from "./slug.ts";
import {
  eventBySlug,
  nextSequence,
  takenSlugs,
  withSlugRetry,
} from "./statements.ts";

/** Occurrences are created at least this many ahead ... */
export const HORIZON_MIN_COUNT = 8;
/** ... and for at least this long. */
export const HORIZON_SECONDS = 90 * 24 * 3600;

function localDate(unix: number, timeZone: string): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date(unix * 1000));
}

/** What occurrences copy from their series. */
export interface SeriesTemplate {
  slug: string;
  title: string;
  description: string;
  placeId: SQL | number | null;
  media: MediaItem[];
  online_locations: string[];
  status: EventStatus;
  is_visible: boolean;
  userId: number | null;
  start: number;
  end: number | null;
  recurrent: Recurrence;
}

/** Slots of a series still to be created, from now to the horizon. */
function pendingSlots(
  template: SeriesTemplate,
  timeZone: string,
  now: number,
  existing: Set<number>,
): number[] {
  const excluded = new Set(
    (template.recurrent.exclude as number[] | undefined) ?? [],
  );
  return occurrenceStarts({
    start: template.start,
    rule: parseRecurrence(template.recurrent),
    timeZone,
    from: now,
    until: now + HORIZON_SECONDS,
    minCount: HORIZON_MIN_COUNT,
  }).filter((slot) => !existing.has(slot) && !excluded.has(slot));
}

/** The slugs the occurrences at `slots` would like to have. */
function wantedSlugs(
  template: SeriesTemplate,
  slots: number[],
  timeZone: string,
) {
  return slots.map((s) => `${template.slug}-${localDate(s, timeZone)}`);
}

/**
 * Which of a series' new occurrences are announced to followers when laid
 * out (see `events.announced`): those starting within the instance's
 * federation horizon and the first one (its next occurrence). The hourly
 * job announces the others as they come into range.
 */
function announcedSlots(
  settings: Settings,
  nowS: number,
): (slot: number, index: number) => boolean {
  const until = nowS + settings.federation_series_horizon_days * 86_400;
  return (slot, index) => index === 0 || slot <= until;
}

/** Laid out by the hourly extension: none announced (the job's next step does). */
const noneAnnounced = () => false;

/**
 * Inserts for occurrences of a series at the given slots, plus their tags.
 * `taken`: slugs already in use among those wanted (see wantedSlugs), read
 * before; the slugs of `freedSlugs` are deleted by the same batch.
 * `announced` tells which are announced to followers at once.
 */
function occurrenceStatements(
  db: Db,
  parentRef: SQL | number,
  template: SeriesTemplate,
  slots: number[],
  timeZone: string,
  now: Date,
  taken: Set<string>,
  announced: (slot: number, index: number) => boolean,
  freedSlugs: Set<string> = new Set(),
): BatchItem[] {
  if (slots.length === 0) return [];
  const wanted = wantedSlugs(template, slots, timeZone);
  taken = new Set(taken);
  for (const s of freedSlugs) taken.delete(s);
  const duration = template.end !== null ? template.end - template.start : null;
  const out: BatchItem[] = slots.map((slot, i) => {
    const slug = firstFreeSlug(wanted[i], taken);
    taken.add(slug);
    return db.insert(events).values({
      title: template.title,
      slug,
      status: template.status,
      start_datetime: slot,
      end_datetime: duration !== null ? slot + duration : null,
      description: template.description,
      is_visible: template.is_visible,
      online_locations: template.online_locations,
      media: template.media,
      userId: template.userId,
      parentId: sql`${parentRef}`,
      placeId: template.placeId,
      recurrence_slot: slot,
      announced: announced(slot, i),
      createdAt: now,
      updatedAt: now,
    }).onConflictDoNothing();
  });
  out.push(copyParentTagsStatement(db, parentRef), refreshStaleSearchRows(db));
  return out;
}

/** Gives unedited occurrences that have no tags their series' tags. */
function copyParentTagsStatement(db: Db, parentRef: SQL | number): BatchItem {
  return db.run(sql`
    insert into ${eventTags} (${sql.identifier("eventId")}, ${
    sql.identifier("tagId")
  })
    select c.id, pt.${sql.identifier("tagId")}
    from ${events} c join ${eventTags} pt on pt.${
    sql.identifier("eventId")
  } = c.${sql.identifier("parentId")}
    where c.${sql.identifier("parentId")} = ${parentRef}
      and c.${sql.identifier("occurrence_edited")} = 0
      and not exists (select 1 from ${eventTags} x where x.${
    sql.identifier("eventId")
  } = c.id)
    on conflict do nothing`);
}

function templateOf(row: EventRow): SeriesTemplate | null {
  if (!row.recurrent || row.parentId !== null || row.apUserApId !== null) {
    return null;
  }
  return {
    slug: row.slug,
    title: row.title,
    description: row.description,
    placeId: row.placeId,
    media: row.media,
    online_locations: row.online_locations,
    status: row.status,
    is_visible: row.is_visible,
    userId: row.userId,
    start: row.start_datetime,
    end: row.end_datetime,
    recurrent: row.recurrent,
  };
}

/**
 * Statements that lay out the first occurrences of a new series
 * (`parentRef`), those due announced to followers. `taken`: slugs in use
 * among those that start with the series' slug.
 */
export function newSeriesStatements(
  db: Db,
  settings: Settings,
  parentRef: SQL | number,
  template: SeriesTemplate,
  taken: Set<string>,
  now: Date,
): BatchItem[] {
  const timeZone = settings.instance_timezone;
  const nowS = Math.floor(now.getTime() / 1000);
  const slots = pendingSlots(template, timeZone, nowS, new Set());
  return occurrenceStatements(
    db,
    parentRef,
    template,
    slots,
    timeZone,
    now,
    taken,
    announcedSlots(settings, nowS),
  );
}

/**
 * Names the occurrences of the new series holding the temporary slug `slug`
 * after its id (`event-<id>-<date>`), as nameByIdStatement names the series.
 */
export function occurrencesNamedByIdStatement(
  db: Db,
  slug: string,
): BatchItem {
  return db.update(events).set({
    slug: sql`'event-' || ${events.parentId} || substr(${events.slug}, ${
      slug.length + 1
    })`,
  }).where(sql`${events.parentId} = ${eventBySlug(slug)}`);
}

/**
 * Statements that carry a change of the series `current` (its new state:
 * `template`) to its future occurrences not edited on their own. When its
 * timing changed, or it has only now become a series, they are laid out
 * again (`taken`: slugs in use among those that start with its slug);
 * otherwise they are changed in place, and given its tags again when
 * `tagsChanged`. `family`: the series and its occurrences before the change.
 */
export function seriesChangeStatements(
  db: Db,
  settings: Settings,
  change: {
    current: EventRow;
    family: EventRow[];
    template: SeriesTemplate;
    tagsChanged: boolean;
    taken: Set<string>;
    now: Date;
  },
): BatchItem[] {
  const { current, family, template, now } = change;
  const id = current.id;
  const nowS = Math.floor(now.getTime() / 1000);
  const statements: BatchItem[] = [];
  const future = and(
    eq(events.parentId, id),
    gte(events.start_datetime, nowS),
    eq(events.occurrence_edited, false),
  );
  const isFuture = (e: EventRow) =>
    e.parentId === id && e.start_datetime >= nowS && !e.occurrence_edited;
  const futureRows = family.filter(isFuture);
  const timingChanged = template.start !== current.start_datetime ||
    template.end !== current.end_datetime ||
    JSON.stringify(template.recurrent) !== JSON.stringify(current.recurrent);
  if (timingChanged || !current.recurrent) {
    // New slots: drop the old future ones and lay out the series again.
    statements.push(db.delete(events).where(future));
    const existing = new Set(
      family.filter((e) => e.parentId === id && !isFuture(e))
        .map((e) => e.recurrence_slot).filter((s) => s !== null),
    );
    const slots = pendingSlots(
      template,
      settings.instance_timezone,
      nowS,
      existing,
    );
    statements.push(
      ...occurrenceStatements(
        db,
        id,
        template,
        slots,
        settings.instance_timezone,
        now,
        change.taken,
        announcedSlots(settings, nowS),
        new Set(futureRows.map((r) => r.slug)),
      ),
    );
  } else {
    statements.push(
      db.update(events).set({
        title: template.title,
        description: template.description,
        placeId: template.placeId,
        online_locations: template.online_locations,
        media: template.media,
        status: template.status,
        is_visible: template.is_visible,
        sequence: nextSequence,
        updatedAt: now,
      }).where(future),
    );
    if (change.tagsChanged) {
      statements.push(
        db.delete(eventTags).where(
          inArray(
            eventTags.eventId,
            sql`(select ${events.id} from ${events} where ${future})`,
          ),
        ),
        copyParentTagsStatement(db, id),
        refreshStaleSearchRows(db),
      );
    }
  }
  return statements;
}

/**
 * Creates the missing occurrences of every local series up to the horizon,
 * not announced to followers: far ahead, they are beyond the series'
 * federation horizon, and the hourly job's next step announces those that
 * are due (lib/federation/publishing.ts). Idempotent; run periodically.
 * Returns how many were created.
 */
export async function materializeOccurrences(
  deps: WriteDeps,
  parentIds?: number[],
): Promise<number> {
  const { db, clock, settings } = deps;
  const now = clock.now();
  const nowS = Math.floor(now.getTime() / 1000);
  const parents = await db.select().from(events).where(
    and(
      sql`${events.recurrent} is not null`,
      isNull(events.parentId),
      isNull(events.apUserApId),
      parentIds ? inArray(events.id, parentIds) : undefined,
    ),
  );
  if (parents.length === 0) return 0;
  const slotRows = await db.select({
    parentId: events.parentId,
    slot: events.recurrence_slot,
  })
    .from(events).where(inArray(events.parentId, parents.map((p) => p.id)));
  let created = 0;
  for (const parent of parents) {
    const template = templateOf(parent);
    if (!template) continue;
    const existing = new Set(
      slotRows.filter((r) => r.parentId === parent.id).map((r) => r.slot)
        .filter((s): s is number => s !== null),
    );
    const slots = pendingSlots(
      template,
      settings.instance_timezone,
      nowS,
      existing,
    );
    if (slots.length === 0) continue;
    const statements = occurrenceStatements(
      db,
      parent.id,
      template,
      slots,
      settings.instance_timezone,
      now,
      await takenSlugs(
        db,
        wantedSlugs(template, slots, settings.instance_timezone),
      ),
      noneAnnounced,
    );
    await withSlugRetry(() =>
      db.batch(statements as [BatchItem, ...BatchItem[]])
    );
    created += slots.length;
  }
  return created;
}
