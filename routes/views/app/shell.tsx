/** The frame of the signed-in interface's pages: a header with the places a role may go. */
import type { Child } from "hono/jsx";
import type { Translate } from "../../../lib/i18n.ts";
import type { LanguageLink } from "../../language.ts";
import { Layout } from "./layout.tsx";
import { LanguageSwitch } from "../site/shell.tsx";

/** The signed-in user, as the header shows them. */
export interface Viewer {
  email: string;
  role: string;
  /** The CSRF token of the sign-out form (and of every form of the page). */
  csrfToken: string;
}

/** The links of the header, by who may follow them. */
const NAV: {
  href: string;
  key: Parameters<Translate>[0];
  roles: readonly string[];
}[] = [
  { href: "/submit", key: "nav.submit", roles: ["user", "editor", "admin"] },
  { href: "/my", key: "nav.my", roles: ["user", "editor", "admin"] },
  { href: "/admin", key: "nav.moderation", roles: ["editor", "admin"] },
  { href: "/admin/sources", key: "nav.sources", roles: ["editor", "admin"] },
  { href: "/admin/users", key: "nav.users", roles: ["admin"] },
  { href: "/admin/settings", key: "nav.settings", roles: ["admin"] },
  { href: "/admin/fediverse", key: "nav.fediverse", roles: ["admin"] },
  { href: "/admin/collections", key: "nav.collections", roles: ["admin"] },
  { href: "/admin/clients", key: "nav.clients", roles: ["admin"] },
  { href: "/account", key: "nav.account", roles: ["user", "editor", "admin"] },
];

/** What every page of the interface is rendered with (see routes/web/kit.ts). */
export interface PageProps {
  nonce: string;
  lang: string;
  t: Translate;
  instanceName: string;
  /** The signed-in user with the sign-out form's token; null for a visitor. */
  viewer: Viewer | null;
  /** The language switch (the page in each language it offers). */
  languages?: LanguageLink[];
}

/**
 * A page of the interface: the instance's name, the navigation of the
 * viewer's role (the current page marked), a sign-out button, then the page.
 */
/** A page of a paged list, and how to reach the others. */
export interface Paging {
  page: number;
  totalPages: number;
  /** The link of another page. */
  href: (page: number) => string;
}

/** Previous / next links of a paged list (nothing when it fits one page). */
export function Pager(props: PageProps & { paging: Paging; label: string }) {
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

/** The hidden field that carries a session's CSRF token in a form. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="csrf_token" value={props.token} />;
}

export function WebPage(
  props: PageProps & {
    title: string;
    /** The path of the page, to mark its link as the current one. */
    path?: string;
    /** Wider main column, for tables. */
    wide?: boolean;
    children?: Child;
  },
) {
  const { t, viewer } = props;
  return (
    <Layout
      title={`${props.title} · ${props.instanceName}`}
      nonce={props.nonce}
      lang={props.lang}
      wide={props.wide}
      header={
        <header class="site">
          <a class="brand" href="/">{props.instanceName}</a>
          {viewer && (
            <nav aria-label={t("nav.label")}>
              <ul>
                {NAV.filter((link) => link.roles.includes(viewer.role)).map((
                  link,
                ) => (
                  <li>
                    <a
                      href={link.href}
                      aria-current={link.href === props.path
                        ? "page"
                        : undefined}
                    >
                      {t(link.key)}
                    </a>
                  </li>
                ))}
              </ul>
              <form method="post" action="/logout" class="signout">
                <Csrf token={viewer.csrfToken} />
                <span class="muted">{viewer.email}</span>{" "}
                <button type="submit" class="link">{t("signOut")}</button>
              </form>
            </nav>
          )}
        </header>
      }
      footer={props.languages && (
        <footer class="site">
          <LanguageSwitch
            label={t("public.language")}
            links={props.languages}
          />
        </footer>
      )}
    >
      {props.children}
    </Layout>
  );
}

/** A page that only says something (an unknown id, a link that cannot be used), with an optional way on. */
export function MessageView(
  props: PageProps & {
    title: string;
    text: string;
    back?: { href: string; label: string };
    path?: string;
  },
) {
  return (
    <WebPage {...props} title={props.title} path={props.path}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      {props.back && (
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      )}
    </WebPage>
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
