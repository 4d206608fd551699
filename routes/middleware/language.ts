/**
 * A page's language from its request: `?lang=` (the visitor's choice, then
 * remembered in a cookie), else the cookie, else `Accept-Language`, else the
 * instance's locale (lib/i18n.ts decides among the languages a page offers).
 * One reading of the request serves the pages and the public-read cache's
 * key, so the two can never disagree on a page's language.
 */
import type { Context } from "hono";
import {
  LANGUAGE_NAMES,
  pageLocale,
  pickLanguage,
  requestedLanguage,
  type Translate,
  translator,
} from "../../lib/i18n.ts";
import type { AppEnv } from "../env.ts";

/** The cookie that remembers the language a visitor chose with the switch. */
export const LANGUAGE_COOKIE = "quando_lang";

/** A year: the choice holds until the visitor makes another. */
const COOKIE_MAX_AGE = 365 * 86_400;

/** Requests whose answer already sets the cookie (a handler may ask twice). */
const REMEMBERING = new WeakSet<Request>();

/** The first value of `name` in a URL's query, decoded; undefined when absent. */
function queryValue(url: string, name: string): string | undefined {
  const match = new RegExp(`[?&]${name}=([^&#]*)`).exec(url);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1].replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** The value of the language cookie in a `Cookie` header, if any. */
function cookieValue(cookie: string | null): string | undefined {
  if (!cookie || !cookie.includes(LANGUAGE_COOKIE)) return undefined;
  return /(?:^|;\s*)quando_lang=([A-Za-z-]{1,16})(?:;|$)/.exec(cookie)?.[1];
}

/** What a request says about its language. */
export interface LanguageAsked {
  /** `?lang=`, as given. */
  choice: string | undefined;
  /** The language cookie, as given. */
  remembered: string | undefined;
  /** The language among those offered the request asks for, or null (the instance's decides). */
  requested: string | null;
}

/** What `request` asks for among `available` (cheap: no URL parsing, Accept-Language parsed once per value). */
export function languageAsked(
  request: Request,
  available: readonly string[],
): LanguageAsked {
  const choice = request.url.includes("lang=")
    ? queryValue(request.url, "lang")
    : undefined;
  const remembered = cookieValue(request.headers.get("cookie"));
  return {
    choice,
    remembered,
    requested: requestedLanguage(
      choice,
      request.headers.get("accept-language") ?? undefined,
      available,
      remembered,
    ),
  };
}

/** Whether the answer to `request` sets the language cookie (it is then that visitor's own). */
export function remembersChoice(request: Request): boolean {
  return REMEMBERING.has(request);
}

/** A page's language: its code, the locale its dates are written in, and its translator. */
export interface PageLanguage {
  lang: string;
  locale: string;
  t: Translate;
}

/**
 * The language of the page answering `c` among `available`. When the
 * visitor chose it with `?lang=`, the choice is remembered in a cookie
 * (HttpOnly, SameSite=Lax, a year) for their next pages.
 */
export function pageLanguage(
  c: Context<AppEnv>,
  instanceLocale: string,
  available: readonly string[],
  secure: boolean,
): PageLanguage {
  const asked = languageAsked(c.req.raw, available);
  const lang = asked.requested ??
    pickLanguage(undefined, undefined, instanceLocale, available);
  if (
    asked.choice !== undefined &&
    requestedLanguage(asked.choice, undefined, available) === lang &&
    asked.remembered !== lang && !REMEMBERING.has(c.req.raw)
  ) {
    REMEMBERING.add(c.req.raw);
    const flags = secure ? "; Secure" : "";
    c.header(
      "Set-Cookie",
      `${LANGUAGE_COOKIE}=${lang}; Max-Age=${COOKIE_MAX_AGE}; Path=/; ` +
        `HttpOnly; SameSite=Lax${flags}`,
      { append: true },
    );
  }
  return {
    lang,
    locale: pageLocale(lang, instanceLocale),
    t: translator(lang),
  };
}

/** One entry of the language switch. */
export interface LanguageLink {
  lang: string;
  /** The language's name in itself. */
  name: string;
  /** This page in that language. */
  href: string;
  current: boolean;
}

/** The language switch of the page at `url`: the same page with `?lang=` each language. */
export function languageLinks(
  url: string,
  available: readonly string[],
  current: string,
): LanguageLink[] {
  const here = new URL(url);
  return available.map((lang) => {
    const params = new URLSearchParams(here.search);
    params.set("lang", lang);
    return {
      lang,
      name: LANGUAGE_NAMES[lang] ?? lang,
      href: `${here.pathname}?${params}`,
      current: lang === current,
    };
  });
}
