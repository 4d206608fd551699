/** The sign-in, registration, account and submission pages of the web interface. */
import { Csrf, NewPasswordField } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** The sign-in form (`/login`). */
export function LoginView(
  props: PageProps & {
    next: string;
    email?: string;
    error?: string;
    notice?: string;
  },
) {
  return (
    <WebPage
      {...props}
      title={props.t("signIn.title")}
    >
      <h1>{props.t("signIn.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action="/login">
        <input type="hidden" name="next" value={props.next} />
        <label for="email">{props.t("signIn.email")}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={props.email ?? ""}
        />
        <label for="password">{props.t("signIn.password")}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <div class="actions">
          <button type="submit" class="approve">
            {props.t("signIn.submit")}
          </button>
        </div>
      </form>
      <p>
        <a href="/forgot">{props.t("forgot.link")}</a>
      </p>
    </WebPage>
  );
}

/** The registration form (`/register`, when `allow_registration` is on). */
export function RegisterView(
  props: PageProps & {
    email?: string;
    errors: { email?: string; password?: string };
    error?: string;
  },
) {
  const { t, errors } = props;
  return (
    <WebPage
      {...props}
      title={t("register.title")}
    >
      <h1>{t("register.title")}</h1>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action="/register">
        <label for="email">{t("signIn.email")}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          value={props.email ?? ""}
          aria-describedby={errors.email ? "email-error" : undefined}
          aria-invalid={errors.email ? "true" : undefined}
        />
        {errors.email && (
          <p class="field-error" id="email-error">{errors.email}</p>
        )}
        <NewPasswordField
          t={t}
          label={t("signIn.password")}
          error={errors.password}
        />
        <div class="actions">
          <button type="submit" class="approve">{t("register.submit")}</button>
        </div>
      </form>
    </WebPage>
  );
}

/** An app the user authorised, as the account page lists it. */
export interface AuthorisedApp {
  clientId: string;
  name: string;
  scopes: string;
}

/** The account page (`/account`): change the e-mail or the password, withdraw apps. */
export function AccountView(
  props: PageProps & {
    email: string;
    csrfToken: string;
    apps: AuthorisedApp[];
    notice?: string;
    passwordError?: string;
    /** The new e-mail as typed, and the problems of its form. */
    newEmail?: string;
    emailError?: string;
    emailPasswordError?: string;
    /** Moderators: the mail of submissions waiting (opt-out). */
    notifications?: { mailOn: boolean; submissions: boolean };
  },
) {
  const { t } = props;
  return (
    <WebPage
      {...props}
      title={t("account.title")}
      path="/account"
    >
      <h1>{t("account.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      <section class="card" aria-labelledby="email-title">
        <h2 id="email-title">{t("users.email.title")}</h2>
        <p id="email-now">{t("users.email.now", { email: props.email })}</p>
        <form method="post" action="/account/email">
          <Csrf token={props.csrfToken} />
          <label for="new_email">{t("users.email.new")}</label>
          <input
            id="new_email"
            name="email"
            type="email"
            autocomplete="email"
            required
            value={props.newEmail ?? ""}
            aria-describedby={props.emailError
              ? "email-now new_email-error"
              : "email-now"}
            aria-invalid={props.emailError ? "true" : undefined}
          />
          {props.emailError && (
            <p class="field-error" id="new_email-error">{props.emailError}</p>
          )}
          <label for="email_password">{t("users.email.password")}</label>
          <input
            id="email_password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            aria-describedby={props.emailPasswordError
              ? "email_password-error"
              : undefined}
            aria-invalid={props.emailPasswordError ? "true" : undefined}
          />
          {props.emailPasswordError && (
            <p class="field-error" id="email_password-error">
              {props.emailPasswordError}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="approve">
              {t("users.email.submit")}
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">{t("account.password")}</h2>
        {props.passwordError && (
          <p class="error" role="alert">{props.passwordError}</p>
        )}
        <form method="post" action="/account/password">
          <Csrf token={props.csrfToken} />
          <label for="current_password">{t("account.current")}</label>
          <input
            id="current_password"
            name="current_password"
            type="password"
            autocomplete="current-password"
            required
          />
          <label for="new_password">{t("account.new")}</label>
          <p class="hint" id="new-hint">{t("register.passwordHint")}</p>
          <input
            id="new_password"
            name="new_password"
            type="password"
            autocomplete="new-password"
            required
            minlength={8}
            aria-describedby="new-hint"
          />
          <div class="actions">
            <button type="submit" class="approve">{t("account.change")}</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="apps-title">
        <h2 id="apps-title">{t("account.apps")}</h2>
        {props.apps.length === 0
          ? <p>{t("account.noApps")}</p>
          : (
            <ul class="queue">
              {props.apps.map((app) => (
                <li>
                  <p>
                    <strong id={`app-${app.clientId}`}>{app.name}</strong>
                    <br />
                    <span class="muted">
                      {t("account.scopes", { scopes: app.scopes })}
                    </span>
                  </p>
                  <form
                    method="post"
                    action={`/account/apps/${
                      encodeURIComponent(app.clientId)
                    }/withdraw`}
                  >
                    <Csrf token={props.csrfToken} />
                    <button
                      type="submit"
                      class="deny"
                      aria-describedby={`app-${app.clientId}`}
                    >
                      {t("account.withdraw")}
                    </button>
                  </form>
                </li>
              ))}
            </ul>
          )}
      </section>
      {props.notifications && (
        <section class="card" aria-labelledby="notify-title">
          <h2 id="notify-title">{t("mailAdmin.title")}</h2>
          {!props.notifications.mailOn && <p>{t("account.notifyOff")}</p>}
          <form method="post" action="/account/notifications">
            <Csrf token={props.csrfToken} />
            <label class="check">
              <input
                type="checkbox"
                name="submissions"
                checked={props.notifications.submissions}
              />{" "}
              {t("account.notifySubmissions")}
            </label>
            <div class="actions">
              <button type="submit" class="approve">
                {t("account.notifySave")}
              </button>
            </div>
          </form>
        </section>
      )}
    </WebPage>
  );
}
