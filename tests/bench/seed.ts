/**
 * Benchmark data: a migrated file database filled directly with batched
 * multi-row inserts (500 rows per INSERT, several INSERTs per transaction).
 * Deterministic (seeded PRNG), so two runs measure the same data.
 */
import { sql } from "drizzle-orm";
import {
  type Database,
  migrateDatabase,
  openDatabase,
} from "../../db/client.ts";
import {
  apUsers,
  events,
  eventTags,
  instances,
  places,
  resources,
  tags,
  users,
} from "../../db/schema.ts";
import {
  occurrenceStarts,
  parseRecurrence,
} from "../../lib/events/recurrence.ts";
import { HORIZON_MIN_COUNT, HORIZON_SECONDS } from "../../lib/events/series.ts";
import { refreshStaleSearchRows } from "../../lib/search.ts";

/** Rows per multi-row INSERT. */
const ROWS_PER_INSERT = 500;
/** INSERT statements per `db.batch` (one transaction). */
const INSERTS_PER_BATCH = 20;

const HOUR = 3600;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365 * DAY;

/** The tag with about 50 upcoming events and many past ones. */
export const HOT_TAG = "bench-hot";
/** Upcoming events carrying the hot tag. */
export const HOT_UPCOMING = 50;

export interface SeedResult {
  /** Events written (series parents and occurrences included). */
  events: number;
  places: number;
  tags: number;
  eventTags: number;
  resources: number;
  apUsers: number;
  series: number;
  occurrences: number;
  hotPast: number;
  /** An upcoming single event with a place, tags and replies: for GET /api/events/{id}. */
  sampleEventId: number;
  /** The "now" the data was laid out around (Unix seconds). */
  now: number;
  seconds: number;
}

/** mulberry32: small, fast, seedable. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type AnyInsert = Parameters<Database["db"]["batch"]>[0][number];

/** Inserts rows of one table in chunks of ROWS_PER_INSERT, INSERTS_PER_BATCH per transaction. */
async function insertAll<T>(
  database: Database,
  rows: T[],
  // deno-lint-ignore no-explicit-any
  insert: (chunk: T[]) => any,
): Promise<void> {
  let pending: AnyInsert[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const [first, ...rest] = pending;
    await database.db.batch([first, ...rest]);
    pending = [];
  };
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    pending.push(insert(rows.slice(i, i + ROWS_PER_INSERT)));
    if (pending.length >= INSERTS_PER_BATCH) await flush();
  }
  await flush();
}

const LOREM =
  "<p>Bring your friends: an evening of <strong>music</strong>, talks and " +
  "food, organised by volunteers of the neighbourhood. Entry is free; " +
  "donations go to the community kitchen.</p><p>Doors open half an hour " +
  'before. More on <a href="https://example.org/info" rel="noopener noreferrer nofollow">' +
  "the organisers' page</a>.</p><ul><li>accessible venue</li><li>children " +
  "welcome</li></ul>";

function ymd(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}

/** Creates and migrates a file database at `path`. */
export async function createDatabase(path: string): Promise<Database> {
  const database = await openDatabase(`file:${path}`);
  await migrateDatabase(database);
  return database;
}

/**
 * Seeds `total` events into a migrated database: series with occurrences, one
 * hot tag (HOT_UPCOMING upcoming, total/10 past), ordinary events with 1-3
 * tags from a pool, places, remote actors, instances and replies (resources).
 */
