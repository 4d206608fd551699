/**
 * Moderation (the roles of docs/API.md, as the API's):
 * - editors and admins: `GET /admin`, the queue of events waiting for
 *   confirmation (paged), each with Confirm (`POST /admin/events/{id}/confirm`),
 *   Reject (a confirmation step, `GET`/`POST /admin/events/{id}/reject`: the
 *   submission is deleted), Edit (a link to `/events/{id}/edit`), and its
 *   messages with a form to add one (`POST /admin/events/{id}/messages`);
 * - the replies received from the fediverse, for admins, are
 *   routes/app/resources.ts.
 */
import {
  afterEventMessaged,
  afterEventToggled,
  rejectionNotice,
} from "../../lib/mail/notices.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { notFound } from "../../lib/errors.ts";
import { listUnconfirmedPage } from "../../lib/events/unconfirmed.ts";
import { findEvent } from "../../lib/events/load.ts";
import { addMessage, listMessagesOfEvents } from "../../lib/events/messages.ts";
import { sanitizeDescription } from "../../lib/events/sanitize.ts";
import { descriptionHtml } from "../../lib/pages/description.ts";
import { localImageOf } from "../../lib/media/public.ts";
import { deleteEvent, toggleEvent } from "../../lib/events/write.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { eventWriteDeps, federateChange } from "../api/event-writes.ts";
import { MessageBody } from "../api/events/schemas.ts";
import {
  type MessageDraft,
  QueueView,
  RejectView,
} from "../views/app/moderation.tsx";
import { formText, idOf, pageOf, type WebKit } from "./kit.ts";
import { createModerationKit } from "./moderation-kit.ts";

/** Events per page of the queue. */
const QUEUE_PAGE_SIZE = 20;

/** The queue's address at a page, with a notice and an anchor. */
function queueHref(page: number, done?: string, anchor?: string): string {
  const params = new URLSearchParams();
  if (done) params.set(done, "1");
  if (page > 1) params.set("page", String(page));
  const query = params.toString();
  return `/admin${query ? `?${query}` : ""}${anchor ? `#${anchor}` : ""}`;
}

