/**
 * The public HTML pages (server-rendered with hono/jsx, no scripts): home,
 * event, tag, place and collection. Mounted after every other route, so the
 * API, feeds (`/event/{slug}.ics`) and federation content negotiation on
 * `/event/{slug}` answer first.
 */
import { Hono } from "hono";
import { randomToken } from "../lib/auth/tokens.ts";
import { unixNow } from "../lib/clock.ts";
import {
  HOME_MAX_PAGE,
  HOME_PAGE_SIZE,
  loadCollectionPage,
  loadEventPage,
  loadHomePage,
  loadPlacePage,
  loadTagPage,
} from "../lib/pages/load.ts";
import { getSettings } from "../lib/settings.ts";
import { embedRoutes } from "./embed.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import { createPublicKit } from "./public/kit.ts";
import { searchRoutes } from "./public/search.ts";
import {
  CollectionView,
  EventView,
  HomeView,
  PlaceView,
  TagView,
} from "./views/pages.tsx";

/** The public pages' routes. */
export function pageRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send, errorPage, notFoundPage } = createPublicKit(deps);
  app.route("/", embedRoutes(deps));
  app.route("/", searchRoutes(deps));

  app.get("/", async (c) => {
    const settings = await getSettings(db);
    const raw = c.req.query("page");
    let page = 1;
    if (raw !== undefined) {
      page = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : NaN;
      if (!(page >= 1 && page <= HOME_MAX_PAGE)) {
        return errorPage(c, settings, 400, (t) => ({
          title: t("public.badPage.title"),
          message: t("public.badPage.text", { max: HOME_MAX_PAGE }),
        }));
      }
    }
    const site = siteOf(c, settings);
    const data = await loadHomePage(
      db,
      unixNow(deps.clock),
      page,
      HOME_PAGE_SIZE,
      { ...site, showRecurrent: settings.recurrent_event_visible },
    );
    const nonce = randomToken(16);
    return send(c, nonce, HomeView({ site, nonce, data }));
  });

  app.get("/event/:slug", async (c) => {
    const settings = await getSettings(db);
    const data = await loadEventPage(
      db,
      c.req.param("slug"),
      unixNow(deps.clock),
    );
    if (!data) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      EventView({ site: siteOf(c, settings), nonce, data }),
    );
  });

  app.get("/tag/:tag", async (c) => {
    const settings = await getSettings(db);
    const listing = await loadTagPage(
      db,
      c.req.param("tag"),
      unixNow(deps.clock),
      settings.recurrent_event_visible,
    );
    if (!listing) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      TagView({ site: siteOf(c, settings), nonce, tag: listing.tag, listing }),
    );
  });

  app.get("/place/:id", async (c) => {
    const settings = await getSettings(db);
    const raw = c.req.param("id");
    const id = /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
    const listing = id === null ? null : await loadPlacePage(
      db,
      id,
      unixNow(deps.clock),
      settings.recurrent_event_visible,
    );
    if (!listing) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      PlaceView({
        site: siteOf(c, settings),
        nonce,
        place: listing.place,
        listing,
      }),
    );
  });

  app.get("/collection/:name", async (c) => {
    const settings = await getSettings(db);
    const listing = await loadCollectionPage(
      db,
      c.req.param("name"),
      unixNow(deps.clock),
      settings.recurrent_event_visible,
    );
    if (!listing) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      CollectionView({
        site: siteOf(c, settings),
        nonce,
        name: listing.name,
        listing,
      }),
    );
  });

  return app;
}
