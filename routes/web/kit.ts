/**
 * What every page of the web interface shares (server-rendered, no scripts
 * unless nonce'd, every form works without JavaScript):
 * - the session cookie (HttpOnly, SameSite=Lax, `__Host-` and Secure behind
 *   https; the database keeps only the token's hash),
 * - posts refused from another origin, and those of a session checked
 *   against its CSRF token,
 * - the page's language and the rendering with a fresh nonce.
 * A session never authorises `/api/*` (DESIGN.md §11).
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
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
import { getSettings, type Settings } from "../../lib/settings.ts";
import type { UserRow } from "../../lib/users.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { languageLinks, type PageLanguage, pageLanguage } from "../language.ts";
import type { PageProps } from "../views/app/shell.tsx";
import { pageNumber } from "../validation.ts";

/** The statuses a page of the interface answers with. */
export type PageStatus = 200 | 400 | 401 | 403 | 404 | 409 | 410 | 413 | 429;

/** What every page shows: its nonce, language, the instance's name and who is signed in. */
export type PageCommon = PageProps;

/** A form post's fields, as parsed by Hono (strings and files). */
export type PostedForm = Record<string, string | File | (string | File)[]>;

/** A page's answer, or what to answer instead (a redirect or a refusal). */
export type Checked<T> = ({ ok: true } & T) | { ok: false; answer: Response };

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
  return next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : fallback;
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
  const cookieName = secure ? "__Host-quando_session" : "quando_session";
  const ownOrigin = new URL(deps.config.baseUrl).origin;
  const secret = deps.config.jwtSecret;

  /**
   * The page's language, its locale and translator (see routes/language.ts:
   * a choice by `?lang=` is remembered in a cookie).
   */
  const language = (
    c: Context<AppEnv>,
    settings: Settings,
    available: readonly string[] = INTERFACE_LANGUAGES,
  ): PageLanguage =>
    pageLanguage(c, settings.instance_locale, available, secure);

  /** The session of the request's cookie, or null. */
  const session = (c: Context<AppEnv>): Promise<ActiveSession | null> =>
    findSession(db, deps.clock, getCookie(c, cookieName));

  /** The CSRF token of a session's forms. */
  const csrfToken = (current: ActiveSession) =>
    sessionCsrfToken(secret, current.id);

  /**
   * Whether a post comes from another site. Browsers send Origin on every
   * POST; an older one or a stripped header is judged by the Referer, and
   * Fetch Metadata (Sec-Fetch-Site) refuses what a browser says is another
   * site's. A request with none of them (no browser: curl, a script) is let
   * through to the page's own checks (its session's CSRF token).
   */
  const foreign = (c: Context<AppEnv>) => {
    const site = c.req.header("sec-fetch-site");
    if (site === "cross-site" || site === "same-site") return true;
    const origin = c.req.header("origin");
    if (origin !== undefined) return origin !== ownOrigin;
    const referer = c.req.header("referer");
    if (referer === undefined) return false;
    try {
      return new URL(referer).origin !== ownOrigin;
    } catch {
      return true;
    }
  };

  /** A plain-text refusal (403 unless told), never cached. */
  const refused = (c: Context<AppEnv>, message: string, status: 403 = 403) => {
    c.header("Cache-Control", "no-store");
    return c.text(message, status);
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
      settings?: Settings;
      current?: ActiveSession | null;
      status?: PageStatus;
      languages?: readonly string[];
    },
    view: (common: PageCommon) => JSX.Element | Promise<JSX.Element>,
  ) => {
    const settings = options.settings ?? await getSettings(db);
    const nonce = randomToken(16);
    const available = options.languages ?? INTERFACE_LANGUAGES;
    const { lang, t } = language(c, settings, available);
    const body = await view({
      nonce,
      lang,
      t,
      instanceName: settings.instance_title,
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

  /**
   * The signed-in user of a page, when `allowed` lets them in; otherwise a
   * redirect to sign in, or a 403 page.
   */
  const signedIn = async (
    c: Context<AppEnv>,
    path: string,
    allowed: (user: UserRow) => boolean = () => true,
  ): Promise<Checked<{ current: ActiveSession }>> => {
    const current = await session(c);
    if (!current) return { ok: false, answer: toSignIn(c, path) };
    if (!allowed(current.user)) {
      return {
        ok: false,
        answer: refused(c, "Your account's role may not open this page."),
      };
    }
    return { ok: true, current };
  };

  /**
   * A form post of a signed-in user whom `allowed` lets in, from this site,
   * with its session's CSRF token; otherwise what to answer instead.
   */
  const posted = async (
    c: Context<AppEnv>,
    path: string,
    allowed: (user: UserRow) => boolean = () => true,
  ): Promise<Checked<{ current: ActiveSession; form: PostedForm }>> => {
    if (foreign(c)) {
      return {
        ok: false,
        answer: refused(c, "The form was posted from another site."),
      };
    }
    const who = await signedIn(c, path, allowed);
    if (!who.ok) return who;
    const form = await c.req.parseBody({ all: true });
    const token = formText(form, "csrf_token", 200);
    if (!await isSessionCsrfToken(secret, who.current.id, token)) {
      return {
        ok: false,
        answer: refused(c, "The form's CSRF token is missing or wrong."),
      };
    }
    return { ok: true, current: who.current, form };
  };

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

  /** Copies an ApiError's headers (Retry-After) onto the page's answer. */
  const passHeaders = (c: Context<AppEnv>, error: ApiError) => {
    for (const [name, value] of Object.entries(error.headers ?? {})) {
      c.header(name, value);
    }
  };

  return {
    db,
    secure,
    cookieName,
    secret,
    language,
    session,
    csrfToken,
    foreign,
    refused,
    render,
    toSignIn,
    signedIn,
    posted,
    signIn,
    passHeaders,
    /** Lets in editors and admins. */
    moderators: (user: UserRow) => isModerator(user),
    /** Lets in admins only. */
    admins: (user: UserRow) => user.role === "admin",
  };
}

/** The helpers of createWebKit. */
export type WebKit = ReturnType<typeof createWebKit>;