/** The moderation pages' routes. */
export function moderationRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const { formatter, problem, refusal } = createModerationKit(web);

  /** Who submitted an event, and when, in words. */
  const submittedBy = (
    t: Translate,
    format: Intl.DateTimeFormat,
    userId: number | null,
    createdAt: Date,
  ) =>
    t("moderation.submittedBy", {
      who: userId === null
        ? t("moderation.anonymous")
        : t("moderation.user", { id: userId }),
      when: format.format(createdAt),
    });

  /** The queue at a page (the last one when past it), with a notice or a failed message. */
  const queuePage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    wanted: number,
    extras: { notice?: MessageKey; draft?: MessageDraft } = {},
  ) => {
    const settings = await web.settings(c);
    let page = wanted;
    let queued = await listUnconfirmedPage(db, page, QUEUE_PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(queued.count / QUEUE_PAGE_SIZE));
    if (page > pages) {
      page = pages;
      queued = await listUnconfirmedPage(db, page, QUEUE_PAGE_SIZE);
    }
    const messages = await listMessagesOfEvents(
      db,
      current.user,
      queued.events.map((e) => e.id),
    );
    const { lang, t } = await web.language(c);
    const format = formatter(lang, settings);
    return web.render(
      c,
      { current, status: extras.draft ? 400 : 200 },
      async (common) =>
        QueueView({
          ...common,
          csrfToken: await web.csrfToken(current),
          admin: current.user.role === "admin",
          notice: extras.notice ? t(extras.notice) : undefined,
          draft: extras.draft,
          count: queued.count,
          paging: { page, pages, href: (p) => queueHref(p) },
          events: queued.events.map((e) => ({
            id: e.id,
            title: e.title,
            when: format.format(new Date(e.start_datetime * 1000)),
            place: e.place?.name ?? null,
            // Sanitised once more before it is shown, as the replies are.
            descriptionHtml: descriptionHtml(
              sanitizeDescription(e.description),
            ),
            tags: e.tags,
            image: localImageOf(e.media[0]),
            preview: `/admin/events/${e.id}/preview`,
            submitted: submittedBy(t, format, e.userId, new Date(e.createdAt)),
            hasAuthor: e.userId !== null,
            messages: (messages.get(e.id) ?? []).map((m) => ({
              id: m.id,
              text: m.message,
              author: m.author,
              when: format.format(new Date(m.createdAt)),
              authorVisible: m.is_author_visible,
            })),
          })),
        }),
    );
  };

  const NOTICES: Record<string, MessageKey> = {
    confirmed: "moderation.confirmed",
    rejected: "moderation.rejected",
    messaged: "moderation.messaged",
  };

  app.get("/admin", web.requireSession("editor"), async (c) => {
    const done = Object.keys(NOTICES).find((name) => c.req.query(name));
    return await queuePage(c, c.var.session, pageOf(c.req.query("page")), {
      notice: done ? NOTICES[done] : undefined,
    });
  });

  app.post(
    "/admin/events/:id/confirm",
    web.requirePost("editor", "/admin"),
    async (c) => {
      const page = pageOf(formText(c.var.form, "page", 10));
      const id = idOf(c.req.param("id"));
      if (id === null) {
        return refusal(c, c.var.session, notFound("Event"), queueHref(page));
      }
      try {
        const settings = await web.settings(c);
        const result = await toggleEvent(
          eventWriteDeps(deps, settings),
          c.var.session.user,
          id,
          { to: true },
        );
        await federateChange(deps, result);
        await afterEventToggled(deps, result, c.var.session.user.id);
      } catch (error) {
        return refusal(c, c.var.session, error, queueHref(page));
      }
      return c.redirect(queueHref(page, "confirmed"), 303);
    },
  );

  /**
   * The event a rejection is about, when it may be rejected: a local event
   * still waiting (hidden). Otherwise the page to answer instead.
   */
  const rejectable = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    rawId: string,
    page: number,
  ) => {
    const id = idOf(rawId);
    const event = id === null ? undefined : await findEvent(db, id);
    if (!event) {
      return {
        answer: await refusal(c, current, notFound("Event"), queueHref(page)),
      };
    }
    if (event.is_visible || event.apUserApId !== null) {
      return {
        answer: await problem(
          c,
          current,
          409,
          "moderation.notWaiting.title",
          { key: "moderation.notWaiting.text" },
          queueHref(page),
        ),
      };
    }
    return { event };
  };

  // Signing in comes back to the queue, not to this confirmation.
  app.get(
    "/admin/events/:id/reject",
    web.requireSession("editor", "/admin"),
    async (c) => {
      const page = pageOf(c.req.query("page"));
      const found = await rejectable(c, c.var.session, c.req.param("id"), page);
      if (!found.event) return found.answer;
      const { event } = found;
      const settings = await web.settings(c);
      const { lang, t } = await web.language(c);
      const format = formatter(lang, settings);
      return web.render(
        c,
        { current: c.var.session },
        async (common) =>
          RejectView({
            ...common,
            csrfToken: await web.csrfToken(c.var.session),
            event: {
              id: event.id,
              title: event.title,
              when: format.format(new Date(event.start_datetime * 1000)),
              submitted: submittedBy(t, format, event.userId, event.createdAt),
            },
            series: event.recurrent !== null && event.parentId === null,
            page,
            hasAuthor: event.userId !== null && deps.mailer?.enabled === true,
          }),
      );
    },
  );

  app.post(
    "/admin/events/:id/reject",
    web.requirePost("editor", "/admin"),
    async (c) => {
      const page = pageOf(formText(c.var.form, "page", 10));
      const found = await rejectable(
        c,
        c.var.session,
        c.req.param("id"),
        page,
      );
      if (!found.event) return found.answer;
      try {
        const settings = await web.settings(c);
        const notice = await rejectionNotice(
          deps,
          found.event,
          c.var.session.user.id,
          formText(c.var.form, "message", 5000),
        );
        const result = await deleteEvent(
          eventWriteDeps(deps, settings),
          c.var.session.user,
          found.event.id,
        );
        await federateChange(deps, result);
        await notice();
      } catch (error) {
        return refusal(c, c.var.session, error, queueHref(page));
      }
      return c.redirect(queueHref(page, "rejected"), 303);
    },
  );

  app.post(
    "/admin/events/:id/messages",
    web.requirePost("editor", "/admin"),
    async (c) => {
      const { form, session: current } = c.var;
      const page = pageOf(formText(form, "page", 10));
      const id = idOf(c.req.param("id"));
      if (id === null || !await findEvent(db, id)) {
        return refusal(c, current, notFound("Event"), queueHref(page));
      }
      // What the form sent, kept whole to show it again.
      // Browsers send a textarea's line breaks as CRLF; the API's are LF.
      const typed = formText(form, "message", 20_000).replace(/\r\n?/g, "\n");
      const authorVisible = ["true", "on"].includes(
        formText(form, "is_author_visible", 10),
      );
      // The API's own rules for a message (routes/api/events/schemas.ts).
      const parsed = MessageBody.safeParse({
        message: typed,
        is_author_visible: authorVisible,
      });
      if (!parsed.success) {
        const { t } = await web.language(c);
        return await queuePage(c, current, page, {
          draft: {
            eventId: id,
            message: typed,
            authorVisible,
            error: typed.trim() === ""
              ? t("moderation.error.messageEmpty")
              : t("moderation.error.messageLong"),
          },
        });
      }
      try {
        const message = await addMessage(
          db,
          deps.clock,
          current.user,
          id,
          parsed.data,
        );
        await afterEventMessaged(deps, id, message, current.user.id);
      } catch (error) {
        return refusal(c, current, error, queueHref(page));
      }
      return c.redirect(queueHref(page, "messaged", `event-${id}`), 303);
    },
  );

  // --- resources (admins, as the API's list) ---

  return app;
}
