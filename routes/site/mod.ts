/**
 * The public site (server-rendered with hono/jsx, no scripts): the browse
 * pages (home, calendar, past, tags, places), the embedded list and its
 * script, search, and the event, tag, place and collection pages. Mounted
 * after every other module (routes/mod.ts), so the API, feeds
 * (`/event/{slug}.ics`) and federation content negotiation on
 * `/event/{slug}` answer first. Each page's module declares what the
 * public-read cache may keep of it.
 */
import { Hono } from "hono";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { publicViewer } from "../middleware/viewer.ts";
import { browseModule } from "./browse.ts";
import { embedModule } from "./embed.ts";
import { pagesModule } from "./pages.ts";
import { searchModule } from "./search.ts";

/** The site's modules, in the order they are mounted. */
export const SITE_MODULES: readonly RouteModule[] = [
  browseModule,
  embedModule,
  searchModule,
  pagesModule,
];

/** Every public page. */
export const siteModule: RouteModule = {
  name: "site",
  routes(deps: RouteDeps) {
    const app = new Hono<AppEnv>();
    app.use("*", publicViewer(deps));
    for (const module of SITE_MODULES) app.route("/", module.routes(deps));
    return app;
  },
  cacheable: SITE_MODULES.flatMap((module) => module.cacheable ?? []),
};
