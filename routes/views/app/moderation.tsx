/**
 * The moderation pages (editors and admins): the queue of events waiting for
 * confirmation, with messages to their authors, and (admins) the replies
 * received from the fediverse.
 */
import { raw } from "hono/html";
import type { MessageKey } from "../../../lib/i18n.ts";
import { Csrf } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** A message on a queued event, as the page shows it. */
export interface ShownMessage {
  id: number;
  text: string;
  author: string;
  /** When it was written, in words. */
  when: string;
  authorVisible: boolean;
}

/** An event waiting in the moderation queue, as the page shows it. */
export interface QueuedEvent {
  id: number;
  title: string;
  /** When it starts, in words, in the instance's time zone. */
  when: string;
  place: string | null;
  /** Its description as HTML (sanitised), its tags and its image. */
  descriptionHtml: string;
  tags: string[];
  image: { src: string; alt: string } | null;
  /** Its page as visitors will see it once confirmed. */
  preview: string;
  /** Who submitted it and when, in words. */
  submitted: string;
  /** Whether a member submitted it (and so may read messages). */
  hasAuthor: boolean;
  messages: ShownMessage[];
}

/** A message that was not added: what was typed and the problem. */
export interface MessageDraft {
  eventId: number;
  message: string;
  authorVisible: boolean;
  error: string;
}

/** Where the list is in its pages. */
export interface Paging {
  page: number;
  pages: number;
  /** The link to another page. */
  href: (page: number) => string;
}

