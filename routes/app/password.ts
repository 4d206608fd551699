/**
 * Getting into an account by e-mail (lib/auth/password-reset.ts):
 * - `GET /forgot`, `POST /forgot`: the address to send a password link to;
 *   the answer is the same whether an account has it (rate limited per
 *   address and per client); with e-mail off the page says to ask an admin.
 * - `GET /reset/{token}`, `POST /reset/{token}`: choose the new password
 *   (every session and token of the account ends), then sign in with it.
 * - `GET /confirm/{token}`, `POST /confirm/{token}`: a registration's or a
 *   changed address's link (lib/auth/confirmations.ts); the page's button
 *   confirms (a mail scanner's GET spends nothing). A registration signs in.
 * - `POST /admin/users/{id}/password-link` (admins): a one-time link to set
 *   the account's password, mailed (`send=mail`, when e-mail is on) or
 *   shown once (imported accounts have no usable password).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import {
  createAdminPasswordLink,
  findPasswordLink,
  requestPasswordReset,
  resetPassword,
} from "../../lib/auth/password-reset.ts";
import { ApiError } from "../../lib/errors.ts";
import { mailContextOf } from "../../lib/mail/messages.ts";
import type { UserRow } from "../../lib/users.ts";
import { clientAddress } from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { MessageView } from "../views/app/message.tsx";
import {
  confirmAddress,
  findConfirmation,
} from "../../lib/auth/confirmations.ts";
import { rememberLanguage } from "../../lib/mail/recipients.ts";
import {
  ConfirmAddressView,
  ForgotView,
  PasswordLinkView,
  ResetView,
} from "../views/app/password.tsx";
import { formText, idOf, type WebKit } from "./kit.ts";

/** A user id of a path (1 to 15 digits, as the routes' patterns allow). */
const ID = "{[1-9][0-9]{0,14}}";

