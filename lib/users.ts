/** User accounts: creation, listing, changes, and their wire shape. */
import { and, asc, count, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client.ts";
import type { BatchItem } from "../db/batch.ts";
import { prebuiltStatements } from "../db/prebuilt.ts";
import { type UserRole, users } from "../db/schema.ts";
import type { Clock } from "./clock.ts";
import type { PasswordHasher } from "./auth/password.ts";
import {
  conflict,
  invalidRequest,
  isUniqueViolation,
  notFound,
} from "./errors.ts";
import { revokeUserGrantsStatements } from "./oauth/grant-queries.ts";

export type UserRow = typeof users.$inferSelect;

/** The User resource of the API (docs/API.md). Never carries the password hash. */
export interface UserJson {
  id: number;
  email: string;
  description: string;
  is_active: boolean;
  to_notify: boolean;
  role: UserRole;
  /** A registration waiting for an admin's approval. */
  pending: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Full user form, for the user themself and admins. */
export function serializeUser(row: UserRow): UserJson {
  return {
    id: row.id,
    email: row.email,
    description: row.description,
    is_active: row.is_active,
    to_notify: row.to_notify,
    role: row.role,
    pending: row.pending,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Public user form: no e-mail, no account state. */
export function serializeUserPublic(
  row: Pick<UserRow, "id" | "description" | "role">,
) {
  return { id: row.id, description: row.description, role: row.role };
}

/** Whether a (trimmed) string looks like an e-mail address, at most 320 characters. */
export function isEmailAddress(email: string): boolean {
  return email.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}

/** Throws 400 (field `email`) unless `email` is an e-mail address. */
export function requireEmailAddress(email: string): void {
  if (!isEmailAddress(email)) {
    throw invalidRequest("The request is not valid", [
      { field: "email", message: "must be an e-mail address" },
    ]);
  }
}

/** E-mail addresses are compared trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface NewUser {
  email: string;
  password: string;
  role?: UserRole;
  description?: string;
  is_active?: boolean;
  to_notify?: boolean;
  /** Waits for an admin's approval (and is inactive until then). */
  pending?: boolean;
}

/** Creates a user; 409 when the e-mail is taken. */
export async function createUser(
  db: Db,
  hasher: PasswordHasher,
  clock: Clock,
  input: NewUser,
): Promise<UserRow> {
  const now = clock.now();
  const password = await hasher.hash(input.password);
  try {
    const [row] = await db.insert(users).values({
      email: normalizeEmail(input.email),
      password,
      role: input.role ?? "user",
      description: input.description ?? "",
      is_active: input.pending ? false : input.is_active ?? true,
      to_notify: input.to_notify ?? false,
      pending: input.pending ?? false,
      createdAt: now,
      updatedAt: now,
    }).returning();
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw conflict("A user with this e-mail already exists");
    }
    throw err;
  }
}

/** A user by id (every authenticated request reads one: built once). */
export async function findUserById(
  db: Db,
  id: number,
): Promise<UserRow | undefined> {
  const [rows] = await db.batch(
    prebuiltStatements(
      db,
      "userById",
      () => [
        db.select().from(users).where(eq(users.id, sql.placeholder("id"))),
      ],
      { id },
    ) as [BatchItem],
  ) as unknown as [UserRow[]];
  return rows[0];
}

/** The users of some ids (any order; unknown ids are left out). */
export async function listUsersByIds(
  db: Db,
  ids: number[],
): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return await db.select().from(users).where(inArray(users.id, ids));
}

export async function findUserByEmail(
  db: Db,
  email: string,
): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(
    eq(users.email, normalizeEmail(email)),
  );
  return row;
}

/**
 * One page of users, registrations waiting for approval first, then oldest
 * first, with the total count; with `emailContains`, only those whose e-mail
 * contains it (any case).
 */
export async function listUsers(
  db: Db,
  page: number,
  pageSize: number,
  emailContains?: string,
): Promise<{ data: UserRow[]; count: number; totalPages: number }> {
  // instr, not LIKE: the search text's % and _ stay plain characters.
  const where = emailContains
    ? sql`instr(${users.email}, ${normalizeEmail(emailContains)}) > 0`
    : undefined;
  const [rows, [{ total }]] = await db.batch([
    db.select().from(users).where(where).orderBy(
      desc(users.pending),
      asc(users.id),
    ).limit(
      pageSize,
    ).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(users).where(where),
  ]);
  return { data: rows, count: total, totalPages: Math.ceil(total / pageSize) };
}

