/**
 * The shell of the public pages: head (canonical, feeds, OpenGraph, Twitter
 * card, JSON-LD), site header, main landmark and a footer with the feed and
 * webcal subscription links. No scripts; one nonce'd stylesheet.
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { Translate } from "../../../lib/i18n.ts";
import type { LanguageLink } from "../../middleware/language.ts";

/** What every page knows about the instance, and the language it is in. */
export interface SiteInfo {
  title: string;
  description: string;
  /** Public origin without a trailing slash. */
  baseUrl: string;
  /** The locale of the page (`<html lang>`, dates): see routes/middleware/language.ts. */
  locale: string;
  timezone: string;
  /** The page's strings. */
  t: Translate;
  /** The language switch: this page in each language it is offered in. */
  languages: LanguageLink[];
  /** The header's way in: the signed-in reader's role, and what a visitor may do. */
  account?: SiteAccount;
}

/** What the public header offers: the signed-in reader's pages, or sign in, register, submit. */
export interface SiteAccount {
  /** The signed-in reader's role; null for a visitor. */
  role: string | null;
  /** Anonymous submissions are on. */
  submit: boolean;
  /** Anyone may register. */
  register: boolean;
}

/** The feeds of a page: the whole instance (`path` "") or a tag, place or collection. */
export interface FeedScope {
  /** Appended to `/feed/{format}`: "", "/tag/x", "/place/3", "/collection/y". */
  path: string;
  /** What is subscribed to, in words ("all events", "#jazz", ...). */
  label: string;
  /** The footer's heading ("Subscribe to all events"). */
  heading: string;
  /** A filter's query string (without `?`) appended to each feed's URL: the search page's. */
  query?: string;
}

export interface PageMeta {
  /** The `<title>` (the instance's title is appended). */
  title: string;
  description: string;
  /** Absolute URL of this page. */
  canonical: string;
  feeds: FeedScope;
  /** Absolute image URL for link previews. */
  image?: { url: string; alt: string } | null;
  /** A schema.org object, embedded as `application/ld+json`. */
  jsonLd?: unknown;
  prev?: string;
  next?: string;
  /** Error pages are not indexed. */
  noindex?: boolean;
  /** The section of the navigation this page is (marked as the current one). */
  section?: PageSection;
  /** CSS of this page only, after the shared stylesheet. */
  style?: string;
}

/** The sections of the public navigation. */
export type PageSection =
  | "upcoming"
  | "calendar"
  | "past"
  | "tags"
  | "places"
  | "search";

/** The public navigation: where a visitor can browse without typing a URL. */
const SECTIONS: {
  section: Exclude<PageSection, "search">;
  href: string;
  key: Parameters<Translate>[0];
}[] = [
  { section: "upcoming", href: "/", key: "public.nav.upcoming" },
  { section: "calendar", href: "/calendar", key: "public.nav.calendar" },
  { section: "past", href: "/past", key: "public.nav.past" },
  { section: "tags", href: "/tags", key: "public.nav.tags" },
  { section: "places", href: "/places", key: "public.nav.places" },
];

/** The JSON-LD block's text: `<`, `>` and `&` escaped so no string can end the script element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `/feed/{format}{path}` for each format, and the webcal:// address of the ICS one. */
export function feedUrls(site: SiteInfo, scope: FeedScope) {
  const query = scope.query ? `?${scope.query}` : "";
  return {
    rss: `/feed/rss${scope.path}${query}`,
    atom: `/feed/atom${scope.path}${query}`,
    json: `/feed/json${scope.path}${query}`,
    ics: `/feed/ics${scope.path}${query}`,
    webcal: `${
      site.baseUrl.replace(/^https?:\/\//, "webcal://")
    }/feed/ics${scope.path}${query}`,
  };
}

