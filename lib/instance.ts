/** Getting a database ready to serve: migrations, the JWT secret, the first admin. */
import type { Database } from "../db/client.ts";
import type { PasswordHasher } from "./auth/password.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import { ensureJwtSecret } from "./settings.ts";
import { createUser, findUserByEmail, hasActiveAdmin } from "./users.ts";
import { isUniqueViolation } from "./errors.ts";
import { ApiError } from "./errors.ts";

/**
 * Migrates embedded databases, resolves the JWT secret and creates the
 * ADMIN_EMAIL admin when no active admin exists. Returns the JWT secret.
 */
export async function prepareInstance(
  database: Database,
  config: Config,
  hasher: PasswordHasher,
  clock: Clock,
  log: Logger,
): Promise<{ jwtSecret: string }> {
  // Remote databases are migrated by `deno task db:migrate`; an edge opener
  // has no files to migrate from (no `migrate`).
  if (database.embedded) await database.migrate?.();
  const jwtSecret = await ensureJwtSecret(database.db, clock, config.jwtSecret);
  if (config.adminEmail && config.adminPassword) {
    await bootstrapAdmin(
      database,
      config.adminEmail,
      config.adminPassword,
      hasher,
      clock,
      log,
    );
  }
  return { jwtSecret };
}

async function bootstrapAdmin(
  database: Database,
  email: string,
  password: string,
  hasher: PasswordHasher,
  clock: Clock,
  log: Logger,
): Promise<void> {
  if (await hasActiveAdmin(database.db)) return;
  if (await findUserByEmail(database.db, email)) {
    log.warning(
      "ADMIN_EMAIL names an existing non-admin user; not promoting it",
    );
    return;
  }
  try {
    await createUser(database.db, hasher, clock, {
      email,
      password,
      role: "admin",
    });
    log.info("created the first admin from ADMIN_EMAIL", { email });
  } catch (err) {
    // Another process bootstrapping at the same moment won the race.
    if (!(err instanceof ApiError) && !isUniqueViolation(err)) throw err;
  }
}
