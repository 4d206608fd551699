/**
 * Creating, changing and deleting events. Every check runs before anything is
 * written, and each change is one atomic `db.batch`.
 */
import { and, eq, gte, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import {
  eventMedia,
  events,
  type EventStatus,
  eventTags,
  mediaFiles,
  type MediaItem,
  places,
  type Recurrence,
  tags,
} from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { localMediaNames, pruneMediaStatement } from "../media/cleanup.ts";
import {
  ApiError,
  forbidden,
  invalidRequest,
  isUniqueViolation,
  notFound,
} from "../errors.ts";
import type { Settings } from "../settings.ts";
import type { UserRow } from "../users.ts";
import {
  canEditEvent,
  canSeeEvent,
  isModerator,
  publicPlace,
} from "./access.ts";
import {
  allReads,
  type BatchItem,
  type BatchRead,
  runRead,
} from "../../db/batch.ts";
import { occurrenceStarts, parseRecurrence } from "./recurrence.ts";
import { sanitizeDescription } from "./sanitize.ts";
import type { EventRow } from "./serialize.ts";
import { firstFreeSlug, slugBase } from "./slug.ts";
import { uniqueTags } from "./tags.ts";
import { refreshStaleSearchRows } from "../search.ts";

/** iCalendar SEQUENCE: every change of an existing event counts one more revision. */
const nextSequence = sql`${events.sequence} + 1`;

/** Occurrences are created at least this many ahead ... */
export const HORIZON_MIN_COUNT = 8;
/** ... and for at least this long. */
export const HORIZON_SECONDS = 90 * 24 * 3600;

export interface MediaInput {
  url: string;
  name?: string;
  focalpoint?: [number, number];
}

/** Event fields as a client sends them (already type-checked by the route schema). */
export interface EventInput {
  title?: string;
  description?: string;
  start_datetime?: number;
  end_datetime?: number | null;
  /** A place by id; null takes the event's place away (it then needs an online location). */
  place_id?: number | null;
  place_name?: string;
  place_address?: string;
  place_latitude?: number | null;
  place_longitude?: number | null;
  online_locations?: string[];
  tags?: string[];
  recurrent?: unknown;
  media?: MediaInput[];
  status?: EventStatus;
  is_visible?: boolean;
}

export interface WriteDeps {
  db: Db;
  clock: Clock;
  settings: Settings;
  /**
   * Queues the change's federation in the write's own batch (absent: not
   * federated), so that a write and its publication commit together.
   */
  publication?: PublicationWrite;
}

/** A publication queued by a write's batch: its queue row and the write's time (ms). */
export interface QueuedPublication {
  id: number;
  stamp: number;
}

/**
 * The statements that queue the federation of a change to the event `ref`
 * (and its occurrences), given the family before it; they read back the
 * queued row (null when nothing of the change is on the fediverse).
 */
export type PublicationWrite = (
  ref: SQL | number,
  before: EventRow[],
) => BatchRead<QueuedPublication | null>;

type PlaceRef =
  | { kind: "none" }
  | { kind: "id"; id: number }
  | {
    kind: "named";
    name: string;
    address: string;
    latitude: number | null;
    longitude: number | null;
    existingId?: number;
  };

function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}

function placeIdSql(ref: PlaceRef): SQL | number | null {
  if (ref.kind === "none") return null;
  if (ref.kind === "id") return ref.id;
  if (ref.existingId !== undefined) return ref.existingId;
  return sql`(select ${places.id} from ${places} where ${places.name} = ${ref.name} and ${places.address} = ${ref.address})`;
}

/**
 * What validating an input needs to read: the place it names (by id, or by
 * name and address) and the media files it references. Statements for the
 * batch that reads everything a write checks. A place named by id must be
 * public (publicPlace), the event's own (`eventId`'s) or named by a
 * moderator: any other id is unknown, so that an event cannot show a place
 * nobody may see.
 */
