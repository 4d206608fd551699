/**
 * The OAuth clients (admins): `GET /admin/clients` lists the applications
 * registered through `POST /api/client` with how many users authorised
 * each; `GET /admin/clients/{id}/delete` asks before deleting one, and the
 * POST deletes it with its codes and tokens.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import type { MessageKey } from "../../lib/i18n.ts";
import {
  deleteClient,
  findClientSummary,
  listClients,
} from "../../lib/oauth/clients.ts";
import { getSettings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { ClientsView } from "../views/app/clients.tsx";
import { ConfirmView, MessageView } from "../views/app/message.tsx";
import { pageOf, type WebKit } from "./kit.ts";

const HOME = "/admin/clients";
const PAGE_SIZE = 20;

/** The OAuth clients administration's routes. */
export function clientRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = web;

  const unknown = (c: Context<AppEnv>, current: ActiveSession) =>
    web.render(
      c,
      { current, status: 404 },
      (common) =>
        MessageView({
          ...common,
          title: common.t("fediverse.notFound"),
          text: common.t("clients.unknown"),
          back: { href: HOME, label: common.t("clients.title") },
          path: HOME,
        }),
    );

  app.get(HOME, async (c) => {
    const who = await web.signedIn(c, HOME, web.admins);
    if (!who.ok) return who.answer;
    const settings = await getSettings(db);
    const page = pageOf(c.req.query("page"));
    const clients = await listClients(db, deps.clock, page, PAGE_SIZE);
    const { lang } = web.language(c, settings);
    const format = new Intl.DateTimeFormat(lang, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: settings.instance_timezone,
    });
    const notice: MessageKey | null = c.req.query("done") === "deleted"
      ? "clients.deleted"
      : null;
    return web.render(
      c,
      { settings, current: who.current },
      (common) =>
        ClientsView({
          ...common,
          notice: notice ? common.t(notice) : undefined,
          count: clients.count,
          paging: {
            page,
            totalPages: clients.totalPages,
            href: (p) => `${HOME}?page=${p}`,
          },
          clients: clients.data.map((client) => ({
            clientId: client.client_id,
            name: client.name,
            website: client.website && /^https?:\/\//i.test(client.website)
              ? client.website
              : null,
            redirectUris: client.redirect_uris,
            scopes: client.scopes,
            created: format.format(client.createdAt),
            users: client.users,
          })),
        }),
    );
  });

  app.get(`${HOME}/:id/delete`, async (c) => {
    const id = c.req.param("id");
    const who = await web.signedIn(
      c,
      `${HOME}/${encodeURIComponent(id)}/delete`,
      web.admins,
    );
    if (!who.ok) return who.answer;
    const client = await findClientSummary(db, deps.clock, id);
    if (!client) return unknown(c, who.current);
    return web.render(
      c,
      { current: who.current },
      async (common) =>
        ConfirmView({
          ...common,
          title: common.t("clients.confirmTitle", { name: client.name }),
          text: common.t("clients.confirmText", { count: client.users }),
          action: `${HOME}/${encodeURIComponent(client.client_id)}/delete`,
          csrfToken: await web.csrfToken(who.current),
          confirm: common.t("clients.confirmButton"),
          cancel: { href: HOME, label: common.t("clients.cancel") },
          path: HOME,
        }),
    );
  });

  app.post(`${HOME}/:id/delete`, async (c) => {
    const posted = await web.posted(c, HOME, web.admins);
    if (!posted.ok) return posted.answer;
    if (!await deleteClient(db, c.req.param("id"))) {
      return unknown(c, posted.current);
    }
    return c.redirect(`${HOME}?done=deleted`, 303);
  });

  return app;
}
