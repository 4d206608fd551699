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
import { PUBLIC_LANGUAGES } from "../lib/i18n.ts";
import { getSettings, type Settings } from "../lib/settings.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import { languageLinks, pageLanguage, remembersChoice } from "./language.ts";
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
  const secure = baseUrl.startsWith("https:");

  /** The instance, and the page's language (remembered when chosen). */
  function siteOf(c: Context<AppEnv>, settings: Settings): SiteInfo {
    const { lang, locale, t } = pageLanguage(
      c,
      settings.instance_locale,
      PUBLIC_LANGUAGES,
      secure,
    );
    return {
      title: settings.instance_title,
      description: settings.instance_description,
      baseUrl,
      locale,
      timezone: settings.instance_timezone,
      t,
      languages: languageLinks(c.req.url, PUBLIC_LANGUAGES, lang),
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
    // The language comes from the query, the cookie or Accept-Language:
    // shared caches must keep each reader's (an event's page also answers
    // ActivityPub clients, by Accept).
    c.header(
      "Vary",
      c.req.path.startsWith("/event/")
        ? "Accept, Accept-Language, Cookie"
        : "Accept-Language, Cookie",
    );
    c.header(
      "Cache-Control",
      status !== 200
        ? "no-store"
        // The answer that remembers a choice is that visitor's own.
        : remembersChoice(c.req.raw)
        ? "private, max-age=60"
        : "public, max-age=60",
    );
    return c.html(body, status);
  }

  function errorPage(
    c: Context<AppEnv>,
    settings: Settings,
    status: 400 | 404,
    words: (t: SiteInfo["t"]) => { title: string; message: string },
  ) {
    const nonce = randomToken(16);
    const site = siteOf(c, settings);
    return send(
      c,
      nonce,
      ErrorView({ site, nonce, path: c.req.path, ...words(site.t) }),
      status,
    );
  }

  const notFoundPage = (c: Context<AppEnv>, settings: Settings) =>
    errorPage(c, settings, 404, (t) => ({
      title: t("public.notFound.title"),
      message: t("public.notFound.text"),
    }));

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
