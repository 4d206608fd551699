/**
 * The embedded list as a page of its own (`/embed`, framed by other sites:
 * no script, links open in a new tab) and the page that writes the snippets
 * (`/embed/new`): a GET form, a preview (the framed page) and the two
 * snippets, with a Copy button where scripts run.
 */
import { raw } from "hono/html";
import type { EventStatus } from "../../../db/schema.ts";
import type { EmbedSnippets, EmbedTheme } from "../../../lib/embed/options.ts";
import {
  EMBED_MAX_LIMIT,
  EMBED_THEMES,
  type EmbedOptions,
} from "../../../lib/embed/options.ts";
import type { EventSummary } from "../../../lib/events/serialize.ts";
import {
  LANGUAGE_NAMES,
  PUBLIC_LANGUAGES,
  type Translate,
} from "../../../lib/i18n.ts";
import {
  endLabel,
  isoInZone,
  shortDateTime,
} from "../../../lib/pages/format.ts";
import { EMBED_STYLE } from "./embed-style.ts";
import { type SiteInfo, SitePage } from "./shell.tsx";
import { eventPath } from "./structured.ts";

const MARKED = new Set<EventStatus>([
  "EventCancelled",
  "EventPostponed",
  "EventRescheduled",
  "EventMovedOnline",
]);

function badge(status: EventStatus, t: Translate): string {
  return MARKED.has(status)
    ? t(
      `public.status.${status as Exclude<EventStatus, "EventScheduled">}.badge`,
    )
    : "";
}

/** The framed page around the list: nothing but the box. */
const FRAME_STYLE = "html,body{margin:0;padding:0}body{padding:1px}" +
  ".qe{min-height:calc(100vh - 2px)}" + EMBED_STYLE;

/** `/embed`: the list of events as a page for other sites' frames. */
export function EmbedFrameView(
  props: {
    site: SiteInfo;
    nonce: string;
    theme: EmbedTheme;
    events: EventSummary[];
  },
) {
  const { site, events } = props;
  const { t } = site;
  const newTab = { target: "_blank", rel: "noopener" };
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={site.locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <title>{t("public.embed.frameTitle", { site: site.title })}</title>
          <link rel="icon" href="data:," />
          <style nonce={props.nonce}>{raw(FRAME_STYLE)}</style>
        </head>
        <body>
          <main class={`qe ${props.theme}`}>
            <h1 class="h" id="qe-h">{t("public.embed.heading")}</h1>
            {events.length === 0
              ? <p class="note">{t("public.embed.empty")}</p>
              : (
                <ol aria-labelledby="qe-h" class="h-feed">
                  {events.map((event) => {
                    const words = badge(event.status, t);
                    const end = endLabel(
                      event.start_datetime,
                      event.end_datetime,
                      site,
                      "short",
                    );
                    return (
                      <li
                        class={`h-event${
                          event.status === "EventCancelled" ? " x" : ""
                        }`}
                      >
                        <a
                          class="t p-name u-url"
                          href={`${site.baseUrl}${eventPath(event.slug)}`}
                          {...newTab}
                        >
                          {event.title}
                        </a>
                        {words && (
                          <span
                            class={`b ${
                              event.status === "EventCancelled" ? "c" : "w"
                            }`}
                          >
                            {words}
                          </span>
                        )}
                        <span class="m">
                          <time
                            class="dt-start"
                            datetime={isoInZone(
                              event.start_datetime,
                              site.timezone,
                            )}
                          >
                            {shortDateTime(event.start_datetime, site)}
                          </time>
                          {end !== null && event.end_datetime !== null && (
                            <>
                              {" – "}
                              <time
                                class="dt-end"
                                datetime={isoInZone(
                                  event.end_datetime,
                                  site.timezone,
                                )}
                              >
                                {end}
                              </time>
                            </>
                          )}
                          {event.place && (
                            <>
                              {" · "}
                              <span class="p-location">
                                {event.place.name}
                              </span>
                            </>
                          )}
                        </span>
                      </li>
                    );
                  })}
                </ol>
              )}
            <p class="more">
              <a href={`${site.baseUrl}/`} {...newTab}>
                {t("public.embed.more", { site: site.title })}
              </a>
            </p>
          </main>
        </body>
      </html>
    </>
  );
}

/** The form's own look, after the public stylesheet. */
const NEW_STYLE = `
.embed-form fieldset { border: 1px solid var(--line); border-radius: 0.6rem; margin: 0 0 1rem;
  padding: 0.5rem 1rem 1rem; min-width: 0; }
.embed-form legend { font-weight: 700; padding: 0 0.3rem; }
.embed-form .field { margin: 0.8rem 0 0; }
.embed-form label.name { display: block; font-weight: 600; }
.embed-form input[type=text], .embed-form input[type=number], .embed-form select {
  font: inherit; padding: 0.4rem 0.6rem; border: 1px solid var(--muted); border-radius: 0.45rem;
  background: var(--bg); color: var(--fg); max-width: 100%; }
.embed-form input[type=text] { width: 100%; }
.embed-form input[type=number] { width: 6rem; }
.embed-form .hint { display: block; color: var(--muted); font-size: 0.92rem; }
.embed-form .places ul { list-style: none; margin: 0.3rem 0 0; padding: 0; max-height: 14rem;
  overflow-y: auto; }
.embed-form .places li { padding: 0.15rem 0; overflow-wrap: anywhere; }
.embed-form input:focus-visible, .embed-form select:focus-visible, .embed-form button:focus-visible,
.snippet textarea:focus-visible, .copy:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.embed-form button, .copy { font: inherit; cursor: pointer; }
iframe.preview { display: block; width: 100%; max-width: 40rem; height: 30rem; border: 0; }
.snippet textarea { display: block; width: 100%; font: 0.9rem/1.45 ui-monospace, Menlo, Consolas, monospace;
  padding: 0.6rem; border: 1px solid var(--muted); border-radius: 0.45rem; background: var(--bg);
  color: var(--fg); resize: vertical; }
.snippet .copy-row { display: flex; align-items: center; gap: 0.8rem; margin: 0.5rem 0 0; }
`;

