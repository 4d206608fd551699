/**
 * A Gancio instance's events after the move: which origin an import records
 * them under (the same whether the API or the database is read, so that one
 * mode after the other matches each Gancio event to what the first made),
 * and where each Gancio event went (`gancio_links`), so that Gancio's event
 * URLs (`/event/<slug>`, `/event/<id>`) redirect to the imported event.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { events, gancioLinks, importedEvents } from "../../../db/schema.ts";
import type { Clock } from "../../clock.ts";
import { GancioError, type GancioLink } from "./mapping.ts";

/** The origin of events imported from a database when no `--url` said whose. */
export const DATABASE_IMPORT_ORIGIN = "gancio:database";
const PREFIX = "gancio:";

/** The origin `gancio_links` keeps for an import origin (`https://…` or `database`). */
const linkOrigin = (importOrigin: string) => importOrigin.slice(PREFIX.length);

/** The import origin of an earlier Gancio import, all of them (`gancio:…`). */
async function gancioOrigins(db: Db): Promise<string[]> {
  // A range on the primary key's first column, not a scan.
  const rows = await db.selectDistinct({ origin: importedEvents.origin })
    .from(importedEvents).where(
      sql`${importedEvents.origin} >= ${PREFIX} and ${importedEvents.origin} < ${"gancio;"}`,
    );
  return rows.map((r) => r.origin);
}

/**
 * The origin this import records its events under, with a sentence for each
 * earlier record it took over. With the instance's URL: `gancio:<origin>`,
 * and events imported earlier from its database alone (`gancio:database`)
 * are moved under it when it has none yet. Without (a database alone): the
 * one Gancio instance imported before, `gancio:database` when there is none,
 * and a GancioError when there are several (which is this one?).
 */
export async function resolveImportOrigin(
  db: Db,
  origin: string | null,
): Promise<{ origin: string; url: string | null; notes: string[] }> {
  const known = await gancioOrigins(db);
  if (origin === null) {
    const named = known.filter((o) => o !== DATABASE_IMPORT_ORIGIN);
    if (named.length > 1) {
      throw new GancioError(
        `events of several Gancio instances were imported here (${
          named.map(linkOrigin).join(", ")
        }): say which one this database is with --url`,
      );
    }
    if (named.length === 1) {
      return {
        origin: named[0],
        url: linkOrigin(named[0]),
        notes: [
          `matched to the events imported earlier from ${linkOrigin(named[0])}`,
        ],
      };
    }
    return { origin: DATABASE_IMPORT_ORIGIN, url: null, notes: [] };
  }
  const target = `${PREFIX}${origin}`;
  if (!known.includes(DATABASE_IMPORT_ORIGIN)) {
    return { origin: target, url: origin, notes: [] };
  }
  if (known.includes(target)) {
    return {
      origin: target,
      url: origin,
      notes: [
        `events imported earlier from a database without --url are left as they are (both ${origin} and the database alone were imported)`,
      ],
    };
  }
  await db.batch([
    db.update(importedEvents).set({ origin: target }).where(
      eq(importedEvents.origin, DATABASE_IMPORT_ORIGIN),
    ),
    db.update(gancioLinks).set({ origin }).where(
      eq(gancioLinks.origin, linkOrigin(DATABASE_IMPORT_ORIGIN)),
    ),
  ]);
  return {
    origin: target,
    url: origin,
    notes: [
      `the events imported earlier from the database alone are now matched to ${origin}`,
    ],
  };
}

/** Rows written per statement (SQLite's variable limit leaves room). */
const LINKS_PER_STATEMENT = 100;

/**
 * Records where each Gancio event went: the event its item became (read
 * back from `imported_events`), with its Gancio slug. Events that did not
 * come in (skipped) are left out.
 */
export async function recordGancioLinks(
  deps: { db: Db; clock: Clock },
  importOrigin: string,
  links: GancioLink[],
): Promise<void> {
  const { db } = deps;
  const rows = await db.select({
    uid: importedEvents.uid,
    recurrence_id: importedEvents.recurrence_id,
    eventId: importedEvents.eventId,
  }).from(importedEvents).where(eq(importedEvents.origin, importOrigin));
  const eventOf = new Map(
    rows.map((r) => [`${r.recurrence_id}\u0000${r.uid}`, r.eventId]),
  );
  const now = deps.clock.now();
  const origin = linkOrigin(importOrigin);
  const values = links.flatMap((link) => {
    const eventId = eventOf.get(`${link.recurrenceId}\u0000${link.uid}`);
    return eventId === undefined ? [] : [{
      origin,
      gancio_id: link.gancioId,
      slug: link.slug,
      eventId,
      updatedAt: now,
    }];
  });
  const statements = [];
  for (let i = 0; i < values.length; i += LINKS_PER_STATEMENT) {
    statements.push(
      db.insert(gancioLinks).values(values.slice(i, i + LINKS_PER_STATEMENT))
        .onConflictDoUpdate({
          target: [gancioLinks.origin, gancioLinks.gancio_id],
          set: {
            slug: sql`coalesce(excluded.slug, ${gancioLinks.slug})`,
            eventId: sql`excluded."eventId"`,
            updatedAt: now,
          },
        }),
    );
  }
  if (statements.length > 0) {
    await db.batch(statements as [typeof statements[0]]);
  }
}

