/** Reading a Gancio SQLite database, and bringing its users and fediverse peers in. */
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import {
  apUsers,
  instances,
  type UserRole,
  users,
} from "../../../db/schema.ts";
import type { PasswordHasher } from "../../auth/hasher.ts";
import type { Clock } from "../../clock.ts";
import { domainOf } from "../../federation/actors.ts";
import {
  findUserByEmail,
  isEmailAddress,
  normalizeEmail,
  type UserRow,
} from "../../users.ts";
import {
  asBool,
  asString,
  GancioError,
  type GancioEvent,
  json,
  parseGancioEvent,
  placeOf,
} from "./mapping.ts";

/** Runs one read-only statement on the Gancio database and returns its rows. */
export type GancioQuery = (sql: string) => Record<string, unknown>[];

export interface GancioUser {
  id: number;
  email: string;
  role: UserRole;
  is_active: boolean;
  description: string;
}

export interface GancioActor {
  ap_id: string;
  trusted: boolean;
  blocked: boolean;
  object: unknown;
}

export interface GancioInstance {
  domain: string;
  name: string | null;
  blocked: boolean;
  data: unknown;
  applicationActor: string | null;
}

/** What a Gancio database holds that Quando takes. */
export interface GancioDatabase {
  users: GancioUser[];
  actors: GancioActor[];
  instances: GancioInstance[];
  /** Local events (remote ones come back over federation). */
  events: GancioEvent[];
  /** The instance's settings that are not secret (its `settings` table), by key. */
  settings: Record<string, unknown>;
  problems: string[];
}

