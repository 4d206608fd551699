/**
 * What every page of the web interface shares (server-rendered, no scripts
 * unless nonce'd, every form works without JavaScript):
 * - the session cookie (HttpOnly, SameSite=Lax, `__Host-` and Secure behind
 *   https; the database keeps only the token's hash),
 * - posts refused from another origin, and those of a session checked
 *   against its CSRF token,
 * - the page's language and the rendering with a fresh nonce.
 * A session never authorises `/api/*` (docs/WEB.md, docs/SECURITY.md).
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { JSX } from "hono/jsx/jsx-runtime";
import {
  type ActiveSession,
  createSession,
  findSession,
  isSessionCsrfToken,
  SESSION_TTL_MS,
  sessionCsrfToken,
} from "../../lib/auth/sessions.ts";
import { randomToken } from "../../lib/auth/tokens.ts";
import { ApiError } from "../../lib/errors.ts";
import { isModerator } from "../../lib/events/access.ts";
import { INTERFACE_LANGUAGES } from "../../lib/i18n.ts";
import type { UserRow } from "../../lib/users.ts";
import type { AppEnv, PostedForm, RouteDeps } from "../env.ts";
import {
  languageLinks,
  type PageLanguage,
  pageLanguage,
} from "../middleware/language.ts";
import { settingsOf } from "../middleware/request-settings.ts";
import type { PageProps } from "../views/app/shell.tsx";
import { ForeignFormView } from "../views/app/foreign-form.tsx";
import { requestOrigin } from "../middleware/auth.ts";
import { sessionCookieName } from "../middleware/viewer.ts";
import { pageNumber } from "../middleware/validation.ts";

/** The statuses a page of the interface answers with. */
export type PageStatus = 200 | 400 | 401 | 403 | 404 | 409 | 410 | 413 | 429;

/** What every page shows: its nonce, language, the instance's name and who is signed in. */
export type PageCommon = PageProps;

export type { PostedForm };

/**
 * Who may open a signed-in page, at least: "user" (anyone signed in),
 * "editor" (editors and admins) or "admin".
 */
export type PageRole = "user" | "editor" | "admin";

/** The policy of these pages: styles and scripts by nonce, forms to here only. */
function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    `script-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; ` +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
}

/** Where to go after signing in: a path of this site, never another site. */
export function safeNext(
  next: string | undefined,
  fallback = "/admin",
): string {
  return isLocalPath(next) ? next : fallback;
}

/** Whether `path` is a path of this site (never `//host` nor `/\\host`). */
function isLocalPath(path: string | undefined): path is string {
  return path !== undefined && /^\/(?![/\\])[^\s]*$/.test(path);
}

