/**
 * The editors' list of published events: `GET /admin/events` (`?q=` words,
 * `?when=past`, `?page=`), each with its Edit link (coming back here).
 */
import { Hono } from "hono";
import { unixNow } from "../../lib/clock.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  listPublishedEvents,
  PUBLISHED_MAX_PAGE,
} from "../../lib/events/published.ts";
import type { EventSummary } from "../../lib/events/serialize.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { PublishedView } from "../views/app/published.tsx";
import { whenOf } from "./events.ts";
import type { WebKit } from "./kit.ts";

/** Events per page. */
const PAGE_SIZE = 20;

/** The published events' page. */
export function publishedRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  app.get("/admin/events", web.requireSession("editor"), async (c) => {
    const settings = await web.settings(c);
    const { lang, t } = await web.language(c);
    const query = (c.req.query("q") ?? "").slice(0, 100).trim();
    const when = c.req.query("when") === "past" ? "past" : "upcoming";
    const asked = Number(c.req.query("page") ?? "1");
    const page = Number.isInteger(asked) && asked >= 1
      ? Math.min(asked, PUBLISHED_MAX_PAGE)
      : 1;
    let found: { events: EventSummary[]; more: boolean } = {
      events: [],
      more: false,
    };
    let error: string | undefined;
    try {
      found = await listPublishedEvents(db, {
        now: unixNow(deps.clock),
        when,
        query,
        page,
        max: PAGE_SIZE,
      });
    } catch (problem) {
      // Too many words: said on the page, nothing listed.
      if (!(problem instanceof ApiError) || problem.status !== 400) {
        throw problem;
      }
      error = t("published.tooManyWords");
    }
    const zone = settings.instance_timezone;
    return web.render(
      c,
      { current: c.var.session, status: error ? 400 : 200 },
      (common) =>
        PublishedView({
          ...common,
          query,
          when,
          page,
          hasNext: found.more,
          error,
          events: found.events.map((e) => ({
            id: e.id,
            slug: e.slug,
            title: e.title,
            when: whenOf(e.start_datetime, e.end_datetime, lang, zone),
            place: e.place?.name ?? null,
            cancelled: e.status === "EventCancelled",
          })),
        }),
    );
  });

  return app;
}
