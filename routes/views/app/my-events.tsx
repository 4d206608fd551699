/** The signed-in user's events (`/my`), and the confirmation of an event's deletion. */
import { Csrf } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** An event as the user's page lists it. */
export interface MyEvent {
  id: number;
  slug: string;
  title: string;
  /** When, in words, in the instance's time zone. */
  when: string;
  place: string | null;
  cancelled: boolean;
  /** Waiting for confirmation (hidden). */
  waiting: boolean;
  /** For a series: its rule in words, and its next dates. */
  rule?: string;
  /** A date of a series. */
  occurrence?: boolean;
  occurrences?: MyEvent[];
}

/**
 * Cancelling asks first (a link to its confirmation page, which works
 * without scripts); taking a cancellation back is a button at once.
 */
function StatusForm(
  props: {
    event: MyEvent;
    csrfToken: string;
    page: number;
    t: PageProps["t"];
    describedBy: string;
  },
) {
  const { event, t } = props;
  if (!event.cancelled) {
    return (
      <a
        class="button deny"
        href={`/events/${event.id}/cancel?page=${props.page}`}
        aria-describedby={props.describedBy}
      >
        {t(
          event.rule
            ? "events.cancelSeriesAsk"
            : event.occurrence
            ? "events.cancelDateAsk"
            : "events.cancelAsk",
        )}
      </a>
    );
  }
  return (
    <form method="post" action={`/events/${event.id}/status`}>
      <Csrf token={props.csrfToken} />
      <input type="hidden" name="page" value={String(props.page)} />
      <input type="hidden" name="status" value="EventScheduled" />
      <button
        type="submit"
        class="deny"
        aria-describedby={props.describedBy}
      >
        {t("events.uncancel")}
      </button>
    </form>
  );
}

/** The confirmation step before cancelling an event, a series or one of its dates. */
export function CancelView(
  props: PageProps & {
    csrfToken: string;
    id: number;
    title: string;
    when: string;
    kind: "single" | "series" | "occurrence";
    page: number;
  },
) {
  const { t } = props;
  const title = t("events.cancelConfirm.title", { title: props.title });
  const back = `/my?page=${props.page}`;
  return (
    <WebPage {...props} title={title}>
      <h1>{title}</h1>
      <p>{props.when}</p>
      <p>
        {t(
          props.kind === "series"
            ? "events.cancelConfirm.series"
            : props.kind === "occurrence"
            ? "events.cancelConfirm.occurrence"
            : "events.cancelConfirm.single",
        )}
      </p>
      <form method="post" action={`/events/${props.id}/status`}>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="page" value={String(props.page)} />
        <input type="hidden" name="status" value="EventCancelled" />
        <div class="actions">
          <button type="submit" class="danger">
            {t("events.cancelConfirm.confirm")}
          </button>
          <a class="button" href={back}>{t("events.cancelConfirm.keep")}</a>
        </div>
      </form>
    </WebPage>
  );
}

/** The signed-in user's events (`/my`): each with edit, cancel and delete; a series with its next dates. */
export function MyEventsView(
  props: PageProps & {
    csrfToken: string;
    events: MyEvent[];
    page: number;
    hasNext: boolean;
    notice?: string;
  },
) {
  const { t } = props;
  const badges = (e: MyEvent) => (
    <>
      {e.cancelled && <span class="badge">{t("events.cancelled")}</span>}
      {e.waiting && <span class="badge">{t("events.waiting")}</span>}
    </>
  );
  return (
    <WebPage {...props} title={t("events.my.title")} path="/my">
      <h1>{t("events.my.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.events.length === 0
        ? (
          <p>
            {t(props.page > 1 ? "events.my.noMore" : "events.my.empty")}{" "}
            <a href="/submit">{t("nav.submit")}</a>
          </p>
        )
        : (
          <ul class="queue">
            {props.events.map((e) => (
              <li class="card">
                <h2 id={`event-${e.id}`}>
                  {e.waiting
                    ? e.title
                    : (
                      <a href={`/event/${encodeURIComponent(e.slug)}`}>
                        {e.title}
                      </a>
                    )}
                </h2>
                <p>
                  {e.rule ? `${e.rule} · ${e.when}` : e.when}
                  {e.place ? ` · ${e.place}` : ""} {badges(e)}
                </p>
                <div class="actions compact">
                  <a
                    class="button"
                    href={`/events/${e.id}/edit`}
                    aria-describedby={`event-${e.id}`}
                  >
                    {t(e.rule ? "events.editSeries" : "events.edit")}
                  </a>
                  <StatusForm
                    event={e}
                    csrfToken={props.csrfToken}
                    page={props.page}
                    t={t}
                    describedBy={`event-${e.id}`}
                  />
                  <a
                    class="button"
                    href={`/events/${e.id}/delete`}
                    aria-describedby={`event-${e.id}`}
                  >
                    {t(e.rule ? "events.deleteSeries" : "events.delete")}
                  </a>
                </div>
                {e.occurrences && (
                  <section aria-labelledby={`dates-${e.id}`}>
                    <h3 id={`dates-${e.id}`}>{t("events.nextDates")}</h3>
                    {e.occurrences.length === 0
                      ? <p class="muted">{t("events.noNextDates")}</p>
                      : (
                        <ul class="dates">
                          {e.occurrences.map((o) => (
                            <li>
                              <p id={`event-${o.id}`}>
                                {o.when} {badges(o)}
                              </p>
                              <div class="actions compact">
                                <a
                                  class="button"
                                  href={`/events/${o.id}/edit`}
                                  aria-describedby={`event-${o.id}`}
                                >
                                  {t("events.editDate")}
                                </a>
                                <StatusForm
                                  event={o}
                                  csrfToken={props.csrfToken}
                                  page={props.page}
                                  t={t}
                                  describedBy={`event-${o.id}`}
                                />
                                <a
                                  class="button"
                                  href={`/events/${o.id}/delete`}
                                  aria-describedby={`event-${o.id}`}
                                >
                                  {t("events.delete")}
                                </a>
                              </div>
                            </li>
                          ))}
                        </ul>
                      )}
                  </section>
                )}
              </li>
            ))}
          </ul>
        )}
      {(props.page > 1 || props.hasNext) && (
        <nav aria-label={t("events.pages")} class="pages">
          {props.page > 1 && (
            <a href={`/my?page=${props.page - 1}`}>{t("events.previous")}</a>
          )}
          {props.hasNext && (
            <a href={`/my?page=${props.page + 1}`}>{t("events.next")}</a>
          )}
        </nav>
      )}
    </WebPage>
  );
}

/** The confirmation step before deleting an event, a series or one of its dates. */
export function DeleteView(
  props: PageProps & {
    csrfToken: string;
    id: number;
    title: string;
    when: string;
    kind: "single" | "series" | "occurrence";
    next: string;
  },
) {
  const { t } = props;
  return (
    <WebPage
      {...props}
      title={t("events.delete.title", { title: props.title })}
    >
      <h1>{t("events.delete.title", { title: props.title })}</h1>
      <p>{props.when}</p>
      <p>
        {t(
          props.kind === "series"
            ? "events.delete.series"
            : props.kind === "occurrence"
            ? "events.delete.occurrence"
            : "events.delete.single",
        )}
      </p>
      <form method="post" action={`/events/${props.id}/delete`}>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="next" value={props.next} />
        <div class="actions">
          <button type="submit" class="danger">
            {t("events.delete.confirm")}
          </button>
          <a class="button" href={props.next}>{t("events.delete.keep")}</a>
        </div>
      </form>
    </WebPage>
  );
}