/** The pages under /admin an editor may open; the rest of /admin is the admins'. */
const EDITOR_PAGES =
  /^\/admin(?:$|[?#]|\/(?:events|sources|places|reports)(?:$|[/?#]))/;

/** The least role a page of this site asks for, by its path. */
export function roleOfPath(path: string): PageRole {
  if (!/^\/admin(?:$|[/?#])/.test(path)) return "user";
  return EDITOR_PAGES.test(path) ? "editor" : "admin";
}

/** The page that fits a role after signing in: /my for members, /admin for editors and admins. */
export function homeOf(user: Pick<UserRow, "role">): string {
  return user.role === "user" ? "/my" : "/admin";
}

/**
 * Where `user` goes after signing in: `next` when it is a path of this site
 * their role may open, else the page that fits their role (never a 403).
 */
export function landingOf(
  user: UserRow,
  next: string | undefined,
): string {
  if (!isLocalPath(next)) return homeOf(user);
  const role = roleOfPath(next);
  const may = role === "admin"
    ? user.role === "admin"
    : role === "editor"
    ? isModerator(user)
    : true;
  return may ? next : homeOf(user);
}

/** A page number of a query or form (1 when absent or not one). */
export function pageOf(value: string | undefined): number {
  return pageNumber(value) ?? 1;
}

/** A row id of a path or form (digits, no leading zero), or null when it is not one. */
export function idOf(value: string): number | null {
  return /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : null;
}

/** A posted text field (empty when absent or a file), cut to `max` characters. */
export function formText(form: PostedForm, name: string, max = 1024): string {
  const value = form[name];
  return typeof value === "string" ? value.slice(0, max) : "";
}

/** Every posted value of a field that may repeat (checkboxes, multi-selects). */
export function formTexts(form: PostedForm, name: string, max = 1024) {
  const value = form[name] ?? form[`${name}[]`];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [
    value,
  ];
  return values.filter((v): v is string => typeof v === "string").map((v) =>
    v.slice(0, max)
  );
}

/** Builds the helpers the interface's route modules share. */
export function createWebKit(deps: RouteDeps) {
  const { db } = deps.database;
  const secure = deps.config.baseUrl.startsWith("https:");
  // `__Host-`: the browser keeps it only when Secure, for this host and path /.
  const cookieName = sessionCookieName(deps.config.baseUrl);
  const ownOrigin = new URL(deps.config.baseUrl).origin;
  const secret = deps.config.jwtSecret;

  /** The request's instance settings, read once (routes/middleware/request-settings.ts). */
  const settings = (c: Context<AppEnv>) => settingsOf(c, db);

  /**
   * The page's language, its locale and translator (see routes/middleware/language.ts:
   * a choice by `?lang=` is remembered in a cookie).
   */
  const language = async (
    c: Context<AppEnv>,
    available: readonly string[] = INTERFACE_LANGUAGES,
  ): Promise<PageLanguage> =>
    pageLanguage(
      c,
      (await settings(c)).instance_locale,
      available,
      secure,
    );

  /** The session of the request's cookie, or null. */
  const session = (c: Context<AppEnv>): Promise<ActiveSession | null> =>
    findSession(db, deps.clock, getCookie(c, cookieName));

  /** The CSRF token of a session's forms. */
  const csrfToken = (current: ActiveSession) =>
    sessionCsrfToken(secret, current.id);

  /**
   * Where a post comes from when that is another site, else null. Browsers
   * send Origin on every POST; an older one or a stripped header is judged
   * by the Referer, and Fetch Metadata (Sec-Fetch-Site) refuses what a
   * browser says is another site's. The instance's own addresses are
   * BASE_URL's origin and the one the request was sent to (its Host, behind
   * the configured proxies: requestOrigin), so a form of the instance opened
   * at 127.0.0.1 or a LAN address is its own. A request with none of these
   * headers (no browser: curl, a script) is let through to the page's own
   * checks (its session's CSRF token).
   */
  const foreignOrigin = (c: Context<AppEnv>): string | null => {
    const own = (origin: string) =>
      origin === ownOrigin || origin === requestOrigin(c, deps.config);
    const site = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const referer = c.req.header("referer");
    let from: string | null = null;
    if (origin !== undefined) from = origin;
    else if (referer !== undefined) {
      try {
        from = new URL(referer).origin;
      } catch {
        from = "null";
      }
    }
    if (site === "cross-site" || site === "same-site") return from ?? "null";
    return from !== null && !own(from) ? from : null;
  };

  /** A plain-text refusal (403 unless told), never cached. */
  const refused = (c: Context<AppEnv>, message: string, status: 403 = 403) => {
    c.header("Cache-Control", "no-store");
    return c.text(message, status);
  };

  /**
   * The 403 page of a form posted from another address: it names BASE_URL
   * and links to the page at that address (the Referer's path when it has
   * one), where the form can be sent again.
   */
  const refusedForm = (c: Context<AppEnv>, from: string) => {
    let path = "/";
    try {
      const referer = new URL(c.req.header("referer") ?? "");
      path = safeNext(referer.pathname + referer.search, "/");
    } catch {
      // No Referer: the home page of the instance's address.
    }
    return render(c, { status: 403 }, (common) =>
      ForeignFormView({
        ...common,
        from: from === "null" ? null : from,
        baseUrl: ownOrigin,
        again: `${ownOrigin}${path}`,
      }));
  };

  /** Who is signed in, as the page header shows them. */
  const viewerOf = async (current: ActiveSession | null) =>
    current
      ? {
        email: current.user.email,
        role: current.user.role,
        csrfToken: await csrfToken(current),
      }
      : null;

  /**
   * Renders a page in the request's language with a fresh nonce (styles and
   * scripts), never cached. `current` is the signed-in session, if any.
   */
  const render = async (
    c: Context<AppEnv>,
    options: {
      current?: ActiveSession | null;
      status?: PageStatus;
      languages?: readonly string[];
    },
    view: (common: PageCommon) => JSX.Element | Promise<JSX.Element>,
  ) => {
    const { instance_title } = await settings(c);
    const nonce = randomToken(16);
    const available = options.languages ?? INTERFACE_LANGUAGES;
    const { lang, t } = await language(c, available);
    const body = await view({
      nonce,
      lang,
      t,
      instanceName: instance_title,
      viewer: await viewerOf(options.current ?? null),
      // A GET shows the same page in each language; a form's answer offers
      // its blank page (what was typed is not posted twice).
      languages: languageLinks(c.req.url, available, lang),
    });
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    c.header("Cache-Control", "no-store");
    return c.html(body, options.status ?? 200);
  };

  /** Sends the caller to sign in, coming back to `path` afterwards. */
  const toSignIn = (c: Context<AppEnv>, path: string) =>
    c.redirect(`/login?next=${encodeURIComponent(path)}`, 303);

  /** Whether `role` lets `user` in. */
  const lets = (role: PageRole, user: UserRow) =>
    role === "admin"
      ? user.role === "admin"
      : role === "editor"
      ? isModerator(user)
      : true;

  /**
   * Null when the request's session lets its user in as `role` (the session
   * is then on `c.var.session`); otherwise the answer instead: a redirect to
   * sign in (coming back to `next`), or a 403.
   */
  const admitted = async (
    c: Context<AppEnv>,
    role: PageRole,
    next: string | undefined,
  ): Promise<Response | null> => {
    const current = await session(c);
    // The path as the browser sent it (still percent-encoded).
    if (!current) return toSignIn(c, next ?? new URL(c.req.url).pathname);
    if (!lets(role, current.user)) {
      return refused(c, "Your account's role may not open this page.");
    }
    c.set("session", current);
    return null;
  };

  /**
   * A signed-in page: lets in the session's user when their role is at
   * least `role` ("user": anyone signed in; "editor": editors and admins;
   * "admin"), and puts the session on `c.var.session`. Anyone else is sent
   * to sign in, coming back to `next` (the request's path unless told), or
   * refused (403) when signed in with a lesser role.
   */
  const requireSession = (
    role: PageRole = "user",
    next?: string,
  ): MiddlewareHandler<AppEnv> =>
  async (c, nextHandler) => {
    const answer = await admitted(c, role, next);
    if (answer) return answer;
    await nextHandler();
  };

  /**
   * A signed-in form post: refused when posted from another site, then
   * requireSession's checks (sign-in comes back to `next`: the page of the
   * form, the request's path unless told), then the session's CSRF token.
   * Puts the session on `c.var.session` and the parsed form (every value of
   * a repeated field) on `c.var.form`.
   */
  const requirePost = (
    role: PageRole = "user",
    next?: string,
  ): MiddlewareHandler<AppEnv> =>
  async (c, nextHandler) => {
    const from = foreignOrigin(c);
    if (from !== null) return await refusedForm(c, from);
    const answer = await admitted(c, role, next);
    if (answer) return answer;
    const form = await c.req.parseBody({ all: true });
    const refusal = await wrongToken(c, c.var.session, form);
    if (refusal) return refusal;
    c.set("form", form);
    await nextHandler();
  };

  /**
   * A post that needs no session (signing in, registering, an invitation, an
   * anonymous submission): refused when it comes from another site.
   */
  const fromThisSite: MiddlewareHandler<AppEnv> = async (c, nextHandler) => {
    const from = foreignOrigin(c);
    if (from !== null) return await refusedForm(c, from);
    await nextHandler();
  };

  /** The refusal of a form whose CSRF token is not `current`'s, or null. */
  const wrongToken = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    form: PostedForm,
  ) =>
    await isSessionCsrfToken(
        secret,
        current.id,
        formText(form, "csrf_token", 200),
      )
      ? null
      : refused(c, "The form's CSRF token is missing or wrong.");

  /** Starts a session for `user` and sets its cookie. */
  const signIn = async (c: Context<AppEnv>, user: UserRow) => {
    const token = await createSession(db, deps.clock, user);
    setCookie(c, cookieName, token, {
      httpOnly: true,
      secure,
      sameSite: "Lax",
      path: "/",
      maxAge: SESSION_TTL_MS / 1000,
    });
  };

  /** Ends the browser's session cookie (the caller ends the session). */
  const signOut = (c: Context<AppEnv>) =>
    deleteCookie(c, cookieName, { path: "/", secure });

  /** Copies an ApiError's headers (Retry-After) onto the page's answer. */
  const passHeaders = (c: Context<AppEnv>, error: ApiError) => {
    for (const [name, value] of Object.entries(error.headers ?? {})) {
      c.header(name, value);
    }
  };

  return {
    settings,
    language,
    session,
    csrfToken,
    render,
    toSignIn,
    requireSession,
    requirePost,
    fromThisSite,
    wrongToken,
    signIn,
    signOut,
    passHeaders,
  };
}

/** The helpers of createWebKit. */
export type WebKit = ReturnType<typeof createWebKit>;
