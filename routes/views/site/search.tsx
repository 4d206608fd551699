/**
 * The search page: a plain GET form (words, tags, places, days, online / in
 * person), the active filters as links that remove them, the result count,
 * the results by day with paging, and the feeds of exactly these results in
 * the footer. Works without scripts; the same view answers a 400 with the
 * problems next to their fields.
 */
import type { MessageKey, Translate } from "../../../lib/i18n.ts";
import {
  dayStartIn,
  type EventFilter,
  FILTER_PARAMS,
  filterQuery,
  isFiltered,
  withoutValue,
  withQuery,
} from "../../../lib/events/filter.ts";
import { dayLabel } from "../../../lib/pages/format.ts";
import {
  type Choice,
  SEARCH_COUNT_CAP,
  type SearchPage,
} from "../../../lib/pages/search.ts";
import {
  SEARCH_MAX_TERMS,
  SEARCH_QUERY_MAX_LENGTH,
} from "../../../lib/search.ts";
import { allEvents, EventList, PageLinks } from "./components.tsx";
import { type FeedScope, type SiteInfo, SitePage } from "./shell.tsx";

/** A problem of the search, in the page's language, under the field it concerns. */
export interface SearchProblem {
  field: (typeof FILTER_PARAMS)[number] | "page";
  text: string;
}

/** What the form offers and names: the choices, and the chosen ones' names. */
export type SearchChoices = Pick<
  SearchPage,
  "tagChoices" | "placeChoices" | "tagNames" | "placeNames"
>;

export interface SearchViewProps {
  site: SiteInfo;
  nonce: string;
  filter: EventFilter;
  page: number;
  /** The results; null when the search could not be done (problems). */
  result: SearchPage | null;
  choices: SearchChoices;
  problems: SearchProblem[];
}

/** The page's own rules (after the shared ones of SitePage). */
const STYLE = `
form.search { margin: 0.5rem 0 1rem; }
.field { margin: 0 0 0.9rem; }
.field > label, form.search legend { display: block; font-weight: 700; margin: 0 0 0.3rem; padding: 0; }
form.search input[type=search], form.search input[type=date] { font: inherit; padding: 0.45rem 0.6rem;
  border: 1px solid var(--muted); border-radius: 0.45rem; background: var(--bg); color: var(--fg); max-width: 100%; }
form.search input[type=search] { width: 100%; }
form.search input:focus-visible, form.search summary:focus-visible, form.search button:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
form.search [aria-invalid=true] { border: 2px solid var(--danger); }
.hint { color: var(--muted); font-size: 0.9rem; margin: 0.25rem 0 0; }
.field-error { color: var(--danger); font-weight: 700; margin: 0.3rem 0; }
details.refine { border: 1px solid var(--line); border-radius: 0.6rem; padding: 0.35rem 0.85rem; margin: 0 0 0.9rem; }
details.refine > summary { cursor: pointer; font-weight: 700; padding: 0.35rem 0; }
form.search fieldset { border: 0; padding: 0; margin: 0.6rem 0 0.9rem; min-width: 0; }
.options { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0; padding: 0; }
.options label { display: inline-flex; align-items: center; gap: 0.4rem; padding: 0.2rem 0.7rem 0.2rem 0.5rem;
  border: 1px solid var(--line); border-radius: 999px; cursor: pointer; overflow-wrap: anywhere; }
.options label:has(input:checked) { border-color: var(--accent); font-weight: 700; }
.options input { margin: 0; accent-color: var(--accent); }
.dates { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; }
.dates .field { margin: 0; }
.form-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6rem 1.25rem; }
.form-actions button { font: inherit; font-weight: 700; padding: 0.5rem 1.1rem; border-radius: 0.5rem;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; }
.chips { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0; margin: 0.75rem 0 0.25rem; }
.chips a { display: inline-flex; align-items: center; gap: 0.4rem; padding: 0.15rem 0.7rem;
  border: 1px solid var(--accent); border-radius: 999px; text-decoration: none; overflow-wrap: anywhere; }
.chips a:hover { text-decoration: underline; }
.chips .x { font-weight: 700; }
.result-line { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline;
  gap: 0.3rem 1rem; margin: 0.75rem 0 0; }
.count { font-weight: 700; margin: 0; }
.problems { border: 2px solid var(--danger); border-radius: 0.6rem; padding: 0.4rem 0.9rem; margin: 1rem 0; }
.problems h2 { margin: 0.3rem 0; font-size: 1.05rem; color: var(--danger); }
.problems ul { margin: 0.3rem 0; padding-left: 1.2rem; }
`;