/** A calendar icon inline, so browsers do not ask for a /favicon.ico nobody serves. */
const ICON = `data:image/svg+xml,${
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>" +
      "<rect x='3' y='6' width='26' height='23' rx='4' fill='#1d4ed8'/>" +
      "<rect x='6' y='13' width='20' height='13' rx='2' fill='white'/>" +
      "<rect x='9' y='3' width='3' height='7' rx='1.5' fill='#1d4ed8'/>" +
      "<rect x='20' y='3' width='3' height='7' rx='1.5' fill='#1d4ed8'/></svg>",
  )
}`;

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1b1e; --muted: #4d5158; --line: #d5d8de;
  --accent: #1d4ed8; --accent-fg: #ffffff; --danger: #a4161a; --warn: #8a4500; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #141518; --fg: #ececf0; --muted: #b4b7be; --line: #383b42;
    --accent: #9dbbff; --accent-fg: #0d1117; --danger: #ff9b94; --warn: #ffc97a; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 1.0625rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-underline-offset: 0.15em; }
a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 2px; }
.wrap { max-width: 46rem; margin: 0 auto; padding: 0 1rem; }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.5rem 0.75rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  clip-path: inset(50%); white-space: nowrap; }
header.site { border-bottom: 1px solid var(--line); }
header.site .wrap { padding-top: 0.85rem; padding-bottom: 0.85rem; display: flex; flex-wrap: wrap;
  align-items: baseline; justify-content: space-between; gap: 0.4rem 1rem; }
.languages ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 0.75rem; margin: 0; padding: 0;
  font-size: 0.95rem; }
.languages a { display: inline-block; padding: 0.2rem 0; }
.languages a[aria-current] { color: var(--fg); font-weight: 700; text-decoration: none; }
nav.account ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 1rem; margin: 0 0 0 auto; padding: 0; }
nav.account a { display: inline-block; padding: 0.2rem 0; font-weight: 600; }
.brand { font-weight: 700; font-size: 1.2rem; color: var(--fg); text-decoration: none; }
.brand:hover { text-decoration: underline; }
nav.browse { width: 100%; display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1rem; }
nav.browse ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 1rem; margin: 0; padding: 0; }
nav.browse a { display: inline-block; padding: 0.35rem 0; }
nav.browse a[aria-current=page] { color: var(--fg); font-weight: 700; text-decoration-thickness: 3px; }
form.search-box { display: flex; gap: 0.4rem; flex: 1 1 14rem; margin-left: auto; max-width: 22rem; }
form.search-box input { flex: 1 1 auto; min-width: 0; font: inherit; padding: 0.4rem 0.6rem;
  border: 1px solid var(--line); border-radius: 0.45rem; background: var(--bg); color: var(--fg); }
form.search-box button { font: inherit; font-weight: 600; padding: 0.4rem 0.8rem; border-radius: 0.45rem;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; }
form.search-box input:focus-visible, form.search-box button:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.tagline { color: var(--muted); margin: 0.15rem 0 0; font-size: 0.95rem; }
main.wrap { padding-top: 0.25rem; padding-bottom: 2.5rem; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 1rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; line-height: 1.3; margin: 1.75rem 0 0.5rem; }
.day > h2 { font-size: 1rem; color: var(--muted); border-bottom: 2px solid var(--line);
  padding-bottom: 0.3rem; margin-bottom: 0; }
.events { list-style: none; margin: 0; padding: 0; }
.event-item { padding: 0.8rem 0; border-bottom: 1px solid var(--line); }
.event-item:last-child { border-bottom: 0; }
/* A thumbnail at the right of its event, in a box of fixed size: the image arriving moves nothing. */
.event-item.has-thumb { display: grid; grid-template-columns: minmax(0, 1fr) 5.5rem; column-gap: 0.75rem;
  align-items: start; }
.event-item.has-thumb > * { grid-column: 1; }
.event-item.has-thumb > .thumb { grid-column: 2; grid-row: 1 / span 6; width: 5.5rem; height: 5.5rem;
  object-fit: cover; border-radius: 0.5rem; background: var(--line); }
.event-item h3 { font-size: 1.1rem; line-height: 1.35; margin: 0 0 0.2rem; overflow-wrap: anywhere; }
.meta { margin: 0; color: var(--muted); font-size: 0.95rem; overflow-wrap: anywhere; }
.meta a { color: inherit; }
.tags { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.45rem 0 0; padding: 0; }
.tags a { display: inline-block; padding: 0.1rem 0.6rem; border: 1px solid var(--line); border-radius: 999px;
  font-size: 0.9rem; text-decoration: none; overflow-wrap: anywhere; }
