/**
 * GET /search: the search page. A valid search whose query string is not in
 * its canonical form (the form sends empty fields, lists in any order) is
 * redirected to it, so that every search has one shareable URL (and one
 * entry in the public-read cache); a search that cannot be done answers 400
 * with the form and each problem next to its field.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import {
  FILTER_MAX_PLACES,
  FILTER_MAX_TAGS,
  FILTER_TAG_MAX_LENGTH,
  type FilterProblemCode,
  filterQuery,
  parseEventFilter,
  withQuery,
} from "../../lib/events/filter.ts";
import {
  loadSearchChoices,
  loadSearchPage,
  SEARCH_EXTRA_PARAMS,
  SEARCH_MAX_PAGE,
  unknownPlaces,
} from "../../lib/pages/search.ts";
import { SEARCH_MAX_TERMS, SEARCH_QUERY_MAX_LENGTH } from "../../lib/search.ts";
import type { Translate } from "../../lib/i18n.ts";
import { canonicalFilterQuery } from "../../lib/events/filter.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { pageNumber } from "../middleware/validation.ts";
import { createPublicKit } from "./kit.ts";
import {
  type SearchProblem,
  SearchView,
  type SearchViewProps,
} from "../views/site/search.tsx";

/** A filter problem in the page's language. */
function problemText(t: Translate, code: FilterProblemCode): string {
  switch (code) {
    case "queryTooLong":
      return t("public.search.problem.queryTooLong", {
        max: SEARCH_QUERY_MAX_LENGTH,
      });
    case "queryTooManyWords":
      return t("public.search.problem.queryTooManyWords", {
        max: SEARCH_MAX_TERMS,
      });
    case "tooManyTags":
      return t("public.search.problem.tooManyTags", { max: FILTER_MAX_TAGS });
    case "tagTooLong":
      return t("public.search.problem.tagTooLong", {
        max: FILTER_TAG_MAX_LENGTH,
      });
    case "tooManyPlaces":
      return t("public.search.problem.tooManyPlaces", {
        max: FILTER_MAX_PLACES,
      });
    default:
      return t(`public.search.problem.${code}`);
  }
}

/** The search page's route. */
export function searchRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send } = createPublicKit(deps);

  // The form's choices are reused under a change marker that sees every
  // write: the embedded database's (a remote one misses other isolates').
  const choicesMarker = () =>
    deps.database.embedded ? deps.database.changeMarker() : null;

  app.get("/search", async (c: Context<AppEnv>) => {
    const settings = await settingsOf(c, db);
    const url = new URL(c.req.url);
    const params = url.searchParams;
    const { filter, problems } = parseEventFilter(params);
    const rawPage = params.get("page") ?? "";
    const page = rawPage === "" ? 1 : pageNumber(rawPage) ?? 0;
    const site = siteOf(c, settings);
    const { t } = site;
    const shown: SearchProblem[] = problems.map((p) => ({
      field: p.field,
      text: problemText(t, p.code),
    }));
    if (!(page >= 1 && page <= SEARCH_MAX_PAGE)) {
      shown.push({
        field: "page",
        text: t("public.search.problem.badPage", { max: SEARCH_MAX_PAGE }),
      });
    }
    const now = unixNow(deps.clock);
    const showRecurrent = settings.recurrent_event_visible;
    const nonce = randomToken(16);
    /** The form again, with what is wrong and no results (400). */
    const problemPage = (
      choices: SearchViewProps["choices"],
      problems: SearchProblem[],
    ) =>
      send(
        c,
        nonce,
        SearchView({
          site,
          nonce,
          filter,
          page: 1,
          result: null,
          choices,
          problems,
        }),
        400,
      );
    if (shown.length > 0) {
      return problemPage(
        await loadSearchChoices(
          db,
          filter,
          now,
          showRecurrent,
          choicesMarker(),
        ),
        shown,
      );
    }

    // One URL per search: the filter's canonical query, then page and language.
    const extras: [string, string][] = [];
    if (page > 1) extras.push(["page", String(page)]);
    const lang = params.get("lang");
    if (lang !== null && SEARCH_EXTRA_PARAMS[1].pattern.test(lang)) {
      extras.push(["lang", lang]);
    }
    const canonical = filterQuery(filter, extras);
    if (url.search.replace(/^\?/, "") !== canonical) {
      return c.redirect(withQuery("/search", canonical), 302);
    }

    const result = await loadSearchPage(db, filter, page, now, {
      ...site,
      showRecurrent,
      changeMarker: choicesMarker(),
    });
    const unknown = unknownPlaces(filter, result);
    if (unknown.length > 0) {
      return problemPage(result, [{
        field: "places",
        text: problemText(t, "unknownPlace"),
      }]);
    }
    return send(
      c,
      nonce,
      SearchView({
        site,
        nonce,
        filter,
        page,
        result,
        choices: result,
        problems: [],
      }),
    );
  });

  return app;
}

/**
 * The search page, one per language; a search is kept only for its
 * canonical query string (lib/events/filter.ts), with the filtered answers:
 * random searches can only push out each other, never the home page.
 */
export const searchModule: RouteModule = {
  name: "search",
  routes: searchRoutes,
  cacheable: [{
    routes: ["/search"],
    paths: [/^\/search$/],
    variant: "language",
    place(_path, query) {
      if (query === "") return "main";
      return canonicalFilterQuery(query, SEARCH_EXTRA_PARAMS) === query
        ? "filtered"
        : null;
    },
  }],
};
