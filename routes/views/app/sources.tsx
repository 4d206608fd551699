/** The calendar subscriptions page (`/admin/sources`) and its removal step. */
import type { SyncCounts } from "../../../db/schema.ts";
import type { Translate } from "../../../lib/i18n.ts";
import { Csrf, Pager } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** A subscription as the page shows it. */
export interface ShownSource {
  id: number;
  name: string;
  url: string;
  owner: string;
  needsConfirmation: boolean;
  /** When it was last synced, in words; null when never. */
  lastSync: string | null;
  counts: SyncCounts | null;
  /** One problem per line. */
  lastError: string | null;
  /** Syncs in a row that failed. */
  failures: number;
  /** When the hourly job tries again after failures, in words; null when not waiting. */
  nextTry: string | null;
  paused: boolean;
}

/** What the add form holds (as typed). */
export interface SourceFields {
  url: string;
  name: string;
  tags: string;
  place: string;
  confirm: boolean;
}

/** The counts of a sync in words. */
export function countsText(t: Translate, counts: SyncCounts): string {
  return t("sources.counts", { ...counts });
}

/** The subscriptions, each with Sync now and Remove, then the add form. */
export function SourcesView(
  props: PageProps & {
    csrfToken: string;
    sources: ShownSource[];
    places: { id: number; name: string }[];
    values: SourceFields;
    errors: Partial<Record<keyof SourceFields, string>>;
    /** What the last action did (a status), or its problem (an alert). */
    notice?: { text: string; alert: boolean };
    /** The page of the list shown, and how many there are. */
    page: number;
    pages: number;
  },
) {
  const { t, values, errors } = props;
  const described = (name: keyof SourceFields, hint: boolean) =>
    [hint ? `${name}-hint` : "", errors[name] ? `${name}-error` : ""]
      .filter(Boolean).join(" ") || undefined;
  const problem = (name: keyof SourceFields) =>
    errors[name] && (
      <p class="field-error" id={`${name}-error`}>{errors[name]}</p>
    );
  return (
    <WebPage {...props} path="/admin/sources" title={t("sources.title")}>
      <h1>{t("sources.title")}</h1>
      <p>{t("sources.intro")}</p>
      {props.notice && (
        <p
          class={props.notice.alert ? "error" : undefined}
          role={props.notice.alert ? "alert" : "status"}
        >
          {props.notice.text}
        </p>
      )}
      {props.sources.length === 0
        ? <p>{t("sources.empty")}</p>
        : (
          <ul class="queue">
            {props.sources.map((s) => (
              <li class="card">
                <h2 id={`source-${s.id}`}>{s.name || s.url}</h2>
                <p class="email">
                  <a href={s.url} rel="noopener noreferrer nofollow">{s.url}</a>
                </p>
                <p class="muted">
                  {t("sources.by", { email: s.owner })}
                  {s.needsConfirmation ? ` · ${t("sources.waits")}` : ""}
                </p>
                <p>
                  {s.lastSync
                    ? t("sources.lastSync", { when: s.lastSync })
                    : t("sources.never")}
                  {s.counts && (
                    <>
                      <br />
                      {countsText(t, s.counts)}
                    </>
                  )}
                </p>
                {s.paused
                  ? (
                    <p class="error">
                      {s.failures > 0
                        ? t("sources.paused", { failures: s.failures })
                        : t("sources.pausedByHand")}
                    </p>
                  )
                  : s.failures > 0 && s.nextTry && (
                    <p>
                      {t("sources.failing", {
                        failures: s.failures,
                        when: s.nextTry,
                      })}
                    </p>
                  )}
                {s.lastError && (
                  <details>
                    <summary>{t("sources.problems")}</summary>
                    <ul class="messages">
                      {s.lastError.split("\n").map((line) => (
                        <li>
                          <p class="text">{line}</p>
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
                <div class="actions compact">
                  <form method="post" action={`/admin/sources/${s.id}/sync`}>
                    <Csrf token={props.csrfToken} />
                    <button
                      type="submit"
                      class="approve"
                      aria-describedby={`source-${s.id}`}
                    >
                      {t("sources.sync")}
                    </button>
                  </form>
                  {s.paused && (
                    <form
                      method="post"
                      action={`/admin/sources/${s.id}/resume`}
                    >
                      <Csrf token={props.csrfToken} />
                      <button
                        type="submit"
                        aria-describedby={`source-${s.id}`}
                      >
                        {t("sources.resume")}
                      </button>
                    </form>
                  )}
                  <a
                    class="button"
                    href={`/admin/sources/${s.id}/delete`}
                    aria-describedby={`source-${s.id}`}
                  >
                    {t("sources.delete")}
                  </a>
                </div>
              </li>
            ))}
          </ul>
        )}
      <Pager
        {...props}
        paging={{
          page: props.page,
          totalPages: props.pages,
          href: (page) =>
            page === 1 ? "/admin/sources" : `/admin/sources?page=${page}`,
        }}
        label={t("sources.pages")}
      />
      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">{t("sources.add")}</h2>
        <form method="post" action="/admin/sources">
          <Csrf token={props.csrfToken} />
          <label for="url">{t("sources.field.url")}</label>
          <p class="hint" id="url-hint">{t("sources.hint.url")}</p>
          <input
            id="url"
            name="url"
            type="text"
            inputmode="url"
            required
            maxlength={2000}
            value={values.url}
            aria-describedby={described("url", true)}
            aria-invalid={errors.url ? "true" : undefined}
          />
          {problem("url")}
          <label for="name">{t("sources.field.name")}</label>
          <p class="hint" id="name-hint">{t("sources.hint.name")}</p>
          <input
            id="name"
            name="name"
            type="text"
            maxlength={200}
            value={values.name}
            aria-describedby={described("name", true)}
          />
          <label for="tags">{t("sources.field.tags")}</label>
          <p class="hint" id="tags-hint">{t("sources.hint.tags")}</p>
          <input
            id="tags"
            name="tags"
            type="text"
            value={values.tags}
            aria-describedby={described("tags", true)}
            aria-invalid={errors.tags ? "true" : undefined}
          />
          {problem("tags")}
          <label for="place">{t("sources.field.place")}</label>
          <select
            id="place"
            name="place"
            class="wide"
            aria-describedby={described("place", false)}
            aria-invalid={errors.place ? "true" : undefined}
          >
            <option value="">{t("sources.place.none")}</option>
            {props.places.map((p) => (
              <option
                value={String(p.id)}
                selected={values.place === String(p.id)}
              >
                {p.name}
              </option>
            ))}
          </select>
          {problem("place")}
          <div class="switch">
            <input
              id="confirm"
              name="confirm"
              type="checkbox"
              value="on"
              checked={values.confirm}
            />
            <label for="confirm">{t("sources.field.confirm")}</label>
          </div>
          <div class="actions">
            <button type="submit" class="approve">{t("sources.submit")}</button>
          </div>
        </form>
      </section>
    </WebPage>
  );
}

/** "Remove this calendar?" */
export function SourceDeleteView(
  props: PageProps & {
    csrfToken: string;
    source: { id: number; name: string };
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} path="/admin/sources" title={t("sources.delete.title")}>
      <h1>{t("sources.delete.title")}</h1>
      <p>{t("sources.delete.text", { name: props.source.name })}</p>
      <form method="post" action={`/admin/sources/${props.source.id}/delete`}>
        <Csrf token={props.csrfToken} />
        <div class="actions">
          <button type="submit" class="danger">
            {t("sources.delete.submit")}
          </button>
          <a class="button" href="/admin/sources">{t("sources.cancel")}</a>
        </div>
      </form>
    </WebPage>
  );
}
