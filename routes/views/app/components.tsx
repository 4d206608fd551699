/** What the signed-in interface's pages share: form parts, notices, the pager. */
import type { Translate } from "../../../lib/i18n.ts";

/** The hidden field that carries a session's CSRF token in a form. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="csrf_token" value={props.token} />;
}

/** A form of one button that posts `fields` with the page's CSRF token. */
export function ButtonForm(
  props: {
    action: string;
    csrfToken: string;
    fields: Record<string, string>;
    label: string;
    /** The id of what the button acts on (its accessible description). */
    describedBy?: string;
    kind?: "approve" | "deny";
  },
) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrfToken} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        class={props.kind ?? "deny"}
        aria-describedby={props.describedBy}
      >
        {props.label}
      </button>
    </form>
  );
}

/** A notice after an action (announced to screen readers). */
export function Notice(props: { text?: string }) {
  return props.text ? <p role="status" class="notice">{props.text}</p> : null;
}

/** A page of a paged list, and how to reach the others. */
export interface Paging {
  page: number;
  totalPages: number;
  /** The link of another page. */
  href: (page: number) => string;
}

/** Previous / next links of a paged list (nothing when it fits one page). */
export function Pager(props: { t: Translate; paging: Paging; label: string }) {
  const { paging, t } = props;
  if (paging.totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      {paging.page > 1
        ? <a href={paging.href(paging.page - 1)}>{t("pager.previous")}</a>
        : <span />}
      <span>
        {t("pager.pageOf", {
          page: paging.page,
          pages: paging.totalPages,
        })}
      </span>
      {paging.page < paging.totalPages
        ? <a href={paging.href(paging.page + 1)}>{t("pager.next")}</a>
        : <span />}
    </nav>
  );
}

/** The field of a new password (registration, an invitation): its hint, the minimum length, its error. */
export function NewPasswordField(
  props: { t: Translate; label: string; error?: string },
) {
  return (
    <>
      <label for="password">{props.label}</label>
      <p class="hint" id="password-hint">{props.t("register.passwordHint")}</p>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        required
        minlength={8}
        aria-describedby={props.error
          ? "password-hint password-error"
          : "password-hint"}
        aria-invalid={props.error ? "true" : undefined}
      />
      {props.error && (
        <p class="field-error" id="password-error">{props.error}</p>
      )}
    </>
  );
}