export async function seedEvents(
  database: Database,
  total: number,
  seed = 42,
): Promise<SeedResult> {
  const started = performance.now();
  const rand = prng(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
  const now = Math.floor(Date.now() / 1000);
  const stamp = new Date(now * 1000);
  const { db } = database;

  // Users: owners of the seeded events (none can log in: the hash is not argon2).
  const userRows = Array.from({ length: 5 }, (_, i) => ({
    id: 1000 + i,
    email: `owner${i}@bench.invalid`,
    password: "!seeded-no-login",
    role: i === 0 ? "editor" as const : "user" as const,
    createdAt: stamp,
    updatedAt: stamp,
  }));
  await insertAll(database, userRows, (c) => db.insert(users).values(c));

  // Places.
  const placeCount = Math.max(20, Math.round(total / 20));
  const placeRows = Array.from({ length: placeCount }, (_, i) => ({
    id: i + 1,
    name: `Place ${i + 1}`,
    address: `${(i % 300) + 1} Bench Street, Townville`,
    latitude: i % 3 === 0 ? 45 + rand() : null,
    longitude: i % 3 === 0 ? 7 + rand() : null,
    createdAt: stamp,
    updatedAt: stamp,
  }));
  await insertAll(database, placeRows, (c) => db.insert(places).values(c));

  // Tags: the hot one (id 1) and a pool.
  const poolSize = Math.max(20, Math.round(total / 50));
  const tagRows = [
    { id: 1, tag: HOT_TAG, normalizedTag: HOT_TAG },
    ...Array.from({ length: poolSize }, (_, i) => ({
      id: i + 2,
      tag: `Topic${i + 1}`,
      normalizedTag: `topic${i + 1}`,
    })),
  ];
  await insertAll(database, tagRows, (c) => db.insert(tags).values(c));
  const poolTagId = () => 2 + Math.floor(rand() * poolSize);

  // Remote actors and their instances (authors of replies; no followers here).
  const instanceRows = Array.from({ length: 10 }, (_, i) => ({
    domain: `remote${i}.example`,
    name: `Remote ${i}`,
    createdAt: stamp,
    updatedAt: stamp,
  }));
  await insertAll(
    database,
    instanceRows,
    (c) => db.insert(instances).values(c),
  );
  const actorRows = Array.from({ length: 100 }, (_, i) => {
    const domain = `remote${i % 10}.example`;
    const id = `https://${domain}/users/u${i}`;
    return {
      ap_id: id,
      object: {
        id,
        type: "Person",
        preferredUsername: `u${i}`,
        inbox: `${id}/inbox`,
        endpoints: { sharedInbox: `https://${domain}/inbox` },
      },
      instanceDomain: domain,
      createdAt: stamp,
      updatedAt: stamp,
    };
  });
  await insertAll(database, actorRows, (c) => db.insert(apUsers).values(c));

  type EventInsert = typeof events.$inferInsert;
  const eventRows: EventInsert[] = [];
  const links: { eventId: number; tagId: number }[] = [];
  let nextId = 1;
  const base = (
    title: string,
    slug: string,
    start: number,
    end: number | null,
  ): EventInsert => ({
    id: nextId++,
    title,
    slug,
    status: "EventScheduled",
    start_datetime: start,
    end_datetime: end,
    description: LOREM,
    is_visible: true,
    online_locations: [],
    recurrent: null,
    media: [],
    likes: [],
    boost: [],
    userId: 1000 + Math.floor(rand() * 5),
    parentId: null,
    placeId: 1 + Math.floor(rand() * placeCount),
    recurrence_slot: null,
    occurrence_edited: false,
    sequence: 0,
    createdAt: stamp,
    updatedAt: stamp,
  });
  const tagEvent = (eventId: number, tagIds: number[]) => {
    for (const tagId of new Set(tagIds)) links.push({ eventId, tagId });
  };

  // 1. The hot tag's upcoming events (the first is the sample event).
  for (let i = 0; i < HOT_UPCOMING; i++) {
    const start = now + HOUR +
      Math.floor((i + rand()) * (60 * DAY) / HOT_UPCOMING);
    const row = base(
      `Hot upcoming ${i}`,
      `hot-upcoming-${i}`,
      start,
      start + 2 * HOUR,
    );
    eventRows.push(row);
    tagEvent(row.id!, [1, poolTagId(), poolTagId()]);
  }
  const sampleEventId = 1;

  // 2. Series: weekly, started four weeks ago, laid out to the server's horizon
  //    (the same slots the server computes, so it creates none at start).
  const seriesCount = Math.max(5, Math.round(total / 200));
  let occurrences = 0;
  const rule = { frequency: "1w", type: "ordinal" };
  for (let s = 0; s < seriesCount; s++) {
    const start = now - 4 * WEEK + Math.floor(rand() * WEEK);
    const parent = base(
      `Weekly series ${s}`,
      `weekly-series-${s}`,
      start,
      start + 2 * HOUR,
    );
    parent.recurrent = rule;
    eventRows.push(parent);
    const parentTags = [poolTagId(), poolTagId()];
    tagEvent(parent.id!, parentTags);
    const slots = occurrenceStarts({
      start,
      rule: parseRecurrence(rule),
      timeZone: "UTC",
      from: start,
      until: now + HORIZON_SECONDS,
      minCount: HORIZON_MIN_COUNT,
    });
    for (const slot of slots) {
      const child = base(
        parent.title,
        `${parent.slug}-${ymd(slot)}`,
        slot,
        slot + 2 * HOUR,
      );
      child.parentId = parent.id;
      child.recurrence_slot = slot;
      child.placeId = parent.placeId;
      child.userId = parent.userId;
      eventRows.push(child);
      tagEvent(child.id!, parentTags);
      occurrences++;
    }
  }

  // 3. The hot tag's past events: a tenth of the table.
  const hotPast = Math.round(total / 10);
  for (let i = 0; i < hotPast && nextId <= total; i++) {
    const start = now - DAY - Math.floor(rand() * 3 * YEAR);
    const row = base(`Hot past ${i}`, `hot-past-${i}`, start, start + 3 * HOUR);
    eventRows.push(row);
    tagEvent(row.id!, [1, poolTagId()]);
  }

  // 4. Ordinary events up to `total`: a quarter upcoming (next year), the
  //    rest past (last three years); some without an end, a few hidden.
  while (nextId <= total) {
    const upcoming = rand() < 0.25;
    const start = upcoming
      ? now + HOUR + Math.floor(rand() * YEAR)
      : now - DAY - Math.floor(rand() * 3 * YEAR);
    const end = rand() < 0.1
      ? null
      : start + HOUR * (1 + Math.floor(rand() * 4));
    const n = nextId;
    const row = base(`Event number ${n}`, `event-number-${n}`, start, end);
    if (rand() < 0.02) row.is_visible = false;
    if (rand() < 0.1) row.online_locations = ["https://meet.example.org/room"];
    eventRows.push(row);
    const count = 1 + Math.floor(rand() * 3);
    tagEvent(n, Array.from({ length: count }, poolTagId));
  }

  await insertAll(database, eventRows, (c) => db.insert(events).values(c));
  await insertAll(database, links, (c) => db.insert(eventTags).values(c));
  // What the application's writes do after tags: the search index takes them.
  await refreshStaleSearchRows(db);
  // One transaction rewrote every row of the index; a server's index, written
  // an event at a time, stays merged (automerge): measure that one.
  await db.run(
    sql`insert into event_search (event_search) values ('optimize')`,
  );

  // Replies: three on the sample event, and 1-3 on one event in twenty.
  const resourceRows: (typeof resources.$inferInsert)[] = [];
  const reply = (eventId: number) => {
    const actor = pick(actorRows);
    const id = `${actor.ap_id}/notes/${resourceRows.length + 1}`;
    resourceRows.push({
      activitypub_id: id,
      hidden: false,
      data: {
        id,
        type: "Note",
        url: id,
        attributedTo: actor.ap_id,
        inReplyTo: `https://bench.invalid/federation/m/${eventId}`,
        published: stamp.toISOString(),
        summary: null,
        content: "<p>Count me in! See you there.</p>",
        attachment: [],
      },
      apUserApId: actor.ap_id,
      eventId,
      createdAt: stamp,
      updatedAt: stamp,
    });
  };
  for (let i = 0; i < 3; i++) reply(sampleEventId);
  for (let id = 2; id <= total; id += 20) {
    const count = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < count; i++) reply(id);
  }
  await insertAll(
    database,
    resourceRows,
    (c) => db.insert(resources).values(c),
  );

  return {
    events: eventRows.length,
    places: placeRows.length,
    tags: tagRows.length,
    eventTags: links.length,
    resources: resourceRows.length,
    apUsers: actorRows.length,
    series: seriesCount,
    occurrences,
    hotPast,
    sampleEventId,
    now,
    seconds: (performance.now() - started) / 1000,
  };
}