function lookupQuery(
  db: Db,
  input: EventInput,
  user: UserRow | null,
  eventId?: number,
): BatchRead<Lookups> {
  const statements: BatchItem[] = [];
  const placeAt = statements.length;
  if (input.place_id != null) {
    statements.push(
      db.select({ id: places.id }).from(places).where(
        and(
          eq(places.id, input.place_id),
          isModerator(user) ? undefined : or(
            publicPlace(places.id),
            eventId === undefined
              ? undefined
              : sql`${places.id} = (select ${events.placeId} from ${events} where ${events.id} = ${eventId})`,
          ),
        ),
      ),
    );
  } else if (input.place_name !== undefined) {
    statements.push(
      db.select({ id: places.id }).from(places).where(
        and(
          eq(places.name, input.place_name.trim()),
          eq(places.address, (input.place_address ?? "").trim()),
        ),
      ),
    );
  }
  const withPlace = statements.length > placeAt;
  const mediaAt = statements.length;
  const names = (input.media ?? []).map((m) => m.url);
  if (names.length > 0) {
    statements.push(
      db.select({
        name: mediaFiles.name,
        width: mediaFiles.width,
        height: mediaFiles.height,
        size: mediaFiles.size,
      }).from(mediaFiles).where(inArray(mediaFiles.name, names)),
    );
  }
  return {
    statements,
    read(results) {
      return {
        placeId: withPlace
          ? (results[placeAt] as { id: number }[])[0]?.id
          : undefined,
        media: names.length > 0 ? results[mediaAt] as MediaFileRow[] : [],
      };
    },
  };
}

type MediaFileRow = Pick<
  typeof mediaFiles.$inferSelect,
  "name" | "width" | "height" | "size"
>;

/** What lookupQuery read. */
interface Lookups {
  /** The id of the place the input names, when it exists. */
  placeId: number | undefined;
  media: MediaFileRow[];
}

function resolvePlace(
  input: EventInput,
  current: EventRow | null,
  lookups: Lookups,
): PlaceRef {
  if (input.place_id === null) return { kind: "none" };
  if (input.place_id !== undefined) {
    if (lookups.placeId === undefined) {
      throw invalidRequest("Unknown place", [{
        field: "place_id",
        message: "no place with this id",
      }]);
    }
    return { kind: "id", id: lookups.placeId };
  }
  if (input.place_name !== undefined) {
    return {
      kind: "named",
      name: input.place_name.trim(),
      address: (input.place_address ?? "").trim(),
      latitude: input.place_latitude ?? null,
      longitude: input.place_longitude ?? null,
      existingId: lookups.placeId,
    };
  }
  if (current?.placeId != null) return { kind: "id", id: current.placeId };
  return { kind: "none" };
}

function resolveMedia(items: MediaInput[], lookups: Lookups): MediaItem[] {
  const byName = new Map(lookups.media.map((r) => [r.name, r]));
  return items.map((m, i) => {
    const file = byName.get(m.url);
    if (!file) {
      throw invalidRequest("Unknown media file", [{
        field: `media.${i}.url`,
        message: "upload the file with POST /api/media first",
      }]);
    }
    return {
      name: m.name ?? "",
      url: file.name,
      width: file.width,
      height: file.height,
      size: file.size,
      focalpoint: m.focalpoint ?? [0, 0],
    };
  });
}

/** The checked, merged state of an event about to be written. */
interface Prepared {
  title: string;
  description: string;
  start: number;
  end: number | null;
  place: PlaceRef;
  online_locations: string[];
  tags: { tag: string; normalizedTag: string }[] | undefined;
  recurrent: Recurrence | null;
  media: MediaItem[];
  status: EventStatus;
  is_visible: boolean;
}

