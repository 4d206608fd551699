/**
 * Moderation (editors and admins): `GET /admin`, the queue of events waiting
 * for confirmation, each with a Confirm button
 * (`POST /admin/events/{id}/confirm`).
 */
import { Hono } from "hono";
import { listUnconfirmedEvents } from "../../lib/events/list.ts";
import { toggleEvent } from "../../lib/events/write.ts";
import { getSettings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { QueueView } from "../views/admin.tsx";
import type { WebKit } from "./kit.ts";

/** The moderation queue's routes. */
export function moderationRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = web;

  app.get("/admin", async (c) => {
    const who = await web.signedIn(c, "/admin", web.moderators);
    if (!who.ok) return who.answer;
    const settings = await getSettings(db);
    const queued = await listUnconfirmedEvents(db, 1, 100);
    const { lang, t } = web.language(c, settings);
    // Dates in the page's language, times in the instance's zone.
    const format = new Intl.DateTimeFormat(lang, {
      dateStyle: "full",
      timeStyle: "short",
      timeZone: settings.instance_timezone,
    });
    return web.render(
      c,
      { settings, current: who.current },
      async (common) =>
        QueueView({
          ...common,
          csrfToken: await web.csrfToken(who.current),
          notice: c.req.query("confirmed") ? t("queue.confirmed") : undefined,
          events: queued.map((e) => ({
            id: e.id,
            title: e.title,
            when: format.format(new Date(e.start_datetime * 1000)),
            place: e.place?.name ?? null,
            submitter: e.userId === null
              ? t("queue.anonymous")
              : t("queue.user", { id: e.userId }),
          })),
        }),
    );
  });

  app.post("/admin/events/:id{[1-9][0-9]{0,15}}/confirm", async (c) => {
    const posted = await web.posted(c, "/admin", web.moderators);
    if (!posted.ok) return posted.answer;
    const settings = await getSettings(db);
    const result = await toggleEvent(
      {
        db,
        clock: deps.clock,
        settings,
        publication: deps.federation?.publicationWrite(settings) ?? undefined,
      },
      posted.current.user,
      Number(c.req.param("id")),
      { to: true },
    );
    try {
      await deps.federation?.publishWritten(result);
    } catch (err) {
      deps.log.error("federating an event change failed", {
        event: result.id,
        error: String(err),
      });
    }
    return c.redirect("/admin?confirmed=1", 303);
  });

  return app;
}
