/**
 * `/embed.js`: the `<quando-events>` custom element other websites load with
 * one script tag. Plain modern JavaScript, no dependency: it asks this
 * instance (and nothing else) for `/api/instance` (title, time zone, locale)
 * and `/api/events` (tags, places, max), and renders the list in a shadow
 * root with its own styles (routes/views/site/embed-style.ts), text set through
 * `textContent` only. Built once per app: the instance's origin, the
 * strings of every public language and the stylesheet are written into it.
 */
import { etagOf } from "../../lib/feeds/conditional.ts";
import { PUBLIC_LANGUAGES, translator } from "../../lib/i18n.ts";
import { SHORT_DATE_TIME } from "../../lib/pages/format.ts";
import {
  EMBED_MAX_DEFAULT,
  EMBED_MAX_LIMIT,
  EMBED_MAX_PLACES,
  EMBED_MAX_TAGS,
  EMBED_TAG_LENGTH,
} from "../../lib/embed/options.ts";
import { EMBED_STYLE } from "../views/site/embed-style.ts";

const STATUSES = [
  "EventCancelled",
  "EventPostponed",
  "EventRescheduled",
  "EventMovedOnline",
] as const;

/**
 * The element's words in each public language, under short keys (they
 * travel in every copy of the script): h heading, e empty, m more, l
 * loading, u unreachable, s the badges of STATUSES.
 */
function words() {
  return Object.fromEntries(PUBLIC_LANGUAGES.map((lang) => {
    const t = translator(lang);
    const site = { site: "{site}" };
    return [lang, {
      h: t("public.embed.heading"),
      e: t("public.embed.empty"),
      m: t("public.embed.more", site),
      l: t("public.embed.loading"),
      u: t("public.embed.unreachable"),
      s: STATUSES.map((s) => t(`public.status.${s}.badge`)),
    }];
  }));
}

