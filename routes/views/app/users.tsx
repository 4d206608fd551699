/** The users page (admins) and the page of an invitation link. */
import { raw } from "hono/html";
import { USER_ROLES, type UserRole } from "../../../db/schema.ts";
import type { Translate } from "../../../lib/i18n.ts";
import { ButtonForm, Csrf, NewPasswordField, Pager } from "./components.tsx";
import { MessageView } from "./message.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** A role's name in the page's language. */
export function roleName(t: Translate, role: UserRole): string {
  return t(`users.role.${role}`);
}

/** A user as the list shows them. */
export interface ListedUser {
  id: number;
  email: string;
  role: UserRole;
  active: boolean;
  /** When the account was made, in words. */
  since: string;
  /** Whether this is the signed-in admin. */
  self: boolean;
  /** A registration waiting for approval. */
  pending?: boolean;
}

/** An invitation not used yet, as the page lists it. */
export interface OpenInvitation {
  email: string;
  role: UserRole;
  /** When its link stops (or stopped) working, in words. */
  until: string;
  expired: boolean;
}

/** What was typed into the "add a user" form. */
export interface NewUserFields {
  email: string;
  role: string;
  how: string;
}

/** The problems of the "add a user" form, by field. */
export type NewUserErrors = Partial<
  Record<"email" | "role" | "how" | "password", string>
>;

/** A fresh invitation link, shown once (and mailed to the invitee when `sent`). */
export interface FreshLink {
  email: string;
  url: string;
  until: string;
  sent?: boolean;
}

/**
 * The buttons that make a one-time link to set an account's password:
 * mailed to it (when e-mail is on) or shown to pass on.
 */
export function PasswordLinkForm(
  props: {
    t: Translate;
    csrfToken: string;
    userId: number;
    mailOn: boolean;
    describedBy: string;
  },
) {
  const { t } = props;
  return (
    <form
      method="post"
      action={`/admin/users/${props.userId}/password-link`}
    >
      <Csrf token={props.csrfToken} />
      <div class="actions">
        {props.mailOn && (
          <button
            type="submit"
            name="send"
            value="mail"
            class="deny"
            aria-describedby={props.describedBy}
          >
            {t("users.passwordLink.send")}
          </button>
        )}
        <button
          type="submit"
          name="send"
          value="show"
          class="deny"
          aria-describedby={props.describedBy}
        >
          {t("users.passwordLink.show")}
        </button>
      </div>
    </form>
  );
}

