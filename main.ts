/**
 * Server entry for Deno and Deno Deploy.
 *   deno task start            serve (migrates a file: database first)
 *   deno task user <command>   manage users (see lib/cli/users.ts)
 *   deno task db:migrate       apply migrations (any database, Turso included)
 *   deno task export > f.jsonl the whole instance as JSON Lines (lib/backup.ts)
 *   deno task import f.jsonl   restore a backup into an empty instance
 *   deno task db:backup copy.db a consistent copy of a file: database, online
 *   deno task import:gancio --url https://gancio.example | --sqlite gancio.sqlite
 *                              a Gancio instance's events (lib/imports/gancio.ts)
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdirSync } from "node:fs";
import { type Database, migrateDatabase, openDatabase } from "./db/client.ts";
import { createPasswordHasher } from "./lib/auth/password.ts";
import { type CliIO, runUserCommand } from "./lib/cli/users.ts";
import { systemClock } from "./lib/clock.ts";
import {
  type Config,
  ConfigError,
  describeDatabase,
  loadConfig,
} from "./lib/config.ts";
import { prepareInstance } from "./lib/instance.ts";
import { createLogger } from "./lib/log.ts";
import { runScheduledJobs, SCHEDULED_JOBS_INTERVAL_MS } from "./lib/jobs.ts";
import { createQueueDrainer } from "./lib/federation/drainer.ts";
import { assembleInstance } from "./lib/assemble.ts";
import { createApp } from "./routes/mod.ts";
import { createEventBodyFiller } from "./lib/events/bodies.ts";
import { ADDRESS_NOT_ALLOWED } from "./lib/net/egress.ts";
import { createPinnedEgress } from "./lib/net/pinned-egress.ts";
import { createSmtpMailTransport } from "./lib/mail/smtp.ts";
import { BackupError, exportBackup, importBackup } from "./lib/backup.ts";
import {
  createDbMediaStore,
  createS3MediaStore,
  type MediaStore,
} from "./lib/media/store.ts";
import { isEmbeddedUrl } from "./db/client.ts";
import { backup as backupDatabase, DatabaseSync } from "node:sqlite";
import { basename, join } from "node:path";
import { importGancio, summaryLines } from "./lib/imports/gancio.ts";
import type { GancioQuery } from "./lib/imports/gancio/database.ts";
import { GancioError } from "./lib/imports/gancio/mapping.ts";
import { importDepsOf } from "./lib/imports/sources.ts";
import { quandoUserAgent } from "./lib/federation/loader.ts";
import { getSettings } from "./lib/settings.ts";

/** The path of a `file:` database URL. */
function databaseFilePath(url: string): string {
  return url.startsWith("file://") ? fileURLToPath(url) : url.slice(5);
}

/** Creates the folder of a `file:` database so a fresh clone just runs. */
function ensureDatabaseFolder(url: string): void {
  if (!url.startsWith("file:")) return;
  mkdirSync(dirname(databaseFilePath(url)), { recursive: true });
}

async function open(config: Config): Promise<Database> {
  ensureDatabaseFolder(config.databaseUrl);
  return await openDatabase(config.databaseUrl, config.databaseAuthToken);
}

/** Deno.cron where the runtime has it (Deno Deploy; the CLI with --unstable-cron). */
function denoCron():
  | ((name: string, schedule: string, handler: () => Promise<void>) => unknown)
  | null {
  const cron = (Deno as unknown as { cron?: unknown }).cron;
  return typeof cron === "function"
    ? cron as (name: string, schedule: string, h: () => Promise<void>) => void
    : null;
}

/** Drain budgets where Deno.cron drives the queue (Deno Deploy). */
const AFTER_REQUEST_DRAIN = { maxMs: 20_000, maxMessages: 200 };
const CRON_DRAIN = { maxMs: 45_000, maxMessages: 1_000 };
/**
 * How long a kept event answer waits to be stored, so that one commit
 * stores those of many reads (lib/events/bodies.ts).
 */
const EVENT_BODY_DELAY_MS = 20;

