/**
 * The notices the instance mails on its own: invitations, moderators told
 * of submissions waiting (batched: at most one mail per moderator per 15
 * minutes, with the count, each moderator's opt-out on /account), and
 * authors told that their event was confirmed, rejected or messaged.
 * All of it only when e-mail is on; nothing here ever fails a request (a
 * failure to queue is logged).
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { messages, users } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { getSettings, type Settings } from "../settings.ts";
import { findUserById } from "../users.ts";
import { findEvent } from "../events/load.ts";
import { noteLocalEnqueue } from "../federation/store/local-work.ts";
import {
  authorMail,
  type AuthorNews,
  invitationMail,
  mailContextOf,
  submissionsMail,
} from "./messages.ts";
import type { Mailer } from "./outbox.ts";
import type { QueueWork } from "../federation/context-types.ts";

/** What the notices need. */
export interface NoticeDeps {
  database: { db: Db };
  clock: Clock;
  log: Logger;
  config: { baseUrl: string };
  mailer?: Mailer;
}

/** At most one notice of submissions per moderator in this time. */
export const SUBMISSIONS_NOTICE_INTERVAL_MS = 15 * 60 * 1000;

/**
 * Mails an invitation to the invited address; whether it was queued (false
 * when e-mail is off: the admin passes the link on).
 */
export async function sendInvitation(
  deps: NoticeDeps,
  settings: Settings,
  input: { email: string; url: string; role: string; expiresAt: Date },
): Promise<boolean> {
  if (!deps.mailer?.enabled) return false;
  await deps.mailer.queue(
    invitationMail(mailContextOf(settings, deps.config.baseUrl, null), input),
  );
  return true;
}

/** The queue message of a moderator's notice of submissions. */
export interface SubmissionsNoticeMessage {
  type: "quando:mail-submissions";
  user: number;
}

/** Whether a queue message is a notice of submissions. */
export function isSubmissionsNotice(
  message: unknown,
): message is SubmissionsNoticeMessage {
  return (message as SubmissionsNoticeMessage | null)?.type ===
    "quando:mail-submissions";
}

/**
 * After a submission that waits for moderation: each moderator who wants
 * the notice and has none pending gets one queued, due 15 minutes after
 * their last (now, if longer ago). One statement; the pending notice is
 * the queue row of the moderator's ordering key, so submissions meanwhile
 * add nothing but are counted when it is sent.
 */
export async function noteSubmission(deps: NoticeDeps): Promise<void> {
  if (!deps.mailer?.enabled) return;
  const { db } = deps.database;
  const now = deps.clock.now().getTime();
  try {
    await db.run(sql`
      INSERT INTO fedify_queue (message, availableAt, orderingKey, createdAt)
      SELECT json_object('type', 'quando:mail-submissions', 'user', u.id),
        max(${now}, coalesce(u.submissions_notified_at, 0) + ${SUBMISSIONS_NOTICE_INTERVAL_MS}),
        'quando:mail-submissions:' || u.id, ${now}
      FROM users AS u
      WHERE u.role IN ('admin', 'editor') AND u.is_active = 1
        AND u.notify_submissions = 1
        AND NOT EXISTS (
          SELECT 1 FROM fedify_queue AS q
          WHERE q.orderingKey = 'quando:mail-submissions:' || u.id)`);
    noteLocalEnqueue(db, now + SUBMISSIONS_NOTICE_INTERVAL_MS);
  } catch (error) {
    deps.log.error("mail: could not queue the notice of a submission", {
      error: String(error),
    });
  }
}

/**
 * Sends a moderator's notice (the queue's listener calls this): the count
 * of submissions still waiting that came since their last notice; nothing
 * when there are none, or they no longer want it or moderate.
 */
export async function sendSubmissionsNotice(
  deps: NoticeDeps,
  message: SubmissionsNoticeMessage,
): Promise<void> {
  const { db } = deps.database;
  try {
    const user = await findUserById(db, message.user);
    if (
      !user || !user.is_active || !user.notify_submissions ||
      user.role === "user" || !deps.mailer?.enabled
    ) {
      return;
    }
    const since = user.submissions_notified_at ?? 0;
    const [{ waiting }] = await db.all<{ waiting: number }>(sql`
      SELECT count(*) AS waiting FROM events AS e
      WHERE e.is_visible = 0 AND e.apUserApId IS NULL
        AND (e.parentId IS NULL OR EXISTS (
          SELECT 1 FROM events AS p WHERE p.id = e.parentId AND p.is_visible = 1))
        AND e.createdAt > ${since}`);
    if (Number(waiting) === 0) return;
    const settings = await getSettings(db);
    // Noted first: a submission from now on waits for the next notice.
    await db.update(users).set({
      submissions_notified_at: deps.clock.now().getTime(),
    }).where(eq(users.id, user.id));
    await deps.mailer.queue(
      submissionsMail(
        mailContextOf(settings, deps.config.baseUrl, user.language),
        { email: user.email, count: Number(waiting) },
      ),
    );
  } catch (error) {
    deps.log.error("mail: could not send a notice of submissions", {
      user: message.user,
      error: String(error),
    });
  }
}

