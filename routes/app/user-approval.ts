/**
 * Registrations waiting for approval (the setting `registration_approval`;
 * admins): `POST /admin/users/{id}/approve` lets the account sign in,
 * `POST /admin/users/{id}/refuse` deletes it. Both 404 unless it waits.
 */
import { Hono } from "hono";
import { ApiError } from "../../lib/errors.ts";
import { approveUser, refuseUser } from "../../lib/users.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { idOf, type WebKit } from "./kit.ts";

const ID = ":id{[1-9][0-9]{0,14}}";

/** The routes that approve or refuse a registration. */
export function userApprovalRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  /** Runs `decide`; an account that does not wait is a 404. */
  const decided = async (decide: () => Promise<unknown>) => {
    try {
      await decide();
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    }
  };

  app.post(
    `/admin/users/${ID}/approve`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      const id = idOf(c.req.param("id"))!;
      if (!await decided(() => approveUser(db, deps.clock, id))) {
        return c.notFound();
      }
      return c.redirect(`/admin/users?done=approved&id=${id}`, 303);
    },
  );

  app.post(
    `/admin/users/${ID}/refuse`,
    web.requirePost("admin", "/admin/users"),
    async (c) => {
      const id = idOf(c.req.param("id"))!;
      if (!await decided(() => refuseUser(db, id))) return c.notFound();
      return c.redirect("/admin/users?done=refused", 303);
    },
  );

  return app;
}
