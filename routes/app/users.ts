/**
 * Users (admins) and invitation links:
 * - `GET /admin/users` (`?q=` part of an e-mail, `?page=`): the accounts with
 *   their role and state, the open invitations, a form to add a user.
 * - `POST /admin/users`: a new user, with a password or with an invitation
 *   link shown once (the database keeps only its hash).
 * - `POST /admin/users/{id}/role`, `.../deactivate`, `.../reactivate`: the
 *   API's rules (lib/users.ts updateUser): never without an active admin; a
 *   deactivation ends the user's sessions, tokens and app grants.
 * - `POST /admin/invitations/withdraw`: an open invitation's link stops working.
 * - `GET /invite/{token}`, `POST /invite/{token}`: the invitee chooses a
 *   password, then is signed in; a spent or expired link answers 410, an
 *   unknown one 404.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { USER_ROLES, type UserRole } from "../../db/schema.ts";
import {
  acceptInvitation,
  createInvitation,
  findInvitation,
  listOpenInvitations,
  withdrawInvitation,
} from "../../lib/auth/invitations.ts";
import { MIN_PASSWORD_LENGTH } from "../../lib/auth/register.ts";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import { isModerator } from "../../lib/events/access.ts";
import type { Settings } from "../../lib/settings.ts";
import { sendInvitation } from "../../lib/mail/notices.ts";
import { translator } from "../../lib/i18n.ts";
import {
  createUser,
  findUserByEmail,
  findUserById,
  isEmailAddress,
  listUsers,
  updateUser,
} from "../../lib/users.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  type FreshLink,
  type GoneReason,
  InviteGoneView,
  InviteView,
  type NewUserErrors,
  type NewUserFields,
  roleName,
  UsersView,
} from "../views/app/users.tsx";
import { formText, type PageStatus, type WebKit } from "./kit.ts";

/** Users per page of the list. */
const PAGE_SIZE = 20;

const EMPTY_NEW_USER: NewUserFields = {
  email: "",
  role: "user",
  how: "invite",
};

/** A user id of a path (1 to 15 digits, as the routes' patterns allow). */
const ID = "{[1-9][0-9]{0,14}}";

function isRole(value: string): value is UserRole {
  return (USER_ROLES as readonly string[]).includes(value);
}