/** The Copy buttons: shown only where this script runs. */
const COPY_SCRIPT =
  `for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const area = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + "-status");
    try {
      await navigator.clipboard.writeText(area.value);
    } catch {
      area.select();
      document.execCommand("copy");
    }
    status.textContent = button.dataset.done;
  });
}`;

/** A place the form offers. */
export interface PlaceChoice {
  id: number;
  name: string;
}

/** `/embed/new`: options, preview and snippets of an embedded list. */
export function EmbedNewView(
  props: {
    site: SiteInfo;
    nonce: string;
    options: EmbedOptions;
    /** `/embed?...` of the options. */
    preview: string;
    /** The embedded list's title, in its language. */
    frameTitle: string;
    places: PlaceChoice[];
    snippets: EmbedSnippets;
    canonical: string;
  },
) {
  const { site, options } = props;
  const { t } = site;
  const chosen = new Set(options.places);
  const snippet = (
    id: string,
    title: string,
    hint: string,
    text: string,
  ) => (
    <section class="snippet" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p id={`${id}-hint`} class="muted">{hint}</p>
      <textarea
        id={id}
        readonly
        rows={6}
        spellcheck={false}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-hint`}
      >
        {text}
      </textarea>
      <p class="copy-row">
        <button
          type="button"
          class="button secondary copy"
          data-copy={id}
          data-done={t("public.embed.new.copied")}
          hidden
        >
          {t("public.embed.new.copy")}
        </button>
        <span id={`${id}-status`} role="status"></span>
      </p>
    </section>
  );
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: t("public.embed.new.title"),
        description: t("public.embed.new.intro"),
        canonical: props.canonical,
        feeds: {
          path: "",
          label: t("public.feed.all"),
          heading: t("public.subscribe.all"),
        },
        style: NEW_STYLE,
      }}
    >
      <h1>{t("public.embed.new.title")}</h1>
      <p>{t("public.embed.new.intro")}</p>
      <form class="embed-form" method="get" action="/embed/new">
        <fieldset>
          <legend>{t("public.embed.new.options")}</legend>
          <p class="field">
            <label class="name" for="embed-tags">
              {t("public.embed.new.tags")}
            </label>
            <span class="hint" id="embed-tags-hint">
              {t("public.embed.new.tagsHint")}
            </span>
            <input
              id="embed-tags"
              name="tags"
              type="text"
              value={options.tags.join(", ")}
              maxlength={1100}
              autocomplete="off"
              aria-describedby="embed-tags-hint"
            />
          </p>
          {props.places.length > 0 && (
            <fieldset class="places field" aria-describedby="embed-places-hint">
              <legend>{t("public.embed.new.places")}</legend>
              <span class="hint" id="embed-places-hint">
                {t("public.embed.new.placesHint")}
              </span>
              <ul>
                {props.places.map((place) => (
                  <li>
                    <label>
                      <input
                        type="checkbox"
                        name="places"
                        value={String(place.id)}
                        checked={chosen.has(place.id)}
                      />{" "}
                      {place.name}
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          )}
          <p class="field">
            <label class="name" for="embed-max">
              {t("public.embed.new.max")}
            </label>
            <span class="hint" id="embed-max-hint">
              {t("public.embed.new.maxHint", { max: EMBED_MAX_LIMIT })}
            </span>
            <input
              id="embed-max"
              name="max"
              type="number"
              min={1}
              max={EMBED_MAX_LIMIT}
              value={String(options.max)}
              aria-describedby="embed-max-hint"
            />
          </p>
          <p class="field">
            <label class="name" for="embed-theme">
              {t("public.embed.new.theme")}
            </label>
            <select id="embed-theme" name="theme">
              {EMBED_THEMES.map((theme) => (
                <option value={theme} selected={options.theme === theme}>
                  {t(`public.embed.new.theme.${theme}`)}
                </option>
              ))}
            </select>
          </p>
          <p class="field">
            <label class="name" for="embed-language">
              {t("public.embed.new.lang")}
            </label>
            <select id="embed-language" name="language">
              <option value="" selected={!options.lang}>
                {t("public.embed.new.lang.visitor")}
              </option>
              {PUBLIC_LANGUAGES.map((lang) => (
                <option
                  value={lang}
                  lang={lang}
                  selected={options.lang === lang}
                >
                  {LANGUAGE_NAMES[lang] ?? lang}
                </option>
              ))}
            </select>
          </p>
        </fieldset>
        <button type="submit" class="button">
          {t("public.embed.new.submit")}
        </button>
      </form>
      <section aria-labelledby="preview-title">
        <h2 id="preview-title">{t("public.embed.new.preview")}</h2>
        <iframe class="preview" src={props.preview} title={props.frameTitle}>
        </iframe>
      </section>
      {snippet(
        "snippet-element",
        t("public.embed.new.element"),
        t("public.embed.new.elementHint"),
        props.snippets.element,
      )}
      {snippet(
        "snippet-iframe",
        t("public.embed.new.iframe"),
        t("public.embed.new.iframeHint"),
        props.snippets.iframe,
      )}
      <script nonce={props.nonce}>{raw(COPY_SCRIPT)}</script>
    </SitePage>
  );
}
