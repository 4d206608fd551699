/**
 * Deleting a user (admins): `GET /admin/users/{id}/delete` asks what becomes
 * of their events (kept without an owner, given to another account, or
 * deleted), and the POST deletes by the API's rules (lib/user-removal.ts):
 * never the last active admin; sessions, grants and tokens end with it.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  countUserEvents,
  EVENT_FATES,
  type EventFate,
  removeUser,
} from "../../lib/user-removal.ts";
import { findUserByEmail, findUserById } from "../../lib/users.ts";
import type { UserRow } from "../../lib/users.ts";
import { eventWriteDeps, federateChange } from "../api/event-writes.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { UserDeleteView } from "../views/app/user-delete.tsx";
import { formText, idOf, type PageStatus, type WebKit } from "./kit.ts";

const PATH = "/admin/users/:id{[1-9][0-9]{0,14}}/delete";

function isFate(value: string): value is EventFate {
  return (EVENT_FATES as readonly string[]).includes(value);
}

/** The routes of a user's deletion. */
export function userDeleteRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const page = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    user: UserRow,
    typed: { fate: EventFate; reassignEmail: string; error?: string },
    status: PageStatus = 200,
  ) => {
    const events = await countUserEvents(db, user.id);
    return web.render(c, { current, status }, async (common) =>
      UserDeleteView({
        ...common,
        id: user.id,
        email: user.email,
        events,
        ...typed,
        csrfToken: await web.csrfToken(current),
      }));
  };

  app.get(PATH, web.requireSession("admin"), async (c) => {
    const user = await findUserById(db, idOf(c.req.param("id"))!);
    if (!user) return c.notFound();
    return await page(c, c.var.session, user, {
      fate: "keep",
      reassignEmail: "",
    });
  });

  app.post(PATH, web.requirePost("admin", "/admin/users"), async (c) => {
    const current = c.var.session;
    const user = await findUserById(db, idOf(c.req.param("id"))!);
    if (!user) return c.notFound();
    const { t } = await web.language(c);
    const fate = formText(c.var.form, "events", 20);
    const reassignEmail = formText(c.var.form, "reassign_email", 320).trim();
    if (!isFate(fate)) {
      return await page(c, current, user, {
        fate: "keep",
        reassignEmail,
        error: t("userDelete.badFate"),
      }, 400);
    }
    const typed = { fate, reassignEmail };
    let reassignTo: number | undefined;
    if (fate === "reassign") {
      const target = reassignEmail
        ? await findUserByEmail(db, reassignEmail)
        : undefined;
      if (!target || target.id === user.id || !target.is_active) {
        return await page(c, current, user, {
          ...typed,
          error: t("userDelete.badReassign"),
        }, 400);
      }
      reassignTo = target.id;
    }
    try {
      const { changes } = await removeUser(
        eventWriteDeps(deps, await web.settings(c)),
        user.id,
        { events: fate, reassignTo, actingAdminId: current.user.id },
      );
      for (const change of changes) await federateChange(deps, change);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        return await page(c, current, user, {
          ...typed,
          error: t("userDelete.lastAdmin", { email: user.email }),
        }, 409);
      }
      if (error instanceof ApiError && error.status === 400) {
        return await page(c, current, user, {
          ...typed,
          error: t("userDelete.badReassign"),
        }, 400);
      }
      throw error;
    }
    // An admin who deleted their own account is signed out with it.
    if (user.id === current.user.id) return c.redirect("/", 303);
    return c.redirect("/admin/users?done=deleted", 303);
  });

  return app;
}