/**
 * The slug of the visible event a Gancio event URL names (`/event/<slug>`,
 * an occurrence's `/event/<slug>-2`, or `/event/<id>`), or null: only asked
 * when no Quando event has that slug, so Quando's own pages always win.
 */
export async function gancioRedirect(
  db: Db,
  slugOrId: string,
): Promise<string | null> {
  const id = /^\d{1,15}$/.test(slugOrId) ? Number(slugOrId) : null;
  const [row] = await db.select({ slug: events.slug }).from(gancioLinks)
    .innerJoin(events, eq(events.id, gancioLinks.eventId))
    .where(and(
      id === null
        ? eq(gancioLinks.slug, slugOrId)
        : sql`(${gancioLinks.slug} = ${slugOrId} or ${gancioLinks.gancio_id} = ${id})`,
      eq(events.is_visible, true),
    ))
    .orderBy(
      sql`${gancioLinks.slug} = ${slugOrId} desc`,
      sql`${gancioLinks.updatedAt} desc`,
    ).limit(1);
  return row?.slug ?? null;
}

/**
 * Gives each imported event the owner the database tells (its author's
 * account, or nobody for an anonymous submission), also when an API import
 * (which cannot tell) made it first; a series' own occurrences follow it.
 */
export async function assignGancioOwners(
  db: Db,
  importOrigin: string,
  links: GancioLink[],
): Promise<void> {
  const told = links.filter((l) => l.ownerId !== undefined);
  if (told.length === 0) return;
  const rows = await db.select({
    gancio_id: gancioLinks.gancio_id,
    eventId: gancioLinks.eventId,
  }).from(gancioLinks).where(
    eq(gancioLinks.origin, linkOrigin(importOrigin)),
  );
  const eventOf = new Map(rows.map((r) => [r.gancio_id, r.eventId]));
  const byOwner = new Map<number | null, number[]>();
  for (const link of told) {
    const eventId = eventOf.get(link.gancioId);
    if (eventId === undefined) continue;
    const owner = link.ownerId ?? null;
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), eventId]);
  }
  const set = (owner: number | null, where: SQL) =>
    db.update(events).set({ userId: owner }).where(
      sql`${where} and ${events.userId} is not ${owner}`,
    );
  const statements = [];
  // Occurrences with their series first, then each event as told (an
  // occurrence's own author wins over its series').
  for (const [owner, ids] of byOwner) {
    for (let i = 0; i < ids.length; i += LINKS_PER_STATEMENT) {
      const chunk = ids.slice(i, i + LINKS_PER_STATEMENT);
      statements.push(set(owner, inArray(events.parentId, chunk)!));
    }
  }
  for (const [owner, ids] of byOwner) {
    for (let i = 0; i < ids.length; i += LINKS_PER_STATEMENT) {
      const chunk = ids.slice(i, i + LINKS_PER_STATEMENT);
      statements.push(set(owner, inArray(events.id, chunk)!));
    }
  }
  if (statements.length > 0) {
    await db.batch(statements as [typeof statements[0]]);
  }
}

/**
 * Forgets what an earlier version recorded for an occurrence edited on its
 * own to another time: it was keyed by its new start and became a single
 * event besides its series' occurrence. The occurrence at its slot now holds
 * it; the single event is left (it may have been edited or shared) and named
 * in a problem line, once.
 */
export async function forgetMovedOccurrenceKeys(
  db: Db,
  importOrigin: string,
  items: { uid: string; recurrenceId: number | null; start: number }[],
): Promise<string[]> {
  const moved = items.filter((i) =>
    i.recurrenceId !== null && i.recurrenceId !== i.start
  );
  if (moved.length === 0) return [];
  const rows = await db.select({
    uid: importedEvents.uid,
    recurrence_id: importedEvents.recurrence_id,
    eventId: importedEvents.eventId,
  }).from(importedEvents).where(and(
    eq(importedEvents.origin, importOrigin),
    inArray(importedEvents.uid, [...new Set(moved.map((i) => i.uid))]),
  ));
  const known = new Map(
    rows.map((r) => [`${r.recurrence_id}\u0000${r.uid}`, r.eventId]),
  );
  const problems: string[] = [];
  for (const item of moved) {
    const legacy = known.get(`${item.start}\u0000${item.uid}`);
    if (
      legacy === undefined || known.has(`${item.recurrenceId}\u0000${item.uid}`)
    ) continue;
    await db.delete(importedEvents).where(and(
      eq(importedEvents.origin, importOrigin),
      eq(importedEvents.uid, item.uid),
      eq(importedEvents.recurrence_id, item.start),
    ));
    problems.push(
      `${item.uid}: an earlier import made its occurrence moved to ${
        new Date(item.start * 1000).toISOString()
      } a single event (Quando event ${legacy}); the series' occurrence holds it now: delete event ${legacy} if it is a duplicate`,
    );
  }
  return problems;
}