export interface UserPatch {
  email?: string;
  role?: UserRole;
  is_active?: boolean;
  description?: string;
  to_notify?: boolean;
  password?: string;
}

/**
 * True in a statement while another active admin than `id` exists: part of
 * the write itself, so two admins demoting each other at once cannot both
 * pass (writes are serialised; the second sees the first).
 */
function anotherActiveAdmin(id: number) {
  return sql`exists (select 1 from ${users} as o where o.id <> ${id} and o.role = 'admin' and o.is_active = 1)`;
}

async function otherActiveAdmins(db: Db, id: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(users).where(
    and(eq(users.role, "admin"), eq(users.is_active, true), ne(users.id, id)),
  );
  return n;
}

/**
 * Changes a user. Refuses (409) to demote, deactivate or delete the last active
 * admin, so an instance can never lock itself out, and (409) an e-mail another
 * account has. A new password or a
 * deactivation ends the user's earlier login tokens (the token generation
 * moves on) and revokes their OAuth grants, in the same batch.
 */
export async function updateUser(
  db: Db,
  hasher: PasswordHasher,
  clock: Clock,
  id: number,
  patch: UserPatch,
): Promise<UserRow> {
  const current = await findUserById(db, id);
  if (!current) throw notFound("User");
  const losesAdmin = current.role === "admin" && current.is_active &&
    ((patch.role !== undefined && patch.role !== "admin") ||
      patch.is_active === false);
  if (losesAdmin && (await otherActiveAdmins(db, id)) === 0) {
    throw conflict("This is the last active admin");
  }
  const now = clock.now();
  const set: SQLiteUpdateSetSource<typeof users> = { updatedAt: now };
  if (patch.email !== undefined) set.email = normalizeEmail(patch.email);
  if (patch.role !== undefined) set.role = patch.role;
  if (patch.is_active !== undefined) set.is_active = patch.is_active;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.to_notify !== undefined) set.to_notify = patch.to_notify;
  if (patch.password !== undefined) {
    set.password = await hasher.hash(patch.password);
  }
  const endsTokens = patch.password !== undefined || patch.is_active === false;
  if (endsTokens) set.token_generation = sql`${users.token_generation} + 1`;
  const update = db.update(users).set(set).where(
    and(eq(users.id, id), losesAdmin ? anotherActiveAdmin(id) : undefined),
  ).returning();
  let rows: UserRow[];
  try {
    if (endsTokens && !losesAdmin) {
      [rows] = await db.batch([
        update,
        ...revokeUserGrantsStatements(db, id, now),
      ]);
    } else {
      rows = await update;
      // An admin's deactivation: the grants go once the guarded update has
      // passed (its token generation already ended the login tokens).
      if (rows[0] && endsTokens) {
        await db.batch(revokeUserGrantsStatements(db, id, now));
      }
    }
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw conflict("A user with this e-mail already exists");
    }
    throw err;
  }
  if (!rows[0]) {
    throw losesAdmin
      ? conflict("This is the last active admin")
      : notFound("User");
  }
  return rows[0];
}

/** Approves a registration waiting for it: the account becomes active. 404 unless it waits. */
export async function approveUser(
  db: Db,
  clock: Clock,
  id: number,
): Promise<UserRow> {
  const [row] = await db.update(users).set({
    pending: false,
    is_active: true,
    updatedAt: clock.now(),
  }).where(and(eq(users.id, id), eq(users.pending, true))).returning();
  if (!row) throw notFound("Registration");
  return row;
}

/** Refuses a registration waiting for approval: the account is deleted. 404 unless it waits. */
export async function refuseUser(db: Db, id: number): Promise<UserRow> {
  const [row] = await db.delete(users).where(
    and(eq(users.id, id), eq(users.pending, true)),
  ).returning();
  if (!row) throw notFound("Registration");
  return row;
}

/** How many registrations wait for approval. */
export async function countPendingUsers(db: Db): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(users).where(
    eq(users.pending, true),
  );
  return n;
}

/** Whether any active admin exists. */
export async function hasActiveAdmin(db: Db): Promise<boolean> {
  const [row] = await db.select({ one: sql<number>`1` }).from(users).where(
    and(eq(users.role, "admin"), eq(users.is_active, true)),
  ).limit(1);
  return row !== undefined;
}
