/** Deleting a user (admins): `/admin/users/{id}/delete`, what becomes of their events, then confirm. */
import type { EventFate } from "../../../lib/user-removal.ts";
import { Csrf } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** The confirmation page of a user's deletion. */
export function UserDeleteView(
  props: PageProps & {
    id: number;
    email: string;
    events: number;
    fate: EventFate;
    reassignEmail: string;
    csrfToken: string;
    error?: string;
  },
) {
  const { t } = props;
  const choice = (fate: EventFate, label: string) => (
    <label class="check">
      <input
        type="radio"
        name="events"
        value={fate}
        checked={props.fate === fate}
      />
      <span>{label}</span>
    </label>
  );
  return (
    <WebPage
      {...props}
      title={t("userDelete.title", { email: props.email })}
      path="/admin/users"
    >
      <h1 class="email">{t("userDelete.title", { email: props.email })}</h1>
      <p>{t("userDelete.intro", { count: props.events })}</p>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action={`/admin/users/${props.id}/delete`}>
        <Csrf token={props.csrfToken} />
        <fieldset>
          <legend>{t("userDelete.events")}</legend>
          {choice("keep", t("userDelete.keep"))}
          {choice("reassign", t("userDelete.reassign"))}
          {choice("remove", t("userDelete.remove"))}
        </fieldset>
        <label for="reassign_email">{t("userDelete.reassignEmail")}</label>
        <p class="hint" id="reassign-hint">{t("userDelete.reassignHint")}</p>
        <input
          id="reassign_email"
          name="reassign_email"
          type="email"
          value={props.reassignEmail}
          aria-describedby="reassign-hint"
        />
        <div class="actions">
          <button type="submit" class="danger">
            {t("userDelete.confirm")}
          </button>
        </div>
      </form>
      <p>
        <a href="/admin/users">{t("userDelete.cancel")}</a>
      </p>
    </WebPage>
  );
}
