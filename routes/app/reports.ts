/**
 * Reports:
 * - `GET /events/{id}/report`, `POST /events/{id}/report`: anyone reports a
 *   visible event (a form from this site; the API's rules and rate limit,
 *   lib/reports.ts);
 * - `GET /admin/reports` (`?show=closed`, `?page=`): the moderators' queue;
 *   `POST /admin/reports/{id}` (`action`: dismiss, resolve, hide) closes one,
 *   hiding its event with `hide`.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { ApiError } from "../../lib/errors.ts";
import {
  closeReport,
  isReportReason,
  listReports,
  reportableEvent,
  reportEvent,
} from "../../lib/reports.ts";
import { eventWriteDeps, federateChange } from "../api/event-writes.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { clientAddress } from "../middleware/auth.ts";
import { MessageView } from "../views/app/message.tsx";
import { ReportFormView, ReportsView } from "../views/app/reports.tsx";
import { eventPath } from "../views/site/structured.ts";
import { formText, idOf, pageOf, type PageStatus, type WebKit } from "./kit.ts";

const HOME = "/admin/reports";
const PAGE_SIZE = 20;
const ID = ":id{[1-9][0-9]{0,14}}";

/** The reports' pages. */
export function reportPageRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const noEvent = (c: Context<AppEnv>) =>
    web.render(c, { status: 404 }, (common) =>
      MessageView({
        ...common,
        title: common.t("report.notFound"),
        text: common.t("report.notFound"),
        back: { href: "/", label: common.instanceName },
      }));

  const form = (
    c: Context<AppEnv>,
    id: number,
    event: { title: string; slug: string },
    typed: {
      reason: string;
      text: string;
      errors?: { reason?: string; text?: string };
      error?: string;
    },
    status: PageStatus = 200,
  ) =>
    web.render(c, { status }, (common) =>
      ReportFormView({
        ...common,
        action: `/events/${id}/report`,
        eventTitle: event.title,
        eventHref: eventPath(event.slug),
        reason: typed.reason,
        text: typed.text,
        errors: typed.errors ?? {},
        error: typed.error,
      }));

  app.get(`/events/${ID}/report`, async (c) => {
    const id = idOf(c.req.param("id"))!;
    const event = await reportableEvent(db, id);
    if (!event) return await noEvent(c);
    // No one's report page is worth indexing or keeping.
    c.header("Cache-Control", "no-store");
    return await form(c, id, event, { reason: "", text: "" });
  });

  app.post(`/events/${ID}/report`, web.fromThisSite, async (c) => {
    const id = idOf(c.req.param("id"))!;
    const event = await reportableEvent(db, id);
    if (!event) return await noEvent(c);
    const { t } = await web.language(c);
    const posted = await c.req.parseBody();
    const reason = formText(posted, "reason", 40);
    const text = formText(posted, "text", 4000);
    if (!isReportReason(reason)) {
      return await form(c, id, event, {
        reason,
        text,
        errors: { reason: t("report.badReason") },
      }, 400);
    }
    try {
      await reportEvent(
        { db, clock: deps.clock },
        id,
        { reason, text },
        clientAddress(c, deps.config),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 400) {
        return await form(c, id, event, {
          reason,
          text,
          errors: { text: t("report.badText") },
        }, 400);
      }
      if (error.status === 429) {
        web.passHeaders(c, error);
        return await form(c, id, event, {
          reason,
          text,
          error: t("report.limited"),
        }, 429);
      }
      if (error.status === 404) return await noEvent(c);
      throw error;
    }
    return web.render(c, {}, (common) =>
      MessageView({
        ...common,
        title: common.t("report.thanks"),
        text: common.t("report.thanksText"),
        back: { href: eventPath(event.slug), label: common.t("report.back") },
      }));
  });

  app.get(HOME, web.requireSession("editor"), async (c) => {
    const show = c.req.query("show") === "closed" ? "closed" : "open";
    let page = pageOf(c.req.query("page"));
    let list = await listReports(db, show, page, PAGE_SIZE);
    if (page > 1 && page > list.totalPages) {
      page = Math.max(1, list.totalPages);
      list = await listReports(db, show, page, PAGE_SIZE);
    }
    const settings = await web.settings(c);
    const done = c.req.query("done");
    const current = c.var.session;
    return web.render(c, { current }, async (common) => {
      const { t } = common;
      const format = new Intl.DateTimeFormat(common.lang, {
        dateStyle: "medium",
        timeStyle: "short",
        timeZone: settings.instance_timezone,
      });
      const notice = done === "dismissed" || done === "resolved" ||
          done === "hidden"
        ? t(`reports.done.${done}`)
        : undefined;
      return ReportsView({
        ...common,
        show,
        notice,
        count: list.count,
        csrfToken: await web.csrfToken(current),
        paging: {
          page,
          totalPages: list.totalPages,
          href: (p) =>
            `${HOME}?page=${p}${show === "closed" ? "&show=closed" : ""}`,
        },
        reports: list.data.map((r) => ({
          id: r.id,
          eventTitle: r.event.title,
          eventHref: r.event.is_visible
            ? eventPath(r.event.slug)
            : `/events/${r.event.id}/edit`,
          eventHidden: !r.event.is_visible,
          reason: r.reason,
          text: r.text,
          reported: format.format(new Date(r.createdAt)),
          closed: r.closedAt && r.status !== "open"
            ? t("reports.closedOn", {
              status: t(`reports.status.${r.status}`),
              date: format.format(new Date(r.closedAt)),
            })
            : null,
        })),
      });
    });
  });

  app.post(`${HOME}/${ID}`, web.requirePost("editor", HOME), async (c) => {
    const action = formText(c.var.form, "action", 20);
    if (action !== "dismiss" && action !== "resolve" && action !== "hide") {
      // Only a hand-made post gets here: the page's buttons send one of these.
      return web.render(
        c,
        { current: c.var.session, status: 400 },
        (common) =>
          MessageView({
            ...common,
            title: common.t("reports.title"),
            text: common.t("reports.badAction"),
            back: { href: HOME, label: common.t("reports.title") },
            path: HOME,
          }),
      );
    }
    try {
      const { write } = await closeReport(
        eventWriteDeps(deps, await web.settings(c)),
        c.var.session.user,
        idOf(c.req.param("id"))!,
        {
          status: action === "dismiss" ? "dismissed" : "resolved",
          hideEvent: action === "hide",
        },
      );
      if (write) await federateChange(deps, write);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return web.render(
          c,
          { current: c.var.session, status: 404 },
          (common) =>
            MessageView({
              ...common,
              title: common.t("reports.notFound"),
              text: common.t("reports.notFound"),
              back: { href: HOME, label: common.t("reports.title") },
              path: HOME,
            }),
        );
      }
      throw error;
    }
    const done = action === "dismiss"
      ? "dismissed"
      : action === "resolve"
      ? "resolved"
      : "hidden";
    return c.redirect(`${HOME}?done=${done}`, 303);
  });

  return app;
}
