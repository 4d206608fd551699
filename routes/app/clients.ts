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
import type { AppEnv, RouteDeps } from "../env.ts";
import { ClientsView } from "../views/app/clients.tsx";
import { ConfirmView, MessageView } from "../views/app/message.tsx";
import { pageOf, type WebKit } from "./kit.ts";

const HOME = "/admin/clients";
const PAGE_SIZE = 20;

/** The OAuth clients administration's routes. */
export function clientRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

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

  app.get(HOME, web.requireSession("admin"), async (c) => {
    const settings = await web.settings(c);
    const page = pageOf(c.req.query("page"));
    const clients = await listClients(db, deps.clock, page, PAGE_SIZE);
    const { lang } = await web.language(c);
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
      { current: c.var.session },
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

  app.get(`${HOME}/:id/delete`, web.requireSession("admin"), async (c) => {
    const id = c.req.param("id");
    const client = await findClientSummary(db, deps.clock, id);
    if (!client) return unknown(c, c.var.session);
    return web.render(
      c,
      { current: c.var.session },
      async (common) =>
        ConfirmView({
          ...common,
          title: common.t("clients.confirmTitle", { name: client.name }),
          text: common.t("clients.confirmText", { count: client.users }),
          action: `${HOME}/${encodeURIComponent(client.client_id)}/delete`,
          csrfToken: await web.csrfToken(c.var.session),
          confirm: common.t("clients.confirmButton"),
          cancel: { href: HOME, label: common.t("clients.cancel") },
          path: HOME,
        }),
    );
  });

  app.post(`${HOME}/:id/delete`, web.requirePost("admin", HOME), async (c) => {
    if (!await deleteClient(db, c.req.param("id"))) {
      return unknown(c, c.var.session);
    }
    return c.redirect(`${HOME}?done=deleted`, 303);
  });

  return app;
}
