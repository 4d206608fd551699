/**
 * A moderator's preview of an event waiting for confirmation:
 * `GET /admin/events/{id}/preview` (editors and admins) shows its public
 * page as visitors will see it once confirmed, with a notice that it is not
 * public yet and its Edit link. Never cached, never indexed.
 */
import { Hono } from "hono";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import { findEvent } from "../../lib/events/load.ts";
import { loadEventPage } from "../../lib/pages/load.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { createPublicKit } from "../site/kit.ts";
import { EventView } from "../views/site/event.tsx";
import { idOf, type WebKit } from "./kit.ts";

/** The public pages' policy: no scripts, styles by nonce, images from here and https. */
function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    "img-src 'self' https: data:; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'";
}

/** The preview's route. */
export function previewRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf } = createPublicKit(deps);

  app.get(
    "/admin/events/:id/preview",
    web.requireSession("editor"),
    async (c) => {
      const settings = await web.settings(c);
      const { t } = await web.language(c);
      const id = idOf(c.req.param("id"));
      const row = id === null ? null : await findEvent(db, id);
      // Local events only: a remote one is its own server's.
      const data = row && row.apUserApId === null
        ? await loadEventPage(db, row.slug, unixNow(deps.clock), {
          hidden: true,
        })
        : null;
      c.header("Cache-Control", "no-store");
      c.header("X-Robots-Tag", "noindex");
      if (!data) return c.text(t("events.notFound"), 404);
      // The header shows the moderator's own pages.
      c.set("viewer", c.var.session.user);
      const nonce = randomToken(16);
      c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
      return c.html(
        EventView({
          site: siteOf(c, settings),
          nonce,
          data,
          editHref: `/events/${data.event.id}/edit?next=${
            encodeURIComponent("/admin")
          }`,
          previewNotice: data.event.is_visible
            ? undefined
            : t("moderation.previewNotice"),
        }),
      );
    },
  );

  return app;
}