/** Checks an input against the current event (null: a creation) and what was looked up. */
function prepare(
  deps: WriteDeps,
  input: EventInput,
  current: EventRow | null,
  defaultVisible: boolean,
  lookups: Lookups,
): Prepared {
  const title = (input.title ?? current?.title ?? "").trim();
  if (!title) {
    throw invalidRequest("A title is required", [{
      field: "title",
      message: "required",
    }]);
  }
  const start = input.start_datetime ?? current?.start_datetime;
  if (start === undefined) {
    throw invalidRequest("A start is required", [{
      field: "start_datetime",
      message: "required",
    }]);
  }
  const end = input.end_datetime !== undefined
    ? input.end_datetime
    : (current?.end_datetime ?? null);
  if (end !== null && end <= start) {
    throw invalidRequest("The end must be after the start", [{
      field: "end_datetime",
      message: "must be greater than start_datetime",
    }]);
  }
  let recurrent: Recurrence | null = current?.recurrent ?? null;
  if (input.recurrent !== undefined) {
    if (current?.parentId != null && input.recurrent !== null) {
      throw invalidRequest("An occurrence cannot itself recur", [{
        field: "recurrent",
        message: "edit the series (the parent event) instead",
      }]);
    }
    if (input.recurrent === null) {
      if (current?.recurrent) {
        throw invalidRequest("A series cannot be turned into a single event", [{
          field: "recurrent",
          message: "delete the series, or hide its occurrences",
        }]);
      }
      recurrent = null;
    } else {
      if (!deps.settings.allow_recurrent_event) {
        throw invalidRequest("Recurrent events are disabled on this instance", [
          {
            field: "recurrent",
            message: "not allowed",
          },
        ]);
      }
      const rule = parseRecurrence(input.recurrent);
      if (rule.until !== undefined && rule.until < start) {
        throw invalidRequest("The series ends before it starts", [{
          field: "recurrent.until",
          message: "must not be before start_datetime",
        }]);
      }
      recurrent = {
        ...rule,
        exclude: (current?.recurrent?.exclude as number[]) ?? [],
      };
    }
  }
  const place = resolvePlace(input, current, lookups);
  const online_locations = input.online_locations ??
    current?.online_locations ??
    [];
  if (place.kind === "none" && online_locations.length === 0) {
    throw invalidRequest("An event needs a place or an online location", [{
      field: "place_name",
      message: "give place_id, place_name or online_locations",
    }]);
  }
  const media = input.media !== undefined
    ? resolveMedia(input.media, lookups)
    : (current?.media ?? []);
  return {
    title,
    description: input.description !== undefined
      ? sanitizeDescription(input.description)
      : (current?.description ?? ""),
    start,
    end,
    place,
    online_locations,
    tags: input.tags !== undefined ? uniqueTags(input.tags) : undefined,
    recurrent,
    media,
    status: input.status ?? current?.status ?? "EventScheduled",
    is_visible: input.is_visible ?? current?.is_visible ?? defaultVisible,
  };
}

/** Statements that create a named place when it does not exist yet. */
function placeStatements(db: Db, ref: PlaceRef, now: Date): BatchItem[] {
  if (ref.kind !== "named" || ref.existingId !== undefined) return [];
  return [
    db.insert(places).values({
      name: ref.name,
      address: ref.address,
      latitude: ref.latitude,
      longitude: ref.longitude,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoNothing(),
  ];
}

/** Statements that give `eventRef` exactly these tags (creating missing tags). */
function tagStatements(
  db: Db,
  eventRef: SQL | number,
  list: { tag: string; normalizedTag: string }[],
  replace: boolean,
): BatchItem[] {
  const out: BatchItem[] = [];
  if (replace) {
    out.push(
      db.delete(eventTags).where(sql`${eventTags.eventId} = ${eventRef}`),
    );
  }
  if (list.length > 0) {
    out.push(db.insert(tags).values(list).onConflictDoNothing());
    out.push(db.run(sql`
    insert into ${eventTags} (${sql.identifier("eventId")}, ${
      sql.identifier("tagId")
    })
    select ${eventRef}, ${tags.id} from ${tags}
    where ${inArray(tags.normalizedTag, list.map((t) => t.normalizedTag))}
    on conflict do nothing`));
  }
  // The search index takes the new tags here, once per event rather than
  // once per tag: see refreshStaleSearchRows.
  if (out.length > 0) out.push(refreshStaleSearchRows(db));
  return out;
}

/** Drops tags among `tagIds` that no event uses any more. */
function pruneTagsStatement(db: Db, tagIds: number[]): BatchItem[] {
  if (tagIds.length === 0) return [];
  return [
    db.delete(tags).where(
      and(
        inArray(tags.id, tagIds),
        sql`not exists (select 1 from ${eventTags} where ${eventTags.tagId} = ${tags.id})`,
      ),
    ),
  ];
}

async function tagIdsOf(db: Db, eventIds: number[]): Promise<number[]> {
  if (eventIds.length === 0) return [];
  const rows = await db.selectDistinct({ tagId: eventTags.tagId }).from(
    eventTags,
  )
    .where(inArray(eventTags.eventId, eventIds));
  return rows.map((r) => r.tagId);
}

/**
 * Slugs taken among `candidates`, or (with `prefix`) equal to the prefix or
 * starting with `prefix-` (the prefix may be an SQL expression: the slug of
 * an event, read in the same statement). The range form is what the unique
 * index on slug serves ("-" + 1 is "."); LIKE cannot use it.
 */
function takenSlugsQuery(
  db: Db,
  candidates: string[],
  prefix?: string | SQL,
): BatchRead<Set<string>> {
  return {
    statements: [
      db.select({ slug: events.slug }).from(events).where(
        prefix !== undefined
          ? sql`${events.slug} = ${prefix} or (${events.slug} >= ${prefix} || '-' and ${events.slug} < ${prefix} || '.')`
          : inArray(events.slug, candidates.length ? candidates : [""]),
      ),
    ],
    read(results) {
      return new Set((results[0] as { slug: string }[]).map((r) => r.slug));
    },
  };
}

function takenSlugs(db: Db, candidates: string[], prefix?: string) {
  return runRead(db, takenSlugsQuery(db, candidates, prefix));
}

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
interface SeriesTemplate {
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

/** Retries a write whose slug lost a race with a concurrent one. */
async function withSlugRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5 || !isUniqueViolation(err)) throw err;
    }
  }
}

