/**
 * The public HTML pages (server-rendered with hono/jsx, no scripts): home,
 * event, tag, place and collection. Mounted after every other route, so the
 * API, feeds (`/event/{slug}.ics`) and federation content negotiation on
 * `/event/{slug}` answer first.
 */
import { Hono } from "hono";
import type { Context } from "hono";
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
import { getSettings, type Settings } from "../lib/settings.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import {
  CollectionView,
  ErrorView,
  EventView,
  HomeView,
  PlaceView,
  TagView,
} from "./views/pages.tsx";
import type { SiteInfo } from "./views/site.tsx";

type PageStatus = 200 | 400 | 404;

/**
 * No scripts at all (JSON-LD is a data block, never executed), styles only
 * from the page's nonce'd element, images from here and https.
 */
function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    "img-src 'self' https: data:; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'";
}

/** The public pages' routes. */
export function pageRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const baseUrl = deps.config.baseUrl;

  function siteOf(settings: Settings): SiteInfo {
    return {
      title: settings.instance_title,
      description: settings.instance_description,
      baseUrl,
      locale: settings.instance_locale,
      timezone: settings.instance_timezone,
    };
  }

  /** Sends a rendered page with the pages' headers. */
  function send(
    c: Context<AppEnv>,
    nonce: string,
    body: ReturnType<typeof HomeView>,
    status: PageStatus = 200,
  ) {
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    c.header(
      "Cache-Control",
      status === 200 ? "public, max-age=60" : "no-store",
    );
    return c.html(body, status);
  }

  function errorPage(
    c: Context<AppEnv>,
    settings: Settings,
    status: 400 | 404,
    title: string,
    message: string,
  ) {
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      ErrorView({
        site: siteOf(settings),
        nonce,
        path: c.req.path,
        title,
        message,
      }),
      status,
    );
  }

  const notFoundPage = (c: Context<AppEnv>, settings: Settings) =>
    errorPage(
      c,
      settings,
      404,
      "Page not found",
      "There is no such page, or what it showed is no longer public.",
    );

  app.get("/", async (c) => {
    const settings = await getSettings(db);
    const raw = c.req.query("page");
    let page = 1;
    if (raw !== undefined) {
      page = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : NaN;
      if (!(page >= 1 && page <= HOME_MAX_PAGE)) {
        return errorPage(
          c,
          settings,
          400,
          "No such page",
          `The page number must be a whole number from 1 to ${HOME_MAX_PAGE}.`,
        );
      }
    }
    const site = siteOf(settings);
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
    // The same URL answers ActivityPub clients (federation layer): caches must keep them apart.
    c.header("Vary", "Accept");
    const settings = await getSettings(db);
    const data = await loadEventPage(
      db,
      c.req.param("slug"),
      unixNow(deps.clock),
    );
    if (!data) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(c, nonce, EventView({ site: siteOf(settings), nonce, data }));
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
      TagView({ site: siteOf(settings), nonce, tag: listing.tag, listing }),
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
        site: siteOf(settings),
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
        site: siteOf(settings),
        nonce,
        name: listing.name,
        listing,
      }),
    );
  });

  return app;
}
