/**
 * The options of an embedded list of events (the `<quando-events>` element
 * and the `/embed` page): which tags and places, how many events, which
 * theme and language. Read from a query, written back in one canonical
 * order (the public-read cache's key), and turned into the two snippets a
 * website owner pastes. Pure: no database, no HTTP.
 */
import { cleanTag, normalizeTag } from "../events/tags.ts";

/** Events an embedded list shows by default, and at most. */
export const EMBED_MAX_DEFAULT = 10;
export const EMBED_MAX_LIMIT = 50;
/** How many tags and places one embedded list may filter by. */
export const EMBED_MAX_TAGS = 10;
export const EMBED_MAX_PLACES = 10;
/** The longest tag (as the event API accepts them). */
export const EMBED_TAG_LENGTH = 100;

export const EMBED_THEMES = ["auto", "light", "dark"] as const;
export type EmbedTheme = (typeof EMBED_THEMES)[number];

export interface EmbedOptions {
  /** Tag spellings as given (trimmed, NFC), distinct by their normalised form. */
  tags: string[];
  /** Place ids, distinct, ascending. */
  places: number[];
  max: number;
  theme: EmbedTheme;
  /** The language asked for (`it`, `en-GB`), or null: the visitor's. */
  lang: string | null;
}

/** The option a query got wrong. */
export type EmbedField = "tags" | "places" | "max" | "theme" | "lang";

export type EmbedParse =
  | { ok: true; options: EmbedOptions }
  | { ok: false; field: EmbedField };

/** What the query readers need: URLSearchParams, or anything like it. */
interface Query {
  getAll(name: string): string[];
}

/** Values of a list option: repeated and/or comma-separated, blanks dropped. */
function listValues(query: Query, name: string): string[] {
  return query.getAll(name).flatMap((v) => v.split(","))
    .map((v) => v.trim()).filter(Boolean);
}

/** The single value of an option, or undefined when absent or empty; null when repeated. */
function singleValue(query: Query, name: string): string | undefined | null {
  const values = query.getAll(name).filter((v) => v.trim() !== "");
  if (values.length > 1) return null;
  return values[0]?.trim();
}

/** A language tag as a page could be asked in: `it`, `en-GB`, `pt-BR`. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;

/**
 * The options of a query (`tags`, `places`, `max`, `theme`, `lang`), or the
 * first option that is not valid. Empty values are the defaults (a GET form
 * sends its empty fields); other parameters are ignored.
 */
export function parseEmbedOptions(query: Query): EmbedParse {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const raw of listValues(query, "tags")) {
    const tag = cleanTag(raw);
    if (tag.length > EMBED_TAG_LENGTH) return { ok: false, field: "tags" };
    const key = normalizeTag(tag);
    if (!seen.has(key)) {
      seen.add(key);
      tags.push(tag);
    }
  }
  if (tags.length > EMBED_MAX_TAGS) return { ok: false, field: "tags" };

  const places = new Set<number>();
  for (const raw of listValues(query, "places")) {
    if (!/^[1-9]\d{0,14}$/.test(raw)) return { ok: false, field: "places" };
    places.add(Number(raw));
  }
  if (places.size > EMBED_MAX_PLACES) return { ok: false, field: "places" };

  const maxRaw = singleValue(query, "max");
  let max = EMBED_MAX_DEFAULT;
  if (maxRaw !== undefined) {
    max = maxRaw !== null && /^\d{1,2}$/.test(maxRaw) ? Number(maxRaw) : 0;
    if (max < 1 || max > EMBED_MAX_LIMIT) return { ok: false, field: "max" };
  }

  const themeRaw = singleValue(query, "theme");
  let theme: EmbedTheme = "auto";
  if (themeRaw !== undefined) {
    if (!EMBED_THEMES.includes(themeRaw as EmbedTheme)) {
      return { ok: false, field: "theme" };
    }
    theme = themeRaw as EmbedTheme;
  }

  const langRaw = singleValue(query, "lang");
  if (langRaw === null || (langRaw && !LANGUAGE_TAG.test(langRaw))) {
    return { ok: false, field: "lang" };
  }

  return {
    ok: true,
    options: {
      tags,
      places: [...places].sort((a, b) => a - b),
      max,
      theme,
      lang: langRaw ?? null,
    },
  };
}

/**
 * The options as a query in one order, defaults left out (`tags`
 * normalised and sorted, `places` ascending): equal lists give equal
 * strings, whatever order or case they were asked in. `lang` is left out
 * unless `withLang` (the cache keys the language apart).
 */
export function canonicalEmbedQuery(
  options: EmbedOptions,
  withLang = true,
): string {
  const params = new URLSearchParams();
  if (options.tags.length) {
    params.set("tags", options.tags.map(normalizeTag).sort().join(","));
  }
  if (options.places.length) params.set("places", options.places.join(","));
  if (options.max !== EMBED_MAX_DEFAULT) params.set("max", String(options.max));
  if (options.theme !== "auto") params.set("theme", options.theme);
  if (withLang && options.lang) params.set("lang", options.lang);
  return params.toString();
}

/** The query of the `/embed` page for these options, as a website owner would read it. */
export function embedPageQuery(options: EmbedOptions): string {
  const params = new URLSearchParams();
  if (options.tags.length) params.set("tags", options.tags.join(","));
  if (options.places.length) params.set("places", options.places.join(","));
  params.set("max", String(options.max));
  params.set("theme", options.theme);
  if (options.lang) params.set("lang", options.lang);
  // Commas read better than %2C, and are as valid in a query.
  return params.toString().replace(/%2C/g, ",");
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for an HTML attribute value in double quotes. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Text for HTML element content. */
function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c]);
}

/** The two snippets a website owner pastes. */
export interface EmbedSnippets {
  /** `<script src=".../embed.js">` and the `<quando-events>` element. */
  element: string;
  /** An `<iframe>` of the `/embed` page, for sites that cannot run scripts. */
  iframe: string;
}

/**
 * The snippets for `options` on the instance at `baseUrl`. `title` names the
 * list (the iframe's title, and the link the element shows where scripts do
 * not run); every value is escaped for its attribute.
 */
export function embedSnippets(
  baseUrl: string,
  options: EmbedOptions,
  title: string,
): EmbedSnippets {
  const attributes: [string, string][] = [];
  if (options.tags.length) attributes.push(["tags", options.tags.join(",")]);
  if (options.places.length) {
    attributes.push(["places", options.places.join(",")]);
  }
  attributes.push(["max", String(options.max)]);
  attributes.push(["theme", options.theme]);
  if (options.lang) attributes.push(["lang", options.lang]);
  const written = attributes.map(([name, value]) =>
    ` ${name}="${escapeAttribute(value)}"`
  ).join("");
  const element = `<script src="${escapeAttribute(`${baseUrl}/embed.js`)}" ` +
    `async></script>\n<quando-events${written}>\n  <a href="${
      escapeAttribute(`${baseUrl}/`)
    }">${escapeText(title)}</a>\n</quando-events>`;
  const src = `${baseUrl}/embed?${embedPageQuery(options)}`;
  const iframe =
    `<iframe src="${escapeAttribute(src)}" title="${
      escapeAttribute(title)
    }" width="100%" height="480" loading="lazy" ` +
    `style="border:0;max-width:40rem"></iframe>`;
  return { element, iframe };
}