/**
 * What a change did to an event and its occurrences, for federation: the
 * rows before (empty for a creation) and after it (deleted ones missing,
 * occurrences it detached from their series included).
 */
export interface EventChange {
  before: EventRow[];
  after: EventRow[];
}

/**
 * The result of a write: the event's id, the change, the answer read after
 * it, and the publication its batch queued (null: none).
 */
export interface WriteResult<T> extends EventChange {
  id: number;
  answer: T;
  publication: QueuedPublication | null;
}

/**
 * What a write reads back in its own batch, after its statements (so it sees
 * them): given the event (its id, or an SQL expression giving it), the reads
 * of the answer to the request. One round trip for the write and its answer.
 */
export type Respond<T> = (ref: SQL | number) => BatchRead<T>;

export interface WriteOptions<T> {
  /** An attached image, stored once everything else is known to be valid. */
  saveImage?: () => Promise<MediaItem>;
  respond?: Respond<T>;
  /**
   * Statements committed in the write's own batch, given the event (its id,
   * or an SQL expression giving it): a record of where an import came from.
   */
  alsoWrite?: (ref: SQL | number) => BatchItem[];
}

/** An event and its occurrences (by id or SQL ref), plus `alsoIds`. */
function familyQuery(
  db: Db,
  ref: SQL | number,
  alsoIds: number[] = [],
): BatchRead<EventRow[]> {
  return {
    statements: [
      db.select().from(events).where(
        or(
          sql`${events.id} = ${ref}`,
          sql`${events.parentId} = ${ref}`,
          alsoIds.length ? inArray(events.id, alsoIds) : undefined,
        ),
      ),
    ],
    read: (results) => results[0] as EventRow[],
  };
}

/** The tags of an event and its occurrences. */
function familyTagsQuery(db: Db, id: number): BatchRead<number[]> {
  return {
    statements: [
      db.selectDistinct({ tagId: eventTags.tagId }).from(eventTags).where(
        inArray(
          eventTags.eventId,
          sql`(select ${events.id} from ${events} where ${events.id} = ${id} or ${events.parentId} = ${id})`,
        ),
      ),
    ],
    read: (results) => (results[0] as { tagId: number }[]).map((r) => r.tagId),
  };
}

const noAnswer: BatchRead<undefined> = {
  statements: [],
  read: () => undefined,
};

/**
 * Runs a write's statements and, in the same batch, the reads of the family
 * after it and of the answer: one round trip.
 */
async function writeAndRead<T>(
  deps: WriteDeps,
  statements: BatchItem[],
  ref: SQL | number,
  before: EventRow[],
  respond: Respond<T> | undefined,
): Promise<{
  results: unknown[];
  after: EventRow[];
  answer: T;
  publication: QueuedPublication | null;
}> {
  const { db } = deps;
  const reads = allReads(
    familyQuery(db, ref, before.map((e) => e.id)),
    respond ? respond(ref) : noAnswer as BatchRead<T>,
    deps.publication?.(ref, before) ?? noPublication,
  );
  const results = await db.batch(
    [...statements, ...reads.statements] as [BatchItem, ...BatchItem[]],
  );
  const [after, answer, publication] = reads.read(
    results.slice(statements.length),
  );
  return { results, after, answer, publication };
}

const noPublication: BatchRead<QueuedPublication | null> = {
  statements: [],
  read: () => null,
};

