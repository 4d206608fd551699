/**
 * The message catalogue of the web interface: every string its pages show,
 * in English and Italian (the first Gancio communities are Italian), and the
 * public pages' also in French, Spanish and German. A page is in one
 * language: the visitor's choice (`?lang=`, then the one they chose before),
 * else the first of their `Accept-Language` that the page has, else the
 * instance's locale, else English.
 */
import * as adminFederation from "./i18n/admin-federation.ts";
import * as adminUsers from "./i18n/admin-users.ts";
import * as community from "./i18n/community.ts";
import * as mail from "./i18n/mail.ts";
import * as events from "./i18n/events.ts";
import * as moderation from "./i18n/moderation.ts";
import * as onboarding from "./i18n/onboarding.ts";
import * as publicPages from "./i18n/public.ts";
import * as publicBrowse from "./i18n/public-browse.ts";
import * as publicEmbed from "./i18n/public-embed.ts";
import * as publicEvent from "./i18n/public-event.ts";
import * as publicSearch from "./i18n/public-search.ts";
import * as session from "./i18n/session.ts";
import * as sources from "./i18n/sources.ts";

// Each area of the interface keeps its strings in a file of lib/i18n/: one
// `en` object (the keys) and one object per other language.
const EN = {
  ...session.en,
  ...events.en,
  ...moderation.en,
  ...adminUsers.en,
  ...adminFederation.en,
  ...publicPages.en,
  ...publicEvent.en,
  ...publicEmbed.en,
  ...publicSearch.en,
  ...publicBrowse.en,
  ...onboarding.en,
  ...sources.en,
  ...community.en,
  ...mail.en,
} as const;

/** A string of the catalogue. */
export type MessageKey = keyof typeof EN;

const IT: Record<MessageKey, string> = {
  ...session.it,
  ...events.it,
  ...moderation.it,
  ...adminUsers.it,
  ...adminFederation.it,
  ...publicPages.it,
  ...publicEvent.it,
  ...publicEmbed.it,
  ...publicSearch.it,
  ...publicBrowse.it,
  ...onboarding.it,
  ...sources.it,
  ...community.it,
  ...mail.it,
};

// Complete for the public pages only (PUBLIC_LANGUAGES).
const FR: Partial<Record<MessageKey, string>> = {
  ...publicPages.fr,
  ...publicEvent.fr,
  ...publicEmbed.fr,
  ...publicSearch.fr,
  ...onboarding.fr,
  ...publicBrowse.fr,
};
const ES: Partial<Record<MessageKey, string>> = {
  ...publicPages.es,
  ...publicEvent.es,
  ...publicEmbed.es,
  ...publicSearch.es,
  ...onboarding.es,
  ...publicBrowse.es,
};
const DE: Partial<Record<MessageKey, string>> = {
  ...publicPages.de,
  ...publicEvent.de,
  ...publicEmbed.de,
  ...publicSearch.de,
  ...onboarding.de,
  ...publicBrowse.de,
};

const CATALOGUE: Record<string, Partial<Record<MessageKey, string>>> = {
  en: EN,
  it: IT,
  fr: FR,
  es: ES,
  de: DE,
};

/** The languages the web interface speaks. */
export const LANGUAGES = Object.keys(CATALOGUE);

/** Translates a key into one language, with `{name}` placeholders filled. */
export type Translate = (
  key: MessageKey,
  params?: Record<string, string | number>,
) => string;

/** The languages every page of the signed-in interface is complete in. */
export const INTERFACE_LANGUAGES: readonly string[] = ["en", "it"];

/** The languages the public pages (home, event, tag, place, collection) are complete in. */
export const PUBLIC_LANGUAGES: readonly string[] = [
  "en",
  "it",
  "fr",
  "es",
  "de",
];

/** Each language's name in itself, for the language switch. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: "English",
  it: "Italiano",
  fr: "Français",
  es: "Español",
  de: "Deutsch",
};

/** The language among `available` that a tag such as `it-IT` or `en` names, or null. */
function known(
  tag: string | null | undefined,
  available: readonly string[],
): string | null {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return language && available.includes(language) ? language : null;
}

/** The language tags of an `Accept-Language` value, best first (q > 0). */
function ranked(acceptLanguage: string): string[] {
  return acceptLanguage.split(",").map((part, i) => {
    const [tag, ...params] = part.split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(
      Boolean,
    );
    return { tag, q: q === undefined ? 1 : Number(q), i };
  }).filter((l) => l.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
    .map((l) => l.tag);
}

// Browsers send a handful of distinct values: each is parsed once.
const RANKED = new Map<string, string[]>();

function rankedOnce(acceptLanguage: string): string[] {
  let tags = RANKED.get(acceptLanguage);
  if (!tags) {
    tags = ranked(acceptLanguage.slice(0, 512));
    if (RANKED.size >= 256) RANKED.clear();
    RANKED.set(acceptLanguage, tags);
  }
  return tags;
}

/**
 * The language the request itself asks for among `available`: the explicit
 * choice, else the remembered one (the visitor's earlier choice), else the
 * first known language of `Accept-Language` by its q values; null when it
 * names none (the instance's locale decides).
 */
export function requestedLanguage(
  choice: string | undefined,
  acceptLanguage: string | undefined,
  available: readonly string[] = INTERFACE_LANGUAGES,
  remembered?: string,
): string | null {
  const chosen = known(choice, available) ?? known(remembered, available);
  if (chosen) return chosen;
  if (!acceptLanguage) return null;
  for (const tag of rankedOnce(acceptLanguage)) {
    const language = known(tag, available);
    if (language) return language;
  }
  return null;
}

/**
 * The language of a page: the explicit choice, else the remembered one,
 * else the first known language of `Accept-Language` (by its q values),
 * else the instance's, else English.
 */
export function pickLanguage(
  choice: string | undefined,
  acceptLanguage: string | undefined,
  instanceLocale: string,
  available: readonly string[] = INTERFACE_LANGUAGES,
  remembered?: string,
): string {
  return requestedLanguage(choice, acceptLanguage, available, remembered) ??
    known(instanceLocale, available) ?? "en";
}

/**
 * The locale dates are written in on a page in `language`: the instance's
 * own (`en-GB`, `de-CH`) when it is of that language, else the language.
 */
export function pageLocale(language: string, instanceLocale: string): string {
  return known(instanceLocale, [language]) ? instanceLocale : language;
}

/** The translator of one language. */
export function translator(language: string): Translate {
  const messages = CATALOGUE[language] ?? EN;
  return (key, params = {}) =>
    // A page offers only languages it is complete in; English is the
    // safety net for a key a translation has not caught up with.
    (messages[key] ?? EN[key]).replace(
      /\{(\w+)\}/g,
      (whole, name) => name in params ? String(params[name]) : whole,
    );
}