/** The users page (`/admin/users`). */
export function UsersView(
  props: PageProps & {
    csrfToken: string;
    users: ListedUser[];
    count: number;
    page: number;
    totalPages: number;
    query: string;
    invitations: OpenInvitation[];
    values: NewUserFields;
    errors: NewUserErrors;
    link?: FreshLink;
    notice?: string;
    error?: string;
    /** Whether e-mail is on (links are mailed as well as shown). */
    mailOn: boolean;
    /** The account that has the address an admin tried to invite. */
    existing?: { id: number; email: string };
  },
) {
  const { t, values, errors } = props;
  const csrf = <Csrf token={props.csrfToken} />;
  const pageHref = (page: number) => {
    const query = new URLSearchParams();
    if (props.query) query.set("q", props.query);
    if (page > 1) query.set("page", String(page));
    const text = query.toString();
    return text ? `/admin/users?${text}` : "/admin/users";
  };
  const describedBy = (...ids: (string | false | undefined)[]) =>
    ids.filter(Boolean).join(" ") || undefined;
  return (
    <WebPage {...props} title={t("users.title")} path="/admin/users">
      <h1>{t("users.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {!props.mailOn && <p id="mail-off">{t("users.mailOff")}</p>}
      {props.existing && (
        <section class="card fresh" aria-labelledby="existing-title">
          <p id="existing-title">
            {t("users.add.exists")} <strong>{props.existing.email}</strong>
          </p>
          <PasswordLinkForm
            t={t}
            csrfToken={props.csrfToken}
            userId={props.existing.id}
            mailOn={props.mailOn}
            describedBy="existing-title"
          />
        </section>
      )}
      {props.link && (
        <section class="card fresh" aria-labelledby="link-title">
          <h2 id="link-title">
            {t("users.link.title", { email: props.link.email })}
          </h2>
          {props.link.sent && (
            <p role="status">
              {t("users.invitationSent", { email: props.link.email })}
            </p>
          )}
          <p id="link-text">
            {t("users.link.text", { date: props.link.until })}
          </p>
          <label for="invite-link">{t("users.link.label")}</label>
          <input
            id="invite-link"
            type="text"
            readonly
            value={props.link.url}
            aria-describedby="link-text"
          />
          <div class="actions">
            <button
              type="button"
              class="approve"
              id="copy-link"
              hidden
            >
              {t("users.link.copy")}
            </button>
          </div>
          <p role="status" id="copy-status"></p>
          <script nonce={props.nonce}>
            {raw(copyScript(t("users.link.copied")))}
          </script>
        </section>
      )}
      <section class="card" id="add" aria-labelledby="add-title">
        <h2 id="add-title">{t("users.add.title")}</h2>
        <form method="post" action="/admin/users">
          {csrf}
          <label for="email">{t("users.add.email")}</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="off"
            required
            value={values.email}
            aria-describedby={describedBy(errors.email && "email-error")}
            aria-invalid={errors.email ? "true" : undefined}
          />
          {errors.email && (
            <p class="field-error" id="email-error">{errors.email}</p>
          )}
          <label for="role">{t("users.add.role")}</label>
          <p class="hint" id="role-hint">{t("users.roles.hint")}</p>
          <select
            id="role"
            name="role"
            aria-describedby={describedBy(
              "role-hint",
              errors.role && "role-error",
            )}
            aria-invalid={errors.role ? "true" : undefined}
          >
            {USER_ROLES.map((role) => (
              <option value={role} selected={role === values.role}>
                {roleName(t, role)}
              </option>
            ))}
          </select>
          {errors.role && (
            <p class="field-error" id="role-error">{errors.role}</p>
          )}
          <fieldset
            aria-describedby={describedBy(errors.how && "how-error")}
          >
            <legend>{t("users.add.how")}</legend>
            <label class="check">
              <input
                type="radio"
                name="how"
                value="invite"
                aria-invalid={errors.how ? "true" : undefined}
                checked={values.how !== "password"}
              />{" "}
              {t("users.add.invite")}
            </label>
            <label class="check">
              <input
                type="radio"
                name="how"
                value="password"
                aria-invalid={errors.how ? "true" : undefined}
                checked={values.how === "password"}
              />{" "}
              {t("users.add.password")}
            </label>
            {errors.how && (
              <p class="field-error" id="how-error">{errors.how}</p>
            )}
          </fieldset>
          <label for="password">{t("users.add.passwordLabel")}</label>
          <p class="hint" id="password-hint">{t("users.add.passwordHint")}</p>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            aria-describedby={describedBy(
              "password-hint",
              errors.password && "password-error",
            )}
            aria-invalid={errors.password ? "true" : undefined}
          />
          {errors.password && (
            <p class="field-error" id="password-error">{errors.password}</p>
          )}
          <div class="actions">
            <button type="submit" class="approve">
              {t("users.add.submit")}
            </button>
          </div>
        </form>
      </section>

      <section class="invitations" aria-labelledby="invitations-title">
        <h2 id="invitations-title">{t("users.invitations.title")}</h2>
        {props.invitations.length === 0
          ? <p>{t("users.invitations.none")}</p>
          : (
            <ul class="queue">
              {props.invitations.map((invitation, i) => (
                <li class="card">
                  <h3 id={`invitation-${i}`} class="email">
                    {invitation.email}
                  </h3>
                  <p class="muted">
                    {t(
                      invitation.expired
                        ? "users.invitations.expired"
                        : "users.invitations.until",
                      {
                        role: roleName(t, invitation.role),
                        date: invitation.until,
                      },
                    )}
                  </p>
                  <div class="actions">
                    <form method="post" action="/admin/users">
                      {csrf}
                      <input
                        type="hidden"
                        name="email"
                        value={invitation.email}
                      />
                      <input
                        type="hidden"
                        name="role"
                        value={invitation.role}
                      />
                      <input type="hidden" name="how" value="invite" />
                      <button
                        type="submit"
                        class="deny"
                        aria-describedby={`invitation-${i}`}
                      >
                        {t("users.invitations.again")}
                      </button>
                    </form>
                    <form method="post" action="/admin/invitations/withdraw">
                      {csrf}
                      <input
                        type="hidden"
                        name="email"
                        value={invitation.email}
                      />
                      <button
                        type="submit"
                        class="deny"
                        aria-describedby={`invitation-${i}`}
                      >
                        {t("users.invitations.withdraw")}
                      </button>
                    </form>
                  </div>
                </li>
              ))}
            </ul>
          )}
      </section>

      <form method="get" action="/admin/users" class="search" role="search">
        <label for="q">{t("users.search.label")}</label>
        <div class="row">
          <input id="q" name="q" type="search" value={props.query} />
          <button type="submit" class="deny">{t("users.search.submit")}</button>
        </div>
        {props.query && (
          <p>
            <a href="/admin/users">{t("users.search.all")}</a>
          </p>
        )}
      </form>
      <h2 class="count">{t("users.found", { count: props.count })}</h2>
      {props.users.length === 0 ? <p>{t("users.none")}</p> : (
        <ul class="queue">
          {props.users.map((u) => (
            <li class="card">
              <h3 id={`user-${u.id}`} class="email">
                {u.email}{" "}
                {u.self && <span class="muted">{t("users.you")}</span>}
                {u.pending && <span class="badge">{t("approval.waiting")}
                </span>}
              </h3>
              {u.pending && (
                <div class="actions compact">
                  <ButtonForm
                    action={`/admin/users/${u.id}/approve`}
                    csrfToken={props.csrfToken}
                    fields={{}}
                    label={t("approval.approve")}
                    describedBy={`user-${u.id}`}
                    kind="approve"
                  />
                  <ButtonForm
                    action={`/admin/users/${u.id}/refuse`}
                    csrfToken={props.csrfToken}
                    fields={{}}
                    label={t("approval.refuse")}
                    describedBy={`user-${u.id}`}
                  />
                </div>
              )}
              <p class="muted" id={`user-${u.id}-state`}>
                {roleName(t, u.role)} · {u.active
                  ? t("users.state.active")
                  : <strong>{t("users.state.inactive")}</strong>} ·{" "}
                {t("users.since", { date: u.since })}
              </p>
              <form method="post" action={`/admin/users/${u.id}/role`}>
                {csrf}
                <label for={`role-${u.id}`}>{t("users.role")}</label>
                <div class="row">
                  <select
                    id={`role-${u.id}`}
                    name="role"
                    aria-describedby={`user-${u.id}`}
                  >
                    {USER_ROLES.map((role) => (
                      <option value={role} selected={role === u.role}>
                        {roleName(t, role)}
                      </option>
                    ))}
                  </select>
                  <button
                    type="submit"
                    class="deny"
                    aria-describedby={`user-${u.id}`}
                  >
                    {t("users.changeRole")}
                  </button>
                </div>
              </form>
              {!u.self && !u.pending && (
                <form
                  method="post"
                  action={`/admin/users/${u.id}/${
                    u.active ? "deactivate" : "reactivate"
                  }`}
                >
                  {csrf}
                  <div class="actions">
                    <button
                      type="submit"
                      class={u.active ? "deny" : "approve"}
                      aria-describedby={`user-${u.id}`}
                    >
                      {u.active ? t("users.deactivate") : t("users.reactivate")}
                    </button>
                  </div>
                </form>
              )}
              <PasswordLinkForm
                t={t}
                csrfToken={props.csrfToken}
                userId={u.id}
                mailOn={props.mailOn}
                describedBy={`user-${u.id}`}
              />
              {!u.self && !u.pending && (
                <p>
                  <a
                    href={`/admin/users/${u.id}/delete`}
                    aria-describedby={`user-${u.id}`}
                  >
                    {t("userDelete.link")}
                  </a>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager
        {...props}
        paging={{
          page: props.page,
          totalPages: props.totalPages,
          href: pageHref,
        }}
        label={t("users.pages")}
      />
    </WebPage>
  );
}

/** The optional copy button of a fresh link (without scripts, the field can be selected and copied). */
function copyScript(copied: string): string {
  return `(() => {
  const button = document.getElementById("copy-link");
  const field = document.getElementById("invite-link");
  const status = document.getElementById("copy-status");
  if (!button || !field || !status) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand("copy");
    }
    status.textContent = ${JSON.stringify(copied)};
  });
})();`;
}

/** The page of a valid invitation link: choose a password. */
export function InviteView(
  props: PageProps & {
    action: string;
    email: string;
    role: UserRole;
    error?: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("users.invite.title")}>
      <h1>{t("users.invite.title")}</h1>
      <p id="invite-intro">
        {t("users.invite.intro", {
          instance: props.instanceName,
          role: roleName(t, props.role),
          email: props.email,
        })}
      </p>
      <form method="post" action={props.action}>
        {/* For password managers: the account's name. */}
        <input
          type="email"
          name="email"
          autocomplete="username"
          value={props.email}
          hidden
          readonly
        />
        <NewPasswordField
          t={t}
          label={t("users.invite.password")}
          error={props.error}
        />
        <div class="actions">
          <button type="submit" class="approve">
            {t("users.invite.accept")}
          </button>
        </div>
      </form>
    </WebPage>
  );
}

/** Why an invitation link cannot be used. */
export type GoneReason = "unknown" | "used" | "expired" | "taken";

/** The page of a link that cannot be used (unknown, used, expired, or its e-mail taken). */
export function InviteGoneView(props: PageProps & { reason: GoneReason }) {
  const { t } = props;
  const [title, text] = {
    unknown: ["users.invite.unknownTitle", "users.invite.unknown"],
    used: ["users.invite.usedTitle", "users.invite.used"],
    expired: ["users.invite.expiredTitle", "users.invite.expired"],
    taken: ["users.invite.usedTitle", "users.invite.taken"],
  }[props.reason] as [
    Parameters<Translate>[0],
    Parameters<Translate>[0],
  ];
  return MessageView({
    ...props,
    title: t(title),
    text: t(text),
    back: props.reason === "used" || props.reason === "taken"
      ? { href: "/login", label: t("users.invite.signIn") }
      : undefined,
  });
}
