/**
 * What every entry (main.ts on Deno, worker.ts on Workers) builds the same
 * way over an open database before calling createApp: the instance prepared
 * (migrations, JWT secret, first admin), the media store, the mailer and the
 * federation service (whose queue carries the mail).
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
import { createMailer, type Mailer } from "./mail/outbox.ts";
import { mailQueueWork } from "./mail/notices.ts";
import {
  createHttpMailTransport,
  type MailTransport,
} from "./mail/transport.ts";
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
  mailer: Mailer;
}

/**
 * The mail transport the configuration names: the SMTP one the entry built
 * (main.ts: only Deno has the sockets), else the HTTP one; none when mail
 * is off, or when SMTP_URL is set where SMTP cannot run (a warning says so).
 */
export function configuredMailTransport(
  config: Config,
  log: Logger,
  smtp?: MailTransport,
): MailTransport | undefined {
  const mail = config.mail;
  if (!mail) return undefined;
  if (mail.httpUrl) {
    return createHttpMailTransport({
      url: mail.httpUrl,
      token: mail.httpToken,
    });
  }
  if (!smtp) {
    log.warning(
      "SMTP_URL is set but SMTP cannot run here: e-mail is off (use MAIL_HTTP_URL)",
    );
  }
  return smtp;
}

/** Prepares the instance and builds its media store and federation service. */
export async function assembleInstance(
  database: Database,
  config: Config,
  hasher: PasswordHasher,
  clock: Clock,
  log: Logger,
  federationOptions: FederationSetupOptions = {},
  smtpTransport?: MailTransport,
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
  const mailer = createMailer({
    db: database.db,
    clock,
    log,
    baseUrl: config.baseUrl,
    from: config.mail?.from ?? "",
    transport: configuredMailTransport(config, log, smtpTransport),
  });
  const federation = createFederationForDatabase(
    database,
    config,
    clock,
    log,
    {
      ...federationOptions,
      queueWork: mailQueueWork({
        database,
        clock,
        log,
        config: { baseUrl: config.baseUrl },
        mailer,
      }),
    },
  );
  return { config: { ...config, jwtSecret }, media, federation, mailer };
}