/** The page's URL for a filter and page (canonical: see filterQuery). */
export function searchUrl(filter: EventFilter, page = 1): string {
  return withQuery(
    "/search",
    filterQuery(filter, page > 1 ? [["page", String(page)]] : []),
  );
}

/** How many results, in words, the number as `locale` writes it (1,000; 1.000). */
function countText(t: Translate, count: number, locale: string): string {
  if (count === 0) return t("public.search.count.none");
  if (count === 1) return t("public.search.count.one");
  const number = new Intl.NumberFormat(locale);
  if (count > SEARCH_COUNT_CAP) {
    return t("public.search.count.more", {
      count: number.format(SEARCH_COUNT_CAP),
    });
  }
  return t("public.search.count.many", { count: number.format(count) });
}

/** The chosen ones first (in their order), then the offered ones not chosen. */
function optionsOf<T>(
  chosen: T[],
  offered: Choice<T>[],
  label: (value: T) => string,
): { value: T; label: string; checked: boolean }[] {
  const picked = new Set(chosen);
  return [
    ...chosen.map((value) => ({ value, label: label(value), checked: true })),
    ...offered.filter((c) => !picked.has(c.value)).map((c) => ({
      value: c.value,
      label: c.label,
      checked: false,
    })),
  ];
}

function FieldError(props: { id: string; problems: SearchProblem[] }) {
  if (props.problems.length === 0) return null;
  return (
    <p class="field-error" id={props.id}>
      {props.problems.map((p) => p.text).join(" ")}
    </p>
  );
}

