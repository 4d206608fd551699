/** Reading events into their wire shapes with a fixed number of queries. */
import { asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client.ts";
import {
  apUsers,
  eventBodies,
  eventBodyState,
  events,
  eventTags,
  messages,
  places,
  resources,
  tags,
  users,
} from "../../db/schema.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import type { Placeholder } from "../../db/prebuilt.ts";
import { prebuiltForEvent } from "./refs.ts";
import { keptBodyMatch } from "./bodies.ts";
import { decodeRowObject, rowObject } from "../row-objects.ts";
import type { UserRow } from "../users.ts";
import { canSeeEvent, isModerator } from "./access.ts";
import {
  type EventBundle,
  type EventFull,
  type EventRow,
  type EventSummary,
  type MessageRow,
  type PlaceRow,
  type ResourceRow,
  serializeEventFull,
  serializeEventSummary,
} from "./serialize.ts";

/** How many occurrences the full form of a series lists. */
export const CHILDREN_LIMIT = 100;
/** How many resources (replies) the full form lists. */
export const RESOURCES_LIMIT = 100;

/** The event columns a summary is built from (see serializeEventSummary). */
export const eventSummaryColumns = {
  id: events.id,
  slug: events.slug,
  status: events.status,
  title: events.title,
  media: events.media,
  start_datetime: events.start_datetime,
  end_datetime: events.end_datetime,
  placeId: events.placeId,
};

/** What loadSummaries needs of an event row: any wider row will do. */
export type EventSummaryRow = Pick<EventRow, keyof typeof eventSummaryColumns>;

/** The place columns a summary shows (see serializePlaceSummary). */
const placeSummaryColumns = {
  id: places.id,
  name: places.name,
  address: places.address,
  latitude: places.latitude,
  longitude: places.longitude,
};

/**
 * The tag spellings of an event (given by its id column) as a JSON array in
 * normalizedTag order, computed in the statement that reads the event (a
 * correlated subquery on the event_tags primary key). The ordered aggregate
 * needs SQLite 3.44 (libSQL, embedded or sqld/Turso, is 3.45); it costs less
 * than a separate query of the rows' tags.
 */
export function tagListOf(eventId: SQL | SQLiteColumn): SQL<string> {
  return sql<string>`(select json_group_array(t.${
    sql.identifier("tag")
  } order by t.${
    sql.identifier("normalizedTag")
  }) from ${eventTags} et join ${tags} t on t.${sql.identifier("id")} = et.${
    sql.identifier("tagId")
  } where et.${sql.identifier("eventId")} = ${eventId})`;
}

const tagListSql = tagListOf(events.id);

/**
 * Everything a summary shows, read in one statement: the event's columns,
 * its place's (a left join on places, see selectSummaries) and its tags.
 * Lists built from these rows need no second query for places and tags.
 */
export const summaryColumns = {
  ...eventSummaryColumns,
  placeName: places.name,
  placeAddress: places.address,
  placeLatitude: places.latitude,
  placeLongitude: places.longitude,
  tagList: tagListSql,
};

/** A row read with summaryColumns. */
export interface SummaryRow extends EventSummaryRow {
  placeName: string | null;
  placeAddress: string | null;
  placeLatitude: number | null;
  placeLongitude: number | null;
  tagList: string;
}

/** Events with summaryColumns: a dynamic select, their place joined. */
export function selectSummaries(db: Db) {
  return db.select(summaryColumns).from(events)
    .leftJoin(places, eq(places.id, events.placeId)).$dynamic();
}

/**
 * The summary of a row read with summaryColumns (no query); its tags as the
 * column gives them (JSON text) or already parsed (a row inside a JSON
 * object, see summaryObject).
 */
export function summaryOf(
  row: Omit<SummaryRow, "tagList"> & { tagList: string | string[] },
): EventSummary {
  return serializeEventSummary(
    row,
    row.placeId !== null && row.placeName !== null
      ? {
        id: row.placeId,
        name: row.placeName,
        address: row.placeAddress ?? "",
        latitude: row.placeLatitude,
        longitude: row.placeLongitude,
      }
      : null,
    typeof row.tagList === "string"
      ? JSON.parse(row.tagList) as string[]
      : row.tagList,
  );
}

/** Summaries of event rows, in their order: two queries whatever the number of rows. */
export async function loadSummaries(
  db: Db,
  rows: EventSummaryRow[],
): Promise<EventSummary[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const placeIds = [
    ...new Set(rows.map((r) => r.placeId).filter((p) => p !== null)),
  ];
  const [tagRows, placeRows] = await db.batch([
    db.select({ eventId: eventTags.eventId, tag: tags.tag })
      .from(eventTags).innerJoin(tags, eq(tags.id, eventTags.tagId))
      .where(inArray(eventTags.eventId, ids))
      .orderBy(asc(tags.normalizedTag)),
    db.select(placeSummaryColumns).from(places).where(
      inArray(places.id, placeIds.length ? placeIds : [-1]),
    ),
  ]);
  const tagsByEvent = new Map<number, string[]>();
  for (const t of tagRows) {
    const list = tagsByEvent.get(t.eventId) ?? [];
    list.push(t.tag);
    tagsByEvent.set(t.eventId, list);
  }
  const placeById = new Map(placeRows.map((p) => [p.id, p]));
  return rows.map((r) =>
    serializeEventSummary(
      r,
      r.placeId !== null ? placeById.get(r.placeId) : null,
      tagsByEvent.get(r.id) ?? [],
    )
  );
}

/** One event row by id. */
export async function findEvent(
  db: Db,
  id: number,
): Promise<EventRow | undefined> {
  const [row] = await db.select().from(events).where(eq(events.id, id));
  return row;
}

/** An event named in a statement: its id, or an SQL expression giving it. */
export type EventRef = SQL | number;

/** The summary of an event (null when it does not exist): one statement. */
export function summaryQuery(
  db: Db,
  ref: EventRef,
): BatchRead<EventSummary | null> {
  return {
    statements: [selectSummaries(db).where(sql`${events.id} = ${ref}`)],
    read(results) {
      const [row] = results[0] as SummaryRow[];
      return row ? summaryOf(row) : null;
    },
  };
}

/** What the statement of an event's full form depends on, besides values. */
interface FullShape {
  moderator: boolean;
  signedIn: boolean;
  justCreated: boolean;
}

/** A value of a statement: given, an SQL expression, or a placeholder. */
type Value = SQL | number | null | Placeholder;

// The nested parts of the full form are read by correlated subqueries of the
// event's own statement, under names of their own.
const parentEvent = alias(events, "parent_event");
const parentPlace = alias(places, "parent_place");
const childEvent = alias(events, "child_event");
const childPlace = alias(places, "child_place");

/**
 * A summary row (see summaryColumns) as a JSON object: the event `e` and its
 * place `p` (left-joined by the caller).
 */
function summaryObject(
  e: typeof parentEvent | typeof childEvent,
  p: typeof parentPlace | typeof childPlace,
): SQL {
  return sql`json_object('id', ${e.id}, 'slug', ${e.slug}, 'status', ${e.status},
    'title', ${e.title}, 'media', json(${e.media}),
    'start_datetime', ${e.start_datetime}, 'end_datetime', ${e.end_datetime},
    'placeId', ${e.placeId}, 'placeName', ${p.name},
    'placeAddress', ${p.address}, 'placeLatitude', ${p.latitude},
    'placeLongitude', ${p.longitude}, 'tagList', json(${tagListOf(e.id)}),
    'userId', ${e.userId}, 'is_visible', ${e.is_visible})`;
}

/**
 * The statement of an event's full form (see eventFullQuery), the event named
 * by `ref`, for a viewer `viewerId` (null: anonymous) at `now`: one JSON
 * object assembled by SQLite with the event, its owner, place and remote
 * actor, and its tags, parent, next occurrences, messages and resources.
 */
function eventFullStatement(
  db: Db,
  ref: Value,
  viewerId: Value,
  now: Value,
  shape: FullShape,
  /** The variant of the kept body to answer with (see lib/events/bodies.ts); none: no body. */
  bodyVariant?: Value,
) {
  const childVisible = shape.moderator
    ? sql`1`
    : shape.signedIn
    ? sql`(${childEvent.is_visible} = 1 or ${events.userId} = ${viewerId})`
    : sql`${childEvent.is_visible} = 1`;
  const withMessages = shape.signedIn && !shape.justCreated;
  const messageVisible = shape.moderator
    ? sql`1`
    : sql`${messages.is_author_visible} = 1 and ${events.userId} = ${viewerId}`;
  const tagList = sql`(select json_group_array(json_object(
      'tag', t.${sql.identifier("tag")},
      'normalizedTag', t.${sql.identifier("normalizedTag")})
      order by t.${sql.identifier("normalizedTag")})
    from ${eventTags} et join ${tags} t
      on t.${sql.identifier("id")} = et.${sql.identifier("tagId")}
    where et.${sql.identifier("eventId")} = ${events.id})`;
  const parent = sql`(select ${summaryObject(parentEvent, parentPlace)}
    from ${events} ${parentEvent} left join ${places} ${parentPlace}
      on ${parentPlace.id} = ${parentEvent.placeId}
    where ${parentEvent.id} = ${events.parentId})`;
  // The series' next occurrences (ongoing included), soonest first; hidden
  // ones for those who may edit the series. Only a series (an event with a
  // rule, which it keeps) has any: other events skip the lookup and its
  // sorts (a third of the statement's time).
  const children = sql`case when ${events.recurrent} is null then '[]' else
    (select json_group_array(json(c.summary)
      order by c.start_datetime, c.id)
    from (select ${summaryObject(childEvent, childPlace)} as summary,
        ${childEvent.start_datetime} as start_datetime, ${childEvent.id} as id
      from ${events} ${childEvent} left join ${places} ${childPlace}
        on ${childPlace.id} = ${childEvent.placeId}
      where ${childEvent.parentId} = ${events.id}
        and coalesce(${childEvent.end_datetime}, ${childEvent.start_datetime}) >= ${now}
        and ${childVisible}
      order by ${childEvent.start_datetime}, ${childEvent.id}
      limit ${sql.raw(String(CHILDREN_LIMIT))}) c) end`;
  // An event created a moment ago has no messages and no resources yet.
  const messageList = withMessages
    ? sql`(select json_group_array(json(${rowObject(messages)})
        order by ${messages.createdAt}, ${messages.id})
      from ${messages}
      where ${messages.eventId} = ${events.id} and ${messageVisible})`
    : sql`'[]'`;
  const resourceList = shape.justCreated
    ? sql`'[]'`
    : sql`(select json_group_array(json(r.resource)
        order by r.createdAt desc, r.id desc)
      from (select ${
      rowObject(resources, undefined, { data: null })
    } as resource,
          ${resources.createdAt} as createdAt, ${resources.id} as id
        from ${resources}
        where ${resources.eventId} = ${events.id}
          and ${shape.moderator ? sql`1` : sql`${resources.hidden} = 0`}
        order by ${resources.createdAt} desc, ${resources.id} desc
        limit ${sql.raw(String(RESOURCES_LIMIT))}) r)`;
  const full = sql<string>`json_object(
      'event', ${
    rowObject(events, undefined, {
      // A local event's object is ours; a remote one's as its server sent it.
      ap_object: sql`${events.apUserApId} is null`,
    })
  },
      'user', ${rowObject(users, sql`${users.id} is not null`)},
      'place', ${rowObject(places, sql`${places.id} is not null`)},
      'apUser', ${
    rowObject(apUsers, sql`${apUsers.ap_id} is not null`, {
      object: null,
    })
  },
      'tags', json(${tagList}),
      'parent', json(${parent}),
      'children', json(${children}),
      'messages', json(${messageList}),
      'resources', json(${resourceList}))`;
  const assembled = db.select({ full }).from(events)
    .leftJoin(users, eq(users.id, events.userId))
    .leftJoin(places, eq(places.id, events.placeId))
    .leftJoin(apUsers, eq(apUsers.ap_id, events.apUserApId))
    .where(
      bodyVariant === undefined
        ? sql`${events.id} = ${ref}`
        // The anonymous reader (kept bodies are theirs) sees visible events
        // only (canSeeEvent): a hidden one is not assembled, only to be
        // refused.
        : sql`${events.id} = ${ref} and ${events.is_visible} = 1`,
    );
  if (bodyVariant === undefined) return assembled;
  // With a body kept for the anonymous reader (and still valid), the answer
  // is that one lookup: the event's JSON is assembled (a subquery) only
  // without one. A body exists only while its event does (the triggers).
  return db.select({
    body: eventBodies.body,
    full: sql<
      string | null
    >`case when ${eventBodies.body} is null then (${assembled}) end`,
    generation: sql<
      number | null
    >`case when ${eventBodies.body} is null then (select ${eventBodyState.generation} from ${eventBodyState}) end`,
  }).from(sql`(select 1)`).leftJoin(
    eventBodies,
    keptBodyMatch(ref, bodyVariant, now),
  );
}

/** A summary row as summaryObject gives it (tags as an array, flags as 0/1). */
type SummaryObject = Omit<SummaryRow, "tagList"> & {
  tagList: string[];
  userId: number | null;
  is_visible: number;
};

/** What the full form's statement gives, parsed. */
interface FullObject {
  event: Record<string, unknown>;
  user: Record<string, unknown> | null;
  place: Record<string, unknown> | null;
  apUser: Record<string, unknown> | null;
  tags: EventBundle["tags"];
  parent: SummaryObject | null;
  children: SummaryObject[];
  messages: Record<string, unknown>[];
  resources: Record<string, unknown>[];
}

/** How an event's full form is read. */
export interface EventFullOptions {
  /** The creator's own read right after the write (a hidden event included). */
  justCreated?: boolean;
  /**
   * The ActivityPub object of a local event no follower was sent yet (its
   * `ap_object` is what followers were last sent), or null when it is not
   * served; without it, such an event's `ap_object` is null.
   */
  objectOf?: (
    event: EventRow,
    place: PlaceRow | null,
    tags: string[],
  ) => unknown;
}

/**
 * The full form of an event as `viewer` may see it, or null when it does not
 * exist or is hidden from the viewer: one statement that names the event by
 * `ref` (its id, or an SQL expression giving it, such as a lookup by slug
 * inside the batch that creates it), so that it can end a write's batch and
 * read what the write did.
 */
export function eventFullQuery(
  db: Db,
  ref: SQL | number,
  viewer: UserRow | null,
  now: number,
  options: EventFullOptions = {},
): BatchRead<EventFull | null> {
  const shape: FullShape = {
    moderator: isModerator(viewer),
    signedIn: viewer !== null,
    justCreated: options.justCreated ?? false,
  };
  // By id or by the slug a creation inserts, the statement is built once
  // (lib/events/refs.ts).
  const statements = prebuiltForEvent(
    db,
    `eventFull:${shape.moderator}:${shape.signedIn}:${shape.justCreated}`,
    ref,
    (ref, value) => [
      eventFullStatement(
        db,
        ref,
        value("viewer") as Value,
        value("now") as Value,
        shape,
      ),
    ],
    { viewer: viewer?.id ?? null, now },
  );
  return {
    statements,
    read(results) {
      const [row] = results[0] as { full: string }[];
      return row ? fullFormOf(row.full, viewer, options) : null;
    },
  };
}

/** The full form from the JSON the statement assembled, or null when the viewer may not see it. */
function fullFormOf(
  json: string,
  viewer: UserRow | null,
  options: EventFullOptions,
): EventFull | null {
  const full = JSON.parse(json) as FullObject;
  const event = decodeRowObject(events, full.event) as EventRow;
  // An anonymous submitter gets back what they sent, though it is hidden.
  if (!options.justCreated && !canSeeEvent(viewer, event)) return null;
  const owner = viewer !== null && event.userId === viewer.id;
  const parent = full.parent &&
      canSeeEvent(viewer, {
        userId: full.parent.userId,
        is_visible: full.parent.is_visible === 1,
      })
    ? summaryOf(full.parent)
    : null;
  const place = decodeRowObject(places, full.place) as PlaceRow | null;
  // A local event no follower was sent yet: its object as it is served.
  const object = event.ap_object === null && event.apUserApId === null
    ? options.objectOf?.(event, place, full.tags.map((t) => t.tag)) ?? null
    : event.ap_object;
  return serializeEventFull({
    event: { ...event, ap_object: object },
    user: decodeRowObject(users, full.user),
    place,
    tags: full.tags,
    parent,
    children: full.children.map(summaryOf),
    apUser: decodeRowObject(apUsers, full.apUser),
    messages: full.messages.map((m) =>
      decodeRowObject(messages, m) as MessageRow
    ),
    resources: full.resources.map((r) =>
      decodeRowObject(resources, r) as ResourceRow
    ),
    fullUser: owner || viewer?.role === "admin",
  });
}

/**
 * What an anonymous read of an event gives: the body kept for it (its JSON
 * text, lib/events/bodies.ts), or what makes its full form now (null when
 * hidden), with the generation of kept bodies it was read under (to keep
 * it, see EventBodyFiller).
 */
export type PublicEventRead =
  | { body: string }
  | {
    body: null;
    generation: number;
    fullForm(options: Pick<EventFullOptions, "objectOf">): EventFull | null;
  };

/** The shape of the anonymous reader's statement (publicEventQuery). */
const ANONYMOUS: FullShape = {
  moderator: false,
  signedIn: false,
  justCreated: false,
};

/**
 * The SQL of publicEventQuery's statement: part of what kept answers depend
 * on (lib/events/bodies.ts: bodyVariant), since what it selects, in which
 * order and how many, is in every answer.
 */
export function publicEventSql(db: Db): string {
  return eventFullStatement(
    db,
    sql.placeholder("ref"),
    null,
    sql.placeholder("now"),
    ANONYMOUS,
    sql.placeholder("variant"),
  ).toSQL().sql;
}

/**
 * The anonymous reader's full form of event `id` (null when it does not
 * exist), answered by its kept body of `variant` when there is one still
 * valid at `now`: one statement either way.
 */
export function publicEventQuery(
  db: Db,
  id: number,
  now: number,
  variant: string,
): BatchRead<PublicEventRead | null> {
  const statements = prebuiltForEvent(
    db,
    "eventPublic",
    id,
    (ref, value) => [
      eventFullStatement(
        db,
        ref,
        null,
        value("now") as Value,
        ANONYMOUS,
        value("variant") as Value,
      ),
    ],
    { now, variant },
  );
  return {
    statements,
    read(results) {
      const [row] = results[0] as {
        body: string | null;
        full: string | null;
        generation: number | null;
      }[];
      if (!row) return null;
      if (row.body !== null) return { body: row.body };
      const full = row.full;
      if (full === null) return null;
      return {
        body: null,
        generation: row.generation ?? 0,
        fullForm: (options) => fullFormOf(full, null, options),
      };
    },
  };
}

/**
 * The full form of an event as `viewer` may see it, or null when it does not
 * exist or is hidden from the viewer. One round trip.
 */
export function loadEventFull(
  db: Db,
  id: number,
  viewer: UserRow | null,
  now: number,
  options: EventFullOptions = {},
): Promise<EventFull | null> {
  return runRead(db, eventFullQuery(db, id, viewer, now, options));
}
