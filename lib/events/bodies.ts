/**
 * Kept bodies: the JSON text `GET /api/events/{id}` sent an anonymous reader,
 * stored beside the event (table event_bodies), so that the next anonymous
 * read of that event is one lookup instead of the assembly of its full form
 * (the event, place, owner, tags, series, dates, resources, and its
 * ActivityPub object). A crawl over many distinct events is what this is
 * for: the public-read cache only holds what is asked for again soon.
 *
 * A body is derived data. Triggers (db/migrations/0023_event_bodies.sql)
 * delete, in the transaction of any change, every body the change can
 * alter, and raise a generation; a fill names the generation its read saw
 * and is dropped when it has moved on. What the database cannot see is in
 * the body's `variant` (the base URL, whether federation is on, the form's
 * code: bodyVariant) and `valid_until` (the dates of a series pass:
 * validUntilOf).
 */
import { type SQL, sql } from "drizzle-orm";
import type { BatchRead } from "../../db/batch.ts";
import type { Database, Db } from "../../db/client.ts";
import { eventBodies } from "../../db/schema.ts";
import { prebuiltForEvent } from "./refs.ts";
import type { Logger } from "../log.ts";
import type { EventFull, EventRow, PlaceRow } from "./serialize.ts";
import { serializeEventFull } from "./serialize.ts";

/**
 * Raised by hand when the anonymous form changes in a way the sample of
 * bodyVariant does not show; bodies of another format are never served.
 */
const EVENT_BODY_FORMAT = 1;

/** A body to keep: what one anonymous read computed. */
export interface EventBodyFill {
  id: number;
  variant: string;
  /** When it stops being the answer (unix seconds); null: never by itself. */
  until: number | null;
  body: string;
  /** The generation of kept bodies the read saw (publicEventQuery). */
  generation: number;
}

/** Stores the bodies of anonymous reads, a batch at a time, after the answers went out. */
export interface EventBodyFiller {
  /** Queues a body (dropped when too many wait: it is made again at a later read). */
  offer(fill: EventBodyFill): void;
  /** Stores what waits now. */
  flush(): Promise<void>;
  /** Drops what waits and stops the timer. */
  close(): void;
}

/** Bodies waiting at most; more are dropped. */
const MAX_WAITING = 512;
/** Bodies stored by one statement at most. */
const BATCH = 128;

/**
 * The statement that stores one body: only while the generation it was read
 * under is still the current one (no change since) and its event still
 * exists. Written out (not through the schema) so that the database layer
 * recognises it as derived data (DERIVED_WRITE in db/statement-cache.ts).
 */
function fillStatement(fill: EventBodyFill) {
  return sql`insert or replace into "event_bodies" ("event_id", "variant", "valid_until", "body")
    select ${fill.id}, ${fill.variant}, ${fill.until}, ${fill.body}
    where (select "generation" from "event_body_state" where "id" = 1) = ${fill.generation}
      and exists (select 1 from "events" where "id" = ${fill.id})`;
}

/**
 * The filler of `database`: a batch is stored `delayMs` after its first body
 * (0: at the end of the current task, as tests want it; main.ts waits a
 * little). A batch is one transaction (one round trip on a remote
 * database), committed without waiting for the disk on the embedded one
 * (db/embedded.ts).
 */