/**
 * Tells an event's author (a signed-in submitter, not the moderator acting)
 * that it was confirmed, rejected or messaged, with the moderator's
 * message. Call it with the event as it was (a rejection deletes it).
 */
export async function notifyAuthor(
  deps: NoticeDeps,
  input: {
    event: {
      id: number;
      title: string;
      slug: string;
      userId: number | null;
    };
    news: AuthorNews;
    /** Who acted: no mail to oneself. */
    actorId: number;
    message?: string;
  },
): Promise<void> {
  const { event } = input;
  if (
    !deps.mailer?.enabled || event.userId === null ||
    event.userId === input.actorId
  ) {
    return;
  }
  const { db } = deps.database;
  try {
    const author = await findUserById(db, event.userId);
    if (!author || !author.is_active) return;
    const settings = await getSettings(db);
    await deps.mailer.queue(
      authorMail(
        mailContextOf(settings, deps.config.baseUrl, author.language),
        {
          email: author.email,
          news: input.news,
          title: event.title,
          eventPath: `/event/${event.slug}`,
          message: input.message,
        },
      ),
    );
  } catch (error) {
    deps.log.error("mail: could not queue an author's notice", {
      event: event.id,
      error: String(error),
    });
  }
}

/** The latest message moderators let an event's author see (for a rejection's mail). */
export async function latestAuthorMessage(
  db: Db,
  eventId: number,
): Promise<string | undefined> {
  const [row] = await db.select({ message: messages.message }).from(messages)
    .where(
      and(eq(messages.eventId, eventId), eq(messages.is_author_visible, true)),
    ).orderBy(desc(messages.createdAt), desc(messages.id)).limit(1);
  return row?.message;
}

/** What the federation's queue carries for e-mail: the messages, and moderators' notices. */
export function mailQueueWork(
  deps: NoticeDeps & { mailer: Mailer },
): QueueWork[] {
  return [
    { handles: deps.mailer.handles, handle: deps.mailer.deliver },
    {
      handles: isSubmissionsNotice,
      handle: (message: SubmissionsNoticeMessage) =>
        sendSubmissionsNotice(deps, message),
    },
  ];
}

/** An event as a write left it (the fields notices read). */
interface ChangedEvent {
  id: number;
  title: string;
  slug: string;
  userId: number | null;
  is_visible: boolean;
  apUserApId: string | null;
}

/** After an event was created: a submission that waits for moderation is noted. */
export async function afterEventCreated(
  deps: NoticeDeps,
  change: { id: number; after: ChangedEvent[] },
): Promise<void> {
  const event = change.after.find((e) => e.id === change.id);
  if (event && !event.is_visible && event.apUserApId === null) {
    await noteSubmission(deps);
  }
}

/** After an event was shown or hidden: its author is told it was confirmed (by someone else). */
export async function afterEventToggled(
  deps: NoticeDeps,
  change: { id: number; before: ChangedEvent[]; after: ChangedEvent[] },
  actorId: number,
): Promise<void> {
  const before = change.before.find((e) => e.id === change.id);
  const after = change.after.find((e) => e.id === change.id);
  if (before && after && !before.is_visible && after.is_visible) {
    await notifyAuthor(deps, { event: after, news: "confirmed", actorId });
  }
}

/**
 * After a message on an event: its author is told, when the message is
 * for them (author-visible) and written by someone else.
 */
export async function afterEventMessaged(
  deps: NoticeDeps,
  eventId: number,
  message: { message: string; is_author_visible: boolean },
  actorId: number,
): Promise<void> {
  if (!message.is_author_visible || !deps.mailer?.enabled) return;
  const event = await findEvent(deps.database.db, eventId);
  if (!event) return;
  await notifyAuthor(deps, {
    event,
    news: "messaged",
    actorId,
    message: message.message,
  });
}

/**
 * Prepares the author's notice of a rejection, read before the event (and
 * its messages) is deleted: the moderator's message typed with it, else
 * the latest the author may see. The returned function queues it.
 */
export async function rejectionNotice(
  deps: NoticeDeps,
  event: ChangedEvent,
  actorId: number,
  typed: string,
): Promise<() => Promise<void>> {
  const message = typed.trim() ||
    (deps.mailer?.enabled
      ? await latestAuthorMessage(deps.database.db, event.id)
      : undefined);
  return () =>
    notifyAuthor(deps, { event, news: "rejected", actorId, message });
}

/**
 * Prepares, before a delete, the author's notice of a rejection when the
 * event is a submission still waiting (hidden, local); a function that does
 * nothing otherwise, or with e-mail off. Call the result once deleted.
 */
export async function rejectionNoticeIfWaiting(
  deps: NoticeDeps,
  eventId: number,
  actorId: number,
): Promise<() => Promise<void>> {
  if (!deps.mailer?.enabled) return () => Promise.resolve();
  const event = await findEvent(deps.database.db, eventId);
  if (!event || event.is_visible || event.apUserApId !== null) {
    return () => Promise.resolve();
  }
  return await rejectionNotice(deps, event, actorId, "");
}
