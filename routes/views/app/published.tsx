/** The editors' list of published events (`/admin/events`): search, upcoming or past, paged, each with Edit. */
import { type PageProps, WebPage } from "./shell.tsx";

/** A published event as the list shows it. */
export interface PublishedItem {
  id: number;
  slug: string;
  title: string;
  /** When, in words, in the instance's time zone. */
  when: string;
  place: string | null;
  cancelled: boolean;
}

/** The list's address with these choices (the defaults left out). */
export function publishedHref(
  choice: { query: string; when: "upcoming" | "past"; page: number },
): string {
  const params = new URLSearchParams();
  if (choice.query) params.set("q", choice.query);
  if (choice.when === "past") params.set("when", "past");
  if (choice.page > 1) params.set("page", String(choice.page));
  const query = params.toString();
  return query ? `/admin/events?${query}` : "/admin/events";
}

/** The page of published events. */
export function PublishedView(
  props: PageProps & {
    query: string;
    when: "upcoming" | "past";
    page: number;
    hasNext: boolean;
    events: PublishedItem[];
    error?: string;
  },
) {
  const { t, query, when, page } = props;
  const here = publishedHref({ query, when, page });
  return (
    <WebPage {...props} title={t("published.title")} path="/admin/events">
      <h1>{t("published.title")}</h1>
      <nav class="tabs" aria-label={t("published.when")}>
        <ul>
          {(["upcoming", "past"] as const).map((choice) => (
            <li>
              <a
                href={publishedHref({ query, when: choice, page: 1 })}
                aria-current={choice === when ? "page" : undefined}
              >
                {t(`published.${choice}`)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/admin/events" role="search">
        {when === "past" && <input type="hidden" name="when" value="past" />}
        <label for="q">{t("published.search")}</label>
        <input id="q" name="q" type="search" maxlength={100} value={query} />
        <div class="actions">
          <button type="submit" class="approve">
            {t("published.searchSubmit")}
          </button>
        </div>
      </form>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.events.length === 0
        ? <p>{t(query ? "published.noMatch" : "published.empty")}</p>
        : (
          <ul class="queue">
            {props.events.map((e) => (
              <li class="card">
                <h2 id={`event-${e.id}`}>
                  <a href={`/event/${encodeURIComponent(e.slug)}`}>{e.title}</a>
                </h2>
                <p>
                  {e.when}
                  {e.place ? ` · ${e.place}` : ""}{" "}
                  {e.cancelled && (
                    <span class="badge">{t("events.cancelled")}</span>
                  )}
                </p>
                <div class="actions compact">
                  <a
                    class="button"
                    href={`/events/${e.id}/edit?next=${
                      encodeURIComponent(here)
                    }`}
                    aria-describedby={`event-${e.id}`}
                  >
                    {t("events.edit")}
                  </a>
                </div>
              </li>
            ))}
          </ul>
        )}
      {(page > 1 || props.hasNext) && (
        <nav aria-label={t("events.pages")} class="pages">
          {page > 1 && (
            <a href={publishedHref({ query, when, page: page - 1 })}>
              {t("events.previous")}
            </a>
          )}
          {props.hasNext && (
            <a href={publishedHref({ query, when, page: page + 1 })}>
              {t("events.next")}
            </a>
          )}
        </nav>
      )}
    </WebPage>
  );
}