/**
 * Creates an event (and, for a series, its first occurrences) in one batch.
 * `user` null is an anonymous submission (hidden until confirmed). Round
 * trips: one that reads what the checks need (places, media, slugs), one
 * that writes and reads the answer back (one more when the title gives no
 * slug: the answer is read once the slug is `event-<id>`).
 */
export async function createEvent<T = undefined>(
  deps: WriteDeps,
  user: UserRow | null,
  input: EventInput,
  options: WriteOptions<T> = {},
): Promise<WriteResult<T>> {
  const { db, clock, settings } = deps;
  if (!user && !settings.allow_anon_event) {
    throw new ApiError(
      401,
      "unauthorized",
      "Authentication required",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="quando"',
      },
    );
  }
  const title = (input.title ?? "").trim();
  const base = slugBase(title);
  const timeZone = settings.instance_timezone;
  let image: MediaItem | undefined;
  return await withSlugRetry(async () => {
    // The checks' reads and the slugs taken by this title (and by the
    // occurrences of a series, which start with it), in one round trip.
    const [lookups, taken] = await runRead(
      db,
      allReads(
        lookupQuery(db, input, user),
        base ? takenSlugsQuery(db, [], base) : noAnswer,
      ),
    );
    // Anonymous submissions wait for confirmation; nobody else may create
    // hidden events through is_visible except moderators and owners
    // (themselves).
    const prepared = prepare(deps, input, null, user !== null, lookups);
    if (!user) prepared.is_visible = false;
    // An attached image is stored only once everything else is known to be valid.
    if (options.saveImage && !image) image = await options.saveImage();
    if (image) prepared.media = [...prepared.media, image];
    const now = clock.now();
    const slug = base
      ? firstFreeSlug(base, taken ?? new Set())
      : `tmp-${crypto.randomUUID()}`;
    const slugRef =
      sql`(select ${events.id} from ${events} where ${events.slug} = ${slug})`;
    const statements: BatchItem[] = [
      ...placeStatements(db, prepared.place, now),
    ];
    const eventInsert = statements.length;
    statements.push(
      db.insert(events).values({
        title: prepared.title,
        slug,
        status: prepared.status,
        start_datetime: prepared.start,
        end_datetime: prepared.end,
        description: prepared.description,
        is_visible: prepared.is_visible,
        online_locations: prepared.online_locations,
        recurrent: prepared.recurrent,
        media: prepared.media,
        userId: user?.id ?? null,
        placeId: placeIdSql(prepared.place),
        createdAt: now,
        updatedAt: now,
      }).returning({ id: events.id }),
    );
    statements.push(...tagStatements(db, slugRef, prepared.tags ?? [], false));
    if (prepared.recurrent) {
      const template: SeriesTemplate = {
        slug: base || slug,
        title: prepared.title,
        description: prepared.description,
        placeId: placeIdSql(prepared.place),
        media: prepared.media,
        online_locations: prepared.online_locations,
        status: prepared.status,
        is_visible: prepared.is_visible,
        userId: user?.id ?? null,
        start: prepared.start,
        end: prepared.end,
        recurrent: prepared.recurrent,
      };
      const slots = pendingSlots(
        template,
        timeZone,
        Math.floor(now.getTime() / 1000),
        new Set(),
      );
      statements.push(
        ...occurrenceStatements(
          db,
          slugRef,
          template,
          slots,
          timeZone,
          now,
          // A title without a slug gives `tmp-<uuid>` slugs, all free.
          taken ?? new Set(),
          announcedSlots(settings, Math.floor(now.getTime() / 1000)),
        ),
      );
    }
    statements.push(...(options.alsoWrite?.(slugRef) ?? []));
    if (base) {
      const { results, after, answer, publication } = await writeAndRead(
        deps,
        statements,
        slugRef,
        [],
        options.respond,
      );
      const id = (results[eventInsert] as { id: number }[])[0].id;
      return { id, before: [], after, answer, publication };
    }
    // Titles with no Latin transliteration get `event-<id>`, and their
    // occurrences `event-<id>-<date>`: the answer is read once they have it.
    if (prepared.recurrent) {
      statements.push(
        db.update(events).set({
          slug: sql`'event-' || ${events.parentId} || substr(${events.slug}, ${
            slug.length + 1
          })`,
        }).where(sql`${events.parentId} = ${slugRef}`),
      );
    }
    // Queued while the temporary slug still names the event.
    const queue = deps.publication?.(slugRef, []) ?? noPublication;
    const queueAt = statements.length;
    statements.push(...queue.statements);
    statements.push(
      db.update(events).set({ slug: sql`'event-' || ${events.id}` }).where(
        eq(events.slug, slug),
      ),
    );
    const results = await db.batch(statements as [BatchItem, ...BatchItem[]]);
    const id = (results[eventInsert] as { id: number }[])[0].id;
    const publication = queue.read(
      results.slice(queueAt, queueAt + queue.statements.length),
    );
    const [after, answer] = await runRead(
      db,
      allReads(
        familyQuery(db, id),
        options.respond ? options.respond(id) : noAnswer as BatchRead<T>,
      ),
    );
    return { id, before: [], after, answer, publication };
  });
}