/** The routes of forgotten passwords and password links. */
export function passwordRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const mailOn = deps.mailer?.enabled === true;
  const links = { db, clock: deps.clock, mailer: deps.mailer };

  /** How a mail to `user` is written, with the request's settings. */
  const contextFor = async (c: Context<AppEnv>) => {
    const settings = await web.settings(c);
    return (user: UserRow) =>
      mailContextOf(settings, deps.config.baseUrl, user.language);
  };

  app.get(
    "/forgot",
    (c) => web.render(c, {}, (common) => ForgotView({ ...common, mailOn })),
  );

  app.post("/forgot", web.fromThisSite, async (c) => {
    const form = await c.req.parseBody();
    const email = formText(form, "email", 320).trim();
    const { t } = await web.language(c);
    try {
      await requestPasswordReset(
        links,
        await contextFor(c),
        email,
        clientAddress(c, deps.config),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 429) {
        web.passHeaders(c, error);
        return web.render(c, { status: 429 }, (common) =>
          ForgotView({
            ...common,
            mailOn,
            email,
            error: t("forgot.tooMany"),
          }));
      }
      if (error.status === 400) {
        return web.render(c, { status: 400 }, (common) =>
          ForgotView({
            ...common,
            mailOn,
            email,
            emailError: t("register.badEmail"),
          }));
      }
      throw error;
    }
    return web.render(
      c,
      {},
      (common) => ForgotView({ ...common, mailOn, notice: t("forgot.sent") }),
    );
  });

  /** The page of a link that cannot be used. */
  const gone = async (
    c: Context<AppEnv>,
    state: "unknown" | "used" | "expired",
  ) => {
    const { t } = await web.language(c);
    return web.render(
      c,
      { status: state === "unknown" ? 404 : 410 },
      (common) =>
        MessageView({
          ...common,
          title: t("reset.gone.title"),
          text: t(`reset.gone.${state}`),
          back: { href: "/forgot", label: t("forgot.title") },
        }),
    );
  };

  app.get("/reset/:token", async (c) => {
    const token = c.req.param("token");
    const found = await findPasswordLink(db, deps.clock, token);
    if (found.state !== "valid") return await gone(c, found.state);
    // The token is in the path: no Referer may carry it anywhere.
    c.header("Referrer-Policy", "no-referrer");
    return web.render(c, {}, (common) =>
      ResetView({
        ...common,
        action: `/reset/${token}`,
        email: found.user.email,
      }));
  });

  app.post("/reset/:token", web.fromThisSite, async (c) => {
    const token = c.req.param("token");
    const form = await c.req.parseBody();
    c.header("Referrer-Policy", "no-referrer");
    try {
      await resetPassword(
        { db, clock: deps.clock, hasher: deps.hasher },
        token,
        formText(form, "password"),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 400) {
        const found = await findPasswordLink(db, deps.clock, token);
        if (found.state !== "valid") return await gone(c, found.state);
        const { t } = await web.language(c);
        return web.render(c, { status: 400 }, (common) =>
          ResetView({
            ...common,
            action: `/reset/${token}`,
            email: found.user.email,
            error: t("register.shortPassword"),
          }));
      }
      if (error.status === 404) return await gone(c, "unknown");
      if (error.status === 410) {
        return await gone(
          c,
          error.code === "link_expired" ? "expired" : "used",
        );
      }
      throw error;
    }
    // The browser's own session (if any) ended with the others.
    web.signOut(c);
    return c.redirect("/login?done=reset", 303);
  });

  // A confirmation link opens a page whose button confirms: mail scanners
  // that fetch links do not spend them.
  app.get("/confirm/:token", async (c) => {
    const token = c.req.param("token");
    const found = await findConfirmation(db, deps.clock, token);
    if (found.state !== "valid") return await gone(c, found.state);
    c.header("Referrer-Policy", "no-referrer");
    return web.render(c, {}, (common) =>
      ConfirmAddressView({
        ...common,
        action: `/confirm/${token}`,
        email: found.link.email,
        register: found.link.kind === "register",
      }));
  });

  app.post("/confirm/:token", web.fromThisSite, async (c) => {
    c.header("Referrer-Policy", "no-referrer");
    const { t } = await web.language(c);
    try {
      const settings = await web.settings(c);
      const done = await confirmAddress(
        { db, clock: deps.clock },
        c.req.param("token"),
        { pending: settings.registration_approval },
      );
      if (done.kind === "register" && done.user.pending) {
        // The address is real; the account waits for an admin.
        await rememberLanguage(db, done.user, (await web.language(c)).lang);
        return web.render(c, {}, (common) =>
          MessageView({
            ...common,
            title: common.t("approval.registeredTitle"),
            text: common.t("approval.registeredText"),
          }));
      }
      if (done.kind === "register") {
        await web.signIn(c, done.user);
        await rememberLanguage(db, done.user, (await web.language(c)).lang);
        return c.redirect("/my?done=registered", 303);
      }
      // The account's sessions stay: the account is the same.
      return web.render(c, {}, (common) =>
        MessageView({
          ...common,
          title: t("mail.email.action"),
          text: t("confirm.email", { email: done.user.email }),
          back: { href: "/account", label: t("account.title") },
        }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 404) return await gone(c, "unknown");
      if (error.status === 410) {
        return await gone(
          c,
          error.code === "link_expired" ? "expired" : "used",
        );
      }
      if (error.status === 409) {
        return web.render(c, { status: 409 }, (common) =>
          MessageView({
            ...common,
            title: t("reset.gone.title"),
            text: t("register.taken"),
            back: { href: "/login", label: t("signIn.title") },
          }));
      }
      throw error;
    }
  });

  app.post(
    `/admin/users/:id${ID}/password-link`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      const id = idOf(c.req.param("id"));
      if (id === null) return c.notFound();
      const settings = await web.settings(c);
      const { lang } = await web.language(c);
      const send = formText(c.var.form, "send", 10) === "mail";
      try {
        const made = await createAdminPasswordLink(
          links,
          await contextFor(c),
          id,
          send,
        );
        return web.render(
          c,
          { current: c.var.session },
          (common) =>
            PasswordLinkView({
              ...common,
              email: made.user.email,
              sent: made.sent,
              // Shown on this answer only: the link is not stored.
              url: made.sent ? undefined : new URL(
                `/reset/${made.token}`,
                deps.config.baseUrl,
              ).href,
              until: new Intl.DateTimeFormat(lang, {
                dateStyle: "long",
                timeStyle: "short",
                timeZone: settings.instance_timezone,
              }).format(made.expiresAt),
            }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return c.notFound();
        }
        throw error;
      }
    },
  );

  return app;
}