.tags a:hover { border-color: var(--accent); }
.badge { display: inline-block; font-size: 0.8rem; font-weight: 700; line-height: 1.4; padding: 0 0.45rem;
  border-radius: 0.35rem; border: 1px solid currentColor; vertical-align: 0.1em; margin-left: 0.3rem; }
.st-EventCancelled { color: var(--danger); }
.st-EventPostponed, .st-EventRescheduled, .st-EventMovedOnline { color: var(--warn); }
.status { border: 2px solid currentColor; border-radius: 0.6rem; padding: 0.6rem 0.85rem; font-weight: 600; }
.event-item.is-cancelled > h3 > .p-name { text-decoration: line-through; text-decoration-thickness: 2px; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.5rem 1rem; margin: 1.25rem 0; }
.facts dt { font-weight: 700; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.facts ul { margin: 0; padding-left: 1.1rem; }
@media (max-width: 30rem) {
  .facts { grid-template-columns: minmax(0, 1fr); gap: 0.1rem; }
  .facts dt:not(:first-child) { margin-top: 0.6rem; }
}
.muted { color: var(--muted); font-size: 0.95rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.6rem; margin: 1.25rem 0; }
.button { display: inline-block; background: var(--accent); color: var(--accent-fg); padding: 0.6rem 1rem;
  border: 1px solid var(--accent); border-radius: 0.5rem; font-weight: 600; text-decoration: none; }
.button.secondary { background: transparent; color: var(--accent); }
.button:hover { text-decoration: underline; }
figure.image { margin: 1rem 0; }
figure.image img { display: block; max-width: 100%; height: auto; border-radius: 0.6rem; }
.description { overflow-wrap: anywhere; }
.description img, .description video { max-width: 100%; height: auto; }
.description pre, .description table { display: block; overflow-x: auto; }
.pager { display: flex; justify-content: space-between; align-items: center; gap: 1rem; margin-top: 1.5rem; }
.pager .next { margin-left: auto; }
.empty { color: var(--muted); }
footer.site { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.95rem; padding: 0.5rem 0 2rem; }
footer.site h2 { font-size: 1rem; color: var(--fg); margin: 1rem 0 0.4rem; }
.feeds { list-style: none; padding: 0; margin: 0.5rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1.1rem; }
.permalink { overflow-wrap: anywhere; }
/* The event page: series, calendar links, joining online, origin; the place page. */
ul.actions { list-style: none; padding: 0; }
.add h2 { margin-bottom: 0.25rem; }
.add .actions { margin: 0.6rem 0; }
.add p.muted { margin: 0; }
.facts ul.online, .facts ul.place-links, ul.place-links { list-style: none; padding: 0; }
.facts ul.online { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.button.join { padding: 0.45rem 0.9rem; max-width: 100%; overflow-wrap: anywhere; }
.button.join .host { font-weight: 400; opacity: 0.9; }
ul.place-links { display: flex; flex-wrap: wrap; gap: 0.2rem 1.1rem; margin: 0.35rem 0 0; }
ul.place-links li { display: inline-flex; align-items: center; gap: 0.3rem; }
.pin { color: var(--danger); flex: none; }
.origin { border-left: 4px solid var(--line); padding: 0.2rem 0 0.2rem 0.75rem; color: var(--muted);
  overflow-wrap: anywhere; }
.dates { padding-left: 1.1rem; }
.dates li { margin: 0.2rem 0; }
.place-card h1 { margin-bottom: 0.4rem; }
.place-card p { margin: 0.2rem 0; }
.place-card .address { font-size: 1.05rem; }
.count { margin: 0.75rem 0 0; }
.rule { margin: 0.25rem 0 0; font-weight: 600; font-size: 0.95rem; }
.following { margin: 0.15rem 0 0; color: var(--muted); font-size: 0.95rem; }
.following a { white-space: nowrap; }
.welcome .intro { font-size: 1.1rem; }
.next-steps { padding-left: 1.1rem; }
.next-steps li { margin: 0 0 1rem; }
.next-steps .button { margin: 0.4rem 0.5rem 0 0; }
.steps { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0.5rem 1rem; margin: 0 0 1rem; }
.steps .next { margin-left: auto; }
table.month { width: 100%; table-layout: fixed; border-collapse: collapse; }
table.month caption { text-align: left; color: var(--muted); font-size: 0.95rem; padding-bottom: 0.4rem; }
table.month th { font-size: 0.85rem; font-weight: 600; color: var(--muted); padding: 0.3rem 0; }
table.month abbr { text-decoration: none; }
table.month td { border: 1px solid var(--line); vertical-align: top; height: 4.6rem; padding: 0; }
table.month td.out { background: transparent; border-color: transparent; }
table.month td > * { display: block; padding: 0.3rem 0.4rem; height: 100%; }
table.month td.has a { text-decoration: none; color: var(--fg); }
table.month td.has { background: color-mix(in srgb, var(--accent) 12%, var(--bg)); }
table.month td.has a:hover .w { text-decoration: underline; }
table.month .d { font-weight: 600; }
table.month td:not(.has) .d { color: var(--muted); font-weight: 400; }
table.month td.has .d { display: block; }
table.month .w { display: block; font-size: 0.8rem; color: var(--accent); line-height: 1.25; }
table.month .n { display: none; }
table.month td.today { outline: 3px solid var(--accent); outline-offset: -3px; }
@media (max-width: 36rem) {
  table.month td { height: 3.1rem; }
  table.month td > * { padding: 0.2rem; text-align: center; }
  table.month .w { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.month .n { display: inline-block; min-width: 1.4rem; margin-top: 0.15rem; border-radius: 999px;
    background: var(--accent); color: var(--accent-fg); font-size: 0.75rem; font-weight: 700; line-height: 1.4; }
}
.index { list-style: none; padding: 0; margin: 0; }
.index li { padding: 0.55rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.index .count { color: var(--muted); font-size: 0.95rem; white-space: nowrap; }
.tag-index { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.tag-index li { border: 1px solid var(--line); border-radius: 999px; padding: 0.2rem 0.75rem; }
.tag-index a { text-decoration: none; font-weight: 600; }
.tag-index a:hover { text-decoration: underline; }
`;

/** A complete public page; `nonce` must match the response's CSP `style-src`. */
export function SitePage(
  props: {
    site: SiteInfo;
    meta: PageMeta;
    nonce: string;
    children?: Child;
  },
) {
  const { site, meta } = props;
  const { t } = site;
  const feeds = feedUrls(site, meta.feeds);
  const fullTitle = meta.title === site.title
    ? site.title
    : `${meta.title} · ${site.title}`;
  const feedTitle = (format: string) =>
    `${site.title}: ${meta.feeds.label} (${format})`;
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={site.locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{fullTitle}</title>
          {meta.description && (
            <meta name="description" content={meta.description} />
          )}
          {meta.noindex && <meta name="robots" content="noindex" />}
          <link rel="icon" href={ICON} />
          <link rel="canonical" href={meta.canonical} />
          {meta.prev && <link rel="prev" href={meta.prev} />}
          {meta.next && <link rel="next" href={meta.next} />}
          <link
            rel="alternate"
            type="application/rss+xml"
            title={feedTitle("RSS")}
            href={feeds.rss}
          />
          <link
            rel="alternate"
            type="application/atom+xml"
            title={feedTitle("Atom")}
            href={feeds.atom}
          />
          <link
            rel="alternate"
            type="application/feed+json"
            title={feedTitle("JSON Feed")}
            href={feeds.json}
          />
          <link
            rel="alternate"
            type="text/calendar"
            title={feedTitle("iCalendar")}
            href={feeds.ics}
          />
          <meta property="og:site_name" content={site.title} />
          <meta property="og:type" content="website" />
          <meta property="og:title" content={meta.title} />
          {meta.description && (
            <meta property="og:description" content={meta.description} />
          )}
          <meta property="og:url" content={meta.canonical} />
          {meta.image && <meta property="og:image" content={meta.image.url} />}
          {meta.image?.alt && (
            <meta property="og:image:alt" content={meta.image.alt} />
          )}
          <meta
            name="twitter:card"
            content={meta.image ? "summary_large_image" : "summary"}
          />
          <meta name="twitter:title" content={meta.title} />
          {meta.description && (
            <meta name="twitter:description" content={meta.description} />
          )}
          {meta.image && <meta name="twitter:image" content={meta.image.url} />}
          {meta.image?.alt && (
            <meta name="twitter:image:alt" content={meta.image.alt} />
          )}
          {meta.jsonLd !== undefined && (
            <script type="application/ld+json">
              {raw(jsonForScript(meta.jsonLd))}
            </script>
          )}
          <style nonce={props.nonce}>{raw(STYLE + (meta.style ?? ""))}</style>
        </head>
        <body>
          <a class="skip" href="#main">{t("public.skip")}</a>
          <header class="site">
            <div class="wrap">
              <a class="brand" href="/">{site.title}</a>
              <LanguageSwitch
                label={t("public.language")}
                links={site.languages}
              />
              {site.account && <AccountLinks account={site.account} t={t} />}
              <nav class="browse" aria-label={t("public.nav.label")}>
                <ul>
                  {SECTIONS.map((link) => (
                    <li>
                      <a
                        href={link.href}
                        aria-current={meta.section === link.section
                          ? "page"
                          : undefined}
                      >
                        {t(link.key)}
                      </a>
                    </li>
                  ))}
                </ul>
                <form
                  class="search-box"
                  method="get"
                  action="/search"
                  role="search"
                >
                  <label class="visually-hidden" for="site-search">
                    {t("public.search.label")}
                  </label>
                  <input
                    id="site-search"
                    name="q"
                    type="search"
                    maxlength={100}
                  />
                  <button type="submit">{t("public.search.submit")}</button>
                </form>
              </nav>
            </div>
          </header>
          <main id="main" class="wrap">{props.children}</main>
          <footer class="site">
            <div class="wrap">
              <h2 id="subscribe">{meta.feeds.heading}</h2>
              <p>
                <a class="button webcal" href={feeds.webcal}>
                  {t("public.subscribe.app")}
                </a>
              </p>
              <ul class="feeds">
                <li>
                  <a href={feeds.ics} type="text/calendar">iCalendar (.ics)</a>
                </li>
                <li>
                  <a href={feeds.rss} type="application/rss+xml">RSS</a>
                </li>
                <li>
                  <a href={feeds.atom} type="application/atom+xml">Atom</a>
                </li>
                <li>
                  <a href={feeds.json} type="application/feed+json">
                    JSON Feed
                  </a>
                </li>
              </ul>
              <p>{t("public.zoneNote", { zone: site.timezone })}</p>
              <p>
                <a href="/embed/new">{t("public.embed.footerLink")}</a>
              </p>
              <p>
                <a href="/about">{t("public.about.link")}</a>
              </p>
            </div>
          </footer>
        </body>
      </html>
    </>
  );
}

/**
 * The way in: for a visitor, Sign in (and Submit an event, Register when
 * the instance allows them); for a signed-in reader, their pages.
 */
function AccountLinks(props: { account: SiteAccount; t: Translate }) {
  const { account, t } = props;
  type Link = [string, Parameters<Translate>[0]];
  const links: Link[] = [];
  if (account.role === null) {
    if (account.submit) links.push(["/submit", "public.account.submit"]);
    links.push(["/login", "public.account.signIn"]);
    if (account.register) links.push(["/register", "public.account.register"]);
  } else {
    links.push(["/my", "public.account.my"]);
    if (account.role !== "user") links.push(["/admin", "public.account.admin"]);
  }
  return (
    <nav class="account" aria-label={t("public.account.label")}>
      <ul>
        {links.map(([href, key]) => (
          <li>
            <a href={href}>{t(key)}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Links to this page in each language (no script: a link is a choice,
 * remembered by the server); each name is written in its own language.
 */
export function LanguageSwitch(
  props: { label: string; links: LanguageLink[] },
) {
  if (props.links.length < 2) return null;
  return (
    <nav class="languages" aria-label={props.label}>
      <ul>
        {props.links.map((link) => (
          <li>
            <a
              href={link.href}
              hreflang={link.lang}
              lang={link.lang}
              aria-current={link.current ? "true" : undefined}
            >
              {link.name}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