/**
 * The event `id` with its occurrences, for a change by `user`: 404 when
 * unknown or hidden from them, 403 when not theirs.
 */
function editableEvent(
  user: UserRow,
  id: number,
  family: EventRow[],
): EventRow {
  const event = family.find((e) => e.id === id);
  if (!event || !canSeeEvent(user, event)) throw notFound("Event");
  if (!canEditEvent(user, event)) {
    throw forbidden(
      "Only the owner, an editor or an admin may change this event",
    );
  }
  return event;
}

/**
 * Changes an event: PUT and PATCH semantics (omitted fields keep their
 * value). Round trips: one that reads the event with its occurrences and
 * tags and what the checks need, one that writes and reads the answer.
 */
export async function updateEvent<T = undefined>(
  deps: WriteDeps,
  user: UserRow,
  id: number,
  input: EventInput,
  options: WriteOptions<T> = {},
): Promise<WriteResult<T>> {
  const { db, clock, settings } = deps;
  const [family, familyTags, lookups, taken] = await runRead(
    db,
    allReads(
      familyQuery(db, id),
      familyTagsQuery(db, id),
      lookupQuery(db, input, user, id),
      // Slugs a series' new occurrences might take (they start with its slug).
      takenSlugsQuery(
        db,
        [],
        sql`(select ${events.slug} from ${events} where ${events.id} = ${id})`,
      ),
    ),
  );
  const current = editableEvent(user, id, family);
  if (current.apUserApId !== null) {
    throw forbidden(
      "Remote events are changed by their author, over federation",
    );
  }
  const p = prepare(deps, input, current, true, lookups);
  if (options.saveImage) p.media = [...p.media, await options.saveImage()];
  const now = clock.now();
  const nowS = Math.floor(now.getTime() / 1000);
  const statements: BatchItem[] = [...placeStatements(db, p.place, now)];
  statements.push(
    db.update(events).set({
      title: p.title,
      description: p.description,
      start_datetime: p.start,
      end_datetime: p.end,
      placeId: placeIdSql(p.place),
      online_locations: p.online_locations,
      recurrent: p.recurrent,
      media: p.media,
      status: p.status,
      is_visible: p.is_visible,
      ...(current.parentId !== null ? { occurrence_edited: true } : {}),
      sequence: nextSequence,
      updatedAt: now,
    }).where(eq(events.id, id)),
  );
  // An occurrence changed on its own changes its series' exceptions too.
  if (current.parentId !== null) {
    statements.push(
      db.update(events).set({ sequence: nextSequence }).where(
        eq(events.id, current.parentId),
      ),
    );
  }
  if (p.tags) statements.push(...tagStatements(db, id, p.tags, true));

  if (p.recurrent) {
    // A series: carry the change to its future occurrences not edited on their own.
    const future = and(
      eq(events.parentId, id),
      gte(events.start_datetime, nowS),
      eq(events.occurrence_edited, false),
    );
    const isFuture = (e: EventRow) =>
      e.parentId === id && e.start_datetime >= nowS && !e.occurrence_edited;
    const futureRows = family.filter(isFuture);
    const template: SeriesTemplate = {
      slug: current.slug,
      title: p.title,
      description: p.description,
      placeId: placeIdSql(p.place),
      media: p.media,
      online_locations: p.online_locations,
      status: p.status,
      is_visible: p.is_visible,
      userId: current.userId,
      start: p.start,
      end: p.end,
      recurrent: p.recurrent,
    };
    const timingChanged = p.start !== current.start_datetime ||
      p.end !== current.end_datetime ||
      JSON.stringify(p.recurrent) !== JSON.stringify(current.recurrent);
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
          taken,
          announcedSlots(settings, nowS),
          new Set(futureRows.map((r) => r.slug)),
        ),
      );
    } else {
      statements.push(
        db.update(events).set({
          title: p.title,
          description: p.description,
          placeId: placeIdSql(p.place),
          online_locations: p.online_locations,
          media: p.media,
          status: p.status,
          is_visible: p.is_visible,
          sequence: nextSequence,
          updatedAt: now,
        }).where(future),
      );
      if (p.tags) {
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
  }
  // Tags the event or its occurrences had and no event uses any more.
  statements.push(...pruneTagsStatement(db, familyTags));
  statements.push(...(options.alsoWrite?.(id) ?? []));
  const { after, answer, publication } = await writeAndRead(
    deps,
    statements,
    id,
    family,
    options.respond,
  );
  return { id, before: family, after, answer, publication };
}