/** The box's styles for a shadow root, where nothing else needs `.qe ` before a rule. */
function shadowStyle(): string {
  return EMBED_STYLE.replace(/\.qe (?=[^{]*\{)/g, "");
}

/** The script's source before trimming (String.raw: its backslashes stay). */
function source(baseUrl: string): string {
  const json = JSON.stringify;
  return String.raw`(() => {
const NAME = "quando-events";
if (!window.customElements || customElements.get(NAME)) return;
const BASE = ${json(baseUrl)};
const WORDS = ${json(words())};
const CSS = ${json(shadowStyle())};
const WHEN = ${json(SHORT_DATE_TIME)};
const STATUSES = ${json(STATUSES)};
let sheet, about;
// A JSON answer of this instance, or an error (after 10 seconds at most).
const get = (path) =>
  fetch(BASE + path, {
    credentials: "omit",
    signal: AbortSignal.timeout(1e4),
  }).then((r) => {
    if (!r.ok) throw r.status;
    return r.json();
  });
// Elements with text: never markup from the data.
const node = (tag, cls, text) => {
  const e = document.createElement(tag);
  e.className = cls || "";
  if (text != null) e.textContent = text;
  return e;
};
const link = (href, text, cls) => {
  const a = node("a", cls, text);
  a.href = href;
  return a;
};
const more = (text) => {
  const p = node("p", "more");
  p.append(link(BASE + "/", text));
  return p;
};
const format = (locale, zone, options) => {
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
  } catch {
    return new Intl.DateTimeFormat("en", { ...options, timeZone: "UTC" });
  }
};
customElements.define(NAME, class extends HTMLElement {
  static get observedAttributes() {
    return ["tags", "places", "max", "theme", "lang"];
  }
  connectedCallback() {
    this.update();
  }
  attributeChangedCallback() {
    if (this.isConnected) this.update();
  }
  // Attributes come one by one: one load for all of them.
  update() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.load();
    });
  }
  async load() {
    const run = this.run = (this.run || 0) + 1;
    const attr = (name) => this.getAttribute(name) || "";
    const values = (name, re, n) => attr(name).split(",")
      .map((x) => x.trim()).filter((x) => re.test(x)).slice(0, n);
    let tag = this.closest("[lang]")?.getAttribute("lang") ||
      navigator.language || "en";
    let lang = tag.toLowerCase().split(/[-_]/)[0];
    if (!WORDS[lang]) tag = lang = "en";
    const w = WORDS[lang];
    const theme = attr("theme");
    const box = node("div", "qe " +
      (theme == "light" || theme == "dark" ? theme : "auto"));
    box.lang = tag;
    const note = node("p", "note", w.l);
    box.append(node("h2", "h", w.h), note);
    box.firstChild.id = "qe-h";
    box.ariaBusy = "true";
    let root = this.shadowRoot;
    if (!root) {
      root = this.attachShadow({ mode: "open" });
      try {
        if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(CSS);
        root.adoptedStyleSheets = [sheet];
      } catch {
        root.append(node("style", "", CSS));
      }
    }
    root.querySelector(".qe")?.remove();
    root.append(box);
    const query = new URLSearchParams({
      max: Math.max(1, Math.min(parseInt(attr("max")) ||
        ${EMBED_MAX_DEFAULT}, ${EMBED_MAX_LIMIT})),
    });
    const tags = values("tags", /^.{1,${EMBED_TAG_LENGTH}}$/,
      ${EMBED_MAX_TAGS});
    const places = values("places", /^[1-9]\d{0,14}$/, ${EMBED_MAX_PLACES});
    if (tags.length) query.set("tags", tags);
    if (places.length) query.set("places", places);
    try {
      about ||= get("/api/instance").catch((e) => {
        about = null;
        throw e;
      });
      const [info, events] = await Promise.all([
        about,
        get("/api/events?" + query),
      ]);
      if (run != this.run) return;
      note.remove();
      this.list(box, w, lang, tag, info, events);
    } catch {
      if (run != this.run) return;
      note.textContent = w.u;
      box.append(more(w.m.replace("{site}", new URL(BASE).host)));
    }
    box.ariaBusy = null;
  }
  list(box, w, lang, tag, info, events) {
    const own = info.locale || "";
    const locale = tag.includes("-") ? tag
      : own.toLowerCase().split("-")[0] == lang ? own : lang;
    const zone = info.timezone;
    const when = format(locale, zone, WHEN);
    const time = format(locale, zone, { timeStyle: "short" });
    const day = format("en-CA", zone, {});
    const stamp = (date, f) => {
      const t = node("time", "", f.format(date));
      t.dateTime = date.toISOString();
      return t;
    };
    if (!events.length) box.append(node("p", "note", w.e));
    else {
      const ol = node("ol");
      ol.setAttribute("aria-labelledby", "qe-h");
      for (const ev of events) {
        const li = node("li", ev.status == STATUSES[0] ? "x" : "");
        li.append(link(BASE + "/event/" + encodeURIComponent(ev.slug),
          ev.title, "t"));
        const marked = STATUSES.indexOf(ev.status);
        if (marked >= 0) {
          li.append(node("span", marked ? "b w" : "b c", w.s[marked]));
        }
        const meta = node("span", "m");
        const start = new Date(ev.start_datetime * 1e3);
        const end = new Date(ev.end_datetime * 1e3);
        meta.append(stamp(start, when));
        if (end > start) {
          const same = day.format(start) == day.format(end);
          meta.append(" – ", stamp(end, same ? time : when));
        }
        if (ev.place?.name) meta.append(" · " + ev.place.name);
        li.append(meta);
        ol.append(li);
      }
      box.append(ol);
    }
    box.append(more(w.m.replace("{site}", info.title)));
  }
});
})();
`;
}

/** The script and its strong ETag. */
export interface EmbedScript {
  body: string;
  etag: string;
}

/** A string literal (double quotes: the only kind the script and JSON use). */
const STRING = /"(?:[^"\\\n]|\\.)*"/g;

/**
 * Whitespace out of the code between string literals: runs of it become one
 * space, and none is kept next to punctuation. Safe for this script only:
 * every statement ends with a semicolon or a brace, and its regular
 * expressions hold no space.
 */
function compact(code: string): string {
  return code.replace(/\s+/g, " ")
    .replace(/ ?([{}()[\];,:=<>+\-*|&!?]) ?/g, "$1")
    .replace(/,([}\]])/g, "$1");
}

/**
 * The script for the instance at `baseUrl`: comment lines and whitespace
 * dropped (the source above stays the readable one).
 */
export async function buildEmbedScript(baseUrl: string): Promise<EmbedScript> {
  const code = source(baseUrl).split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("//"))
    .join("\n");
  let body = "";
  let last = 0;
  for (const match of code.matchAll(STRING)) {
    body += compact(code.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  body += compact(code.slice(last)) + "\n";
  return { body, etag: await etagOf(body) };
}
