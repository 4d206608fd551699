/**
 * Deleting a user (admins), with what becomes of their events: kept without
 * an owner (anonymised), kept and given to another account (reassigned), or
 * removed with them (federated as Deletes). Their sessions, OAuth grants and
 * tokens go with the account (foreign keys), and their login tokens stop
 * working with it. Never the last active admin.
 */
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "../db/batch.ts";
import { events, eventTags, sources, users } from "../db/schema.ts";
import {
  commitWithFamilies,
  familiesWhere,
  type FamilyChange,
} from "./events/bulk.ts";
import type { WriteDeps } from "./events/commit.ts";
import type { EventRow } from "./events/serialize.ts";
import { pruneTagsStatement } from "./events/statements.ts";
import { conflict, invalidRequest, notFound } from "./errors.ts";
import { localMediaNames, pruneMediaStatement } from "./media/cleanup.ts";
import { findUserById, type UserRow } from "./users.ts";

/** What becomes of a deleted user's events. */
export const EVENT_FATES = ["keep", "reassign", "remove"] as const;
export type EventFate = (typeof EVENT_FATES)[number];

/** How a user is deleted. */
export interface UserRemoval {
  /** `keep` (the default): without an owner; `reassign`: to `reassignTo`; `remove`: deleted. */
  events: EventFate;
  /** The account that gets the events (and calendar subscriptions) with `reassign`. */
  reassignTo?: number;
  /** The admin deleting: gets the calendar subscriptions when the events are kept without an owner. */
  actingAdminId: number;
}

/** The number of events (any state, occurrences included) a user owns. */
export async function countUserEvents(db: WriteDeps["db"], id: number) {
  const [{ n }] = await db.select({ n: count() }).from(events).where(
    eq(events.userId, id),
  );
  return n;
}

/**
 * True in a statement while deleting `user` leaves an active admin: part of
 * each statement of the deletion, so two admins deleting each other at once
 * cannot both succeed (writes are serialised; the second sees the first).
 */
function leavesAnAdmin(user: UserRow) {
  if (user.role !== "admin" || !user.is_active) return sql`1`;
  return sql`exists (select 1 from ${users} as o where o.id <> ${user.id} and o.role = 'admin' and o.is_active = 1)`;
}

/**
 * Deletes the user `id` and does with their events as `removal` says, in
 * one batch. 404 for an unknown user; 409 for the last active admin; 400
 * for a reassignment to no, the same, an unknown or an inactive account.
 * Returns the changes to federate (removed events' Deletes).
 */
export async function removeUser(
  deps: WriteDeps,
  id: number,
  removal: UserRemoval,
): Promise<{ changes: FamilyChange[] }> {
  const { db } = deps;
  const user = await findUserById(db, id);
  if (!user) throw notFound("User");
  if (user.role === "admin" && user.is_active) {
    const [{ n }] = await db.select({ n: count() }).from(users).where(
      and(
        eq(users.role, "admin"),
        eq(users.is_active, true),
        sql`${users.id} <> ${id}`,
      ),
    );
    if (n === 0) throw conflict("This is the last active admin");
  }
  const guard = leavesAnAdmin(user);
  const statements: BatchItem[] = [];
  let families = new Map<number, EventRow[]>();
  if (removal.events === "reassign") {
    const target = removal.reassignTo === undefined
      ? undefined
      : await findUserById(db, removal.reassignTo);
    if (!target || target.id === id || !target.is_active) {
      throw invalidRequest("The request is not valid", [{
        field: "reassign_to",
        message: "must be another active account",
      }]);
    }
    statements.push(
      db.update(events).set({ userId: target.id }).where(
        and(eq(events.userId, id), guard),
      ),
      db.update(sources).set({ userId: target.id }).where(
        and(eq(sources.userId, id), guard),
      ),
    );
  } else if (removal.events === "keep") {
    // The calendar subscriptions need an account: the deleting admin's.
    statements.push(
      db.update(sources).set({ userId: removal.actingAdminId }).where(
        and(eq(sources.userId, id), guard),
      ),
    );
  } else {
    families = await familiesWhere(db, eq(events.userId, id));
    const rows = [...families.values()].flat();
    const theirs = new Set(
      rows.filter((e) => e.userId === id).map((e) => e.id),
    );
    // Theirs, and the occurrences of their series (whoever edited them).
    const owned = rows.filter((e) =>
      theirs.has(e.id) || (e.parentId !== null && theirs.has(e.parentId))
    );
    const ids = owned.map((e) => e.id);
    const tagIds = ids.length
      ? (await db.selectDistinct({ tagId: eventTags.tagId }).from(eventTags)
        .where(inArray(eventTags.eventId, ids))).map((r) => r.tagId)
      : [];
    statements.push(
      // Occurrences go with their series (parentId cascades).
      db.delete(events).where(and(eq(events.userId, id), guard)),
      ...pruneTagsStatement(db, tagIds),
      ...pruneMediaStatement(db, localMediaNames(owned.map((e) => e.media))),
    );
  }
  statements.push(
    db.delete(users).where(and(eq(users.id, id), guard)).returning({
      id: users.id,
    }),
  );
  const deleteAt = statements.length - 1;
  const { results, changes } = await commitWithFamilies(
    deps,
    statements,
    families,
  );
  if ((results[deleteAt] as { id: number }[]).length === 0) {
    throw conflict("This is the last active admin");
  }
  return { changes };
}
