/**
 * The outgoing mail: each message is a `mail_messages` row (its body, its
 * attempts, its last error) and a row of the persistent queue the
 * federation uses (`fedify_queue`, message `{type: "quando:mail", id}`),
 * written together in one batch. A request only writes them: the queue's
 * listener (or drain, on Workers and Deno Deploy) sends, so a slow or broken
 * mail server never holds a request. A failed send is recorded and queued
 * again later (1 minute doubling, capped at an hour, MAIL_MAX_ATTEMPTS in
 * all, about a day); a message given up on stays listed for the admins with
 * its error and its body, and can be sent again from /admin/mail.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fedifyQueue, mailMessages } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { randomToken } from "../auth/tokens.ts";
import { noteLocalEnqueue } from "../federation/store/local-work.ts";
import { isEmailAddress } from "../users.ts";
import type { MailTransport } from "./transport.ts";

/** The queue message of a mail. */
export interface QueuedMailMessage {
  type: "quando:mail";
  id: string;
}

/** Whether a queue message is a mail's. */
export function isQueuedMail(message: unknown): message is QueuedMailMessage {
  return (message as QueuedMailMessage | null)?.type === "quando:mail";
}

/** A message as the messages module writes it, before it is queued. */
export interface ComposedMail {
  /** What it is (password, invitation, submissions…), for the admins' list. */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Further headers (List-Unsubscribe on notifications). */
  headers?: Record<string, string>;
}

/** Sends after the first failure: 1 min, doubling, capped at 1 h; ~1 day in all. */
export const MAIL_MAX_ATTEMPTS = 30;
const FIRST_RETRY_MS = 60_000;
/**
 * Sends one process runs at once: a slow mail server then holds at most
 * this many of the queue's slots, never the deliveries' and inbox work's.
 */
export const MAX_SENDING = 2;
/** When the sends are all taken, a message comes back after this. */
const BUSY_DELAY_MS = 2_000;
const MAX_RETRY_MS = 60 * 60_000;

/** The outgoing mail of an instance; `enabled` is false when no transport is configured. */
export interface Mailer {
  readonly enabled: boolean;
  /** "smtp" or "http" when enabled. */
  readonly transportKind: "smtp" | "http" | null;
  /** Queues a message (nothing at all when mail is off). */
  queue(mail: ComposedMail): Promise<void>;
  /** Whether a queue message is the mailer's to handle. */
  handles(message: unknown): boolean;
  /** Sends a queued message (the queue's listener calls this); never throws. */
  deliver(message: QueuedMailMessage): Promise<void>;
  /** Queues a failed message again, its attempts from zero (an admin's retry). */
  retry(id: string): Promise<boolean>;
}

/** What makes a header unsafe: a line break (header injection) or a NUL. */
const UNSAFE_HEADER = /[\r\n\0]/;

/**
 * Refuses a message whose recipient or headers could split a header:
 * recipients must be one plain address, header names tokens; the subject's
 * line breaks (from titles, names) are folded into spaces first.
 */
export function checkedMail(mail: ComposedMail): ComposedMail {
  const to = mail.to.trim();
  if (!isEmailAddress(to) || /[<>",;:\\]/.test(to)) {
    throw new TypeError("A mail recipient must be one plain address");
  }
  const headers = mail.headers ?? {};
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(name) || UNSAFE_HEADER.test(value)) {
      throw new TypeError("A mail header must be one line");
    }
  }
  const subject = mail.subject.replace(/[\r\n\0\t]+/g, " ").trim().slice(
    0,
    250,
  );
  return { ...mail, to, subject, headers };
}

/** The host of Message-IDs: BASE_URL's. */
function messageHost(baseUrl: string): string {
  return new URL(baseUrl).hostname;
}

