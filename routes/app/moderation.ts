/**
 * Moderation (the roles of docs/API.md, as the API's):
 * - editors and admins: `GET /admin`, the queue of events waiting for
 *   confirmation (paged), each with Confirm (`POST /admin/events/{id}/confirm`),
 *   Reject (a confirmation step, `GET`/`POST /admin/events/{id}/reject`: the
 *   submission is deleted), Edit (a link to `/events/{id}/edit`), and its
 *   messages with a form to add one (`POST /admin/events/{id}/messages`);
 * - admins (the API lists resources to admins only): `GET /admin/resources`,
 *   the replies received from the fediverse (search, paged), each with Hide
 *   or Show (`POST /admin/resources/{id}/hide|show`) and Delete (a
 *   confirmation step, `GET`/`POST /admin/resources/{id}/delete`).
 */
import {
  afterEventMessaged,
  afterEventToggled,
  rejectionNotice,
} from "../../lib/mail/notices.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import {
  deleteResource,
  findResource,
  listResources,
  setResourceHidden,
} from "../../lib/curation/resources.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { listUnconfirmedPage } from "../../lib/events/unconfirmed.ts";
import { findEvent } from "../../lib/events/load.ts";
import { addMessage, listMessagesOfEvents } from "../../lib/events/messages.ts";
import { sanitizeDescription } from "../../lib/events/sanitize.ts";
import { descriptionHtml } from "../../lib/pages/description.ts";
import { localImageOf } from "../../lib/media/public.ts";
import { deleteEvent, toggleEvent } from "../../lib/events/write.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { eventWriteDeps, federateChange } from "../api/event-writes.ts";
import { MessageBody } from "../api/events/schemas.ts";
import {
  type MessageDraft,
  QueueView,
  RejectView,
  ResourceDeleteView,
  type ResourcesPlace,
  ResourcesView,
  type ShownResource,
} from "../views/app/moderation.tsx";
import { MessageView } from "../views/app/message.tsx";
import {
  formText,
  idOf,
  pageOf,
  type PageStatus,
  type PostedForm,
  type WebKit,
} from "./kit.ts";

/** Events per page of the queue. */
const QUEUE_PAGE_SIZE = 20;
/** Replies per page of the resources list (the API's default page size). */
const RESOURCES_PAGE_SIZE = 20;
/** The longest search the resources list takes (as the API). */
const MAX_QUERY = 200;

/** The queue's address at a page, with a notice and an anchor. */
function queueHref(page: number, done?: string, anchor?: string): string {
  const params = new URLSearchParams();
  if (done) params.set(done, "1");
  if (page > 1) params.set("page", String(page));
  const query = params.toString();
  return `/admin${query ? `?${query}` : ""}${anchor ? `#${anchor}` : ""}`;
}

/** The resources list's address for a search and page, with a notice. */
function resourcesHref(place: ResourcesPlace, done?: string): string {
  const params = new URLSearchParams();
  if (place.query) params.set("query", place.query);
  if (place.page > 1) params.set("page", String(place.page));
  if (done) params.set("done", done);
  const query = params.toString();
  return `/admin/resources${query ? `?${query}` : ""}`;
}

/** Where a resource action returns to, from its form's hidden fields. */
function placeOf(form: PostedForm): ResourcesPlace {
  return {
    query: formText(form, "query", MAX_QUERY).trim(),
    page: pageOf(formText(form, "page", 10)),
  };
}

/** A link for a remote actor: only an absolute http(s) URL. */
function httpLink(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:"
      ? url.href
      : null;
  } catch {
    return null;
  }
}

/** A reply as the pages show it; its HTML sanitised once more before it is shown. */
function shownResource(
  resource: NonNullable<Awaited<ReturnType<typeof findResource>>>,
  format: Intl.DateTimeFormat,
): ShownResource {
  const data = (resource.data ?? {}) as Record<string, unknown>;
  const actor = resource.APUser;
  const object = (actor?.object ?? {}) as Record<string, unknown>;
  const username = typeof object.preferredUsername === "string"
    ? object.preferredUsername
    : null;
  const name = typeof object.name === "string" && object.name.trim()
    ? object.name.trim().slice(0, 200)
    : null;
  const apId = resource.apUserApId ?? "";
  const handle = username && actor?.instanceDomain
    ? `@${username}@${actor.instanceDomain}`
    : apId;
  const summary = typeof data.summary === "string"
    ? sanitizeDescription(data.summary)
    : "";
  return {
    id: resource.id,
    author: {
      name,
      handle,
      href: httpLink(typeof object.url === "string" ? object.url : apId),
    },
    event: resource.event
      ? {
        title: resource.event.title,
        href: `/event/${encodeURIComponent(resource.event.slug)}`,
      }
      : null,
    when: format.format(new Date(resource.createdAt)),
    contentHtml: sanitizeDescription(
      typeof data.content === "string" ? data.content : "",
    ),
    summaryHtml: summary || null,
    hidden: resource.hidden,
  };
}

