/** Storage of remote actors and instances: follow state, trust and blocks. */
import { and, asc, count, desc, eq, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apUsers, events, instances, resources } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { notFound } from "../errors.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import type { ApUserRow } from "../events/serialize.ts";

export type InstanceRow = typeof instances.$inferSelect;

/** The domain (host[:port]) of an actor id. */
export function domainOf(apId: string): string {
  return new URL(apId).host;
}

/** The Instance shape of the API (without its actors). */
export function serializeInstance(row: InstanceRow) {
  return {
    domain: row.domain,
    name: row.name,
    blocked: row.blocked,
    data: row.data ?? null,
    applicationActor: row.applicationActor,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The AP actor shape of the API with its instance (no events or resources). */
export function serializeApActor(row: ApUserRow, instance: InstanceRow | null) {
  return {
    ap_id: row.ap_id,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    follower: row.follower,
    following: row.following,
    trusted: row.trusted,
    blocked: row.blocked,
    object: row.object ?? null,
    instanceDomain: row.instanceDomain,
    instance: instance ? serializeInstance(instance) : null,
  };
}

/**
 * Records (or refreshes) an actor and its instance from the actor's JSON-LD;
 * `flags` set follow or trust state. Returns the stored row.
 */
export async function upsertActor(
  db: Db,
  clock: Clock,
  apId: string,
  object: unknown,
  flags: Partial<Pick<ApUserRow, "follower" | "following" | "trusted">> = {},
  instanceInfo: { name?: string | null; applicationActor?: string | null } = {},
): Promise<ApUserRow> {
  const now = clock.now();
  const domain = domainOf(apId);
  const [, [row]] = await db.batch([
    db.insert(instances).values({
      domain,
      name: instanceInfo.name ?? null,
      applicationActor: instanceInfo.applicationActor ?? null,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoUpdate({
      target: instances.domain,
      set: {
        updatedAt: now,
        ...(instanceInfo.name ? { name: instanceInfo.name } : {}),
        ...(instanceInfo.applicationActor
          ? { applicationActor: instanceInfo.applicationActor }
          : {}),
      },
    }),
    db.insert(apUsers).values({
      ap_id: apId,
      object,
      instanceDomain: domain,
      follower: flags.follower ?? false,
      following: flags.following ?? false,
      trusted: flags.trusted ?? false,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoUpdate({
      target: apUsers.ap_id,
      set: {
        object: object ?? sql`${apUsers.object}`,
        instanceDomain: domain,
        updatedAt: now,
        ...flags,
      },
    }).returning(),
  ]);
  return row;
}

/** An actor by id, or null. */
export async function findActor(
  db: Db,
  apId: string,
): Promise<ApUserRow | null> {
  const [row] = await db.select().from(apUsers).where(eq(apUsers.ap_id, apId));
  return row ?? null;
}

/** Sets follow/trust flags of a known actor. */
export async function setActorFlags(
  db: Db,
  clock: Clock,
  apId: string,
  flags: Partial<Pick<ApUserRow, "follower" | "following" | "trusted">>,
): Promise<void> {
  await db.update(apUsers).set({ ...flags, updatedAt: clock.now() }).where(
    eq(apUsers.ap_id, apId),
  );
}

/** Whether an actor, or its instance, is blocked. */
export async function isBlockedSender(db: Db, apId: string): Promise<boolean> {
  let domain: string;
  try {
    domain = domainOf(apId);
  } catch {
    return true;
  }
  const [actor, instance] = await db.batch([
    db.select({ blocked: apUsers.blocked }).from(apUsers).where(
      eq(apUsers.ap_id, apId),
    ),
    db.select({ blocked: instances.blocked }).from(instances).where(
      eq(instances.domain, domain),
    ),
  ]);
  return actor[0]?.blocked === true || instance[0]?.blocked === true;
}

/**
 * Flips an actor's block, or sets it to `to` when given (a form that says
 * which it wants, so a page shown before another admin's change does not
 * undo it); 404 for an unknown actor.
 */
export async function toggleActorBlock(
  db: Db,
  clock: Clock,
  apId: string,
  to?: boolean,
): Promise<ApUserRow> {
  const [row] = await db.update(apUsers).set({
    blocked: to ?? sql`not ${apUsers.blocked}`,
    updatedAt: clock.now(),
  }).where(eq(apUsers.ap_id, apId)).returning();
  if (!row) throw notFound("AP actor");
  return row;
}

/** Flips an instance's block, or sets it to `to` when given; 404 for an unknown domain. */
export async function toggleInstanceBlock(
  db: Db,
  clock: Clock,
  domain: string,
  to?: boolean,
): Promise<InstanceRow> {
  const [row] = await db.update(instances).set({
    blocked: to ?? sql`not ${instances.blocked}`,
    updatedAt: clock.now(),
  }).where(eq(instances.domain, domain)).returning();
  if (!row) throw notFound("Instance");
  return row;
}

/** An actor in the API's shape with its instance (one query); 404 when unknown. */
export async function findActorWithInstance(db: Db, apId: string) {
  const [row] = await db.select({ actor: apUsers, instance: instances })
    .from(apUsers)
    .leftJoin(instances, eq(instances.domain, apUsers.instanceDomain))
    .where(eq(apUsers.ap_id, apId));
  if (!row) throw notFound("AP actor");
  return serializeApActor(row.actor, row.instance);
}

/** One page of actors, newest first, with their instances. */
export async function listActors(
  db: Db,
  page: number,
  pageSize: number,
) {
  const [rows, [{ n }]] = await db.batch([
    db.select({ actor: apUsers, instance: instances }).from(apUsers)
      .leftJoin(instances, eq(instances.domain, apUsers.instanceDomain))
      .orderBy(desc(apUsers.createdAt), asc(apUsers.ap_id))
      .limit(pageSize).offset((page - 1) * pageSize),
    db.select({ n: count() }).from(apUsers),
  ]);
  return {
    data: rows.map((r) => serializeApActor(r.actor, r.instance)),
    count: n,
    totalPages: Math.ceil(n / pageSize),
  };
}

/** One page of instances, by domain. */
export async function listInstances(db: Db, page: number, pageSize: number) {
  const [rows, [{ n }]] = await db.batch([
    db.select().from(instances).orderBy(asc(instances.domain)).limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(instances),
  ]);
  return {
    data: rows.map(serializeInstance),
    count: n,
    totalPages: Math.ceil(n / pageSize),
  };
}

/** An actor with what it has sent us: remote events and resources (comments). */
export interface ActorActivity {
  actor: ReturnType<typeof serializeApActor>;
  events: number;
  resources: number;
}

/**
 * One page of actors (newest first, of one instance when given) with the
 * number of remote events and resources each has sent us: the counts are
 * subqueries of the page's one query (over the actor indexes of both
 * tables), so the page costs the same whatever its length.
 */
export async function listActorsWithActivity(
  db: Db,
  page: number,
  pageSize: number,
  instanceDomain?: string,
): Promise<{ data: ActorActivity[]; count: number; totalPages: number }> {
  const where = instanceDomain === undefined
    ? undefined
    : eq(apUsers.instanceDomain, instanceDomain);
  const [rows, [{ n }]] = await db.batch([
    db.select({
      actor: apUsers,
      instance: instances,
      events: sql<
        number
      >`(select count(*) from ${events} where ${events.apUserApId} = ${apUsers.ap_id})`,
      resources: sql<
        number
      >`(select count(*) from ${resources} where ${resources.apUserApId} = ${apUsers.ap_id})`,
    }).from(apUsers)
      .leftJoin(instances, eq(instances.domain, apUsers.instanceDomain))
      .where(where)
      .orderBy(desc(apUsers.createdAt), asc(apUsers.ap_id))
      .limit(pageSize).offset((page - 1) * pageSize),
    db.select({ n: count() }).from(apUsers).where(where),
  ]);
  return {
    data: rows.map((r) => ({
      actor: serializeApActor(r.actor, r.instance),
      events: Number(r.events),
      resources: Number(r.resources),
    })),
    count: n,
    totalPages: Math.ceil(n / pageSize),
  };
}

/** One page of instances by domain, each with its number of known actors. */
export async function listInstancesWithActors(
  db: Db,
  page: number,
  pageSize: number,
) {
  const [rows, [{ n }]] = await db.batch([
    db.select({
      instance: instances,
      actors: sql<
        number
      >`(select count(*) from ${apUsers} where ${apUsers.instanceDomain} = ${instances.domain})`,
    }).from(instances).orderBy(asc(instances.domain)).limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(instances),
  ]);
  return {
    data: rows.map((r) => ({
      instance: serializeInstance(r.instance),
      actors: Number(r.actors),
    })),
    count: n,
    totalPages: Math.ceil(n / pageSize),
  };
}

/** An instance by domain, or null. */
export async function findInstance(
  db: Db,
  domain: string,
): Promise<InstanceRow | null> {
  const [row] = await db.select().from(instances).where(
    eq(instances.domain, domain),
  );
  return row ?? null;
}

/** Where to deliver to a follower: its inbox and shared inbox, from the stored actor JSON. */
export interface FollowerInbox {
  id: string;
  inbox: string | null;
  sharedInbox: string | null;
}

function stringAt(value: unknown, ...path: string[]): string | null {
  let v: unknown = value;
  for (const key of path) {
    if (!v || typeof v !== "object") return null;
    v = (v as Record<string, unknown>)[key];
  }
  if (typeof v === "string") return v;
  if (
    v && typeof v === "object" && typeof (v as { id?: unknown }).id === "string"
  ) {
    return (v as { id: string }).id;
  }
  return null;
}

/** Followers to deliver to: never blocked actors nor actors of blocked instances. */
export function deliverableFollowers(db: Db): Promise<FollowerInbox[]> {
  return runRead(db, deliverableFollowersQuery(db));
}

/**
 * An SQL condition true when at least one follower would be delivered to
 * (the followers deliverableFollowersQuery reads): a write queues its
 * publication only then, so that nobody's absence costs a signature.
 */
export const anyDeliverableFollower: SQL = sql`exists (
  select 1 from ${apUsers}
  left join ${instances} on ${instances.domain} = ${apUsers.instanceDomain}
  where ${apUsers.follower} = 1 and ${apUsers.blocked} = 0
    and (${instances.blocked} is null or ${instances.blocked} = 0))`;

/** deliverableFollowers as a statement of a batch. */
export function deliverableFollowersQuery(
  db: Db,
): BatchRead<FollowerInbox[]> {
  return {
    statements: [
      db.select({ ap_id: apUsers.ap_id, object: apUsers.object })
        .from(apUsers)
        .leftJoin(instances, eq(instances.domain, apUsers.instanceDomain))
        .where(
          and(
            eq(apUsers.follower, true),
            eq(apUsers.blocked, false),
            or(sql`${instances.blocked} is null`, eq(instances.blocked, false)),
          ),
        ).orderBy(asc(apUsers.ap_id)),
    ],
    read(results) {
      return (results[0] as { ap_id: string; object: unknown }[]).map((r) => ({
        id: r.ap_id,
        inbox: stringAt(r.object, "inbox"),
        sharedInbox: stringAt(r.object, "endpoints", "sharedInbox"),
      }));
    },
  };
}

/** Counts for NodeInfo and the followers collection. */
export async function countFollowers(db: Db): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(apUsers)
    .leftJoin(instances, eq(instances.domain, apUsers.instanceDomain))
    .where(
      and(
        eq(apUsers.follower, true),
        eq(apUsers.blocked, false),
        or(sql`${instances.blocked} is null`, eq(instances.blocked, false)),
      ),
    );
  return n;
}
