/**
 * Lists of this instance's events on other websites:
 * - `GET /embed.js`: the `<quando-events>` custom element (one script, any
 *   origin may load it; routes/site/embed-script.ts);
 * - `GET /embed`: the same list as a page any site may frame (no script);
 * - `GET /embed/new`: the page that writes both snippets, with a preview.
 * Options (`tags`, `places`, `max`, `theme`, `lang`): lib/embed/options.ts.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { randomToken } from "../../lib/auth/tokens.ts";
import { unixNow } from "../../lib/clock.ts";
import {
  canonicalEmbedQuery,
  EMBED_MAX_LIMIT,
  EMBED_MAX_PLACES,
  EMBED_MAX_TAGS,
  type EmbedField,
  embedPageQuery,
  embedSnippets,
  parseEmbedOptions,
} from "../../lib/embed/options.ts";
import { searchPlaces } from "../../lib/events/catalog.ts";
import { searchEvents } from "../../lib/events/search.ts";
import { notModified } from "../../lib/feeds/conditional.ts";
import {
  type MessageKey,
  pageLocale,
  pickLanguage,
  PUBLIC_LANGUAGES,
  requestedLanguage,
  translator,
} from "../../lib/i18n.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import { languageAsked } from "../middleware/language.ts";
import { buildEmbedScript, type EmbedScript } from "./embed-script.ts";
import { createPublicKit } from "./kit.ts";
import { EmbedFrameView, EmbedNewView } from "../views/site/embed.tsx";
import type { SiteInfo } from "../views/site/shell.tsx";

/** How many places `/embed/new` offers to choose from (by name). */
const PLACES_OFFERED = 100;

/** The form's label of each option, for the 400 page. */
const FIELD_LABELS: Record<EmbedField, MessageKey> = {
  tags: "public.embed.new.tags",
  places: "public.embed.new.places",
  max: "public.embed.new.max",
  theme: "public.embed.new.theme",
  lang: "public.embed.new.lang",
};

/**
 * The framed list's policy: its own style only, no script, no form, and any
 * site may frame it (security-headers.ts then leaves X-Frame-Options out).
 */
function framePolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; ` +
    "form-action 'none'; frame-ancestors *; base-uri 'none'";
}

/**
 * The snippets page's policy: the public pages' one, plus its Copy script
 * and its preview (this instance's `/embed`) in a frame.
 */
function newPagePolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    `script-src 'nonce-${nonce}'; frame-src 'self'; ` +
    "img-src 'self' https: data:; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'";
}

export function embedRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { siteOf, send, errorPage } = createPublicKit(deps);
  const baseUrl = deps.config.baseUrl;

  /** The 400 page naming the option that is not valid. */
  const badOptions = (
    c: Context<AppEnv>,
    settings: Settings,
    field: EmbedField,
  ) =>
    errorPage(c, settings, 400, (t) => ({
      title: t("public.embed.bad.title"),
      message: t("public.embed.bad.text", {
        field: t(FIELD_LABELS[field]),
        tags: EMBED_MAX_TAGS,
        places: EMBED_MAX_PLACES,
        max: EMBED_MAX_LIMIT,
      }),
    }));

  let script: Promise<EmbedScript> | undefined;
  app.get("/embed.js", async (c) => {
    script ??= buildEmbedScript(baseUrl);
    const { body, etag } = await script;
    const headers = {
      "Content-Type": "text/javascript; charset=utf-8",
      // A day fresh, then revalidated by its ETag (a new version of the
      // instance changes it); the snippet's URL stays the same.
      "Cache-Control": "public, max-age=86400, stale-while-revalidate=604800",
      "ETag": etag,
      "Access-Control-Allow-Origin": "*",
    };
    const ifNoneMatch = c.req.header("if-none-match");
    if (ifNoneMatch && notModified({ ifNoneMatch }, etag, new Date(0))) {
      return c.body(null, 304, headers);
    }
    return c.body(body, 200, headers);
  });

  app.get("/embed", async (c) => {
    const settings = await settingsOf(c, db);
    const parsed = parseEmbedOptions(new URL(c.req.url).searchParams);
    if (!parsed.ok) return badOptions(c, settings, parsed.field);
    const { options } = parsed;
    // The language `lang` (then the visitor's) asks for, as the cache keys
    // it; never remembered in a cookie: this page lives in other sites.
    const lang = languageAsked(c.req.raw, PUBLIC_LANGUAGES).requested ??
      pickLanguage(
        undefined,
        undefined,
        settings.instance_locale,
        PUBLIC_LANGUAGES,
      );
    const site: SiteInfo = {
      title: settings.instance_title,
      description: settings.instance_description,
      baseUrl,
      locale: pageLocale(lang, settings.instance_locale),
      timezone: settings.instance_timezone,
      t: translator(lang),
      languages: [],
    };
    const events = await searchEvents(db, {
      start: unixNow(deps.clock),
      tags: options.tags,
      places: options.places,
      showRecurrent: settings.recurrent_event_visible,
      page: 1,
      max: options.max,
    });
    const nonce = randomToken(16);
    c.header("Content-Security-Policy", framePolicy(nonce));
    c.header("Vary", "Accept-Language, Cookie");
    c.header("Cache-Control", "public, max-age=60");
    return c.html(
      EmbedFrameView({ site, nonce, theme: options.theme, events }),
    );
  });

  app.get("/embed/new", async (c) => {
    const settings = await settingsOf(c, db);
    const query = new URL(c.req.url).searchParams;
    // The form's language field is `language`: `lang` is the page's own.
    const parsed = parseEmbedOptions({
      getAll: (name) => query.getAll(name === "lang" ? "language" : name),
    });
    if (!parsed.ok) return badOptions(c, settings, parsed.field);
    const { options } = parsed;
    const site = siteOf(c, settings);
    const chosen = requestedLanguage(
      options.lang ?? undefined,
      undefined,
      PUBLIC_LANGUAGES,
    );
    const frameTitle = (chosen ? translator(chosen) : site.t)(
      "public.embed.frameTitle",
      { site: settings.instance_title },
    );
    const places = await searchPlaces(db, "", PLACES_OFFERED);
    const nonce = randomToken(16);
    const res = await send(
      c,
      nonce,
      EmbedNewView({
        site,
        nonce,
        options,
        preview: `/embed?${embedPageQuery(options)}`,
        frameTitle,
        places: places.map((p) => ({ id: p.id, name: p.name })),
        snippets: embedSnippets(baseUrl, options, frameTitle),
        canonical: `${baseUrl}/embed/new`,
      }),
    );
    res.headers.set("Content-Security-Policy", newPagePolicy(nonce));
    // Its script runs by the page's nonce: a copy kept and replayed by any
    // cache would hand the same nonce to every reader.
    res.headers.set("Cache-Control", "no-store");
    return res;
  });

  return app;
}

/**
 * The key of an embedded list (`/embed`, framed by other sites: each of
 * their visitors asks for it): its options in one canonical order, so the
 * same list asked with its tags in another order or case is one entry;
 * null for options that are not valid (a 400, never kept).
 */
function embedKey(target: string): string | null {
  const query = target.indexOf("?");
  const parsed = parseEmbedOptions(
    new URLSearchParams(query === -1 ? "" : target.slice(query + 1)),
  );
  return parsed.ok
    ? `/embed?${canonicalEmbedQuery(parsed.options, false)}`
    : null;
}

/** The embedded list, one per set of options and language, kept with the filtered answers. */
export const embedModule: RouteModule = {
  name: "embed",
  routes: embedRoutes,
  cacheable: [{
    routes: ["/embed"],
    paths: [/^\/embed$/],
    variant: "language",
    key: embedKey,
  }],
};
