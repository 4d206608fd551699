/**
 * The replies received from the fediverse, for admins (the API lists
 * resources to admins only): `GET /admin/resources` (search, paged), each
 * with Hide or Show (`POST /admin/resources/{id}/hide|show`) and Delete (a
 * confirmation step, `GET`/`POST /admin/resources/{id}/delete`).
 */
import { Hono } from "hono";
import {
  deleteResource,
  findResource,
  listResources,
  setResourceHidden,
} from "../../lib/curation/resources.ts";
import { notFound } from "../../lib/errors.ts";
import { sanitizeDescription } from "../../lib/events/sanitize.ts";
import type { MessageKey } from "../../lib/i18n.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  ResourceDeleteView,
  type ResourcesPlace,
  ResourcesView,
  type ShownResource,
} from "../views/app/moderation.tsx";
import { formText, idOf, pageOf, type PostedForm, type WebKit } from "./kit.ts";
import { createModerationKit } from "./moderation-kit.ts";

/** Replies per page of the resources list (the API's default page size). */
const RESOURCES_PAGE_SIZE = 20;
/** The longest search the resources list takes (as the API). */
const MAX_QUERY = 200;

/** The resources list's address for a search and page, with a notice. */
function resourcesHref(place: ResourcesPlace, done?: string): string {
  const params = new URLSearchParams();
  if (place.query) params.set("query", place.query);
  if (place.page > 1) params.set("page", String(place.page));
  if (done) params.set("done", done);
  const query = params.toString();
  return `/admin/resources${query ? `?${query}` : ""}`;
}

/** Where a resource action returns to, from its form's hidden fields. */
function placeOf(form: PostedForm): ResourcesPlace {
  return {
    query: formText(form, "query", MAX_QUERY).trim(),
    page: pageOf(formText(form, "page", 10)),
  };
}

/** A link for a remote actor: only an absolute http(s) URL. */
function httpLink(value: unknown): string | null {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:"
      ? url.href
      : null;
  } catch {
    return null;
  }
}

/** A reply as the pages show it; its HTML sanitised once more before it is shown. */
function shownResource(
  resource: NonNullable<Awaited<ReturnType<typeof findResource>>>,
  format: Intl.DateTimeFormat,
): ShownResource {
  const data = (resource.data ?? {}) as Record<string, unknown>;
  const actor = resource.APUser;
  const object = (actor?.object ?? {}) as Record<string, unknown>;
  const username = typeof object.preferredUsername === "string"
    ? object.preferredUsername
    : null;
  const name = typeof object.name === "string" && object.name.trim()
    ? object.name.trim().slice(0, 200)
    : null;
  const apId = resource.apUserApId ?? "";
  const handle = username && actor?.instanceDomain
    ? `@${username}@${actor.instanceDomain}`
    : apId;
  const summary = typeof data.summary === "string"
    ? sanitizeDescription(data.summary)
    : "";
  return {
    id: resource.id,
    author: {
      name,
      handle,
      href: httpLink(typeof object.url === "string" ? object.url : apId),
    },
    event: resource.event
      ? {
        title: resource.event.title,
        href: `/event/${encodeURIComponent(resource.event.slug)}`,
      }
      : null,
    when: format.format(new Date(resource.createdAt)),
    contentHtml: sanitizeDescription(
      typeof data.content === "string" ? data.content : "",
    ),
    summaryHtml: summary || null,
    hidden: resource.hidden,
  };
}

/** The resources pages' routes. */
export function resourceRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const { formatter, refusal } = createModerationKit(web);

  const RESOURCE_NOTICES: Record<string, MessageKey> = {
    hidden: "moderation.resources.hiddenDone",
    shown: "moderation.resources.shownDone",
    deleted: "moderation.resources.deleted",
  };

  app.get("/admin/resources", web.requireSession("admin"), async (c) => {
    const settings = await web.settings(c);
    const { lang, t } = await web.language(c);
    const typed = (c.req.query("query") ?? "").slice(0, 2 * MAX_QUERY).trim();
    const place: ResourcesPlace = {
      query: typed,
      page: pageOf(c.req.query("page")),
    };
    const tooLong = typed.length > MAX_QUERY;
    let list = { data: [] as ShownResource[], count: 0, pages: 1 };
    if (!tooLong) {
      const read = (page: number) =>
        listResources(db, {
          query: typed || undefined,
          page,
          pageSize: RESOURCES_PAGE_SIZE,
        });
      let found = await read(place.page);
      if (place.page > Math.max(1, found.totalPages)) {
        place.page = Math.max(1, found.totalPages);
        found = await read(place.page);
      }
      const format = formatter(lang, settings);
      list = {
        data: found.data.map((r) => shownResource(r, format)),
        count: found.count,
        pages: Math.max(1, found.totalPages),
      };
    }
    const done = RESOURCE_NOTICES[c.req.query("done") ?? ""];
    return web.render(
      c,
      { current: c.var.session, status: tooLong ? 400 : 200 },
      async (common) =>
        ResourcesView({
          ...common,
          csrfToken: await web.csrfToken(c.var.session),
          resources: list.data,
          count: list.count,
          place,
          paging: {
            page: place.page,
            pages: list.pages,
            href: (p) => resourcesHref({ ...place, page: p }),
          },
          queryError: tooLong
            ? t("moderation.resources.error.query")
            : undefined,
          notice: done ? t(done) : undefined,
        }),
    );
  });

  for (const [action, hidden] of [["hide", true], ["show", false]] as const) {
    app.post(
      `/admin/resources/:id/${action}`,
      web.requirePost("admin", "/admin/resources"),
      async (c) => {
        const place = placeOf(c.var.form);
        const id = idOf(c.req.param("id"));
        try {
          if (id === null) throw notFound("Event");
          await setResourceHidden(db, deps.clock, id, hidden);
        } catch (error) {
          return refusal(c, c.var.session, error, resourcesHref(place));
        }
        return c.redirect(
          `${resourcesHref(place, hidden ? "hidden" : "shown")}#resource-${id}`,
          303,
        );
      },
    );
  }

  // Signing in comes back to the list, not to this confirmation.
  app.get(
    "/admin/resources/:id/delete",
    web.requireSession("admin", "/admin/resources"),
    async (c) => {
      const place: ResourcesPlace = {
        query: (c.req.query("query") ?? "").slice(0, MAX_QUERY).trim(),
        page: pageOf(c.req.query("page")),
      };
      const id = idOf(c.req.param("id"));
      const resource = id === null ? null : await findResource(db, id);
      if (!resource) {
        return refusal(
          c,
          c.var.session,
          notFound("Event"),
          resourcesHref(place),
        );
      }
      const settings = await web.settings(c);
      const { lang } = await web.language(c);
      return web.render(
        c,
        { current: c.var.session },
        async (common) =>
          ResourceDeleteView({
            ...common,
            csrfToken: await web.csrfToken(c.var.session),
            resource: shownResource(resource, formatter(lang, settings)),
            place,
            back: resourcesHref(place),
          }),
      );
    },
  );

  app.post(
    "/admin/resources/:id/delete",
    web.requirePost("admin", "/admin/resources"),
    async (c) => {
      const place = placeOf(c.var.form);
      const id = idOf(c.req.param("id"));
      try {
        if (id === null) throw notFound("Event");
        await deleteResource(db, id);
      } catch (error) {
        return refusal(c, c.var.session, error, resourcesHref(place));
      }
      return c.redirect(resourcesHref(place, "deleted"), 303);
    },
  );

  return app;
}