/** Adds a signal listener where the runtime allows it (not on Deno Deploy). */
function onSignal(signal: Deno.Signal, handler: () => void): void {
  try {
    Deno.addSignalListener(signal, handler);
  } catch {
    // No signals here: the platform stops the isolate itself.
  }
}

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel);
  const database = await open(config);
  const hasher = await createPasswordHasher(config.passwordHasher, log);
  // Deno Deploy (Deno.cron): isolates come and go, so no queue loop; the
  // queue is drained after the requests that enqueue and every minute by
  // Deno.cron, as on Workers. Elsewhere a loop drains it, woken at once by
  // this process's own work and retries, and looking for other processes'
  // work every half second on a file, every minute on a remote database.
  const cron = denoCron();
  // Every fetch of a URL that others chose connects only to the public
  // address it checked (lib/net/pinned-egress.ts): no second resolution to rebind.
  const egress = createPinnedEgress();
  const { config: appConfig, media, federation, mailer } =
    await assembleInstance(
      database,
      config,
      hasher,
      systemClock,
      log,
      // A write's publication (signing, serialising, queueing the deliveries)
      // is the queue's, right after the response, on every database: the
      // request pays only for the queue row in its own batch.
      { manualQueue: cron !== null, deferPublication: true, egress },
      // SMTP needs Node's sockets: built here only, never in routes/ or lib/.
      config.mail?.smtpUrl
        ? createSmtpMailTransport(config.mail.smtpUrl)
        : undefined,
    );
  const queueStop = new AbortController();
  const queueDone = federation.startQueue(queueStop.signal);
  const drainer = cron ? createQueueDrainer(federation, log) : null;
  // Anonymous event answers are kept as their JSON (lib/events/bodies.ts),
  // stored in batches a little after the reads that made them.
  const eventBodies = createEventBodyFiller(database, {
    delayMs: EVENT_BODY_DELAY_MS,
    log,
  });
  const app = createApp({
    database,
    config: appConfig,
    clock: systemClock,
    hasher,
    log,
    media,
    federation,
    egress,
    mailer,
    eventBodies,
    reusableResponses: true,
  });
  let jobsRunning = false;
  const hourly = async () => {
    // One run at a time: a slow run (many feeds) never overlaps the next.
    if (jobsRunning) return;
    jobsRunning = true;
    try {
      await runHourly();
    } finally {
      jobsRunning = false;
    }
  };
  const runHourly = async () => {
    await runScheduledJobs({
      db: database.db,
      clock: systemClock,
      log,
      media,
      federation,
      fetching: {
        allowPrivateAddresses: config.allowPrivateAddresses,
        egress,
        baseUrl: config.baseUrl,
        mediaMaxBytes: config.mediaMaxBytes,
        mediaQuotaBytes: config.mediaQuotaBytes,
      },
    });
  };
  let timer: ReturnType<typeof setInterval> | undefined;
  if (cron) {
    // Deno Deploy runs these itself, whether or not an isolate is up.
    cron("quando hourly jobs", "0 * * * *", hourly);
    cron("quando deliveries", "* * * * *", () => drainer!.drain(CRON_DRAIN));
  } else {
    timer = setInterval(hourly, SCHEDULED_JOBS_INTERVAL_MS);
  }
  log.info(
    `database: ${describeDatabase(config.databaseUrl)}; ` +
      `password hasher: ${hasher.name}; ` +
      `hourly jobs: ${cron ? "Deno.cron" : "in-process timer"}; ` +
      `deliveries: ${
        cron
          ? "drained after requests and every minute by Deno.cron"
          : "queue loop"
      }; e-mail: ${mailer.transportKind ?? "off"}`,
  );
  const server = Deno.serve(
    {
      port: config.port,
      hostname: config.host,
      onListen: ({ hostname, port }) =>
        log.info(
          `Quando listening on http://${hostname}:${port} (public URL ${config.baseUrl})`,
        ),
    },
    async (req, info) => {
      const response = await app.fetch(req, {
        remoteAddr: info.remoteAddr as Deno.NetAddr,
      });
      if (drainer && federation.hasQueuedWork()) {
        void drainer.drain(AFTER_REQUEST_DRAIN);
      }
      return response;
    },
  );
  // The first run of the jobs starts once the server listens and is never
  // waited for: a feed or a job that fails (or takes the process down) can
  // never keep the instance from answering.
  if (!cron) setTimeout(() => void hourly(), 0);
  const stop = async () => {
    clearInterval(timer);
    await server.shutdown();
    // Let in-flight deliveries settle; pending ones stay queued for next start.
    queueStop.abort();
    await Promise.race([queueDone, new Promise((r) => setTimeout(r, 5000))]);
    await eventBodies.flush();
    eventBodies.close();
    database.close();
    Deno.exit(0);
  };
  onSignal("SIGINT", stop);
  onSignal("SIGTERM", stop);
  await server.finished;
}