/**
 * Flips the confirmation state (is_visible); a series carries it to its
 * future occurrences. Two round trips (read, then write and answer).
 */
export async function toggleEvent<T = undefined>(
  deps: WriteDeps,
  user: UserRow,
  id: number,
  options: Pick<WriteOptions<T>, "respond"> & {
    /** The state to set (a confirmation: true) rather than the opposite one. */
    to?: boolean;
  } = {},
): Promise<WriteResult<T>> {
  const { db, clock } = deps;
  const family = await runRead(db, familyQuery(db, id));
  const current = editableEvent(user, id, family);
  const now = clock.now();
  const visible = options.to ?? !current.is_visible;
  const statements: BatchItem[] = [
    db.update(events).set({
      is_visible: visible,
      ...(current.parentId !== null ? { occurrence_edited: true } : {}),
      sequence: nextSequence,
      updatedAt: now,
    }).where(eq(events.id, id)),
  ];
  if (current.parentId !== null) {
    statements.push(
      db.update(events).set({ sequence: nextSequence }).where(
        eq(events.id, current.parentId),
      ),
    );
  }
  if (current.recurrent && current.parentId === null) {
    statements.push(
      db.update(events).set({
        is_visible: visible,
        sequence: nextSequence,
        updatedAt: now,
      }).where(
        and(
          eq(events.parentId, id),
          gte(events.start_datetime, nowSeconds(clock)),
          eq(events.occurrence_edited, false),
        ),
      ),
    );
  }
  const { after, answer, publication } = await writeAndRead(
    deps,
    statements,
    id,
    family,
    options.respond,
  );
  return { id, before: family, after, answer, publication };
}

/**
 * Deletes an event. A series takes its future occurrences with it (past ones
 * stay as single events); a deleted occurrence is excluded from its series.
 * Two round trips (read, then write).
 */
