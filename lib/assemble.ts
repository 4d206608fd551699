/**
 * What every entry (main.ts on Deno, worker.ts on Workers) builds the same
 * way over an open database before calling createApp: the instance prepared
 * (migrations, JWT secret, first admin), the media store and the federation
 * service.
 */
import type { Database } from "../db/remote.ts";
import type { PasswordHasher } from "./auth/hasher.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import {
  configureFedifyLogging,
  createFederationForDatabase,
  type FederationSetupOptions,
} from "./federation/setup.ts";
import type { FederationService } from "./federation/service.ts";
import { prepareInstance } from "./instance.ts";
import type { Logger } from "./log.ts";
import {
  createDbMediaStore,
  createS3MediaStore,
  type MediaStore,
} from "./media/store.ts";

export interface InstanceParts {
  /** The configuration with the JWT secret resolved. */
  config: Config & { jwtSecret: string };
  media: MediaStore;
  federation: FederationService;
}

/** Prepares the instance and builds its media store and federation service. */
export async function assembleInstance(
  database: Database,
  config: Config,
  hasher: PasswordHasher,
  clock: Clock,
  log: Logger,
  federationOptions: FederationSetupOptions = {},
): Promise<InstanceParts> {
  const { jwtSecret } = await prepareInstance(
    database,
    config,
    hasher,
    clock,
    log,
  );
  const media: MediaStore = config.s3
    ? createS3MediaStore(config.s3)
    : createDbMediaStore(database.db, clock);
  await configureFedifyLogging(
    config.logLevel === "debug" ? "info" : "warning",
  );
  const federation = createFederationForDatabase(
    database,
    config,
    clock,
    log,
    federationOptions,
  );
  return { config: { ...config, jwtSecret }, media, federation };
}
