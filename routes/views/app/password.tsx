/**
 * The pages of getting into an account by e-mail: "forgot password",
 * choosing a new password from a link, the result of a confirmation link,
 * and an admin's fresh password link.
 */
import { NewPasswordField } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** `/forgot`: the address to send a password link to (or why none is sent). */
export function ForgotView(
  props: PageProps & {
    mailOn: boolean;
    email?: string;
    notice?: string;
    error?: string;
    emailError?: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("forgot.title")}>
      <h1>{t("forgot.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.mailOn
        ? (
          <form method="post" action="/forgot">
            <p id="forgot-intro">{t("forgot.intro")}</p>
            <label for="email">{t("signIn.email")}</label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="username"
              required
              value={props.email ?? ""}
              aria-describedby={props.emailError
                ? "forgot-intro email-error"
                : "forgot-intro"}
              aria-invalid={props.emailError ? "true" : undefined}
            />
            {props.emailError && (
              <p class="field-error" id="email-error">{props.emailError}</p>
            )}
            <div class="actions">
              <button type="submit" class="approve">
                {t("forgot.submit")}
              </button>
            </div>
          </form>
        )
        : <p>{t("forgot.off")}</p>}
      <p>
        <a href="/login">{t("signIn.title")}</a>
      </p>
    </WebPage>
  );
}

/** `/reset/{token}`: choose the account's new password. */
export function ResetView(
  props: PageProps & { action: string; email: string; error?: string },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("reset.title")}>
      <h1>{t("reset.title")}</h1>
      <p id="reset-for">{t("reset.for", { email: props.email })}</p>
      <form method="post" action={props.action}>
        <input
          type="email"
          name="username"
          autocomplete="username"
          value={props.email}
          hidden
          readonly
        />
        <NewPasswordField
          t={t}
          label={t("account.new")}
          error={props.error}
        />
        <div class="actions">
          <button type="submit" class="approve">{t("reset.submit")}</button>
        </div>
      </form>
    </WebPage>
  );
}

/** An admin's fresh password link: mailed, or shown once to pass on. */
export function PasswordLinkView(
  props: PageProps & {
    email: string;
    sent: boolean;
    url?: string;
    until: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("users.passwordLink")} path="/admin/users">
      <h1>{t("users.passwordLink")}</h1>
      {props.sent
        ? (
          <p role="status">
            {t("users.passwordLink.sent", { email: props.email })}
          </p>
        )
        : (
          <section class="card fresh" aria-labelledby="password-link-text">
            <p id="password-link-text">
              {t("users.passwordLink.fresh", {
                email: props.email,
                until: props.until,
              })}
            </p>
            <input
              id="password-link"
              readonly
              value={props.url}
              aria-labelledby="password-link-text"
            />
          </section>
        )}
      <p>
        <a href="/admin/users">{t("users.title")}</a>
      </p>
    </WebPage>
  );
}

/** `/confirm/{token}`: confirm an address (a registration, a changed address) by a post. */
export function ConfirmAddressView(
  props: PageProps & { action: string; email: string; register: boolean },
) {
  const { t } = props;
  return (
    <WebPage
      {...props}
      title={props.register ? t("register.title") : t("mail.email.action")}
    >
      <h1>
        {props.register ? t("register.title") : t("mail.email.action")}
      </h1>
      <p id="confirm-email">{props.email}</p>
      <form method="post" action={props.action}>
        <div class="actions">
          <button
            type="submit"
            class="approve"
            aria-describedby="confirm-email"
          >
            {props.register
              ? t("mail.register.action")
              : t("mail.email.action")}
          </button>
        </div>
      </form>
    </WebPage>
  );
}