/** Builds the mailer over a database and a transport (none: mail is off). */
export function createMailer(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  baseUrl: string;
  from: string;
  transport?: MailTransport;
  /** Attempts before a message is given up on (MAIL_MAX_ATTEMPTS). */
  maxAttempts?: number;
}): Mailer {
  const { db, clock, log, transport } = deps;
  const maxAttempts = deps.maxAttempts ?? MAIL_MAX_ATTEMPTS;
  const host = messageHost(deps.baseUrl);
  /** Sends under way in this process (at most MAX_SENDING). */
  let sending = 0;

  /** The queue row that hands message `id` to a listener at `at` (ms). */
  const queueRow = (id: string, at: number) =>
    db.insert(fedifyQueue).values({
      message: { type: "quando:mail", id } satisfies QueuedMailMessage,
      availableAt: at,
      orderingKey: null,
      createdAt: at,
    });

  return {
    enabled: transport !== undefined,
    transportKind: transport?.kind ?? null,

    async queue(input) {
      if (!transport) return;
      const mail = checkedMail(input);
      const now = clock.now();
      const id = randomToken(16);
      await db.batch([
        db.insert(mailMessages).values({
          id,
          kind: mail.kind,
          recipient: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers ?? {},
          createdAt: now,
          updatedAt: now,
        }),
        queueRow(id, now.getTime()),
      ]);
      noteLocalEnqueue(db);
    },

    handles: isQueuedMail,

    async deliver(message) {
      try {
        const [row] = await db.select().from(mailMessages).where(
          eq(mailMessages.id, message.id),
        );
        // Sent or given up on already (a queue row handled twice).
        if (!row || row.text === null || row.html === null) return;
        if (row.status === "sent" || row.status === "failed") return;
        if (!transport) {
          // Mail was turned off since: it waits for a transport.
          await db.batch([
            db.update(mailMessages).set({
              lastError: "e-mail is off (no SMTP_URL or MAIL_HTTP_URL)",
              updatedAt: clock.now(),
            }).where(eq(mailMessages.id, row.id)),
            queueRow(row.id, clock.now().getTime() + MAX_RETRY_MS),
          ]);
          return;
        }
        if (sending >= MAX_SENDING) {
          // The queue's other slots stay free for deliveries and inbox work:
          // this message comes back in a few seconds instead of waiting here.
          const due = clock.now().getTime() + BUSY_DELAY_MS;
          await queueRow(row.id, due);
          noteLocalEnqueue(db, due);
          // A moment of real time: were the clock behind the queue's (a
          // test's pinned clock), the row would be due at once, and this
          // bounce must not spin without ever letting timers run.
          await new Promise((resolve) => setTimeout(resolve, 20));
          return;
        }
        const attempts = row.attempts + 1;
        sending++;
        try {
          await transport.send({
            from: deps.from,
            to: row.recipient,
            subject: row.subject,
            text: row.text,
            html: row.html,
            messageId: `<${row.id}@${host}>`,
            date: row.createdAt,
            headers: row.headers,
          });
        } catch (error) {
          sending--;
          const now = clock.now();
          const lastError = String((error as Error)?.message ?? error).slice(
            0,
            300,
          );
          const giveUp = attempts >= maxAttempts;
          const delay = Math.min(
            FIRST_RETRY_MS * 2 ** (attempts - 1),
            MAX_RETRY_MS,
          );
          log.warning(
            giveUp ? "mail: giving up on a message" : "mail: send failed",
            { id: row.id, kind: row.kind, attempts, error: lastError },
          );
          const update = db.update(mailMessages).set({
            status: giveUp ? "failed" : "retrying",
            attempts,
            lastError,
            updatedAt: now,
          }).where(eq(mailMessages.id, row.id));
          if (giveUp) {
            await update;
          } else {
            const due = now.getTime() + delay;
            await db.batch([update, queueRow(row.id, due)]);
            noteLocalEnqueue(db, due);
          }
          return;
        }
        sending--;
        const now = clock.now();
        // The body (its links) is not kept once it left; a failed one is, so
        // an admin can send it again.
        await db.update(mailMessages).set({
          status: "sent",
          attempts,
          sentAt: now,
          updatedAt: now,
          text: null,
          html: null,
        }).where(eq(mailMessages.id, row.id));
      } catch (error) {
        // The database failed: the queue row is gone, but the message row
        // says it is not sent; log it (an admin's retry queues it again).
        log.error("mail: could not record a delivery", {
          id: message.id,
          error: String(error),
        });
      }
    },

    async retry(id) {
      const at = clock.now().getTime();
      // The queue row only for a failed message, in the batch that marks it
      // queued again: two retries at once queue it once.
      const [, updated] = await db.batch([
        db.run(sql`
          INSERT INTO fedify_queue (message, availableAt, orderingKey, createdAt)
          SELECT json_object('type', 'quando:mail', 'id', id), ${at}, NULL, ${at}
          FROM mail_messages
          WHERE id = ${id} AND status = 'failed' AND text IS NOT NULL`),
        db.update(mailMessages).set({
          status: "queued",
          attempts: 0,
          updatedAt: new Date(at),
        }).where(
          and(
            eq(mailMessages.id, id),
            eq(mailMessages.status, "failed"),
            sql`${mailMessages.text} is not null`,
          ),
        ).returning({ id: mailMessages.id }),
      ]);
      if (updated.length === 0) return false;
      noteLocalEnqueue(db);
      return true;
    },
  };
}

/** A message as the admins' page lists it (no body). */
export interface MailListing {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  sentAt: Date | null;
}

/** The latest messages, not sent ones first (failing, then waiting), at most `limit`. */
export async function listMail(db: Db, limit = 50): Promise<MailListing[]> {
  return await db.select({
    id: mailMessages.id,
    kind: mailMessages.kind,
    recipient: mailMessages.recipient,
    subject: mailMessages.subject,
    status: mailMessages.status,
    attempts: mailMessages.attempts,
    lastError: mailMessages.lastError,
    createdAt: mailMessages.createdAt,
    updatedAt: mailMessages.updatedAt,
    sentAt: mailMessages.sentAt,
  }).from(mailMessages).orderBy(
    sql`case ${mailMessages.status} when 'failed' then 0 when 'retrying' then 1 when 'queued' then 2 else 3 end`,
    desc(mailMessages.updatedAt),
  ).limit(limit);
}

/** How long settled messages stay listed for the admins: 30 days. */
export const MAIL_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * Forgets messages settled (sent or given up on) more than
 * MAIL_RETENTION_MS ago; returns how many.
 */
export async function purgeOldMail(db: Db, clock: Clock): Promise<number> {
  const before = clock.now().getTime() - MAIL_RETENTION_MS;
  const rows = await db.all<{ id: string }>(sql`
    DELETE FROM mail_messages
    WHERE status IN ('sent', 'failed') AND updatedAt < ${before}
    RETURNING id`);
  return rows.length;
}
