/**
 * The web interface's sessions and its moderation page (server-rendered, no
 * scripts, every form works without JavaScript):
 * - `GET /login`, `POST /login`: e-mail and password (the API's login rate
 *   limit), then a session cookie: HttpOnly, SameSite=Lax, `__Host-` and
 *   Secure behind https; the database keeps only the token's hash.
 * - `POST /logout`: ends the session (server-side).
 * - `GET /register`, `POST /register` (when `allow_registration` is on): a
 *   new account with the role `user`, signed in at once.
 * - `GET /account`: change the password (which ends every other session and
 *   token), see and withdraw the OAuth apps authorised.
 * - `GET /admin` (editors and admins): the moderation queue, each event with
 *   a Confirm button (`POST /admin/events/{id}/confirm`).
 * - `GET /submit`, `POST /submit`: the submission form, for members and, when
 *   `allow_anon_event` is on, for anyone (then waiting for confirmation).
 * Posts are refused from another origin, and those of a session carry its
 * CSRF token.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { authenticateWithPassword } from "../lib/auth/login.ts";
import { registerUser } from "../lib/auth/register.ts";
import { changeOwnPassword } from "../lib/auth/password-change.ts";
import {
  listAuthorizations,
  withdrawAuthorization,
} from "../lib/oauth/grants.ts";
import {
  type ActiveSession,
  createSession,
  endSession,
  findSession,
  isSessionCsrfToken,
  SESSION_TTL_MS,
  sessionCsrfToken,
} from "../lib/auth/sessions.ts";
import { randomToken } from "../lib/auth/tokens.ts";
import { ApiError } from "../lib/errors.ts";
import { isModerator } from "../lib/events/access.ts";
import { listUnconfirmedEvents } from "../lib/events/list.ts";
import { createEvent, toggleEvent } from "../lib/events/write.ts";
import { eventInputFromForm } from "../lib/events/form.ts";
import { pickLanguage, type Translate, translator } from "../lib/i18n.ts";
import { getSettings, type Settings } from "../lib/settings.ts";
import { clientAddress } from "./auth.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import {
  AccountView,
  LoginView,
  QueueView,
  RegisterView,
  type SubmitFields,
  SubmittedView,
  SubmitView,
} from "./views/admin.tsx";

/** The policy of these pages: no scripts, styles by nonce, forms to here only. */
function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; ` +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
}

/** Where to go after signing in: a path of this site, never another site. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[^\s]*$/.test(next) ? next : "/admin";
}

/** The sessions' routes and the moderation page. */
export function sessionRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const secure = deps.config.baseUrl.startsWith("https:");
  // `__Host-`: the browser keeps it only when Secure, for this host and path /.
  const COOKIE = secure ? "__Host-quando_session" : "quando_session";
  const ownOrigin = new URL(deps.config.baseUrl).origin;
  const secret = deps.config.jwtSecret;

  /** The page's language and its translator (see lib/i18n.ts). */
  const language = (
    c: Context<AppEnv>,
    settings: Settings,
  ): { lang: string; t: Translate } => {
    const lang = pickLanguage(
      c.req.query("lang"),
      c.req.header("accept-language"),
      settings.instance_locale,
    );
    return { lang, t: translator(lang) };
  };

  const session = (c: Context<AppEnv>): Promise<ActiveSession | null> =>
    findSession(db, deps.clock, getCookie(c, COOKIE));

  /** Whether a post comes from another site (browsers send Origin on every POST). */
  const foreign = (c: Context<AppEnv>) => {
    const origin = c.req.header("origin");
    return origin !== undefined && origin !== ownOrigin;
  };

  const page = (
    c: Context<AppEnv>,
    nonce: string,
    body: ReturnType<typeof LoginView>,
    status: 200 | 400 | 401 | 403 | 409 | 429 = 200,
  ) => {
    c.header("Content-Security-Policy", contentSecurityPolicy(nonce));
    c.header("Cache-Control", "no-store");
    return c.html(body, status);
  };

  /** What every page shows: its nonce, language and the instance's name. */
  interface PageCommon {
    nonce: string;
    lang: string;
    t: Translate;
    instanceName: string;
  }

  /** Renders a page in the request's language, with a fresh style nonce. */
  const render = async (
    c: Context<AppEnv>,
    settings: Settings,
    view: (
      common: PageCommon,
    ) => ReturnType<typeof LoginView> | Promise<ReturnType<typeof LoginView>>,
    status: 200 | 400 | 401 | 403 | 409 | 429 = 200,
  ) => {
    const nonce = randomToken(16);
    return page(
      c,
      nonce,
      await view({
        nonce,
        ...language(c, settings),
        instanceName: settings.instance_title,
      }),
      status,
    );
  };

  const refused = (c: Context<AppEnv>, message: string) => {
    c.header("Cache-Control", "no-store");
    return c.text(message, 403);
  };

  app.get("/login", async (c) => {
    const next = safeNext(c.req.query("next"));
    if (await session(c)) return c.redirect(next, 303);
    const settings = await getSettings(db);
    return render(
      c,
      settings,
      (common) =>
        LoginView({
          ...common,
          next,
        }),
    );
  });

  app.post("/login", async (c) => {
    if (foreign(c)) return refused(c, "The form was posted from another site.");
    const form = await c.req.parseBody();
    const field = (name: string) =>
      typeof form[name] === "string" ? form[name] as string : "";
    const email = field("email").trim().slice(0, 320);
    const next = safeNext(field("next"));
    const settings = await getSettings(db);
    const { t } = language(c, settings);
    const again = (error: string, status: 401 | 429) =>
      render(
        c,
        settings,
        (common) =>
          LoginView({
            ...common,
            next,
            email,
            error,
          }),
        status,
      );
    try {
      const user = await authenticateWithPassword(
        { db, clock: deps.clock, hasher: deps.hasher },
        email,
        field("password").slice(0, 1024),
        clientAddress(c, deps.config),
      );
      await signIn(c, user);
      return c.redirect(next, 303);
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        for (const [name, value] of Object.entries(error.headers ?? {})) {
          c.header(name, value);
        }
        return again(t("signIn.tooMany"), 429);
      }
      if (error instanceof ApiError && error.status === 401) {
        return again(t("signIn.wrong"), 401);
      }
      throw error;
    }
  });

  /** Starts a session for `user` and sets its cookie. */
  const signIn = async (
    c: Context<AppEnv>,
    user: Parameters<typeof createSession>[2],
  ) => {
    const token = await createSession(db, deps.clock, user);
    setCookie(c, COOKIE, token, {
      httpOnly: true,
      secure,
      sameSite: "Lax",
      path: "/",
      maxAge: SESSION_TTL_MS / 1000,
    });
  };

  app.get("/register", async (c) => {
    const settings = await getSettings(db);
    if (!settings.allow_registration) return c.notFound();
    return render(
      c,
      settings,
      (common) =>
        RegisterView({
          ...common,
          errors: {},
        }),
    );
  });

  app.post("/register", async (c) => {
    if (foreign(c)) return refused(c, "The form was posted from another site.");
    const settings = await getSettings(db);
    if (!settings.allow_registration) return c.notFound();
    const { t } = language(c, settings);
    const form = await c.req.parseBody();
    const text = (name: string) =>
      typeof form[name] === "string"
        ? (form[name] as string).slice(0, 1024)
        : "";
    const email = text("email").trim().slice(0, 320);
    const again = (
      status: 400 | 409 | 429,
      errors: { email?: string; password?: string },
      error?: string,
    ) =>
      render(
        c,
        settings,
        (common) =>
          RegisterView({
            ...common,
            email,
            errors,
            error,
          }),
        status,
      );
    try {
      const user = await registerUser(
        { db, clock: deps.clock, hasher: deps.hasher },
        { email, password: text("password") },
        clientAddress(c, deps.config),
      );
      await signIn(c, user);
      return c.redirect("/submit", 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 400) {
        const field = (error.details?.[0] as { field?: string } | undefined)
          ?.field;
        return again(
          400,
          field === "password"
            ? { password: t("register.shortPassword") }
            : { email: t("register.badEmail") },
        );
      }
      if (error.status === 409) {
        return again(409, { email: t("register.taken") });
      }
      if (error.status === 429) {
        for (const [name, value] of Object.entries(error.headers ?? {})) {
          c.header(name, value);
        }
        return again(429, {}, t("register.tooMany"));
      }
      throw error;
    }
  });

  /** The account page, with a notice or the password form's problem. */
  const accountPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    extra: { notice?: string; passwordError?: string } = {},
    status: 200 | 400 | 403 | 429 = 200,
  ) => {
    const settings = await getSettings(db);
    const apps = await listAuthorizations(db, deps.clock, current.user.id);
    return render(
      c,
      settings,
      async (common) =>
        AccountView({
          ...common,
          email: current.user.email,
          csrfToken: await sessionCsrfToken(secret, current.id),
          apps: apps.map((a) => ({
            clientId: a.client_id,
            name: a.name,
            scopes: a.scopes,
          })),
          ...extra,
        }),
      status,
    );
  };

  /** The signed-in user of a form post with its CSRF token, or the answer to give instead. */
  const postedBy = async (c: Context<AppEnv>, path: string) => {
    if (foreign(c)) {
      return { answer: refused(c, "The form was posted from another site.") };
    }
    const current = await session(c);
    if (!current) {
      return {
        answer: c.redirect(`/login?next=${encodeURIComponent(path)}`, 303),
      };
    }
    const form = await c.req.parseBody();
    const token = typeof form.csrf_token === "string"
      ? form.csrf_token
      : undefined;
    if (!await isSessionCsrfToken(secret, current.id, token)) {
      return {
        answer: refused(c, "The form's CSRF token is missing or wrong."),
      };
    }
    return { current, form };
  };

  app.get("/account", async (c) => {
    const current = await session(c);
    if (!current) return c.redirect("/login?next=%2Faccount", 303);
    const { t } = language(c, await getSettings(db));
    const notice = c.req.query("changed")
      ? t("account.changed")
      : c.req.query("withdrawn")
      ? t("account.withdrawn")
      : undefined;
    return await accountPage(c, current, { notice });
  });

  app.post("/account/password", async (c) => {
    const posted = await postedBy(c, "/account");
    if (!posted.current) return posted.answer;
    const { current, form } = posted;
    const { t } = language(c, await getSettings(db));
    const text = (name: string) =>
      typeof form[name] === "string"
        ? (form[name] as string).slice(0, 1024)
        : "";
    if (text("new_password").length < 8) {
      return await accountPage(c, current, {
        passwordError: t("register.shortPassword"),
      }, 400);
    }
    try {
      const user = await changeOwnPassword(
        { db, clock: deps.clock, hasher: deps.hasher },
        current.user,
        { current: text("current_password"), next: text("new_password") },
        clientAddress(c, deps.config),
      );
      // Every session ended with the change: this browser gets a new one.
      await signIn(c, user);
      return c.redirect("/account?changed=1", 303);
    } catch (error) {
      if (
        error instanceof ApiError &&
        (error.status === 403 || error.status === 401)
      ) {
        return await accountPage(c, current, {
          passwordError: t("account.wrongCurrent"),
        }, 403);
      }
      if (error instanceof ApiError && error.status === 429) {
        for (const [name, value] of Object.entries(error.headers ?? {})) {
          c.header(name, value);
        }
        return await accountPage(c, current, {
          passwordError: t("signIn.tooMany"),
        }, 429);
      }
      throw error;
    }
  });

  app.post("/account/apps/:client/withdraw", async (c) => {
    const posted = await postedBy(c, "/account");
    if (!posted.current) return posted.answer;
    await withdrawAuthorization(
      db,
      deps.clock,
      posted.current.user.id,
      c.req.param("client"),
    );
    return c.redirect("/account?withdrawn=1", 303);
  });

  app.post("/logout", async (c) => {
    if (foreign(c)) return refused(c, "The form was posted from another site.");
    const current = await session(c);
    if (current) {
      const form = await c.req.parseBody();
      const token = typeof form.csrf_token === "string"
        ? form.csrf_token
        : undefined;
      if (!await isSessionCsrfToken(secret, current.id, token)) {
        return refused(c, "The form's CSRF token is missing or wrong.");
      }
      await endSession(db, current.id);
    }
    deleteCookie(c, COOKIE, { path: "/", secure });
    return c.redirect("/", 303);
  });

  /** The signed-in moderator, or the answer to give instead. */
  const moderatorOf = async (c: Context<AppEnv>, path: string) => {
    const current = await session(c);
    if (!current) {
      return {
        answer: c.redirect(`/login?next=${encodeURIComponent(path)}`, 303),
      };
    }
    if (!isModerator(current.user)) {
      return { answer: refused(c, "Only editors and admins moderate events.") };
    }
    return { current };
  };

  app.get("/admin", async (c) => {
    const who = await moderatorOf(c, "/admin");
    if (!who.current) return who.answer;
    const settings = await getSettings(db);
    const queued = await listUnconfirmedEvents(db, 1, 100);
    const { lang, t } = language(c, settings);
    // Dates in the page's language, times in the instance's zone.
    const format = new Intl.DateTimeFormat(lang, {
      dateStyle: "full",
      timeStyle: "short",
      timeZone: settings.instance_timezone,
    });
    return render(
      c,
      settings,
      async (common) =>
        QueueView({
          ...common,
          userName: who.current.user.email,
          csrfToken: await sessionCsrfToken(secret, who.current.id),
          notice: c.req.query("confirmed") ? t("queue.confirmed") : undefined,
          events: queued.map((e) => ({
            id: e.id,
            title: e.title,
            when: format.format(new Date(e.start_datetime * 1000)),
            place: e.place?.name ?? null,
            submitter: e.userId === null
              ? t("queue.anonymous")
              : t("queue.user", { id: e.userId }),
          })),
        }),
    );
  });

  app.post("/admin/events/:id{[1-9][0-9]{0,15}}/confirm", async (c) => {
    if (foreign(c)) return refused(c, "The form was posted from another site.");
    const who = await moderatorOf(c, "/admin");
    if (!who.current) return who.answer;
    const form = await c.req.parseBody();
    const token = typeof form.csrf_token === "string"
      ? form.csrf_token
      : undefined;
    if (!await isSessionCsrfToken(secret, who.current.id, token)) {
      return refused(c, "The form's CSRF token is missing or wrong.");
    }
    const settings = await getSettings(db);
    const result = await toggleEvent(
      {
        db,
        clock: deps.clock,
        settings,
        publication: deps.federation?.publicationWrite(settings) ?? undefined,
      },
      who.current.user,
      Number(c.req.param("id")),
      { to: true },
    );
    try {
      await deps.federation?.publishWritten(result);
    } catch (err) {
      deps.log.error("federating an event change failed", {
        event: result.id,
        error: String(err),
      });
    }
    return c.redirect("/admin?confirmed=1", 303);
  });

  const EMPTY_FIELDS: SubmitFields = {
    title: "",
    start: "",
    end: "",
    place_name: "",
    place_address: "",
    online_link: "",
    tags: "",
    description: "",
  };

  /** The form's fields of an API field, for showing its problem. */
  const FORM_FIELD: Record<string, keyof SubmitFields> = {
    title: "title",
    start_datetime: "start",
    end_datetime: "end",
    place_name: "place_name",
    place_address: "place_address",
    place_id: "place_name",
    online_locations: "online_link",
    tags: "tags",
    description: "description",
  };

  const submitForm = async (
    c: Context<AppEnv>,
    current: ActiveSession | null,
    values: SubmitFields,
    errors: Partial<Record<keyof SubmitFields, string>> = {},
    error?: string,
  ) => {
    const settings = await getSettings(db);
    return render(
      c,
      settings,
      async (common) =>
        SubmitView({
          ...common,
          timeZone: settings.instance_timezone,
          anonymous: current === null,
          csrfToken: current
            ? await sessionCsrfToken(secret, current.id)
            : null,
          values,
          errors,
          error,
        }),
      Object.keys(errors).length > 0 || error ? 400 : 200,
    );
  };

  app.get("/submit", async (c) => {
    const current = await session(c);
    if (!current && !(await getSettings(db)).allow_anon_event) {
      return c.redirect("/login?next=%2Fsubmit", 303);
    }
    return await submitForm(c, current, EMPTY_FIELDS);
  });

  app.post("/submit", async (c) => {
    if (foreign(c)) return refused(c, "The form was posted from another site.");
    const current = await session(c);
    const settings = await getSettings(db);
    if (!current && !settings.allow_anon_event) {
      return c.redirect("/login?next=%2Fsubmit", 303);
    }
    const form = await c.req.parseBody();
    const text = (name: string) =>
      typeof form[name] === "string"
        ? (form[name] as string).slice(0, 20_000)
        : "";
    if (
      current &&
      !await isSessionCsrfToken(secret, current.id, text("csrf_token"))
    ) {
      return refused(c, "The form's CSRF token is missing or wrong.");
    }
    const values = Object.fromEntries(
      Object.keys(EMPTY_FIELDS).map((name) => [name, text(name)]),
    ) as SubmitFields;
    const { input, errors } = eventInputFromForm(
      values,
      settings.instance_timezone,
    );
    const shown: Partial<Record<keyof SubmitFields, string>> = {};
    const { t } = language(c, settings);
    for (const e of errors) {
      shown[e.field] = e.field === "start"
        ? t("submit.error.start")
        : e.field === "end"
        ? t("submit.error.end")
        : e.message;
    }
    if (errors.length > 0) return await submitForm(c, current, values, shown);
    try {
      const result = await createEvent(
        {
          db,
          clock: deps.clock,
          settings,
          publication: deps.federation?.publicationWrite(settings) ??
            undefined,
        },
        current?.user ?? null,
        input,
      );
      try {
        await deps.federation?.publishWritten(result);
      } catch (err) {
        deps.log.error("federating an event change failed", {
          event: result.id,
          error: String(err),
        });
      }
      const row = result.after.find((e) => e.id === result.id);
      if (row?.is_visible) {
        return c.redirect(`/event/${encodeURIComponent(row.slug)}`, 303);
      }
      return render(
        c,
        settings,
        (common) =>
          SubmittedView({
            ...common,
            title: input.title ?? "",
          }),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      let general: string | undefined;
      for (
        const detail of (error.details ?? []) as {
          field?: string;
          message?: string;
        }[]
      ) {
        const name = detail.field ? FORM_FIELD[detail.field] : undefined;
        if (name) shown[name] ??= detail.message ?? error.message;
        else general ??= detail.message ?? error.message;
      }
      return await submitForm(
        c,
        current,
        values,
        shown,
        general ??
          (Object.keys(shown).length === 0 ? error.message : undefined),
      );
    }
  });

  return app;
}