/** The routes of the users page and of invitation links. */
export function usersRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const auth = { db, clock: deps.clock, hasher: deps.hasher };

  /** Dates of the page in its language and the instance's zone. */
  const dateFormat = (lang: string, settings: Settings) =>
    new Intl.DateTimeFormat(lang, {
      dateStyle: "medium",
      timeZone: settings.instance_timezone,
    });

  /** The users page as asked by the query (`q`, `page`), with what a post adds. */
  const usersPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    extra: {
      values?: NewUserFields;
      errors?: NewUserErrors;
      link?: FreshLink;
      notice?: string;
      error?: string;
      existing?: { id: number; email: string };
    } = {},
    status: PageStatus = 200,
  ) => {
    const settings = await web.settings(c);
    const query = (c.req.query("q") ?? "").trim().slice(0, 320);
    const asked = Number(c.req.query("page") ?? "1");
    let page = Number.isSafeInteger(asked) && asked >= 1 ? asked : 1;
    let list = await listUsers(db, page, PAGE_SIZE, query || undefined);
    if (page > 1 && page > list.totalPages) {
      page = Math.max(1, list.totalPages);
      list = await listUsers(db, page, PAGE_SIZE, query || undefined);
    }
    const invitations = await listOpenInvitations(db);
    const now = deps.clock.now();
    return web.render(c, { current, status }, async (common) => {
      const format = dateFormat(common.lang, settings);
      return UsersView({
        ...common,
        csrfToken: await web.csrfToken(current),
        users: list.data.map((u) => ({
          id: u.id,
          email: u.email,
          role: u.role,
          active: u.is_active,
          since: format.format(u.createdAt),
          self: u.id === current.user.id,
          pending: u.pending,
        })),
        count: list.count,
        page,
        totalPages: list.totalPages,
        query,
        invitations: invitations.map((i) => ({
          email: i.email,
          role: i.role,
          until: format.format(i.expiresAt),
          expired: i.expiresAt <= now,
        })),
        values: extra.values ?? EMPTY_NEW_USER,
        errors: extra.errors ?? {},
        link: extra.link,
        notice: extra.notice,
        error: extra.error,
        mailOn: deps.mailer?.enabled === true,
        existing: extra.existing,
      });
    });
  };

  app.get("/admin/users", web.requireSession("admin"), async (c) => {
    const done = c.req.query("done");
    const id = Number(c.req.query("id"));
    const { t } = await web.language(c);
    let notice: string | undefined;
    if (done === "withdrawn") notice = t("users.invitations.withdrawn");
    if (done === "deleted") notice = t("userDelete.done");
    if (done === "refused") notice = t("approval.refused");
    const user = Number.isSafeInteger(id) && id > 0
      ? await findUserById(db, id)
      : undefined;
    if (user) {
      const email = user.email;
      if (done === "role") {
        notice = t("users.roleChanged", {
          email,
          role: roleName(t, user.role),
        });
      } else if (done === "deactivated") {
        notice = t("users.deactivated", { email });
      } else if (done === "reactivated") {
        notice = t("users.reactivated", { email });
      } else if (done === "approved") {
        notice = t("approval.approved", { email });
      } else if (done === "created") {
        notice = t("users.add.created", { email });
      }
    }
    return await usersPage(c, c.var.session, { notice });
  });

  app.post("/admin/users", web.requirePost("admin"), async (c) => {
    const { session: current, form } = c.var;
    const settings = await web.settings(c);
    const { lang, t } = await web.language(c);
    const values: NewUserFields = {
      email: formText(form, "email", 320).trim(),
      role: formText(form, "role", 20),
      how: formText(form, "how", 20),
    };
    const password = formText(form, "password");
    const errors: NewUserErrors = {};
    if (!isEmailAddress(values.email)) errors.email = t("users.add.badEmail");
    if (!isRole(values.role)) errors.role = t("users.badRole");
    if (values.how !== "invite" && values.how !== "password") {
      errors.how = t("users.add.badHow");
    }
    if (
      values.how === "password" &&
      (password.length < MIN_PASSWORD_LENGTH || password.length > 1024)
    ) {
      errors.password = t("users.add.shortPassword");
    }
    if (Object.keys(errors).length > 0 || !isRole(values.role)) {
      return await usersPage(c, current, { values, errors }, 400);
    }
    try {
      if (values.how === "password") {
        const user = await createUser(db, deps.hasher, deps.clock, {
          email: values.email,
          password,
          role: values.role,
        });
        return c.redirect(`/admin/users?done=created&id=${user.id}`, 303);
      }
      const { token, invitation } = await createInvitation(db, deps.clock, {
        email: values.email,
        role: values.role,
      });
      const url = new URL(`/invite/${token}`, deps.config.baseUrl).href;
      // Mailed to the invitee (when e-mail is on) in the instance's language.
      const sent = await sendInvitation(deps, settings, {
        email: invitation.email,
        url,
        role: roleName(translator(settings.instance_locale), invitation.role),
        expiresAt: invitation.expiresAt,
      });
      // Shown on this answer only: the link is not stored.
      return await usersPage(c, current, {
        link: {
          email: invitation.email,
          url,
          until: new Intl.DateTimeFormat(lang, {
            dateStyle: "long",
            timeStyle: "short",
            timeZone: settings.instance_timezone,
          }).format(invitation.expiresAt),
          sent,
        },
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        // The address has an account (imported, or it forgot its
        // password): a password link is offered instead of an invitation.
        const existing = await findUserByEmail(db, values.email);
        return await usersPage(c, current, {
          values,
          errors: { email: t("users.add.taken") },
          existing: existing
            ? { id: existing.id, email: existing.email }
            : undefined,
        }, 409);
      }
      if (error instanceof ApiError && error.status === 400) {
        return await usersPage(c, current, {
          values,
          errors: { email: t("users.add.badEmail") },
        }, 400);
      }
      throw error;
    }
  });

  /** Changes a user by the API's rules, then back to the list with what was done. */
  const change = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    patch: { role?: UserRole; is_active?: boolean },
    done: string,
  ) => {
    const id = Number(c.req.param("id"));
    const { t } = await web.language(c);
    try {
      await updateUser(db, deps.hasher, deps.clock, id, patch);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        const user = await findUserById(db, id);
        return await usersPage(c, current, {
          error: t("users.lastAdmin", { email: user?.email ?? "" }),
        }, 409);
      }
      if (error instanceof ApiError && error.status === 404) {
        return c.notFound();
      }
      throw error;
    }
    // An admin who stepped down (or out) may no longer see the list.
    if (id === current.user.id) return c.redirect("/account", 303);
    return c.redirect(`/admin/users?done=${done}&id=${id}`, 303);
  };

  app.post(
    `/admin/users/:id${ID}/role`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      const role = formText(c.var.form, "role", 20);
      if (!isRole(role)) {
        const { t } = await web.language(c);
        return await usersPage(
          c,
          c.var.session,
          { error: t("users.badRole") },
          400,
        );
      }
      return await change(c, c.var.session, { role }, "role");
    },
  );

  app.post(
    `/admin/users/:id${ID}/deactivate`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      return await change(
        c,
        c.var.session,
        { is_active: false },
        "deactivated",
      );
    },
  );

  app.post(
    `/admin/users/:id${ID}/reactivate`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      return await change(
        c,
        c.var.session,
        { is_active: true },
        "reactivated",
      );
    },
  );

  app.post(
    "/admin/invitations/withdraw",
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      await withdrawInvitation(db, formText(c.var.form, "email", 320));
      return c.redirect("/admin/users?done=withdrawn", 303);
    },
  );

  /** The page of a link that cannot be used, with its status. */
  const gone = (c: Context<AppEnv>, reason: GoneReason) =>
    web.render(
      c,
      { status: reason === "unknown" ? 404 : reason === "taken" ? 409 : 410 },
      (common) => InviteGoneView({ ...common, reason }),
    );

  app.get("/invite/:token", async (c) => {
    const token = c.req.param("token");
    const found = await findInvitation(db, deps.clock, token);
    if (found.state !== "valid") return await gone(c, found.state);
    // The token is in the path: no Referer may carry it anywhere.
    c.header("Referrer-Policy", "no-referrer");
    return web.render(c, {}, (common) =>
      InviteView({
        ...common,
        action: `/invite/${token}`,
        email: found.invitation.email,
        role: found.invitation.role,
      }));
  });

  app.post("/invite/:token", web.fromThisSite, async (c) => {
    const token = c.req.param("token");
    const form = await c.req.parseBody();
    try {
      const user = await acceptInvitation(
        auth,
        token,
        formText(form, "password"),
      );
      await web.signIn(c, user);
      return c.redirect(isModerator(user) ? "/admin" : "/submit", 303);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 400) {
        const found = await findInvitation(db, deps.clock, token);
        if (found.state !== "valid") return await gone(c, found.state);
        const { t } = await web.language(c);
        c.header("Referrer-Policy", "no-referrer");
        return web.render(c, { status: 400 }, (common) =>
          InviteView({
            ...common,
            action: `/invite/${token}`,
            email: found.invitation.email,
            role: found.invitation.role,
            error: t("register.shortPassword"),
          }));
      }
      if (error.status === 404) return await gone(c, "unknown");
      if (error.status === 410) {
        return await gone(
          c,
          error.code === "invitation_expired" ? "expired" : "used",
        );
      }
      if (error.status === 409) return await gone(c, "taken");
      throw error;
    }
  });

  return app;
}