/** The search page (200) or the same form with its problems (400). */
export function SearchView(props: SearchViewProps) {
  const { site, filter, result, choices, problems } = props;
  const { t } = site;
  const filtered = isFiltered(filter);
  const query = filterQuery(filter);
  const problemsOf = (field: SearchProblem["field"]) =>
    problems.filter((p) => p.field === field);
  const describedBy = (field: SearchProblem["field"], ...ids: string[]) =>
    [problemsOf(field).length ? `${field}-error` : "", ...ids].filter(Boolean)
      .join(" ") || undefined;
  const invalid = (field: SearchProblem["field"]) =>
    problemsOf(field).length ? "true" : undefined;

  const heading = filter.q !== undefined
    ? t("public.search.titleFor", { q: filter.q })
    : filtered
    ? t("public.search.titleFiltered")
    : t("public.search.title");
  const title = props.page > 1 && result
    ? t("public.search.titlePage", { title: heading, page: props.page })
    : heading;

  const tagName = (key: string) => choices.tagNames.get(key) ?? key;
  const placeName = (id: number) => choices.placeNames.get(id) ?? `${id}`;
  const tagOptions = optionsOf(filter.tags, choices.tagChoices, tagName);
  const placeOptions = optionsOf(
    filter.places.filter((id) => choices.placeNames.has(id)),
    choices.placeChoices,
    placeName,
  );
  const refineOpen = filter.tags.length > 0 || filter.places.length > 0 ||
    filter.from !== undefined || filter.to !== undefined ||
    filter.online !== undefined ||
    problems.some((p) => p.field !== "q" && p.field !== "page");

  const day = (text: string) => dayLabel(dayStartIn(text, site.timezone), site);
  const chips: { label: string; href: string }[] = [];
  if (!problems.length) {
    if (filter.q !== undefined) {
      chips.push({
        label: t("public.search.chipWords", { q: filter.q }),
        href: searchUrl(withoutValue(filter, "q")),
      });
    }
    for (const tag of filter.tags) {
      chips.push({
        label: `#${tagName(tag)}`,
        href: searchUrl(withoutValue(filter, "tags", tag)),
      });
    }
    for (const id of filter.places) {
      chips.push({
        label: placeName(id),
        href: searchUrl(withoutValue(filter, "places", id)),
      });
    }
    if (filter.from) {
      chips.push({
        label: t("public.search.chipFrom", { date: day(filter.from) }),
        href: searchUrl(withoutValue(filter, "from")),
      });
    }
    if (filter.to) {
      chips.push({
        label: t("public.search.chipTo", { date: day(filter.to) }),
        href: searchUrl(withoutValue(filter, "to")),
      });
    }
    if (filter.online !== undefined) {
      chips.push({
        label: filter.online
          ? t("public.search.online")
          : t("public.search.inPerson"),
        href: searchUrl(withoutValue(filter, "online")),
      });
    }
  }

  const feeds: FeedScope = filtered
    ? {
      path: "",
      query,
      label: t("public.search.feed"),
      heading: t("public.search.subscribe"),
    }
    : allEvents(t);

  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        style: STYLE,
        title: problems.length ? t("public.search.badTitle") : title,
        description: t("public.search.description", { site: site.title }),
        canonical: `${site.baseUrl}${searchUrl(filter, props.page)}`,
        section: "search",
        feeds,
        // Endless combinations: only the plain page is for search engines.
        noindex: filtered || props.page > 1 || problems.length > 0,
        prev: result && props.page > 1
          ? searchUrl(filter, props.page - 1)
          : undefined,
        next: result?.hasNext ? searchUrl(filter, props.page + 1) : undefined,
      }}
    >
      <h1>{problems.length ? t("public.search.badTitle") : title}</h1>
      {problems.length > 0 && (
        <section class="problems" aria-labelledby="problems-title">
          <h2 id="problems-title">{t("public.search.problems")}</h2>
          <ul>
            {problems.map((p) => (
              <li>
                {p.field === "page"
                  ? p.text
                  : <a href={`#search-${p.field}`}>{p.text}</a>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <form
        class="search"
        method="get"
        action="/search"
        aria-label={t("public.search.formLabel")}
      >
        <div class="field">
          <label for="search-q">{t("public.search.words")}</label>
          <input
            id="search-q"
            name="q"
            type="search"
            value={filter.q ?? ""}
            aria-invalid={invalid("q")}
            aria-describedby={describedBy("q", "q-hint")}
          />
          <FieldError id="q-error" problems={problemsOf("q")} />
          <p class="hint" id="q-hint">
            {t("public.search.wordsHint", {
              chars: SEARCH_QUERY_MAX_LENGTH,
              words: SEARCH_MAX_TERMS,
            })}
          </p>
        </div>
        <details class="refine" open={refineOpen}>
          <summary>{t("public.search.refine")}</summary>
          {(tagOptions.length > 0 || problemsOf("tags").length > 0) && (
            <fieldset
              id="search-tags"
              aria-describedby={describedBy("tags")}
            >
              <legend>{t("public.search.tagsLegend")}</legend>
              <FieldError id="tags-error" problems={problemsOf("tags")} />
              <ul class="options">
                {tagOptions.map((o) => (
                  <li>
                    <label>
                      <input
                        type="checkbox"
                        name="tags"
                        value={o.value}
                        checked={o.checked}
                      />
                      <span>#{o.label}</span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          )}
          {(placeOptions.length > 0 || problemsOf("places").length > 0) && (
            <fieldset
              id="search-places"
              aria-describedby={describedBy("places")}
            >
              <legend>{t("public.search.placesLegend")}</legend>
              <FieldError id="places-error" problems={problemsOf("places")} />
              <ul class="options">
                {placeOptions.map((o) => (
                  <li>
                    <label>
                      <input
                        type="checkbox"
                        name="places"
                        value={String(o.value)}
                        checked={o.checked}
                      />
                      <span>{o.label}</span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          )}
          <fieldset aria-describedby="dates-hint">
            <legend>{t("public.search.datesLegend")}</legend>
            <div class="dates">
              {(["from", "to"] as const).map((field) => (
                <div class="field">
                  <label for={`search-${field}`}>
                    {t(`public.search.${field}` as MessageKey)}
                  </label>
                  <input
                    id={`search-${field}`}
                    name={field}
                    type="date"
                    value={filter[field] ?? ""}
                    aria-invalid={invalid(field)}
                    aria-describedby={describedBy(field)}
                  />
                  <FieldError
                    id={`${field}-error`}
                    problems={problemsOf(field)}
                  />
                </div>
              ))}
            </div>
            <p class="hint" id="dates-hint">
              {t("public.search.datesHint", { zone: site.timezone })}
            </p>
          </fieldset>
          <fieldset id="search-online" aria-describedby={describedBy("online")}>
            <legend>{t("public.search.attendance")}</legend>
            <FieldError id="online-error" problems={problemsOf("online")} />
            <ul class="options">
              {([
                ["", "public.search.anyway", filter.online === undefined],
                ["true", "public.search.online", filter.online === true],
                ["false", "public.search.inPerson", filter.online === false],
              ] as const).map(([value, key, checked]) => (
                <li>
                  <label>
                    <input
                      type="radio"
                      name="online"
                      value={value}
                      checked={checked}
                    />
                    <span>{t(key)}</span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        </details>
        <div class="form-actions">
          <button type="submit">{t("public.search.submit")}</button>
          {(filtered || problems.length > 0) && (
            <a href="/search">{t("public.search.clear")}</a>
          )}
        </div>
      </form>
      {chips.length > 0 && (
        <ul class="chips" aria-label={t("public.search.active")}>
          {chips.map((chip) => (
            <li>
              <a href={chip.href}>
                <span class="visually-hidden">
                  {t("public.search.remove")}
                  {" "}
                </span>
                <span>{chip.label}</span>{" "}
                <span class="x" aria-hidden="true">×</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {result && (
        <Results
          site={site}
          filter={filter}
          page={props.page}
          result={result}
          subscribe={filtered}
        />
      )}
    </SitePage>
  );
}

function Results(
  props: {
    site: SiteInfo;
    filter: EventFilter;
    page: number;
    result: SearchPage;
    subscribe: boolean;
  },
) {
  const { site, result, filter, page } = props;
  const { t } = site;
  const empty = result.days.length === 0;
  return (
    <>
      <div class="result-line">
        <p class="count" id="result-count">
          {countText(t, result.count, site.locale)}
        </p>
        {props.subscribe && (
          <a href="#subscribe">{t("public.search.subscribeLink")}</a>
        )}
      </div>
      {empty && (
        <p class="empty">
          {page > 1 && result.count > 0
            ? t("public.search.noMore")
            : isFiltered(filter)
            ? t("public.search.tryLess")
            : t("public.home.empty")}
        </p>
      )}
      <div class="h-feed">
        {result.days.map((group) => {
          const id = `day-${group.key}`;
          return (
            <section class="day" aria-labelledby={id}>
              <h2 id={id}>
                {group.label ??
                  (filter.from
                    ? t("public.search.runningOn", {
                      date: dayLabel(result.start, site),
                    })
                    : t("public.home.now"))}
              </h2>
              <EventList
                events={group.events}
                site={site}
                withDate={group.label === null}
              />
            </section>
          );
        })}
      </div>
      <PageLinks
        t={t}
        label={t("public.pages")}
        page={page}
        hasPrevious={page > 1}
        hasNext={result.hasNext}
        href={(n) => searchUrl(filter, n)}
        rel
      />
    </>
  );
}
