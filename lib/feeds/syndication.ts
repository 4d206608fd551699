/**
 * RSS 2.0, Atom 1.0 and JSON Feed 1.1.
 *
 * Each entry is an event: its title, its public page as link and id, the
 * date, time and place in words (instance locale and time zone) as summary,
 * that line plus the sanitised description and online locations as HTML
 * content, the first image as enclosure, the tags as categories, createdAt
 * as published and updatedAt as updated. The feed's date is the latest
 * change among its entries and settings, never the time of the request, so
 * that the same data gives the same bytes.
 *
 * The XML is written here (lib/feeds/xml.ts) rather than by the `feed`
 * library, whose documents were malformed for some input: it escaped only `&`
 * and `"` in attribute values (a tag with `<` broke every Atom reader), split
 * CDATA sections at the first `]]>` only, and kept characters XML cannot carry.
 * Titles, summaries and categories are text everywhere; only the content (and
 * RSS's description, by custom) is HTML, escaped as text.
 */
import { imageTypeOf, publicMediaUrl } from "../media/public.ts";
import type { FeedEvent } from "./rows.ts";
import {
  escapeHtml,
  type Locality,
  statusInWords,
  whenInWords,
  whereInWords,
} from "./words.ts";
import { xmlDocument, xmlElement, xmlTextElement } from "./xml.ts";

export type TextFormat = "rss" | "atom" | "json";

export interface SyndicationOptions {
  baseUrl: string;
  locality: Locality;
  title: string;
  description: string;
  /** The page the feed is about (absolute URL). */
  link: string;
  /** `/feed/{format}` + this path are the feed's own URLs. */
  path: string;
  updated: Date;
}

/** An entry as every format reads it. */
interface Entry {
  title: string;
  link: string;
  updated: Date;
  published: Date;
  /** Plain text: status, date and time, place. */
  summary: string;
  /** HTML. */
  content: string;
  tags: string[];
  image: { url: string; type: string; length?: number; title?: string } | null;
}

function entryOf(fe: FeedEvent, options: SyndicationOptions): Entry {
  const e = fe.row;
  const link = `${options.baseUrl}/event/${e.slug}`;
  const when = whenInWords(e.start_datetime, e.end_datetime, options.locality);
  const where = whereInWords(fe);
  const status = statusInWords(e.status);
  const online = e.online_locations.map((u) => {
    const safe = escapeHtml(u);
    return `<a href="${safe}">${safe}</a>`;
  });
  const content = [
    `<p>${status ? `<strong>${escapeHtml(status)}</strong><br>` : ""}${
      escapeHtml(when)
    }${where ? `<br>${escapeHtml(where)}` : ""}</p>`,
    e.description,
    online.length ? `<p>${online.join("<br>")}</p>` : "",
  ].filter(Boolean).join("\n");
  const media = e.media[0];
  const imageUrl = media ? publicMediaUrl(options.baseUrl, media) : null;
  return {
    title: e.title,
    link,
    updated: e.updatedAt,
    published: e.createdAt,
    summary: [status, when, where].filter(Boolean).join(" · "),
    content,
    tags: fe.tags,
    image: imageUrl
      ? {
        url: imageUrl,
        type: imageTypeOf(imageUrl),
        length: media.size ?? undefined,
        title: media.name || undefined,
      }
      : null,
  };
}

type FeedUrl = (format: TextFormat) => string;

function rss(entries: Entry[], options: SyndicationOptions, self: FeedUrl) {
  const items = entries.map((e) =>
    xmlElement("item", {}, [
      xmlTextElement("title", e.title),
      xmlTextElement("link", e.link),
      xmlTextElement("guid", e.link, { isPermaLink: "false" }),
      xmlTextElement("pubDate", e.published.toUTCString()),
      xmlTextElement("description", escapeHtml(e.summary)),
      xmlTextElement("content:encoded", e.content),
      ...e.tags.map((tag) => xmlTextElement("category", tag)),
      e.image
        ? xmlElement("enclosure", {
          url: e.image.url,
          length: e.image.length ?? 0,
          type: e.image.type,
        })
        : "",
    ])
  );
  const channel = xmlElement("channel", {}, [
    xmlTextElement("title", options.title),
    xmlTextElement("link", options.link),
    xmlTextElement("description", options.description),
    xmlTextElement("lastBuildDate", options.updated.toUTCString()),
    xmlTextElement("docs", "https://www.rssboard.org/rss-specification"),
    xmlTextElement("generator", "Quando"),
    xmlTextElement("language", options.locality.locale),
    xmlElement("atom:link", {
      href: self("rss"),
      rel: "self",
      type: "application/rss+xml",
    }),
    ...items,
  ]);
  return xmlDocument(
    xmlElement("rss", {
      version: "2.0",
      "xmlns:atom": "http://www.w3.org/2005/Atom",
      "xmlns:content": "http://purl.org/rss/1.0/modules/content/",
    }, channel),
  );
}

function atom(entries: Entry[], options: SyndicationOptions, self: FeedUrl) {
  const items = entries.map((e) =>
    xmlElement("entry", {}, [
      xmlTextElement("title", e.title),
      xmlTextElement("id", e.link),
      xmlElement("link", { href: e.link }),
      xmlTextElement("updated", e.updated.toISOString()),
      xmlTextElement("published", e.published.toISOString()),
      xmlTextElement("summary", e.summary),
      xmlTextElement("content", e.content, { type: "html" }),
      ...e.tags.map((tag) => xmlElement("category", { term: tag, label: tag })),
      e.image
        ? xmlElement("link", {
          rel: "enclosure",
          href: e.image.url,
          type: e.image.type,
          length: e.image.length,
          title: e.image.title,
        })
        : "",
    ])
  );
  return xmlDocument(
    xmlElement("feed", { xmlns: "http://www.w3.org/2005/Atom" }, [
      xmlTextElement("id", self("atom")),
      xmlTextElement("title", options.title),
      options.description
        ? xmlTextElement("subtitle", options.description)
        : "",
      xmlTextElement("updated", options.updated.toISOString()),
      xmlTextElement("generator", "Quando"),
      xmlElement("link", { rel: "alternate", href: options.link }),
      xmlElement("link", { rel: "self", href: self("atom") }),
      ...items,
    ]),
  );
}

function jsonFeed(
  entries: Entry[],
  options: SyndicationOptions,
  self: FeedUrl,
) {
  return JSON.stringify(
    {
      version: "https://jsonfeed.org/version/1.1",
      title: options.title,
      home_page_url: options.link,
      feed_url: self("json"),
      description: options.description || undefined,
      language: options.locality.locale,
      items: entries.map((e) => ({
        id: e.link,
        url: e.link,
        title: e.title,
        content_html: e.content,
        summary: e.summary,
        image: e.image?.url,
        date_modified: e.updated.toISOString(),
        date_published: e.published.toISOString(),
        tags: e.tags,
      })),
    },
    null,
    2,
  );
}

/** The feed document in one of the three formats. */
export function renderFeed(
  format: TextFormat,
  events: FeedEvent[],
  options: SyndicationOptions,
): string {
  const self: FeedUrl = (f) => `${options.baseUrl}/feed/${f}${options.path}`;
  const entries = events.map((fe) => entryOf(fe, options));
  if (format === "rss") return rss(entries, options, self);
  if (format === "atom") return atom(entries, options, self);
  return jsonFeed(entries, options, self);
}
