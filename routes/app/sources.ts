/**
 * Calendar subscriptions in the browser (editors and admins, as the API's
 * `/api/sources`): `GET /admin/sources` lists them with their last sync and
 * the add form (`POST /admin/sources`, which syncs at once); each has Sync
 * now (`POST /admin/sources/{id}/sync`), Resume when paused after failures
 * (`POST /admin/sources/{id}/resume`) and Remove (a confirmation step,
 * `GET`/`POST /admin/sources/{id}/delete`).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import { searchPlaces } from "../../lib/events/catalog.ts";
import {
  countSources,
  createSource,
  deleteSource,
  getSource,
  listSources,
  SOURCES_PAGE_SIZE,
  type SyncOutcome,
  syncSource,
  updateSource,
} from "../../lib/imports/sources.ts";
import { listUsersByIds } from "../../lib/users.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { sourceSyncDeps } from "../api/sources.ts";
import {
  countsText,
  SourceDeleteView,
  type SourceFields,
  SourcesView,
} from "../views/app/sources.tsx";
import { formText, idOf, pageOf, type PageStatus, type WebKit } from "./kit.ts";

/** Places offered as a default (by name). */
const PLACES_OFFERED = 200;

const EMPTY: SourceFields = {
  url: "",
  name: "",
  tags: "",
  place: "",
  confirm: false,
};

