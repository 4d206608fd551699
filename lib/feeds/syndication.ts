/**
 * RSS 2.0, Atom 1.0 and JSON Feed 1.1 with the `feed` library.
 *
 * Each entry is an event: its title, its public page as link and id, the
 * date, time and place in words (instance locale and time zone) as summary,
 * that line plus the sanitised description and online locations as HTML
 * content, the first image as enclosure, the tags as categories, createdAt
 * as published and updatedAt as updated. The feed's date is the latest
 * change among its entries and settings, never the time of the request, so
 * that the same data gives the same bytes.
 */
import { imageTypeOf, publicMediaUrl } from "../media/public.ts";
import { Feed, type Item } from "feed";
import type { FeedEvent } from "./select.ts";
import {
  escapeHtml,
  type Locality,
  statusInWords,
  whenInWords,
  whereInWords,
} from "./words.ts";

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

function entry(fe: FeedEvent, options: SyndicationOptions): Item {
  const e = fe.row;
  const link = `${options.baseUrl}/event/${e.slug}`;
  const when = whenInWords(e.start_datetime, e.end_datetime, options.locality);
  const where = whereInWords(fe);
  const status = statusInWords(e.status);
  const summary = [status, when, where].filter(Boolean).join(" · ");
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
  const image = e.media[0];
  const imageUrl = image ? publicMediaUrl(options.baseUrl, image) : null;
  return {
    title: e.title,
    id: link,
    link,
    date: e.updatedAt,
    published: e.createdAt,
    description: escapeHtml(summary),
    content,
    category: fe.tags.map((t) => ({ name: t, term: t })),
    ...(imageUrl
      ? {
        image: {
          url: imageUrl,
          type: imageTypeOf(imageUrl),
          length: image.size ?? 0,
          ...(image.name ? { title: image.name } : {}),
        },
      }
      : {}),
  };
}

/** The feed document in one of the three formats. */
export function renderFeed(
  format: TextFormat,
  entries: FeedEvent[],
  options: SyndicationOptions,
): string {
  const self = (f: TextFormat) => `${options.baseUrl}/feed/${f}${options.path}`;
  const feed = new Feed({
    title: options.title,
    description: options.description,
    id: self(format),
    link: options.link,
    language: options.locality.locale,
    updated: options.updated,
    generator: "Quando",
    feedLinks: { rss: self("rss"), atom: self("atom"), json: self("json") },
  });
  for (const fe of entries) feed.addItem(entry(fe, options));
  if (format === "rss") return feed.rss2();
  if (format === "atom") return feed.atom1();
  // The library writes JSON Feed 1; 1.1 adds `language` and `authors`
  // (none here) and is otherwise the same document.
  const doc = JSON.parse(feed.json1());
  doc.version = "https://jsonfeed.org/version/1.1";
  doc.language = options.locality.locale;
  return JSON.stringify(doc, null, 2);
}
