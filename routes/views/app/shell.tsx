/**
 * The HTML shell of the signed-in interface (and of the OAuth consent page):
 * `Layout`, the document (no scripts, one nonce'd stylesheet, not indexed),
 * and `WebPage`, the frame of the interface's pages (a header with the places
 * a role may go, the language switch below).
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { Translate } from "../../../lib/i18n.ts";
import type { LanguageLink } from "../../middleware/language.ts";
import { LanguageSwitch } from "../site/shell.tsx";
import { Csrf } from "./components.tsx";

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1b1e; --accent: #2457c5; --danger: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 1.05rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  background: var(--bg); color: var(--fg); }
main { max-width: 32rem; margin: 0 auto; padding: 1.25rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 0; }
h3 { font-size: 1.05rem; margin: 0; overflow-wrap: anywhere; }
.card { border: 1px solid #8885; border-radius: 0.75rem; padding: 1rem; margin: 1rem 0; }
.muted { opacity: 0.8; font-size: 0.95rem; }
.error { border: 1px solid var(--danger); color: var(--danger); border-radius: 0.5rem; padding: 0.75rem; }
label { display: block; font-weight: 600; margin-top: 0.9rem; }
input[type=email], input[type=password], input[type=text], input[type=url], input[type=search],
input[type=datetime-local], textarea { width: 100%; font: inherit; padding: 0.65rem; margin-top: 0.3rem;
  border: 1px solid #8889; border-radius: 0.5rem; background: Canvas; color: CanvasText; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; flex-wrap: wrap; }
button { font: inherit; font-weight: 600; padding: 0.7rem 1.2rem; border-radius: 0.5rem; min-height: 2.75rem;
  cursor: pointer; flex: 1 1 8rem; }
button.approve { background: var(--accent); color: #fff; border: 1px solid var(--accent); }
button.deny { background: transparent; color: inherit; border: 1px solid #8889; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible,
summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
code { overflow-wrap: anywhere; }
ul.queue { list-style: none; padding: 0; margin: 0; }
button.danger { background: var(--danger); color: #fff; border: 1px solid var(--danger); }
a.button { display: inline-flex; align-items: center; justify-content: center; flex: 1 1 8rem; min-height: 2.75rem;
  padding: 0.7rem 1.2rem; border: 1px solid #8889; border-radius: 0.5rem; font-weight: 600; color: inherit;
  text-decoration: none; }
.actions form { display: flex; flex: 1 1 8rem; }
nav.tabs ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 1.5rem; padding: 0; margin: 0 0 1rem;
  border-bottom: 1px solid #8885; }
nav.tabs a { display: inline-block; padding: 0.6rem 0; color: inherit; text-decoration: none; }
nav.tabs a[aria-current=page] { font-weight: 700; border-bottom: 3px solid var(--accent); }
nav.pages, nav.pager { display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap;
  margin: 1rem 0; }
nav.pages a { display: inline-block; padding: 0.6rem 0; }
ul.messages { list-style: none; padding: 0; margin: 0; }
ul.messages li { border-left: 3px solid #8887; padding: 0 0 0 0.75rem; margin: 0.6rem 0; }
ul.messages .text { white-space: pre-line; overflow-wrap: anywhere; margin: 0; }
ul.messages .muted { margin: 0.2rem 0 0; }
details { margin-top: 0.75rem; }
summary { cursor: pointer; padding: 0.6rem 0; font-weight: 600; color: var(--accent); }
.content { overflow-wrap: anywhere; }
.card.is-hidden { border-style: dashed; }
p.handle { margin: 0.2rem 0 0; }
.content img { max-width: 100%; }
img.submitted { display: block; max-width: 100%; height: auto; max-height: 16rem; border-radius: 0.5rem; margin: 0.5rem 0; }
textarea { min-height: 8rem; }
.hint { opacity: 0.8; font-size: 0.95rem; margin: 0.2rem 0 0; }
.field-error { color: var(--danger); margin: 0.3rem 0 0; font-weight: 600; }
main.wide { max-width: 60rem; }
select { font: inherit; padding: 0.55rem; margin-top: 0.3rem; border: 1px solid #8889; border-radius: 0.5rem;
  background: Canvas; color: CanvasText; max-width: 100%; }
header.site { border-bottom: 1px solid #8885; padding: 0.6rem 1.25rem; }
header.site .brand { font-weight: 700; text-decoration: none; color: inherit; }
header.site nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; padding: 0; margin: 0.4rem 0; }
header.site nav a { color: inherit; }
header.site nav a[aria-current=page] { font-weight: 700; text-decoration-thickness: 3px; }
form.signout { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
button.link { background: none; border: none; padding: 0.2rem; min-height: 2.75rem; color: inherit;
  text-decoration: underline; flex: 0 0 auto; font-weight: 400; }
a { color: var(--accent); }
input[type=date], input[type=number], input[type=file] { width: 100%; font: inherit; padding: 0.55rem; margin-top: 0.3rem;
  border: 1px solid #8889; border-radius: 0.5rem; background: Canvas; color: CanvasText; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 0 0.75rem; align-items: end; }
.focal-frame { position: relative; display: inline-block; max-width: 100%; margin-top: 0.6rem; }
.focal-frame[hidden] { display: none; }
.focal-frame img { display: block; max-width: 100%; max-height: 16rem; border-radius: 0.5rem; cursor: crosshair; }
.focal-dot { position: absolute; width: 1.2rem; height: 1.2rem; margin: -0.6rem 0 0 -0.6rem; border-radius: 50%;
  border: 3px solid #fff; box-shadow: 0 0 0 2px #000; pointer-events: none; }
.badge { display: inline-block; font-size: 0.85rem; font-weight: 600; border: 1px solid currentColor; border-radius: 1rem;
  padding: 0 0.5rem; margin-left: 0.25rem; }
.actions.compact { margin-top: 0.6rem; gap: 0.5rem; }
.actions.compact > a.button, .actions.compact form { flex: 1 1 5.5rem; }
.actions.compact a.button, .actions.compact button { padding: 0.5rem 0.6rem; font-size: 0.95rem; text-align: center; }
.actions.compact form button { flex: 1 1 auto; }
ul.dates { list-style: none; padding: 0; margin: 0; }
ul.dates li { border-top: 1px solid #8885; padding: 0.6rem 0; }
ul.dates p { margin: 0; }
fieldset { border: 1px solid #8885; border-radius: 0.75rem; padding: 0.25rem 1rem 1rem; margin: 1rem 0; min-width: 0; }
legend { font-weight: 700; padding: 0 0.3rem; }
.switch { display: flex; gap: 0.75rem; align-items: flex-start; margin-top: 0.9rem; }
.switch label { margin-top: 0; }
input[type=checkbox], input[type=radio] { width: 1.35rem; height: 1.35rem; margin: 0.15rem 0 0; flex: 0 0 auto;
  accent-color: var(--accent); }
/* A checkbox beside its label: after the rule above, which it enlarges. */
.check { display: flex; gap: 0.6rem; align-items: center; margin-top: 0.9rem; }
.check label { margin: 0; font-weight: 400; }
.check input { width: 1.4rem; height: 1.4rem; }
/* A label wrapping its checkbox: a smaller box, the whole row a target. */
label.check { display: flex; gap: 0.6rem; align-items: center; font-weight: 400; min-height: 2.75rem; margin: 0; }
label.check input { width: 1.25rem; height: 1.25rem; margin: 0; }
.row { display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: stretch; }
.row > input, .row > select { flex: 1 1 12rem; width: auto; min-width: 0; }
.row > button { flex: 0 1 auto; margin-top: 0.3rem; }
select.wide { width: 100%; }
.email { overflow-wrap: anywhere; }
p.label { font-weight: 600; margin: 0.9rem 0 0; }
.card h3 { font-size: 1.05rem; margin: 0 0 0.25rem; }
form.search, section.invitations { margin-top: 1.5rem; }
h2.count { margin: 1rem 0 0; }
.actions > form > button { flex: 1 1 auto; }
select[multiple] { width: 100%; }
.note { border-left: 4px solid var(--accent); padding: 0.5rem 0.75rem; }
ul.plain { margin: 0.2rem 0 0.6rem; padding-left: 1.2rem; }
footer.site { border-top: 1px solid #8885; padding: 0.5rem 1.25rem 1.5rem; }
.languages ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 1rem; margin: 0; padding: 0; }
.languages a { display: inline-block; padding: 0.4rem 0; }
.languages a[aria-current] { color: inherit; font-weight: 700; text-decoration: none; }
@media (prefers-color-scheme: dark) { :root { --bg: #141518; --fg: #ececf0; --accent: #8fb0ff; --danger: #ff8a80; }
  button.approve, button.danger { color: #10131a; } }
`;

/** A complete page; `nonce` must match the response's CSP `style-src`. */
export function Layout(
  props: {
    title: string;
    nonce: string;
    lang?: string;
    /** Shown above the main column (the interface's navigation). */
    header?: Child;
    /** Shown below it (the language switch). */
    footer?: Child;
    /** A wider main column, for tables. */
    wide?: boolean;
    children?: Child;
  },
) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={props.lang ?? "en"}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <meta name="robots" content="noindex" />
          <title>{props.title}</title>
          <style nonce={props.nonce}>{raw(STYLE)}</style>
        </head>
        <body>
          {props.header}
          <main class={props.wide ? "wide" : undefined}>{props.children}</main>
          {props.footer}
        </body>
      </html>
    </>
  );
}

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
  { href: "/admin/events", key: "nav.events", roles: ["editor", "admin"] },
  { href: "/admin/sources", key: "nav.sources", roles: ["editor", "admin"] },
  { href: "/admin/places", key: "nav.places", roles: ["editor", "admin"] },
  { href: "/admin/reports", key: "nav.reports", roles: ["editor", "admin"] },
  { href: "/admin/users", key: "nav.users", roles: ["admin"] },
  { href: "/admin/settings", key: "nav.settings", roles: ["admin"] },
  { href: "/admin/fediverse", key: "nav.fediverse", roles: ["admin"] },
  { href: "/admin/collections", key: "nav.collections", roles: ["admin"] },
  { href: "/admin/clients", key: "nav.clients", roles: ["admin"] },
  { href: "/admin/mail", key: "mailAdmin.nav", roles: ["admin"] },
  { href: "/account", key: "nav.account", roles: ["user", "editor", "admin"] },
];

/** What every page of the interface is rendered with (see routes/app/kit.ts). */
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