export interface FollowerSeed {
  followers: number;
  inboxes: number;
  seconds: number;
}

/**
 * Seeds `followers` follower actors spread evenly over `inboxes` shared
 * inboxes: actor k uses shared inbox `inboxUrl(k % inboxes)` and lives on that
 * inbox's origin (one `instances` row per origin).
 */
export async function seedFollowers(
  database: Database,
  inboxUrl: (n: number) => string,
  followers: number,
  inboxes: number,
): Promise<FollowerSeed> {
  const started = performance.now();
  const stamp = new Date();
  const origins = new Set<string>();
  const rows = Array.from({ length: followers }, (_, k) => {
    const sharedInbox = inboxUrl(k % inboxes);
    const origin = new URL(sharedInbox).origin;
    origins.add(origin);
    const id = `${origin}/users/${k}`;
    return {
      ap_id: id,
      follower: true,
      object: {
        id,
        type: "Person",
        preferredUsername: `f${k}`,
        inbox: `${id}/inbox`,
        endpoints: { sharedInbox },
      },
      instanceDomain: new URL(origin).host,
      createdAt: stamp,
      updatedAt: stamp,
    };
  });
  const instanceRows = [...origins].map((origin) => ({
    domain: new URL(origin).host,
    name: "Counting receiver",
    createdAt: stamp,
    updatedAt: stamp,
  }));
  await insertAll(
    database,
    instanceRows,
    (c) => database.db.insert(instances).values(c),
  );
  await insertAll(
    database,
    rows,
    (c) => database.db.insert(apUsers).values(c),
  );
  return {
    followers,
    inboxes,
    seconds: (performance.now() - started) / 1000,
  };
}