export function createEventBodyFiller(
  database: Pick<Database, "db">,
  options: { delayMs: number; log?: Logger },
): EventBodyFiller {
  const { db } = database;
  const waiting = new Map<number, EventBodyFill>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let scheduled = false;
  let running: Promise<void> | null = null;
  let closed = false;

  const store = async () => {
    while (waiting.size > 0 && !closed) {
      const batch = [...waiting.values()].slice(0, BATCH);
      for (const fill of batch) waiting.delete(fill.id);
      try {
        const [first, ...rest] = batch.map((fill) =>
          db.run(fillStatement(fill))
        );
        await db.batch([first, ...rest]);
      } catch (error) {
        // Derived data: a failed fill is made again at a later read.
        options.log?.debug("event bodies not kept", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  const run = () => {
    timer = null;
    scheduled = false;
    if (running) return;
    running = store().finally(() => {
      running = null;
    });
  };
  return {
    offer(fill) {
      if (closed || waiting.size >= MAX_WAITING) return;
      waiting.set(fill.id, fill);
      if (scheduled || running) return;
      scheduled = true;
      if (options.delayMs > 0) timer = setTimeout(run, options.delayMs);
      else queueMicrotask(run);
    },
    async flush() {
      while (running) await running;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      scheduled = false;
      await store();
    },
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      waiting.clear();
    },
  };
}

/**
 * When the kept body of `event` stops being its answer: its first listed
 * date ends (the next read lists one date fewer); null when it lists none.
 */
export function validUntilOf(event: EventFull): number | null {
  let until: number | null = null;
  for (const child of event.children) {
    const last = child.end_datetime ?? child.start_datetime;
    if (until === null || last < until) until = last;
  }
  return until;
}

/** A short digest of a text (FNV-1a twice; not a security hash). */
function digest(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) + i >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** A sample event with every field set, to fingerprint the form's code. */
function sampleEvent(): { event: EventRow; place: PlaceRow } {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
  const place: PlaceRow = {
    id: 2,
    name: "Sample place",
    address: "1 Sample Street",
    ap_id: null,
    postal_address: null,
    latitude: 45.5,
    longitude: 9.25,
    createdAt: at,
    updatedAt: at,
  };
  const event: EventRow = {
    id: 1,
    title: 'Sample <title> & "quotes" é',
    slug: "sample",
    status: "EventScheduled",
    start_datetime: 1767322800,
    end_datetime: 1767330000,
    description: "<p>Sample</p>",
    is_visible: true,
    online_locations: ["https://example.invalid/live"],
    recurrent: null,
    media: [{
      name: "m",
      url: "sample.jpg",
      height: 10,
      width: 20,
      size: 30,
      focalpoint: [0, 0],
    }],
    ld_signature: null,
    ap_object: null,
    likes: [],
    boost: [],
    ap_id: null,
    userId: 3,
    parentId: null,
    placeId: 2,
    apUserApId: null,
    recurrence_slot: null,
    occurrence_edited: false,
    sequence: 0,
    announced: false,
    createdAt: at,
    updatedAt: at,
  };
  return { event, place };
}

/**
 * The variant of kept bodies a server serves: its base URL, whether it
 * federates, the statement that reads them (`statement`: its SQL), and a
 * fingerprint of the form's code and of the settings it shows (the sample
 * event through serializeEventFull and `objectOf`, the instance's settings
 * in it), so that a body kept by another configuration, another version of
 * the code or under other settings is never its answer.
 */
export function bodyVariant(
  baseUrl: string,
  statement: string,
  objectOf:
    | ((event: EventRow, place: PlaceRow | null, tags: string[]) => unknown)
    | null,
): string {
  const { event, place } = sampleEvent();
  const object = objectOf?.(event, place, ["sample"]) ?? null;
  const form = serializeEventFull({
    event: { ...event, ap_object: object },
    user: null,
    place,
    tags: [{ tag: "Sample", normalizedTag: "sample" }],
    parent: null,
    children: [],
    apUser: null,
    messages: [],
    resources: [],
    fullUser: false,
  });
  return digest(
    `${EVENT_BODY_FORMAT}\n${baseUrl}\n${objectOf !== null}\n${statement}\n${
      JSON.stringify(form)
    }`,
  );
}

/**
 * The condition that picks the body kept for event `ref` under `variant`,
 * still valid at `now`: shared by keptEventBodyQuery and publicEventQuery's
 * statement (lib/events/load.ts), which must never disagree on it.
 */
export function keptBodyMatch(
  ref: unknown,
  variant: unknown,
  now: unknown,
): SQL {
  return sql`${eventBodies.eventId} = ${ref} and ${eventBodies.variant} = ${variant}
      and coalesce(${eventBodies.validUntil}, ${now}) >= ${now}`;
}

/**
 * The body kept for the anonymous reader of event `id` under `variant`, if
 * still valid at `now`, or null: the first half of publicEventQuery
 * (lib/events/load.ts) alone. On the embedded database, where a statement
 * costs microseconds rather than a round trip, looking this up first and
 * running publicEventQuery only without one is cheaper: the assembly compiled
 * into that statement costs about 2 µs a run even when a body is found
 * (measured in BENCHMARKS.md's issue 33 section).
 */
export function keptEventBodyQuery(
  db: Db,
  id: number,
  now: number,
  variant: string,
): BatchRead<string | null> {
  const statements = prebuiltForEvent(
    db,
    "eventKeptBody",
    id,
    (ref, value) => [
      db.select({ body: eventBodies.body }).from(eventBodies).where(
        keptBodyMatch(ref, value("variant"), value("now")),
      ),
    ],
    { now, variant },
  );
  return {
    statements,
    read(results) {
      const [row] = results[0] as { body: string }[];
      return row?.body ?? null;
    },
  };
}
