/**
 * The public HTML pages (server-rendered with hono/jsx, no scripts): the
 * browse pages (routes/public/browse.ts: home, calendar, past, tags, places),
 * event, tag, place and collection. Mounted after every other route, so the
 * API, feeds (`/event/{slug}.ics`) and federation content negotiation on
 * `/event/{slug}` answer first.
 */
import { Hono } from "hono";
import { randomToken } from "../lib/auth/tokens.ts";
import { unixNow } from "../lib/clock.ts";
import {
  loadCollectionPage,
  loadEventPage,
  loadPlacePage,
  loadTagPage,
} from "../lib/pages/load.ts";
import { getSettings } from "../lib/settings.ts";
import { embedRoutes } from "./embed.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import { browseRoutes } from "./public/browse.ts";
import { createPublicKit } from "./public/kit.ts";
import { searchRoutes } from "./public/search.ts";
import {
  CollectionView,
  EventView,
  PlaceView,
  TagView,
} from "./views/pages.tsx";

/** The public pages' routes. */
export function pageRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send, notFoundPage } = createPublicKit(deps);
  app.route("/", browseRoutes(deps));
  app.route("/", embedRoutes(deps));
  app.route("/", searchRoutes(deps));

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
