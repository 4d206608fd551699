/**
 * Signing in and out, registration and the account page:
 * - `GET /login`, `POST /login`: e-mail and password (the API's login rate
 *   limit), then a session cookie.
 * - `POST /logout`: ends the session (server-side).
 * - `GET /register`, `POST /register` (when `allow_registration` is on): a
 *   new account with the role `user`, signed in at once; with e-mail on, made
 *   only when the link mailed to the address is followed (routes/app/password.ts).
 * - `GET /account`: change the password (which ends every other session and
 *   token) or the e-mail (with the password; a taken address is answered as
 *   a free one, and changes are rate limited; with e-mail on, the new address
 *   takes effect through the link mailed to it), see and withdraw the OAuth
 *   apps authorised; moderators choose whether they get the mail of
 *   submissions waiting (`POST /account/notifications`).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { authenticateWithPassword } from "../../lib/auth/login.ts";
import { registerUser } from "../../lib/auth/register.ts";
import { changeOwnEmail } from "../../lib/auth/email-change.ts";
import { changeOwnPassword } from "../../lib/auth/password-change.ts";
import {
  listAuthorizations,
  withdrawAuthorization,
} from "../../lib/oauth/grants.ts";
import { type ActiveSession, endSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  startEmailChange,
  startRegistration,
} from "../../lib/auth/confirmations.ts";
import { mailContextOf } from "../../lib/mail/messages.ts";
import { MessageView } from "../views/app/message.tsx";
import {
  rememberLanguage,
  setSubmissionNotices,
} from "../../lib/mail/recipients.ts";
import { isModerator } from "../../lib/events/access.ts";
import { clientAddress } from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { AccountView, LoginView, RegisterView } from "../views/app/account.tsx";
import {
  formText,
  landingOf,
  type PageStatus,
  safeNext,
  type WebKit,
} from "./kit.ts";

/** The routes of signing in and out, registration and the account page. */
export function accountRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const auth = { db, clock: deps.clock, hasher: deps.hasher };

  // After signing in: `next` when the account's role may open it, else the
  // page that fits the role (/my for members, /admin for editors and admins).
  app.get("/login", async (c) => {
    const next = safeNext(c.req.query("next"), "");
    const current = await web.session(c);
    if (current) return c.redirect(landingOf(current.user, next), 303);
    const { t } = await web.language(c);
    const notice = c.req.query("done") === "reset"
      ? t("reset.done")
      : undefined;
    return web.render(
      c,
      {},
      (common) => LoginView({ ...common, next, notice }),
    );
  });

  app.post("/login", web.fromThisSite, async (c) => {
    const form = await c.req.parseBody();
    const email = formText(form, "email", 320).trim();
    const next = safeNext(formText(form, "next"), "");
    const { t } = await web.language(c);
    const again = (error: string, status: PageStatus) =>
      web.render(
        c,
        { status },
        (common) => LoginView({ ...common, next, email, error }),
      );
    try {
      const user = await authenticateWithPassword(
        auth,
        email,
        formText(form, "password"),
        clientAddress(c, deps.config),
      );
      await web.signIn(c, user);
      // Their mail is written in the language they use here.
      await rememberLanguage(db, user, (await web.language(c)).lang);
      return c.redirect(landingOf(user, next), 303);
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) {
        web.passHeaders(c, error);
        return again(t("signIn.tooMany"), 429);
      }
      if (error instanceof ApiError && error.status === 401) {
        return again(t("signIn.wrong"), 401);
      }
      if (error instanceof ApiError && error.code === "account_pending") {
        return again(t("approval.signIn"), 403);
      }
      throw error;
    }
  });

  app.get("/register", async (c) => {
    const settings = await web.settings(c);
    if (!settings.allow_registration) return c.notFound();
    return web.render(
      c,
      {},
      (common) => RegisterView({ ...common, errors: {} }),
    );
  });

  app.post("/register", web.fromThisSite, async (c) => {
    const settings = await web.settings(c);
    if (!settings.allow_registration) return c.notFound();
    const { t } = await web.language(c);
    const form = await c.req.parseBody();
    const email = formText(form, "email", 320).trim();
    const again = (
      status: PageStatus,
      errors: { email?: string; password?: string },
      error?: string,
    ) =>
      web.render(
        c,
        { status },
        (common) => RegisterView({ ...common, email, errors, error }),
      );
    try {
      const pending = settings.registration_approval;
      const password = formText(form, "password");
      if (deps.mailer?.enabled) {
        // The account is made when the link mailed to the address is
        // followed (the same answer whether the address has one).
        await startRegistration(
          { ...auth, mailer: deps.mailer },
          mailContextOf(
            settings,
            deps.config.baseUrl,
            (await web.language(c)).lang,
          ),
          { email, password },
          clientAddress(c, deps.config),
        );
        return web.render(c, {}, (common) =>
          MessageView({
            ...common,
            title: t("register.title"),
            text: t("register.checkMail", { email }),
          }));
      }
      const user = await registerUser(
        auth,
        { email, password },
        clientAddress(c, deps.config),
        { pending },
      );
      if (pending) {
        return web.render(c, {}, (common) =>
          MessageView({
            ...common,
            title: common.t("approval.registeredTitle"),
            text: common.t("approval.registeredText"),
          }));
      }
      await web.signIn(c, user);
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
        web.passHeaders(c, error);
        return again(429, {}, t("register.tooMany"));
      }
      throw error;
    }
  });

  /** The account page, with a notice or a form's problem. */
  const accountPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    extra: {
      notice?: string;
      passwordError?: string;
      newEmail?: string;
      emailError?: string;
      emailPasswordError?: string;
    } = {},
    status: PageStatus = 200,
  ) => {
    const apps = await listAuthorizations(db, deps.clock, current.user.id);
    return web.render(
      c,
      { current, status },
      async (common) =>
        AccountView({
          ...common,
          email: current.user.email,
          csrfToken: await web.csrfToken(current),
          apps: apps.map((a) => ({
            clientId: a.client_id,
            name: a.name,
            scopes: a.scopes,
          })),
          notifications: isModerator(current.user)
            ? {
              mailOn: deps.mailer?.enabled === true,
              submissions: current.user.notify_submissions,
            }
            : undefined,
          ...extra,
        }),
    );
  };

  app.get("/account", web.requireSession(), async (c) => {
    const { t } = await web.language(c);
    const notice = c.req.query("changed")
      ? t("account.changed")
      : c.req.query("withdrawn")
      ? t("account.withdrawn")
      : c.req.query("email")
      ? t("users.email.ifFree")
      : c.req.query("pending")
      ? t("account.emailPending", {
        email: c.req.query("pending")!.slice(0, 320),
      })
      : c.req.query("notify")
      ? t("account.notifySaved")
      : undefined;
    return await accountPage(c, c.var.session, { notice });
  });

  app.post(
    "/account/password",
    web.requirePost("user", "/account"),
    async (c) => {
      const { session: current, form } = c.var;
      const { t } = await web.language(c);
      if (formText(form, "new_password").length < 8) {
        return await accountPage(c, current, {
          passwordError: t("register.shortPassword"),
        }, 400);
      }
      try {
        const user = await changeOwnPassword(
          auth,
          current.user,
          {
            current: formText(form, "current_password"),
            next: formText(form, "new_password"),
          },
          clientAddress(c, deps.config),
        );
        // Every session ended with the change: this browser gets a new one.
        await web.signIn(c, user);
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
          web.passHeaders(c, error);
          return await accountPage(c, current, {
            passwordError: t("signIn.tooMany"),
          }, 429);
        }
        throw error;
      }
    },
  );

  app.post("/account/email", web.requirePost("user", "/account"), async (c) => {
    const { session: current, form } = c.var;
    const { t } = await web.language(c);
    const newEmail = formText(form, "email", 320).trim();
    try {
      // A taken address changes nothing, but the answer is the same: whether
      // another account has an address is not told (docs/SECURITY.md).
      const mailer = deps.mailer?.enabled ? deps.mailer : undefined;
      const settings = await web.settings(c);
      await changeOwnEmail(
        auth,
        current.user,
        { email: newEmail, password: formText(form, "password") },
        clientAddress(c, deps.config),
        // With e-mail on, the new address confirms itself first.
        mailer &&
          ((email) =>
            startEmailChange(
              { db, clock: deps.clock, mailer },
              mailContextOf(
                settings,
                deps.config.baseUrl,
                current.user.language,
              ),
              current.user,
              email,
            )),
      );
      if (mailer) {
        return c.redirect(
          `/account?pending=${encodeURIComponent(newEmail.toLowerCase())}`,
          303,
        );
      }
      return c.redirect("/account?email=1", 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const again = (
        status: PageStatus,
        problem: { emailError?: string; emailPasswordError?: string },
      ) => accountPage(c, current, { newEmail, ...problem }, status);
      if (error.status === 400) {
        return await again(400, { emailError: t("users.email.bad") });
      }
      if (error.status === 403 || error.status === 401) {
        return await again(403, {
          emailPasswordError: t("users.email.wrongPassword"),
        });
      }
      if (error.status === 429) {
        web.passHeaders(c, error);
        return await again(429, { emailPasswordError: t("signIn.tooMany") });
      }
      throw error;
    }
  });

  app.post(
    "/account/notifications",
    web.requirePost("editor", "/account"),
    async (c) => {
      await setSubmissionNotices(
        db,
        c.var.session.user.id,
        formText(c.var.form, "submissions", 10) === "on",
      );
      return c.redirect("/account?notify=1", 303);
    },
  );

  app.post(
    "/account/apps/:client/withdraw",
    web.requirePost("user", "/account"),
    async (c) => {
      await withdrawAuthorization(
        db,
        deps.clock,
        c.var.session.user.id,
        c.req.param("client"),
      );
      return c.redirect("/account?withdrawn=1", 303);
    },
  );

  app.post("/logout", web.fromThisSite, async (c) => {
    const current = await web.session(c);
    if (current) {
      const refusal = await web.wrongToken(c, current, await c.req.parseBody());
      if (refusal) return refusal;
      await endSession(db, current.id);
    }
    web.signOut(c);
    return c.redirect("/", 303);
  });

  return app;
}