/** Reads a Gancio database through `query`; GancioError when it is not one. */
export function readGancioDatabase(query: GancioQuery): GancioDatabase {
  const tables = new Set(
    query("select name from sqlite_master where type = 'table'").map((r) =>
      String(r.name)
    ),
  );
  for (const needed of ["events", "places", "users"]) {
    if (!tables.has(needed)) {
      throw new GancioError(
        `this is not a Gancio database: it has no ${needed} table`,
      );
    }
  }
  const columns = (table: string) =>
    new Set(
      query(`select name from pragma_table_info('${table}')`).map((r) =>
        String(r.name)
      ),
    );
  const problems: string[] = [];

  const userColumns = columns("users");
  const users: GancioUser[] = [];
  for (const row of query("select * from users order by id")) {
    const email = normalizeEmail(asString(row.email));
    if (!isEmailAddress(email)) {
      problems.push(`user ${row.id}: no usable e-mail; skipped`);
      continue;
    }
    const role = userColumns.has("role")
      ? asString(row.role)
      : asBool(row.is_admin)
      ? "admin"
      : "user";
    users.push({
      id: Number(row.id),
      email,
      role: role === "admin" || role === "editor" ? role : "user",
      is_active: asBool(row.is_active),
      description: asString(row.description),
    });
  }

  const places = new Map(
    query("select * from places").map((r) => [Number(r.id), placeOf(r)]),
  );
  const tagsOf = new Map<number, string[]>();
  if (tables.has("event_tags")) {
    const link = columns("event_tags");
    const rows = link.has("tagTag")
      ? query('select "eventId", "tagTag" as tag from event_tags')
      : link.has("tagId") && tables.has("tags")
      ? query(
        'select et."eventId", t.tag as tag from event_tags et join tags t on t.id = et."tagId"',
      )
      : [];
    for (const row of rows) {
      const id = Number(row.eventId);
      tagsOf.set(id, [...(tagsOf.get(id) ?? []), asString(row.tag)]);
    }
  }
  const eventColumns = columns("events");
  const events: GancioEvent[] = [];
  const local = eventColumns.has("apUserApId")
    ? ' where "apUserApId" is null'
    : "";
  for (const row of query(`select * from events${local} order by id`)) {
    const event = parseGancioEvent({
      ...row,
      place: places.get(Number(row.placeId)) ?? null,
      tags: tagsOf.get(Number(row.id)) ?? [],
    });
    if (typeof event === "string") {
      problems.push(`${row.id}: ${event}; skipped`);
      continue;
    }
    events.push(event);
  }

  const actors: GancioActor[] = tables.has("ap_users")
    ? query("select * from ap_users").flatMap((r) => {
      const apId = asString(r.ap_id);
      if (!/^https?:\/\//.test(apId)) return [];
      return [{
        ap_id: apId,
        trusted: asBool(r.trusted),
        blocked: asBool(r.blocked),
        object: json(r.object),
      }];
    })
    : [];
  const instanceRows: GancioInstance[] = tables.has("instances")
    ? query("select * from instances").flatMap((r) => {
      const domain = asString(r.domain).trim().toLowerCase();
      if (!domain) return [];
      return [{
        domain,
        name: asString(r.name) || null,
        blocked: asBool(r.blocked),
        data: json(r.data),
        applicationActor: asString(r.applicationActor) || null,
      }];
    })
    : [];
  const settings: Record<string, unknown> = {};
  if (tables.has("settings")) {
    for (const row of query("select * from settings")) {
      if (asBool(row.is_secret)) continue;
      // JSON text as Gancio writes it; a bare string as some versions left it.
      const value = json(row.value);
      settings[asString(row.key)] = value === null && typeof row.value ===
          "string"
        ? row.value
        : value;
    }
  }
  return {
    users,
    actors,
    instances: instanceRows,
    events,
    settings,
    problems,
  };
}

/** What bringing users in did. */
export interface UsersOutcome {
  created: number;
  /** Accounts that already existed (by e-mail): left as they are. */
  existing: number;
  /** Quando's user for each Gancio user id. */
  byGancioId: Map<number, UserRow>;
}

/**
 * Creates the Gancio users Quando does not have (by e-mail) with their role
 * and state and a password nobody knows (a random one, hashed): they set
 * theirs with a reset. Accounts that exist are left as they are.
 */
export async function importGancioUsers(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  list: GancioUser[],
): Promise<UsersOutcome> {
  const outcome: UsersOutcome = {
    created: 0,
    existing: 0,
    byGancioId: new Map(),
  };
  for (const user of list) {
    let row = await findUserByEmail(deps.db, user.email);
    if (row) {
      outcome.existing++;
    } else {
      const random = crypto.getRandomValues(new Uint8Array(32));
      const now = deps.clock.now();
      [row] = await deps.db.insert(users).values({
        email: user.email,
        password: await deps.hasher.hash(
          Array.from(random, (b) => b.toString(16).padStart(2, "0")).join(""),
        ),
        role: user.role,
        is_active: user.is_active,
        description: user.description,
        createdAt: now,
        updatedAt: now,
      }).returning();
      outcome.created++;
    }
    outcome.byGancioId.set(user.id, row);
  }
  return outcome;
}

/** What bringing the fediverse peers in did. */
export interface PeersOutcome {
  trusted: number;
  blocked: number;
  blockedInstances: number;
}

/**
 * Records Gancio's trusted and blocked actors and blocked instances. Trust
 * and blocks are added, never taken away from what Quando already has;
 * follows are not carried over (Quando's actor is a new one: trusted actors
 * are followed again with add_trust).
 */
export async function importGancioPeers(
  deps: { db: Db; clock: Clock },
  dump: Pick<GancioDatabase, "actors" | "instances">,
): Promise<PeersOutcome> {
  const { db } = deps;
  const now = deps.clock.now();
  const outcome: PeersOutcome = { trusted: 0, blocked: 0, blockedInstances: 0 };
  const known = new Map(dump.instances.map((i) => [i.domain, i]));
  const upsertInstance = (domain: string) => {
    const info = known.get(domain);
    return db.insert(instances).values({
      domain,
      name: info?.name ?? null,
      blocked: info?.blocked ?? false,
      data: info?.data ?? null,
      applicationActor: info?.applicationActor ?? null,
      createdAt: now,
      updatedAt: now,
    }).onConflictDoUpdate({
      target: instances.domain,
      set: {
        blocked: sql`${instances.blocked} or excluded.blocked`,
        name: sql`coalesce(${instances.name}, excluded.name)`,
        applicationActor:
          sql`coalesce(${instances.applicationActor}, excluded."applicationActor")`,
        updatedAt: now,
      },
    });
  };
  for (const instance of dump.instances) {
    if (!instance.blocked) continue;
    await upsertInstance(instance.domain);
    outcome.blockedInstances++;
  }
  for (const actor of dump.actors) {
    if (!actor.trusted && !actor.blocked) continue;
    const domain = domainOf(actor.ap_id);
    await db.batch([
      upsertInstance(domain),
      db.insert(apUsers).values({
        ap_id: actor.ap_id,
        object: actor.object ?? null,
        instanceDomain: domain,
        trusted: actor.trusted,
        blocked: actor.blocked,
        createdAt: now,
        updatedAt: now,
      }).onConflictDoUpdate({
        target: apUsers.ap_id,
        set: {
          trusted: sql`${apUsers.trusted} or excluded.trusted`,
          blocked: sql`${apUsers.blocked} or excluded.blocked`,
          object: sql`coalesce(${apUsers.object}, excluded.object)`,
          updatedAt: now,
        },
      }),
    ]);
    if (actor.trusted) outcome.trusted++;
    if (actor.blocked) outcome.blocked++;
  }
  return outcome;
}

/** The user events are created as: `email` when given, else the first active admin. */
export async function importingUser(
  db: Db,
  email: string | undefined,
): Promise<UserRow> {
  if (email) {
    const row = await findUserByEmail(db, email);
    if (!row || !row.is_active) {
      throw new GancioError(`no active account has the e-mail ${email}`);
    }
    return row;
  }
  const [admin] = await db.select().from(users).where(
    sql`${users.role} = 'admin' and ${users.is_active} = 1`,
  ).orderBy(users.id).limit(1);
  if (!admin) {
    throw new GancioError(
      "no active admin to create the events as: add one (deno task user add --role admin) or name one with --as",
    );
  }
  return admin;
}