/** Reads a line from a terminal without echoing it. */
async function promptHidden(prompt: string): Promise<string> {
  const enc = new TextEncoder();
  await Deno.stdout.write(enc.encode(prompt));
  Deno.stdin.setRaw(true);
  const chars: string[] = [];
  const buf = new Uint8Array(64);
  try {
    outer: while (true) {
      const n = await Deno.stdin.read(buf);
      if (n === null) break;
      for (const ch of new TextDecoder().decode(buf.subarray(0, n))) {
        if (ch === "\r" || ch === "\n") break outer;
        if (ch === "\u0003") throw new Error("cancelled");
        if (ch === "\u007f" || ch === "\b") chars.pop();
        else chars.push(ch);
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
    await Deno.stdout.write(enc.encode("\n"));
  }
  return chars.join("");
}

/** The first line of piped standard input. */
async function readStdinLine(): Promise<string> {
  const text = await new Response(Deno.stdin.readable).text();
  return text.split(/\r?\n/)[0];
}

const terminalIO: CliIO = {
  readPassword: async (prompt) => {
    if (!Deno.stdin.isTerminal()) return await readStdinLine();
    const first = await promptHidden(prompt);
    const again = await promptHidden("Repeat: ");
    if (first !== again) throw new Error("the passwords do not match");
    return first;
  },
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};

/** The media store the configuration names (S3, or the database). */
function mediaStoreOf(config: Config, database: Database): MediaStore {
  return config.s3
    ? createS3MediaStore(config.s3)
    : createDbMediaStore(database.db, systemClock);
}

/** Writes the backup to standard output, line by line, waiting when the pipe is full. */
async function writeBackup(database: Database, media: MediaStore) {
  const writer = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  let buffered = "";
  for await (const line of exportBackup(database.db, media, new Date())) {
    buffered += line + "\n";
    if (buffered.length >= 1 << 16) {
      await writer.write(encoder.encode(buffered));
      buffered = "";
    }
  }
  await writer.write(encoder.encode(buffered));
  await writer.close();
}

/** The lines of a byte stream (UTF-8), without their ends. */
async function* readLines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let rest = "";
  for await (
    const chunk of stream.pipeThrough(new TextDecoderStream())
  ) {
    rest += chunk;
    let end: number;
    while ((end = rest.indexOf("\n")) >= 0) {
      yield rest.slice(0, end).replace(/\r$/, "");
      rest = rest.slice(end + 1);
    }
  }
  if (rest) yield rest;
}

const GANCIO_USAGE =
  "usage: deno task import:gancio --url https://gancio.example [--sqlite gancio.sqlite [--uploads folder]] [--as admin@example.org] [--since YYYY-MM-DD] [--allow-private]";

/** `--name value` pairs of a command line; null when one is unknown or has no value. */
function flags(
  args: string[],
  known: string[],
): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]?.replace(/^--/, "");
    const value = args[i + 1];
    if (!args[i].startsWith("--") || !known.includes(name) || !value) {
      return null;
    }
    out[name] = value;
  }
  return out;
}

/** `deno task import:gancio`: a Gancio instance's events (and, from its database, users and peers). */
async function importFromGancio(config: Config, args: string[]) {
  // The owner runs this by hand: a Gancio on this machine or the LAN is
  // theirs to read, and saying so is enough (the server keeps its rule).
  const allowPrivate = args.includes("--allow-private");
  const opts = flags(args.filter((a) => a !== "--allow-private"), [
    "url",
    "sqlite",
    "uploads",
    "as",
    "since",
  ]);
  if (!opts || (!opts.url && !opts.sqlite)) {
    console.error(GANCIO_USAGE);
    return 2;
  }
  let since = 0;
  if (opts.since) {
    const at = /^\d{4}-\d{2}-\d{2}$/.test(opts.since)
      ? Date.parse(`${opts.since}T00:00:00Z`)
      : NaN;
    if (Number.isNaN(at)) {
      console.error(`--since wants a day (YYYY-MM-DD), not ${opts.since}`);
      return 2;
    }
    since = at / 1000;
  }
  let gancioDb: DatabaseSync | null = null;
  if (opts.sqlite) {
    try {
      gancioDb = new DatabaseSync(opts.sqlite, { readOnly: true });
    } catch (error) {
      console.error(
        `import:gancio: ${opts.sqlite} cannot be opened: ${
          error instanceof Error ? error.message : error
        }`,
      );
      return 1;
    }
  }
  const log = createLogger(config.logLevel);
  const database = await open(config);
  const egress = createPinnedEgress();
  try {
    const hasher = await createPasswordHasher(config.passwordHasher, log);
    // Publications are queued in the database, for the server to deliver.
    const { media, federation } = await assembleInstance(
      database,
      config,
      hasher,
      systemClock,
      log,
      { manualQueue: true, deferPublication: true, egress },
      config.mail?.smtpUrl
        ? createSmtpMailTransport(config.mail.smtpUrl)
        : undefined,
    );
    const settings = await getSettings(database.db);
    const uploads = opts.uploads;
    const query: GancioQuery | undefined = gancioDb
      ? (sql) => {
        try {
          return gancioDb.prepare(sql).all() as Record<string, unknown>[];
        } catch (error) {
          throw new GancioError(
            `${opts.sqlite} cannot be read as a Gancio database: ${
              error instanceof Error ? error.message : error
            }`,
          );
        }
      }
      : undefined;
    const summary = await importGancio({
      ...importDepsOf(
        { db: database.db, clock: systemClock, federation },
        settings,
      ),
      hasher,
      media,
      maxBytes: config.mediaMaxBytes,
    }, {
      url: opts.url,
      database: query,
      readUpload: uploads
        ? async (name, maxBytes) => {
          // Only a plain file name of the folder.
          const path = join(uploads, basename(name));
          const info = await Deno.stat(path);
          if (info.size > maxBytes) {
            throw new Error(`larger than ${maxBytes} bytes`);
          }
          return await Deno.readFile(path);
        }
        : undefined,
      as: opts.as,
      since,
      fetchLimits: {
        allowPrivateAddress: allowPrivate || config.allowPrivateAddresses,
        userAgent: quandoUserAgent(config.baseUrl),
        egress,
      },
    });
    for (const line of summaryLines(summary)) console.error(line);
    return 0;
  } catch (error) {
    if (error instanceof GancioError) {
      console.error(`import:gancio failed: ${error.message}`);
      if (!allowPrivate && error.message.includes(ADDRESS_NOT_ALLOWED)) {
        console.error(
          "  a Gancio on this machine or the local network: add --allow-private",
        );
      }
      return 1;
    }
    throw error;
  } finally {
    gancioDb?.close();
    database.close();
  }
}

