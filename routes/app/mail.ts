/**
 * The admins' e-mail page (`GET /admin/mail`): whether e-mail is on and
 * through what, and the latest messages, failing ones first, with their
 * attempts and last error; `POST /admin/mail/{id}/retry` queues a message
 * given up on again.
 */
import { Hono } from "hono";
import { listMail } from "../../lib/mail/outbox.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { MailView } from "../views/app/mail.tsx";
import type { WebKit } from "./kit.ts";

/** The routes of the admins' e-mail page. */
export function mailRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  app.get("/admin/mail", web.requireSession("admin"), async (c) => {
    const settings = await web.settings(c);
    const messages = await listMail(db);
    const { t } = await web.language(c);
    const current = c.var.session;
    const notice = c.req.query("done") === "retried"
      ? t("mailAdmin.retried")
      : undefined;
    return web.render(c, { current }, async (common) => {
      const format = new Intl.DateTimeFormat(common.lang, {
        dateStyle: "medium",
        timeStyle: "short",
        timeZone: settings.instance_timezone,
      });
      return MailView({
        ...common,
        csrfToken: await web.csrfToken(current),
        transport: deps.mailer?.enabled
          ? (deps.mailer.transportKind === "smtp" ? "SMTP" : "HTTP")
          : null,
        notice,
        messages: messages.map((m) => ({
          ...m,
          status: m.status as "queued" | "retrying" | "sent" | "failed",
          when: format.format(m.updatedAt),
        })),
      });
    });
  });

  app.post(
    "/admin/mail/:id{[A-Za-z0-9_-]{10,40}}/retry",
    web.requirePost("admin", "/admin/mail"),
    async (c) => {
      const queued = await deps.mailer?.retry(c.req.param("id"));
      if (!queued) return c.notFound();
      return c.redirect("/admin/mail?done=retried", 303);
    },
  );

  return app;
}
