/**
 * The message catalogue of the web interface: every string its pages show,
 * in English and Italian (the first Gancio communities are Italian). A page
 * is in one language: the visitor's choice (`?lang=`), else the first of
 * their `Accept-Language` that the catalogue has, else the instance's
 * locale, else English.
 */
import * as adminFederation from "./i18n/admin-federation.ts";
import * as adminUsers from "./i18n/admin-users.ts";
import * as events from "./i18n/events.ts";
import * as moderation from "./i18n/moderation.ts";
import * as session from "./i18n/session.ts";

// Each area of the interface keeps its strings in a file of lib/i18n/: one
// `en` object (the keys) and one object per other language.
const EN = {
  ...session.en,
  ...events.en,
  ...moderation.en,
  ...adminUsers.en,
  ...adminFederation.en,
} as const;

/** A string of the catalogue. */
export type MessageKey = keyof typeof EN;

const IT: Record<MessageKey, string> = {
  ...session.it,
  ...events.it,
  ...moderation.it,
  ...adminUsers.it,
  ...adminFederation.it,
};

const CATALOGUE: Record<string, Partial<Record<MessageKey, string>>> = {
  en: EN,
  it: IT,
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

/** The language among `available` that a tag such as `it-IT` or `en` names, or null. */
function known(
  tag: string | null | undefined,
  available: readonly string[],
): string | null {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return language && available.includes(language) ? language : null;
}

/**
 * The language of a page: the explicit choice, else the first known
 * language of `Accept-Language` (by its q values), else the instance's.
 */
export function pickLanguage(
  choice: string | undefined,
  acceptLanguage: string | undefined,
  instanceLocale: string,
  available: readonly string[] = INTERFACE_LANGUAGES,
): string {
  const chosen = known(choice, available);
  if (chosen) return chosen;
  const ranked = (acceptLanguage ?? "").split(",").map((part, i) => {
    const [tag, ...params] = part.split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(
      Boolean,
    );
    return { tag, q: q === undefined ? 1 : Number(q), i };
  }).filter((l) => l.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const language = known(tag, available);
    if (language) return language;
  }
  return known(instanceLocale, available) ?? "en";
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