/** The tabs of the moderation area; only admins have more than one. */
function Tabs(
  props: PageProps & { current: "queue" | "resources"; admin: boolean },
) {
  if (!props.admin) return null;
  const tabs: [string, "queue" | "resources", MessageKey][] = [
    ["/admin", "queue", "moderation.tabs.queue"],
    ["/admin/resources", "resources", "moderation.tabs.resources"],
  ];
  return (
    <nav class="tabs" aria-label={props.t("moderation.tabs.label")}>
      <ul>
        {tabs.map(([href, name, key]) => (
          <li>
            <a
              href={href}
              aria-current={name === props.current ? "page" : undefined}
            >
              {props.t(key)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Previous and next links, when there is more than one page. */
function Pages(props: PageProps & { paging: Paging }) {
  const { page, pages, href } = props.paging;
  if (pages <= 1) return null;
  return (
    <nav class="pages" aria-label={props.t("moderation.pages.label")}>
      {page > 1
        ? (
          <a href={href(page - 1)} rel="prev">
            {props.t("moderation.pages.previous")}
          </a>
        )
        : <span />}
      <span aria-current="page">
        {props.t("moderation.pages.of", { page, pages })}
      </span>
      {page < pages
        ? (
          <a href={href(page + 1)} rel="next">
            {props.t("moderation.pages.next")}
          </a>
        )
        : <span />}
    </nav>
  );
}

/** The messages of a queued event and the form to add one. */
function Messages(
  props: PageProps & {
    event: QueuedEvent;
    csrfToken: string;
    page: number;
    draft?: MessageDraft;
  },
) {
  const { t, event } = props;
  const draft = props.draft?.eventId === event.id ? props.draft : undefined;
  const field = `message-${event.id}`;
  const hint = event.hasAuthor ? undefined : `${field}-hint`;
  const describedBy = [hint, draft ? `${field}-error` : undefined].filter(
    Boolean,
  ).join(" ") || undefined;
  return (
    <section
      aria-labelledby={event.messages.length > 0
        ? `messages-${event.id}`
        : undefined}
    >
      {event.messages.length > 0 && (
        <h3 id={`messages-${event.id}`}>
          {t("moderation.messages", { count: event.messages.length })}
        </h3>
      )}
      {event.messages.length > 0 && (
        <ul class="messages">
          {event.messages.map((m) => (
            <li>
              <p class="text">{m.text}</p>
              <p class="muted">
                {t("moderation.messageBy", { author: m.author, when: m.when })}
                {" · "}
                <span class="badge">
                  {t(
                    m.authorVisible
                      ? "moderation.visibleToAuthor"
                      : "moderation.editorsOnly",
                  )}
                </span>
              </p>
            </li>
          ))}
        </ul>
      )}
      <details open={draft ? true : undefined}>
        <summary>{t("moderation.write")}</summary>
        <form
          method="post"
          action={`/admin/events/${event.id}/messages`}
        >
          <Csrf token={props.csrfToken} />
          <input type="hidden" name="page" value={String(props.page)} />
          <label for={field}>{t("moderation.field.message")}</label>
          {hint && (
            <p class="hint" id={hint}>{t("moderation.hint.anonymous")}</p>
          )}
          <textarea
            id={field}
            name="message"
            required
            maxlength={5000}
            aria-describedby={describedBy}
            aria-invalid={draft ? "true" : undefined}
          >
            {draft?.message ?? ""}
          </textarea>
          {draft && (
            <p class="field-error" id={`${field}-error`}>{draft.error}</p>
          )}
          {event.hasAuthor && (
            <label class="check">
              <input
                type="checkbox"
                name="is_author_visible"
                value="true"
                checked={draft?.authorVisible ? true : undefined}
              />
              {t("moderation.field.authorVisible")}
            </label>
          )}
          <div class="actions">
            <button type="submit" class="deny">{t("moderation.send")}</button>
          </div>
        </form>
      </details>
    </section>
  );
}

/** The moderation queue (`/admin`): confirm, reject, edit, and messages to the author. */
export function QueueView(
  props: PageProps & {
    csrfToken: string;
    admin: boolean;
    events: QueuedEvent[];
    count: number;
    paging: Paging;
    notice?: string;
    draft?: MessageDraft;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} path="/admin" title={t("moderation.title")}>
      <Tabs {...props} current="queue" />
      <h1>{t("moderation.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.draft && (
        <p class="error" role="alert">{t("moderation.error.notAdded")}</p>
      )}
      {props.events.length === 0 ? <p>{t("moderation.empty")}</p> : (
        <>
          <p class="muted">{t("moderation.count", { count: props.count })}</p>
          <ul class="queue">
            {props.events.map((e) => (
              <li class="card">
                <h2 id={`event-${e.id}`}>{e.title}</h2>
                <p>
                  {e.when}
                  {e.place ? ` · ${e.place}` : ""}
                </p>
                <p class="muted">{e.submitted}</p>
                {e.image && (
                  <img class="submitted" src={e.image.src} alt={e.image.alt} />
                )}
                {e.descriptionHtml && (
                  <div class="content">{raw(e.descriptionHtml)}</div>
                )}
                {e.tags.length > 0 && (
                  <p class="tags">
                    {t("moderation.tags")}{" "}
                    {e.tags.map((tag) => `#${tag}`).join(" ")}
                  </p>
                )}
                <p>
                  <a href={e.preview} aria-describedby={`event-${e.id}`}>
                    {t("moderation.preview")}
                  </a>
                </p>
                <div class="actions">
                  <form
                    method="post"
                    action={`/admin/events/${e.id}/confirm`}
                  >
                    <Csrf token={props.csrfToken} />
                    <input
                      type="hidden"
                      name="page"
                      value={String(props.paging.page)}
                    />
                    <button
                      type="submit"
                      class="approve"
                      aria-describedby={`event-${e.id}`}
                    >
                      {t("moderation.confirm")}
                    </button>
                  </form>
                  <form
                    method="get"
                    action={`/admin/events/${e.id}/reject`}
                  >
                    <input
                      type="hidden"
                      name="page"
                      value={String(props.paging.page)}
                    />
                    <button
                      type="submit"
                      class="deny"
                      aria-describedby={`event-${e.id}`}
                    >
                      {t("moderation.reject")}
                    </button>
                  </form>
                  <a
                    class="button"
                    href={`/events/${e.id}/edit`}
                    aria-describedby={`event-${e.id}`}
                  >
                    {t("moderation.edit")}
                  </a>
                </div>
                <Messages
                  {...props}
                  event={e}
                  page={props.paging.page}
                />
              </li>
            ))}
          </ul>
          <Pages {...props} />
        </>
      )}
    </WebPage>
  );
}

/** The confirmation step of a rejection (`/admin/events/{id}/reject`). */
export function RejectView(
  props: PageProps & {
    csrfToken: string;
    event: { id: number; title: string; when: string; submitted: string };
    series: boolean;
    page: number;
    /** Whether a signed-in member submitted it (who a message can reach), with e-mail on. */
    hasAuthor?: boolean;
  },
) {
  const { t, event } = props;
  const back = props.page > 1 ? `/admin?page=${props.page}` : "/admin";
  return (
    <WebPage {...props} path="/admin" title={t("moderation.reject.title")}>
      <h1>{t("moderation.reject.title")}</h1>
      <section class="card" aria-labelledby="rejected-title">
        <h2 id="rejected-title">{event.title}</h2>
        <p>{event.when}</p>
        <p class="muted">{event.submitted}</p>
      </section>
      <p>{t("moderation.reject.text", { title: event.title })}</p>
      {props.series && <p>{t("moderation.reject.series")}</p>}
      <form method="post" action={`/admin/events/${event.id}/reject`}>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="page" value={String(props.page)} />
        {props.hasAuthor && (
          <>
            <label for="reject-message">{t("moderation.reject.message")}</label>
            <p class="hint" id="reject-message-hint">
              {t("moderation.reject.messageHint")}
            </p>
            <textarea
              id="reject-message"
              name="message"
              rows={4}
              maxlength={5000}
              aria-describedby="reject-message-hint"
            />
          </>
        )}
        <div class="actions">
          <button type="submit" class="danger">
            {t("moderation.reject.submit")}
          </button>
          <a class="button" href={back}>{t("moderation.cancel")}</a>
        </div>
      </form>
    </WebPage>
  );
}

/** A reply received from the fediverse, as the page shows it. */
export interface ShownResource {
  id: number;
  /** The author's name and handle, and a link to them (http(s) only). */
  author: { name: string | null; handle: string; href: string | null };
  /** The event it answers, when it still exists. */
  event: { title: string; href: string } | null;
  /** When it arrived, in words. */
  when: string;
  /** Sanitised HTML (sanitised again just before rendering). */
  contentHtml: string;
  /** The content warning, sanitised HTML, or null. */
  summaryHtml: string | null;
  hidden: boolean;
}

/** Where a resource action comes back to: the list's search and page. */
export interface ResourcesPlace {
  query: string;
  page: number;
}

function ReturnFields(props: { place: ResourcesPlace }) {
  return (
    <>
      <input type="hidden" name="query" value={props.place.query} />
      <input type="hidden" name="page" value={String(props.place.page)} />
    </>
  );
}

/** A reply's author, event, date and content. */
function ResourceBody(props: PageProps & { resource: ShownResource }) {
  const { t, resource: r } = props;
  return (
    <>
      <h2 id={`resource-${r.id}-title`}>
        {r.author.href
          ? (
            <a href={r.author.href} rel="noopener noreferrer nofollow">
              {r.author.name ?? r.author.handle}
            </a>
          )
          : r.author.name ?? r.author.handle}
      </h2>
      {r.author.name && <p class="muted handle">{r.author.handle}</p>}
      <p>
        <span class="muted">{r.when}</span>
        <br />
        {r.event
          ? (
            <>
              {t("moderation.resources.inReplyTo")}{" "}
              <a href={r.event.href}>{r.event.title}</a>
            </>
          )
          : t("moderation.resources.noEvent")}
      </p>
      {r.summaryHtml && (
        <div class="content">
          <strong>{t("moderation.resources.warning")}</strong>{" "}
          {raw(r.summaryHtml)}
        </div>
      )}
      <div class="content">{raw(r.contentHtml)}</div>
    </>
  );
}

/** The replies from the fediverse (`/admin/resources`): search, hide or show, delete. */
export function ResourcesView(
  props: PageProps & {
    csrfToken: string;
    resources: ShownResource[];
    count: number;
    place: ResourcesPlace;
    paging: Paging;
    queryError?: string;
    notice?: string;
  },
) {
  const { t, place } = props;
  const error = props.queryError;
  return (
    <WebPage
      {...props}
      path="/admin/resources"
      title={t("moderation.resources.title")}
    >
      <Tabs {...props} current="resources" admin />
      <h1>{t("moderation.resources.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      <form method="get" action="/admin/resources" role="search">
        <label for="query">{t("moderation.resources.search")}</label>
        <p class="hint" id="query-hint">
          {t("moderation.resources.searchHint")}
        </p>
        <input
          id="query"
          name="query"
          type="search"
          value={place.query}
          aria-describedby={error ? "query-hint query-error" : "query-hint"}
          aria-invalid={error ? "true" : undefined}
        />
        {error && <p class="field-error" id="query-error">{error}</p>}
        <div class="actions">
          <button type="submit" class="deny">
            {t("moderation.resources.searchSubmit")}
          </button>
        </div>
      </form>
      {error ? null : props.resources.length === 0
        ? (
          <p>
            {place.query
              ? t("moderation.resources.noMatch", { query: place.query })
              : t("moderation.resources.empty")}
          </p>
        )
        : (
          <>
            <p class="muted">
              {t("moderation.resources.count", { count: props.count })}
            </p>
            <ul class="queue">
              {props.resources.map((r) => (
                <li
                  class={r.hidden ? "card is-hidden" : "card"}
                  id={`resource-${r.id}`}
                >
                  {r.hidden && (
                    <p>
                      <span class="badge">
                        {t("moderation.resources.hidden")}
                      </span>
                    </p>
                  )}
                  <ResourceBody {...props} resource={r} />
                  <div class="actions">
                    <form
                      method="post"
                      action={`/admin/resources/${r.id}/${
                        r.hidden ? "show" : "hide"
                      }`}
                    >
                      <Csrf token={props.csrfToken} />
                      <ReturnFields place={place} />
                      <button
                        type="submit"
                        class="deny"
                        aria-describedby={`resource-${r.id}-title`}
                      >
                        {t(
                          r.hidden
                            ? "moderation.resources.show"
                            : "moderation.resources.hide",
                        )}
                      </button>
                    </form>
                    <form
                      method="get"
                      action={`/admin/resources/${r.id}/delete`}
                    >
                      <ReturnFields place={place} />
                      <button
                        type="submit"
                        class="deny"
                        aria-describedby={`resource-${r.id}-title`}
                      >
                        {t("moderation.resources.delete")}
                      </button>
                    </form>
                  </div>
                </li>
              ))}
            </ul>
            <Pages {...props} />
          </>
        )}
    </WebPage>
  );
}

/** The confirmation step of deleting a reply (`/admin/resources/{id}/delete`). */
export function ResourceDeleteView(
  props: PageProps & {
    csrfToken: string;
    resource: ShownResource;
    place: ResourcesPlace;
    back: string;
  },
) {
  const { t, resource } = props;
  return (
    <WebPage
      {...props}
      path="/admin/resources"
      title={t("moderation.resources.deleteTitle")}
    >
      <h1>{t("moderation.resources.deleteTitle")}</h1>
      <section class="card" aria-label={t("moderation.resources.deleteTitle")}>
        <ResourceBody {...props} resource={resource} />
      </section>
      <p>{t("moderation.resources.deleteText")}</p>
      <form method="post" action={`/admin/resources/${resource.id}/delete`}>
        <Csrf token={props.csrfToken} />
        <ReturnFields place={props.place} />
        <div class="actions">
          <button type="submit" class="danger">
            {t("moderation.resources.deleteSubmit")}
          </button>
          <a class="button" href={props.back}>{t("moderation.cancel")}</a>
        </div>
      </form>
    </WebPage>
  );
}
