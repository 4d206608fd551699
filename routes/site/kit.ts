/**
 * What every public page shares: the page's language (routes/middleware/language.ts),
 * the headers (a CSP with the page's nonce, Vary, Cache-Control) and the
 * error pages. Pages are server-rendered, scripts only where a page says so.
 */
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { randomToken } from "../../lib/auth/tokens.ts";
import { PUBLIC_LANGUAGES } from "../../lib/i18n.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  languageLinks,
  pageLanguage,
  remembersChoice,
} from "../middleware/language.ts";
import { ErrorView } from "../views/site/error.tsx";
import type { SiteInfo } from "../views/site/shell.tsx";

/** The statuses a public page answers with. */
export type PublicStatus = 200 | 400 | 404;

/**
 * No scripts at all (JSON-LD is a data block, never executed), styles only
 * from the page's nonce'd element, images from here and https.
 */
function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    "img-src 'self' https: data:; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'";
}

/** Builds the helpers the public pages' route modules share. */
export function createPublicKit(deps: RouteDeps) {
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
      account: {
        role: c.get("viewer")?.role ?? null,
        submit: settings.allow_anon_event,
        register: settings.allow_registration,
      },
    };
  }

  /** Sends a rendered page with the pages' headers. */
  function send(
    c: Context<AppEnv>,
    nonce: string,
    body: JSX.Element,
    status: PublicStatus = 200,
  ) {
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    // The language comes from the query, the cookie or Accept-Language, and
    // a signed-in reader's page is their own: shared caches must keep each
    // reader's (an event's page also answers
    // ActivityPub clients, by Accept).
    c.header(
      "Vary",
      c.req.path.startsWith("/event/")
        ? "Accept, Accept-Language, Cookie"
        : "Accept-Language, Cookie",
    );
    c.header(
      "Cache-Control",
      status !== 200 || c.get("viewer")
        ? "no-store"
        // The answer that remembers a choice is that visitor's own.
        : remembersChoice(c.req.raw)
        ? "private, max-age=60"
        : "public, max-age=60",
    );
    return c.html(body, status);
  }

  /** Renders a page in the visitor's language with a fresh nonce, and sends it. */
  function render(
    c: Context<AppEnv>,
    settings: Settings,
    view: (common: { site: SiteInfo; nonce: string }) => JSX.Element,
    status: PublicStatus = 200,
  ) {
    const nonce = randomToken(16);
    return send(c, nonce, view({ site: siteOf(c, settings), nonce }), status);
  }

  /** An error page (400 or 404) with its title and sentence. */
  function errorPage(
    c: Context<AppEnv>,
    settings: Settings,
    status: 400 | 404,
    words: (t: SiteInfo["t"]) => { title: string; message: string },
  ) {
    return render(
      c,
      settings,
      ({ site, nonce }) =>
        ErrorView({ site, nonce, path: c.req.path, ...words(site.t) }),
      status,
    );
  }

  /** The 404 page. */
  const notFoundPage = (c: Context<AppEnv>, settings: Settings) =>
    errorPage(c, settings, 404, (t) => ({
      title: t("public.notFound.title"),
      message: t("public.notFound.text"),
    }));

  return { siteOf, send, render, errorPage, notFoundPage };
}

/** The helpers of createPublicKit. */
export type PublicKit = ReturnType<typeof createPublicKit>;
