/**
 * The public pages of an event, a tag, a place and a collection
 * (server-rendered with hono/jsx, no scripts). Mounted after every other
 * route (routes/site/mod.ts), so the API, feeds (`/event/{slug}.ics`) and
 * federation content negotiation on `/event/{slug}` answer first. An
 * `/event/{slug}` no event has is looked up among the imported Gancio
 * events' slugs and ids (a 301 to the event it became).
 */
import { type Context, Hono } from "hono";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import { gancioRedirect } from "../../lib/imports/gancio/links.ts";
import {
  FIRST_LISTING_PAGE,
  LISTING_MAX_PAGE,
  LISTING_MAX_PAST_PAGE,
  type ListingPage,
  loadCollectionPage,
  loadEventPage,
  loadPlacePage,
  loadTagPage,
} from "../../lib/pages/load.ts";
import type { Settings } from "../../lib/settings.ts";
import { canEditEvent } from "../../lib/events/access.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { pageNumber } from "../middleware/validation.ts";
import { createPublicKit } from "./kit.ts";
import { EventView } from "../views/site/event.tsx";
import {
  PlaceView,
  PublicCollectionView,
  TagView,
} from "../views/site/listing.tsx";

/**
 * The page of a listing a query asks for: `?page=` of its upcoming events
 * (up to LISTING_MAX_PAGE), or `?past=` of its past ones (up to
 * LISTING_MAX_PAST_PAGE); page 1 of either, or neither, is the first page.
 * An object with the largest page allowed when the value is not one.
 */
function listingPageOf(
  c: Context<AppEnv>,
): ListingPage | { bad: number } {
  const upcoming = c.req.query("page");
  const past = c.req.query("past");
  if (upcoming !== undefined) {
    const page = pageNumber(upcoming, LISTING_MAX_PAGE);
    if (page === null || past !== undefined) return { bad: LISTING_MAX_PAGE };
    return page === 1 ? FIRST_LISTING_PAGE : { part: "upcoming", page };
  }
  if (past !== undefined) {
    const page = pageNumber(past, LISTING_MAX_PAST_PAGE);
    if (page === null) return { bad: LISTING_MAX_PAST_PAGE };
    return page === 1 ? FIRST_LISTING_PAGE : { part: "past", page };
  }
  return FIRST_LISTING_PAGE;
}

/** The event, tag, place and collection pages. */
export function pageRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send, errorPage, notFoundPage } = createPublicKit(deps);

  /** The 400 page of a bad `?page=` or `?past=`. */
  const badPage = (c: Context<AppEnv>, settings: Settings, max: number) =>
    errorPage(c, settings, 400, (t) => ({
      title: t("public.badPage.title"),
      message: t("public.badPage.text", { max }),
    }));

  app.get("/event/:slug", async (c) => {
    const settings = await settingsOf(c, db);
    const data = await loadEventPage(
      db,
      c.req.param("slug"),
      unixNow(deps.clock),
    );
    if (!data) {
      // A Gancio event's URL from before the move: its imported event.
      const moved = await gancioRedirect(db, c.req.param("slug"));
      if (moved) return c.redirect(`/event/${encodeURIComponent(moved)}`, 301);
      return notFoundPage(c, settings);
    }
    const nonce = randomToken(16);
    // Its owner, editors and admins (signed in) see the way to its form.
    const viewer = c.get("viewer");
    const editHref = viewer && data.event.apUserApId === null &&
        canEditEvent(viewer, data.event)
      ? `/events/${data.event.id}/edit?next=${
        encodeURIComponent(new URL(c.req.url).pathname)
      }`
      : null;
    return send(
      c,
      nonce,
      EventView({ site: siteOf(c, settings), nonce, data, editHref }),
    );
  });

  app.get("/tag/:tag", async (c) => {
    const settings = await settingsOf(c, db);
    const at = listingPageOf(c);
    if ("bad" in at) return badPage(c, settings, at.bad);
    const listing = await loadTagPage(
      db,
      c.req.param("tag"),
      unixNow(deps.clock),
      settings.recurrent_event_visible,
      at,
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
    const settings = await settingsOf(c, db);
    const raw = c.req.param("id");
    const id = /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
    const at = listingPageOf(c);
    if ("bad" in at) return badPage(c, settings, at.bad);
    const listing = id === null ? null : await loadPlacePage(
      db,
      id,
      unixNow(deps.clock),
      settings.recurrent_event_visible,
      at,
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
    const settings = await settingsOf(c, db);
    const at = listingPageOf(c);
    if ("bad" in at) return badPage(c, settings, at.bad);
    const listing = await loadCollectionPage(
      db,
      c.req.param("name"),
      unixNow(deps.clock),
      settings.recurrent_event_visible,
      at,
    );
    if (!listing) return notFoundPage(c, settings);
    const nonce = randomToken(16);
    return send(
      c,
      nonce,
      PublicCollectionView({
        site: siteOf(c, settings),
        nonce,
        name: listing.name,
        listing,
      }),
    );
  });

  return app;
}

/**
 * The event, tag, place and collection pages, the same for every reader of
 * one language (an event's .ics file is a feed's, routes/site/feeds.ts).
 */
export const pagesModule: RouteModule = {
  name: "pages",
  routes: pageRoutes,
  cacheable: [{
    routes: ["/event/*", "/tag/*", "/place/*", "/collection/*"],
    paths: [
      /^\/(tag|place|collection)\/[^/]+$/,
      /^\/event\/[^/]+(?<!\.ics)$/,
    ],
    variant: "language",
  }],
};