/** The subscriptions pages' routes. */
export function sourcePageRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  /** The list with the add form, a notice and the form's problems. */
  const listPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    options: {
      values?: SourceFields;
      errors?: Partial<Record<keyof SourceFields, string>>;
      notice?: { text: string; alert: boolean };
      status?: PageStatus;
      /** The page of the list (`?page=`); past the last, the last. */
      page?: number;
    } = {},
  ) => {
    const settings = await web.settings(c);
    const total = await countSources(db);
    const pages = Math.max(1, Math.ceil(total / SOURCES_PAGE_SIZE));
    const page = Math.min(options.page ?? 1, pages);
    const [rows, places] = await Promise.all([
      listSources(db, page, SOURCES_PAGE_SIZE),
      searchPlaces(db, "", PLACES_OFFERED, { every: true }),
    ]);
    const owners = new Map(
      (await listUsersByIds(db, [...new Set(rows.map((r) => r.userId))]))
        .map((u) => [u.id, u.email]),
    );
    return web.render(
      c,
      { current, status: options.status },
      async (common) => {
        const format = new Intl.DateTimeFormat(common.lang, {
          dateStyle: "medium",
          timeStyle: "short",
          timeZone: settings.instance_timezone,
        });
        return SourcesView({
          ...common,
          csrfToken: await web.csrfToken(current),
          sources: rows.map((r) => ({
            id: r.id,
            name: r.name,
            url: r.url,
            owner: owners.get(r.userId) ?? `#${r.userId}`,
            needsConfirmation: r.needs_confirmation,
            lastSync: r.last_sync_at ? format.format(r.last_sync_at) : null,
            counts: r.last_counts ?? null,
            lastError: r.last_error,
            failures: r.failures,
            nextTry: r.next_sync_at ? format.format(r.next_sync_at) : null,
            paused: r.paused,
          })),
          places: places.map((p) => ({ id: p.id, name: p.name })),
          values: options.values ?? EMPTY,
          errors: options.errors ?? {},
          notice: options.notice,
          page,
          pages,
        });
      },
    );
  };

  /** The notice of a sync's outcome, in the page's language. */
  const outcomeNotice = (c: Context<AppEnv>, outcome: SyncOutcome) => {
    const params = new URLSearchParams({ done: outcome.result });
    if (outcome.counts) {
      for (const [key, value] of Object.entries(outcome.counts)) {
        params.set(key, String(value));
      }
    }
    return c.redirect(`/admin/sources?${params}`, 303);
  };

  /** Syncs a source now, however recently it last synced. */
  const syncNow = async (c: Context<AppEnv>, id: number) =>
    syncSource(sourceSyncDeps(deps, await web.settings(c)), id, {
      force: true,
    });

  app.get("/admin/sources", web.requireSession("editor"), async (c) => {
    const { t } = await web.language(c);
    const done = c.req.query("done");
    const count = (name: string) => {
      const value = Number(c.req.query(name));
      return Number.isSafeInteger(value) && value >= 0 ? value : 0;
    };
    const counts = {
      created: count("created"),
      updated: count("updated"),
      cancelled: count("cancelled"),
      unchanged: count("unchanged"),
      skipped: count("skipped"),
    };
    const notice = done === "added"
      ? { text: t("sources.added"), alert: false }
      : done === "synced"
      ? {
        text: t("sources.synced", { counts: countsText(t, counts) }),
        alert: false,
      }
      : done === "not_modified"
      ? { text: t("sources.notModified"), alert: false }
      : done === "failed"
      ? { text: t("sources.failed"), alert: true }
      : done === "busy"
      ? { text: t("sources.busy"), alert: true }
      : done === "removed"
      ? { text: t("sources.removed"), alert: false }
      : done === "resumed"
      ? { text: t("sources.resumed"), alert: false }
      : undefined;
    return await listPage(c, c.var.session, {
      notice,
      page: pageOf(c.req.query("page")),
    });
  });

  app.post("/admin/sources", web.requirePost("editor"), async (c) => {
    const { form, session: current } = c.var;
    const values: SourceFields = {
      url: formText(form, "url", 2000).trim(),
      name: formText(form, "name", 200).trim(),
      tags: formText(form, "tags", 2000),
      place: formText(form, "place", 20),
      confirm: formText(form, "confirm", 10) !== "",
    };
    const tags = values.tags.split(",").map((t) => t.trim()).filter(Boolean);
    const errors: Partial<Record<keyof SourceFields, string>> = {};
    if (tags.length > 20 || tags.some((t) => t.length > 100)) {
      errors.tags = "At most 20 tags of 100 characters.";
    }
    if (values.place !== "" && idOf(values.place) === null) {
      errors.place = "Choose a place of the list.";
    }
    if (Object.keys(errors).length > 0) {
      return await listPage(c, current, { values, errors, status: 400 });
    }
    try {
      const source = await createSource(db, deps.clock.now(), current.user, {
        url: values.url,
        name: values.name,
        default_tags: tags,
        default_place_id: values.place ? Number(values.place) : null,
        needs_confirmation: values.confirm,
      });
      return outcomeNotice(
        c,
        await syncNow(c, source.id),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      for (
        const detail of (error.details ?? []) as {
          field?: string;
          message?: string;
        }[]
      ) {
        const field = detail.field === "default_place_id" ? "place" : "url";
        errors[field] ??= detail.message ?? error.message;
      }
      return await listPage(c, current, { values, errors, status: 400 });
    }
  });

  /** The source of a path, or the 404 page. */
  const sourceOf = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    id: string,
  ) => {
    const sourceId = idOf(id);
    const row = sourceId !== null
      ? await getSource(db, sourceId).catch((error) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      })
      : null;
    if (row) return { ok: true as const, row };
    const { t } = await web.language(c);
    return {
      ok: false as const,
      answer: await listPage(c, current, {
        notice: { text: t("sources.notFound"), alert: true },
        status: 404,
      }),
    };
  };

  app.post(
    "/admin/sources/:id/sync",
    web.requirePost("editor", "/admin/sources"),
    async (c) => {
      const found = await sourceOf(c, c.var.session, c.req.param("id"));
      if (!found.ok) return found.answer;
      return outcomeNotice(
        c,
        await syncNow(c, found.row.id),
      );
    },
  );

  app.post(
    "/admin/sources/:id/resume",
    web.requirePost("editor", "/admin/sources"),
    async (c) => {
      const found = await sourceOf(c, c.var.session, c.req.param("id"));
      if (!found.ok) return found.answer;
      await updateSource(db, deps.clock.now(), found.row.id, { paused: false });
      return c.redirect("/admin/sources?done=resumed", 303);
    },
  );

  // Signing in comes back to the list, not to this confirmation.
  app.get(
    "/admin/sources/:id/delete",
    web.requireSession("editor", "/admin/sources"),
    async (c) => {
      const found = await sourceOf(c, c.var.session, c.req.param("id"));
      if (!found.ok) return found.answer;
      return web.render(
        c,
        { current: c.var.session },
        async (common) =>
          SourceDeleteView({
            ...common,
            csrfToken: await web.csrfToken(c.var.session),
            source: { id: found.row.id, name: found.row.name || found.row.url },
          }),
      );
    },
  );

  app.post(
    "/admin/sources/:id/delete",
    web.requirePost("editor", "/admin/sources"),
    async (c) => {
      const found = await sourceOf(c, c.var.session, c.req.param("id"));
      if (!found.ok) return found.answer;
      await deleteSource(db, found.row.id);
      return c.redirect("/admin/sources?done=removed", 303);
    },
  );

  return app;
}
