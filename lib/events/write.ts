/**
 * Creating, changing and deleting events. Every check runs before anything is
 * written, and each change is one atomic `db.batch`. The parts live by noun:
 * the input and its checks in input.ts, series in series.ts, remote events in
 * remote.ts, what writes share in statements.ts, and how a write commits
 * (with the publication contract with federation) in commit.ts.
 */
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import {
  allReads,
  type BatchItem,
  type BatchRead,
  runRead,
} from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import {
  events,
  eventTags,
  type MediaItem,
  places,
  type Recurrence,
} from "../../db/schema.ts";
import { prebuiltStatements } from "../../db/prebuilt.ts";
import type { Clock } from "../clock.ts";
import { ApiError, forbidden, notFound } from "../errors.ts";
import { localMediaNames, pruneMediaStatement } from "../media/cleanup.ts";
import type { UserRow } from "../users.ts";
import { canEditEvent, canSeeEvent } from "./access.ts";
import {
  familyQuery,
  noAnswer,
  writeAndRead,
  type WriteDeps,
  type WriteOptions,
  writeRenameAndRead,
  type WriteResult,
} from "./commit.ts";
import {
  type EventInput,
  lookupQuery,
  prepare,
  type Prepared,
} from "./input.ts";
import type { EventRow } from "./serialize.ts";
import {
  newSeriesStatements,
  occurrencesNamedByIdStatement,
  seriesChangeStatements,
  type SeriesTemplate,
} from "./series.ts";
import { firstFreeSlug, slugBase } from "./slug.ts";
import {
  eventBySlug,
  nextSequence,
  placeIdSql,
  placeStatements,
  pruneTagsStatement,
  tagStatements,
  takenSlugsQuery,
  temporarySlug,
  withSlugRetry,
} from "./statements.ts";

function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
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
    const prepared = prepare(settings, input, null, user !== null, lookups);
    if (!user) prepared.is_visible = false;
    // An attached image is stored only once everything else is known to be valid.
    if (options.saveImage && !image) image = await options.saveImage();
    if (image) prepared.media = [...prepared.media, image];
    const now = clock.now();
    const slug = base
      ? firstFreeSlug(base, taken ?? new Set())
      : temporarySlug();
    const slugRef = eventBySlug(slug);
    const statements: BatchItem[] = [
      ...placeStatements(db, prepared.place, now),
    ];
    const eventInsert = statements.length;
    statements.push(
      ...eventInsertStatement(db, prepared, slug, user?.id ?? null, now),
    );
    statements.push(...tagStatements(db, slugRef, prepared.tags ?? [], false));
    if (prepared.recurrent) {
      statements.push(
        ...newSeriesStatements(
          db,
          settings,
          slugRef,
          seriesTemplate(
            prepared,
            prepared.recurrent,
            base || slug,
            user?.id ?? null,
          ),
          // A title without a slug gives `tmp-<uuid>` slugs, all free.
          taken ?? new Set(),
          now,
        ),
      );
    }
    statements.push(...(options.alsoWrite?.(slugRef) ?? []));
    // Titles with no Latin transliteration get `event-<id>`, and their
    // occurrences `event-<id>-<date>`, in the same batch; the answer is read
    // once they have it, which takes a round trip more (writeRenameAndRead).
    // Two ways to commit, then, for that reason: the one batch of the others
    // could not find the event again once it is renamed.
    if (!base && prepared.recurrent) {
      statements.push(occurrencesNamedByIdStatement(db, slug));
    }
    const { results, after, answer, publication } = base
      ? await writeAndRead(deps, statements, slugRef, [], options.respond)
      : await writeRenameAndRead(
        deps,
        statements,
        slug,
        eventInsert,
        options.respond,
      );
    const id = (results[eventInsert] as { id: number }[])[0].id;
    return { id, before: [], after, answer, publication };
  });
}

/**
 * The insert of a new event, built once per kind of place (db/prebuilt.ts):
 * none, one by id, or one named (by name and address, created in the same
 * batch when new).
 */
function eventInsertStatement(
  db: Db,
  p: Prepared,
  slug: string,
  userId: number | null,
  now: Date,
): BatchItem[] {
  const place = p.place;
  const named = place.kind === "named" && place.existingId === undefined;
  return prebuiltStatements(
    db,
    `eventInsert:${named ? "named" : "value"}`,
    () => {
      const value = (name: string) => sql.placeholder(name);
      return [
        db.insert(events).values({
          title: value("title"),
          slug: value("slug"),
          status: value("status"),
          start_datetime: value("start"),
          end_datetime: value("end"),
          description: value("description"),
          is_visible: value("visible"),
          online_locations: value("online"),
          recurrent: value("recurrent"),
          media: value("media"),
          userId: value("userId"),
          placeId: named
            ? sql`(select ${places.id} from ${places} where ${places.name} = ${
              value("placeName")
            } and ${places.address} = ${value("placeAddress")})`
            : value("placeId"),
          createdAt: value("now"),
          updatedAt: value("now"),
        }).returning({ id: events.id }),
      ];
    },
    {
      title: p.title,
      slug,
      status: p.status,
      start: p.start,
      end: p.end ?? null,
      description: p.description,
      visible: p.is_visible,
      online: p.online_locations,
      recurrent: p.recurrent ?? null,
      media: p.media,
      userId,
      placeId: named ? null : placeIdSql(place),
      placeName: place.kind === "named" ? place.name : null,
      placeAddress: place.kind === "named" ? place.address : null,
      now,
    },
  );
}

/** What the occurrences of a series being written copy from it. */
function seriesTemplate(
  p: Prepared,
  recurrent: Recurrence,
  slug: string,
  userId: number | null,
): SeriesTemplate {
  return {
    slug,
    title: p.title,
    description: p.description,
    placeId: placeIdSql(p.place),
    media: p.media,
    online_locations: p.online_locations,
    status: p.status,
    is_visible: p.is_visible,
    userId,
    start: p.start,
    end: p.end,
    recurrent,
  };
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
  const p = prepare(settings, input, current, true, lookups);
  if (options.saveImage) p.media = [...p.media, await options.saveImage()];
  const now = clock.now();
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
    statements.push(
      ...seriesChangeStatements(db, settings, {
        current,
        family,
        template: seriesTemplate(p, p.recurrent, current.slug, current.userId),
        tagsChanged: p.tags !== undefined,
        taken,
        now,
      }),
    );
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
  options: Pick<WriteOptions<T>, "respond" | "alsoWrite"> & {
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