async function main(args: string[]): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(Deno.env.toObject());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const [command, ...rest] = args;
  switch (command) {
    case undefined:
    case "serve":
      await serve(config);
      return 0;
    case "migrate": {
      const database = await open(config);
      await migrateDatabase(database);
      database.close();
      console.log("migrations applied");
      return 0;
    }
    case "user": {
      const log = createLogger(config.logLevel);
      const database = await open(config);
      const hasher = await createPasswordHasher(config.passwordHasher, log);
      await prepareInstance(database, config, hasher, systemClock, log);
      try {
        return await runUserCommand(rest, {
          db: database.db,
          hasher,
          clock: systemClock,
          io: terminalIO,
        });
      } finally {
        database.close();
      }
    }
    case "export": {
      const database = await open(config);
      try {
        if (isEmbeddedUrl(config.databaseUrl)) {
          await migrateDatabase(database);
        }
        await writeBackup(database, mediaStoreOf(config, database));
        return 0;
      } finally {
        database.close();
      }
    }
    case "db-backup": {
      const [path] = rest;
      if (!path) {
        console.error("usage: deno task db:backup <copy.db>");
        return 2;
      }
      if (
        !isEmbeddedUrl(config.databaseUrl) || config.databaseUrl === ":memory:"
      ) {
        console.error(
          "db:backup copies a file: database; for Turso use its point-in-time restore, or `deno task export`",
        );
        return 2;
      }
      // SQLite's online backup: a consistent copy while the server runs.
      const connection = new DatabaseSync(
        databaseFilePath(config.databaseUrl),
      );
      try {
        await backupDatabase(connection, path);
        console.error(`copied the database to ${path}`);
        return 0;
      } catch (error) {
        console.error(`db:backup failed: ${error}`);
        return 1;
      } finally {
        connection.close();
      }
    }
    case "import": {
      const [path] = rest;
      if (!path) {
        console.error("usage: deno task import <backup.jsonl | ->");
        return 2;
      }
      const database = await open(config);
      try {
        if (isEmbeddedUrl(config.databaseUrl)) {
          await migrateDatabase(database);
        }
        const input = path === "-"
          ? Deno.stdin.readable
          : (await Deno.open(path)).readable;
        const summary = await importBackup(
          database.db,
          mediaStoreOf(config, database),
          readLines(input),
        );
        const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0);
        console.error(
          `imported ${rows} rows and ${summary.media} media files from ${path}`,
        );
        return 0;
      } catch (error) {
        if (
          error instanceof BackupError || error instanceof Deno.errors.NotFound
        ) {
          console.error(`import failed: ${error.message}`);
          return 1;
        }
        throw error;
      } finally {
        database.close();
      }
    }
    case "import-gancio":
      return await importFromGancio(config, rest);
    default:
      console.error(
        "usage: main.ts [serve | migrate | user <command> | export | import <file> | db-backup <copy.db> | import-gancio --url <url>]",
      );
      return 2;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
