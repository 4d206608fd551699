/**
 * The browse pages: the home page (upcoming events by day, each series
 * once), the month calendar and its days, past events, and the indexes of
 * tags and places. HTTP only: what they show comes from lib/pages/browse.ts.
 *
 * - `GET /` (`?page=`), `GET /past` (`?page=`), `GET /tags`, `GET /places` (`?page=`)
 * - `GET /about`: the instance's description and its fediverse address
 * - `GET /calendar` -> 302 to the current month (instance time zone)
 * - `GET /calendar/YYYY-MM`, `GET /calendar/YYYY-MM-DD` (`?page=`)
 *
 * Bad page numbers, months and days answer a 400 page.
 */
import { type Context, Hono } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { Db } from "../../db/client.ts";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import {
  DAY_MAX_PAGE,
  HOME_MAX_PAGE,
  INDEX_MAX_PAGE,
  loadDayPage,
  loadHomeEntries,
  loadMonthCounts,
  loadPastPage,
  loadPlaceIndex,
  loadTagIndex,
  PAST_MAX_PAGE,
} from "../../lib/pages/browse.ts";
import {
  dayOf,
  FIRST_YEAR,
  LAST_YEAR,
  monthKey,
  parseDay,
  parseMonth,
} from "../../lib/pages/calendar.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { pageNumber } from "../middleware/validation.ts";
import {
  HomeView,
  PastView,
  PlacesView,
  TagsView,
} from "../views/site/browse.tsx";
import { DayView, MonthView } from "../views/site/calendar.tsx";
import { AboutView } from "../views/site/about.tsx";
import type { SiteInfo } from "../views/site/shell.tsx";
import { createPublicKit } from "./kit.ts";

/** The browse pages' routes. */
export function browseRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send, render, errorPage } = createPublicKit(deps);
  const now = () => unixNow(deps.clock);

  /** The page number of the request (1 without `?page=`), or the 400 page's answer. */
  function pageParam(c: Context<AppEnv>, settings: Settings, max: number) {
    const raw = c.req.query("page");
    const page = raw === undefined ? 1 : pageNumber(raw, max);
    if (page !== null) return { page };
    return {
      answer: errorPage(c, settings, 400, (t) => ({
        title: t("public.badPage.title"),
        message: t("public.badPage.text", { max }),
      })),
    };
  }

  app.get("/", async (c) => {
    const settings = await settingsOf(c, db);
    const { page, answer } = pageParam(c, settings, HOME_MAX_PAGE);
    if (answer) return answer;
    const site = siteOf(c, settings);
    const at = now();
    const data = await loadHomeEntries(db, at, page, {
      ...site,
      showRecurrent: settings.recurrent_event_visible,
    });
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      HomeView({
        site,
        nonce,
        data,
        submit: {
          anonymous: settings.allow_anon_event,
          registration: settings.allow_registration,
        },
      }),
    );
  });

  /**
   * A paged list (past events, tags, places): the `?page=` asked for,
   * loaded with the instance's choice on series and rendered by `view`.
   */
  function pagedList<Data>(
    max: number,
    load: (
      db: Db,
      now: number,
      page: number,
      showRecurrent: boolean,
    ) => Promise<Data>,
    view: (props: { site: SiteInfo; nonce: string; data: Data }) => JSX.Element,
  ) {
    return async (c: Context<AppEnv>) => {
      const settings = await settingsOf(c, db);
      const { page, answer } = pageParam(c, settings, max);
      if (answer) return answer;
      const data = await load(
        db,
        now(),
        page,
        settings.recurrent_event_visible,
      );
      return render(
        c,
        settings,
        ({ site, nonce }) => view({ site, nonce, data }),
      );
    };
  }

  app.get("/about", async (c) => {
    const settings = await settingsOf(c, db);
    const host = new URL(deps.config.baseUrl).host;
    const handle = settings.enable_federation
      ? `@${settings.instance_actor}@${host}`
      : null;
    return render(c, settings, (common) => AboutView({ ...common, handle }));
  });

  app.get("/past", pagedList(PAST_MAX_PAGE, loadPastPage, PastView));
  app.get("/tags", pagedList(INDEX_MAX_PAGE, loadTagIndex, TagsView));
  app.get("/places", pagedList(INDEX_MAX_PAGE, loadPlaceIndex, PlacesView));

  // The current month has one address: a redirect keeps each month's page
  // one cache entry, whatever day it is asked on.
  app.get("/calendar", async (c) => {
    const settings = await settingsOf(c, db);
    const today = dayOf(now(), settings.instance_timezone);
    const query = new URL(c.req.url).search;
    c.header("Cache-Control", "no-store");
    return c.redirect(
      `/calendar/${monthKey(today.year, today.month)}${query}`,
      302,
    );
  });

  app.get("/calendar/:when", async (c) => {
    const settings = await settingsOf(c, db);
    const when = c.req.param("when");
    const range = {
      first: String(FIRST_YEAR),
      last: String(LAST_YEAR),
    };
    const today = dayOf(now(), settings.instance_timezone);
    const options = {
      timezone: settings.instance_timezone,
      showRecurrent: settings.recurrent_event_visible,
    };
    // A day: YYYY-MM-DD (anything with a second dash is meant as one).
    if (when.split("-").length > 2) {
      const day = parseDay(when);
      if (!day) {
        return errorPage(c, settings, 400, (t) => ({
          title: t("public.browse.day.badDay.title"),
          message: t("public.browse.day.badDay.text", {
            example: "2026-06-21",
            ...range,
          }),
        }));
      }
      const { page, answer } = pageParam(c, settings, DAY_MAX_PAGE);
      if (answer) return answer;
      const data = await loadDayPage(db, day, page, options);
      return render(
        c,
        settings,
        ({ site, nonce }) => DayView({ site, nonce, day, data }),
      );
    }
    const month = parseMonth(when);
    if (!month) {
      return errorPage(c, settings, 400, (t) => ({
        title: t("public.browse.calendar.badMonth.title"),
        message: t("public.browse.calendar.badMonth.text", {
          example: "2026-06",
          ...range,
        }),
      }));
    }
    const data = await loadMonthCounts(db, month.year, month.month, options);
    return render(
      c,
      settings,
      ({ site, nonce }) => MonthView({ site, nonce, data, today }),
    );
  });

  return app;
}

/** The browse pages, the same for every reader of one language. */
export const browseModule: RouteModule = {
  name: "browse",
  routes: browseRoutes,
  cacheable: [{
    routes: ["/", "/about", "/past", "/tags", "/places", "/calendar/*"],
    paths: [/^\/$/, /^\/(about|past|tags|places)$/, /^\/calendar\/[^/]+$/],
    variant: "language",
  }],
};