export async function deleteEvent(
  deps: WriteDeps,
  user: UserRow,
  id: number,
): Promise<WriteResult<undefined>> {
  const { db, clock } = deps;
  const [family, familyTags] = await runRead(
    db,
    allReads(familyQuery(db, id), familyTagsQuery(db, id)),
  );
  const current = editableEvent(user, id, family);
  const nowS = nowSeconds(clock);
  const statements: BatchItem[] = [];
  let mediaLists = [current.media];
  if (current.recurrent && current.parentId === null) {
    mediaLists = family.map((e) => e.media);
    statements.push(
      db.update(events).set({
        parentId: null,
        sequence: nextSequence,
        updatedAt: clock.now(),
      }).where(
        and(
          eq(events.parentId, id),
          sql`coalesce(${events.end_datetime}, ${events.start_datetime}) < ${nowS}`,
        ),
      ),
    );
  }
  if (current.parentId !== null && current.recurrence_slot !== null) {
    statements.push(
      db.update(events).set({
        recurrent:
          sql`json_insert(json_set(${events.recurrent}, '$.exclude', json(coalesce(json_extract(${events.recurrent}, '$.exclude'), '[]'))), '$.exclude[#]', ${current.recurrence_slot})`,
        sequence: nextSequence,
        // Feeds' Last-Modified follows updatedAt: the series changed.
        updatedAt: clock.now(),
      }).where(
        and(
          eq(events.id, current.parentId),
          sql`${events.recurrent} is not null`,
        ),
      ),
    );
  }
  statements.push(db.delete(events).where(eq(events.id, id)));
  // The tags of the event (a series: and of its occurrences) no event uses any more.
  statements.push(...pruneTagsStatement(db, familyTags));
  // Files only these events used go with them; past occurrences kept above still hold theirs.
  statements.push(...pruneMediaStatement(db, localMediaNames(mediaLists)));
  const { after, publication } = await writeAndRead(
    deps,
    statements,
    id,
    family,
    undefined,
  );
  return { id, before: family, after, answer: undefined, publication };
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

/** An event received over federation, already parsed and sanitised. */
export interface RemoteEventInput {
  ap_id: string;
  apUserApId: string;
  title: string;
  description: string;
  start_datetime: number;
  end_datetime: number | null;
  status: EventStatus;
  place: {
    name: string;
    address: string;
    latitude: number | null;
    longitude: number | null;
    postal_address: Record<string, string> | null;
  } | null;
  online_locations: string[];
  tags: string[];
  media: MediaItem[];
  ap_object: unknown;
  ld_signature: unknown;
}

/**
 * Creates or replaces a remote event by its `ap_id` in one batch. The caller
 * has checked that the sender may (its author, trusted and followed).
 */
export async function upsertRemoteEvent(
  deps: { db: Db; clock: Clock },
  input: RemoteEventInput,
): Promise<{ id: number; created: boolean }> {
  const { db, clock } = deps;
  const [current] = await db.select().from(events).where(
    eq(events.ap_id, input.ap_id),
  );
  const place: PlaceRef = input.place
    ? {
      kind: "named",
      name: input.place.name.trim().slice(0, 250),
      address: input.place.address.trim().slice(0, 500),
      latitude: input.place.latitude,
      longitude: input.place.longitude,
    }
    : { kind: "none" };
  if (place.kind === "named") {
    const [row] = await db.select({ id: places.id }).from(places).where(
      and(eq(places.name, place.name), eq(places.address, place.address)),
    );
    place.existingId = row?.id;
  }
  const tagList = uniqueTags(input.tags);
  const fields = {
    title: input.title,
    status: input.status,
    start_datetime: input.start_datetime,
    end_datetime: input.end_datetime,
    description: input.description,
    online_locations: input.online_locations,
    media: input.media,
    ap_object: input.ap_object,
    ld_signature: input.ld_signature ?? null,
    placeId: placeIdSql(place),
  };
  const now = clock.now();
  if (current) {
    const oldTags = await tagIdsOf(db, [current.id]);
    await db.batch([
      ...placeStatements(db, place, now),
      db.update(events).set({
        ...fields,
        sequence: nextSequence,
        updatedAt: now,
      }).where(eq(events.id, current.id)),
      ...tagStatements(db, current.id, tagList, true),
      ...pruneTagsStatement(db, oldTags),
    ] as [BatchItem, ...BatchItem[]]);
    return { id: current.id, created: false };
  }
  return await withSlugRetry(async () => {
    const base = slugBase(input.title);
    const slug = base
      ? firstFreeSlug(base, await takenSlugs(db, [], base))
      : `tmp-${crypto.randomUUID()}`;
    const slugRef =
      sql`(select ${events.id} from ${events} where ${events.slug} = ${slug})`;
    const statements: BatchItem[] = [...placeStatements(db, place, now)];
    const insertAt = statements.length;
    statements.push(
      db.insert(events).values({
        ...fields,
        slug,
        is_visible: true,
        ap_id: input.ap_id,
        apUserApId: input.apUserApId,
        userId: null,
        createdAt: now,
        updatedAt: now,
      }).returning({ id: events.id }),
      ...tagStatements(db, slugRef, tagList, false),
    );
    if (!base) {
      statements.push(
        db.update(events).set({ slug: sql`'event-' || ${events.id}` }).where(
          eq(events.slug, slug),
        ),
      );
    }
    const results = await db.batch(statements as [BatchItem, ...BatchItem[]]);
    return {
      id: (results[insertAt] as { id: number }[])[0].id,
      created: true,
    };
  });
}

/** Deletes events by id (remote events, purges) with their tags' clean-up, in one batch. */
export async function deleteEventsById(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const tagIds = await tagIdsOf(db, ids);
  const files = await db.selectDistinct({ name: eventMedia.name })
    .from(eventMedia).where(inArray(eventMedia.eventId, ids));
  await db.batch([
    db.delete(events).where(inArray(events.id, ids)),
    ...pruneTagsStatement(db, tagIds),
    ...pruneMediaStatement(db, files.map((f) => f.name)),
  ] as [BatchItem, ...BatchItem[]]);
}