/** The moderation pages' routes. */
export function moderationRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  /** Dates in the page's language, times in the instance's zone. */
  const formatter = (lang: string, settings: Settings) =>
    new Intl.DateTimeFormat(lang, {
      dateStyle: "full",
      timeStyle: "short",
      timeZone: settings.instance_timezone,
    });

  /** A page that says what went wrong, with a way back. */
  const problem = (
    c: Context<AppEnv>,
    current: ActiveSession,
    status: PageStatus,
    heading: MessageKey,
    /** A key of the catalogue, or the domain's own sentence. */
    text: { key: MessageKey } | { said: string },
    back: string,
  ) =>
    web.render(c, { current, status }, (common) =>
      MessageView({
        ...common,
        title: common.t(heading),
        text: "key" in text ? common.t(text.key) : text.said,
        back: { href: back, label: common.t("moderation.back") },
      }));

  /**
   * What a refusal of the domain becomes: 404 (unknown id) the not-found
   * page, another 4xx a page with its message; anything else is a fault.
   */
  const refusal = (
    c: Context<AppEnv>,
    current: ActiveSession,
    error: unknown,
    back: string,
  ) => {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    if (error.status === 404) {
      return problem(
        c,
        current,
        404,
        "moderation.notFound.title",
        { key: "moderation.notFound.text" },
        back,
      );
    }
    const status = ([400, 403, 409] as const).find((s) => s === error.status) ??
      400;
    return problem(
      c,
      current,
      status,
      "moderation.refused.title",
      { said: error.message },
      back,
    );
  };

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

  const RESOURCE_NOTICES: Record<string, MessageKey> = {
    hidden: "moderation.resources.hiddenDone",
    shown: "moderation.resources.shownDone",
    deleted: "moderation.resources.deleted",
  };

  app.get("/admin/resources", web.requireSession("admin"), async (c) => {
    const settings = await web.settings(c);
    const { lang, t } = await web.language(c);
    const typed = (c.req.query("query") ?? "").slice(0, 2 * MAX_QUERY).trim();
    const place: ResourcesPlace = {
      query: typed,
      page: pageOf(c.req.query("page")),
    };
    const tooLong = typed.length > MAX_QUERY;
    let list = { data: [] as ShownResource[], count: 0, pages: 1 };
    if (!tooLong) {
      const read = (page: number) =>
        listResources(db, {
          query: typed || undefined,
          page,
          pageSize: RESOURCES_PAGE_SIZE,
        });
      let found = await read(place.page);
      if (place.page > Math.max(1, found.totalPages)) {
        place.page = Math.max(1, found.totalPages);
        found = await read(place.page);
      }
      const format = formatter(lang, settings);
      list = {
        data: found.data.map((r) => shownResource(r, format)),
        count: found.count,
        pages: Math.max(1, found.totalPages),
      };
    }
    const done = RESOURCE_NOTICES[c.req.query("done") ?? ""];
    return web.render(
      c,
      { current: c.var.session, status: tooLong ? 400 : 200 },
      async (common) =>
        ResourcesView({
          ...common,
          csrfToken: await web.csrfToken(c.var.session),
          resources: list.data,
          count: list.count,
          place,
          paging: {
            page: place.page,
            pages: list.pages,
            href: (p) => resourcesHref({ ...place, page: p }),
          },
          queryError: tooLong
            ? t("moderation.resources.error.query")
            : undefined,
          notice: done ? t(done) : undefined,
        }),
    );
  });

  for (const [action, hidden] of [["hide", true], ["show", false]] as const) {
    app.post(
      `/admin/resources/:id/${action}`,
      web.requirePost("admin", "/admin/resources"),
      async (c) => {
        const place = placeOf(c.var.form);
        const id = idOf(c.req.param("id"));
        try {
          if (id === null) throw notFound("Event");
          await setResourceHidden(db, deps.clock, id, hidden);
        } catch (error) {
          return refusal(c, c.var.session, error, resourcesHref(place));
        }
        return c.redirect(
          `${resourcesHref(place, hidden ? "hidden" : "shown")}#resource-${id}`,
          303,
        );
      },
    );
  }

  // Signing in comes back to the list, not to this confirmation.
  app.get(
    "/admin/resources/:id/delete",
    web.requireSession("admin", "/admin/resources"),
    async (c) => {
      const place: ResourcesPlace = {
        query: (c.req.query("query") ?? "").slice(0, MAX_QUERY).trim(),
        page: pageOf(c.req.query("page")),
      };
      const id = idOf(c.req.param("id"));
      const resource = id === null ? null : await findResource(db, id);
      if (!resource) {
        return refusal(
          c,
          c.var.session,
          notFound("Event"),
          resourcesHref(place),
        );
      }
      const settings = await web.settings(c);
      const { lang } = await web.language(c);
      return web.render(
        c,
        { current: c.var.session },
        async (common) =>
          ResourceDeleteView({
            ...common,
            csrfToken: await web.csrfToken(c.var.session),
            resource: shownResource(resource, formatter(lang, settings)),
            place,
            back: resourcesHref(place),
          }),
      );
    },
  );

  app.post(
    "/admin/resources/:id/delete",
    web.requirePost("admin", "/admin/resources"),
    async (c) => {
      const place = placeOf(c.var.form);
      const id = idOf(c.req.param("id"));
      try {
        if (id === null) throw notFound("Event");
        await deleteResource(db, id);
      } catch (error) {
        return refusal(c, c.var.session, error, resourcesHref(place));
      }
      return c.redirect(resourcesHref(place, "deleted"), 303);
    },
  );

  return app;
}
