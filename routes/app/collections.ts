/**
 * Collections and their filters (admins): `GET /admin/collections` lists
 * them with a form to create one; `GET /admin/collections/{id}` renames it,
 * edits, deletes and adds its filters; `GET /admin/collections/{id}/delete`
 * asks before deleting it. Validation and writes are those of the API
 * (lib/curation/collections.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import {
  collectionInputSchema,
  collectionPatchSchema,
  type CollectionRow,
  createCollection,
  createFilter,
  deleteCollection,
  deleteFilter,
  filterInputSchema,
  type FilterRow,
  findCollectionById,
  listCollections,
  replaceFilter,
  updateCollection,
} from "../../lib/curation/collections.ts";
import { ApiError } from "../../lib/errors.ts";
import { searchPlaces } from "../../lib/events/catalog.ts";
import { listActors } from "../../lib/federation/actors.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  type Choice,
  CollectionsView,
  CollectionView,
  type FilterErrors,
  type FilterValues,
} from "../views/app/collections.tsx";
import { ConfirmView, MessageView } from "../views/app/message.tsx";
import { actorName } from "./fediverse.ts";
import {
  formText,
  formTexts,
  idOf,
  type PageStatus,
  type PostedForm,
  type WebKit,
} from "./kit.ts";

const HOME = "/admin/collections";
/** How many places and actors a filter form offers. */
const CHOICES = 300;

const EMPTY_FILTER: FilterValues = {
  tags: "",
  places: [],
  actors: [],
  negate: false,
};

/** A filter's stored fields as its form shows them. */
function valuesOf(f: FilterRow): FilterValues {
  return {
    tags: f.tags.join(", "),
    places: f.places.map((p) => String(p.id)),
    actors: f.actors.map((a) => a.ap_id ?? "local"),
    negate: f.negate,
  };
}

/** A posted filter form: what was typed (kept on an error) and the API's input. */
function filterFromForm(form: PostedForm) {
  const values: FilterValues = {
    tags: formText(form, "tags", 20_000),
    places: formTexts(form, "places", 40),
    actors: formTexts(form, "actors", 2001),
    negate: formText(form, "negate") === "true",
  };
  return {
    values,
    input: (collectionId: number, placeNames: Map<string, string>) => ({
      negate: values.negate,
      tags: values.tags.split(",").map((t) => t.trim()).filter(Boolean),
      // Anything but an id of the list fails the API's own rule.
      places: values.places.map((id) => ({
        id: /^[1-9]\d{0,15}$/.test(id) ? Number(id) : id,
        name: placeNames.get(id) ?? "",
      })),
      actors: values.actors.map((a) => ({ ap_id: a === "local" ? null : a })),
      collectionId,
    }),
  };
}

/** The problems of a filter the API's rule refuses, by field, in words. */
function filterErrors(
  issues: readonly { path: PropertyKey[] }[],
  t: Translate,
): FilterErrors {
  const errors: FilterErrors = { form: t("collections.error.form") };
  const keys: Record<string, MessageKey> = {
    tags: "collections.error.tags",
    places: "collections.error.places",
    actors: "collections.error.actors",
  };
  for (const issue of issues) {
    const field = String(issue.path[0]) as "tags" | "places" | "actors";
    if (keys[field]) errors[field] ??= t(keys[field]);
  }
  return errors;
}

/**
 * Runs a write on a collection or filter found a moment ago: false when it
 * went in between (another admin deleted it: the API's 404, or 400 for a
 * filter's collection), so that the page says so instead of failing.
 */
async function stillThere(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (
      error instanceof ApiError &&
      (error.status === 404 || error.status === 400)
    ) return false;
    throw error;
  }
}

const NOTICES: Record<string, MessageKey> = {
  created: "collections.created",
  renamed: "collections.renamed",
  added: "collections.filterAdded",
  saved: "collections.filterSaved",
  removed: "collections.filterDeleted",
  deleted: "collections.deleted",
};

/** The collections administration's routes. */
export function collectionRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const noticeOf = (c: Context<AppEnv>, t: Translate) => {
    const key = NOTICES[c.req.query("done") ?? ""];
    return key ? t(key) : undefined;
  };

  /** The list, with what the create form had and its problem. */
  const listPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    extra: { status?: PageStatus; value?: string; error?: string } = {},
  ) => {
    const all = await listCollections(db, true);
    return web.render(
      c,
      { current, status: extra.status },
      async (common) =>
        CollectionsView({
          ...common,
          csrfToken: await web.csrfToken(current),
          notice: extra.status ? undefined : noticeOf(c, common.t),
          create: { value: extra.value ?? "", error: extra.error },
          collections: all.map((col) => ({
            id: col.id,
            name: col.name,
            filters: col.filters?.length ?? 0,
          })),
        }),
    );
  };

  /** The places and actors a filter may name. */
  const choices = async () => {
    const [places, actors] = await Promise.all([
      searchPlaces(db, "", CHOICES, { every: true }),
      listActors(db, 1, 100),
    ]);
    return {
      placeNames: new Map(places.map((p) => [String(p.id), p.name])),
      places: places.map((p): Choice => ({
        value: String(p.id),
        label: p.address ? `${p.name} (${p.address})` : p.name,
      })),
      actors: actors.data.map((a): Choice => ({
        value: a.ap_id,
        label: actorName(a),
      })),
    };
  };

  /** A filter in words: what it includes or excludes. */
  const summaryOf = (
    f: FilterRow,
    t: Translate,
    actors: Choice[],
  ): string => {
    const parts: string[] = [];
    if (f.tags.length) {
      parts.push(t("collections.summary.tags", { values: f.tags.join(", ") }));
    }
    if (f.places.length) {
      parts.push(
        t("collections.summary.places", {
          values: f.places.map((p) => p.name || `#${p.id}`).join(", "),
        }),
      );
    }
    if (f.actors.length) {
      parts.push(t("collections.summary.actors", {
        values: f.actors.map((a) =>
          a.ap_id === null
            ? t("collections.summary.local")
            : actors.find((c) => c.value === a.ap_id)?.label ?? a.ap_id
        ).join(", "),
      }));
    }
    if (!parts.length) return t("collections.summary.empty");
    return t(
      f.negate ? "collections.summary.exclude" : "collections.summary.include",
      { parts: parts.join(t("collections.summary.and")) },
    );
  };

  /** A collection's page; a form that failed keeps what was typed. */
  const collectionPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    found: { collection: CollectionRow; filters: FilterRow[] },
    extra: {
      status?: PageStatus;
      rename?: { value: string; error?: string };
      add?: { values: FilterValues; errors: FilterErrors };
      edit?: { id: number; values: FilterValues; errors: FilterErrors };
    } = {},
  ) => {
    const { places, actors } = await choices();
    const { collection } = found;
    return web.render(
      c,
      { current, status: extra.status },
      async (common) =>
        CollectionView({
          ...common,
          csrfToken: await web.csrfToken(current),
          id: collection.id,
          name: collection.name,
          notice: extra.status ? undefined : noticeOf(c, common.t),
          rename: extra.rename ?? { value: collection.name },
          filters: found.filters.map((f) => ({
            id: f.id,
            summary: summaryOf(f, common.t, actors),
            ...(extra.edit?.id === f.id
              ? { values: extra.edit.values, errors: extra.edit.errors }
              : { values: valuesOf(f), errors: {} }),
          })),
          add: extra.add ?? { values: EMPTY_FILTER, errors: {} },
          places,
          actors,
        }),
    );
  };

  /** The 404 page of an unknown collection or filter. */
  const unknown = (
    c: Context<AppEnv>,
    current: ActiveSession,
    key: MessageKey,
  ) =>
    web.render(
      c,
      { current, status: 404 },
      (common) =>
        MessageView({
          ...common,
          title: common.t("fediverse.notFound"),
          text: common.t(key),
          back: { href: HOME, label: common.t("collections.backToAll") },
          path: HOME,
        }),
    );

  /** The collection of the path, or the answer to give instead. */
  const collectionOf = async (c: Context<AppEnv>, current: ActiveSession) => {
    const id = idOf(c.req.param("id") ?? "");
    const found = id === null ? null : await findCollectionById(db, id);
    return found ? { ok: true as const, found } : {
      ok: false as const,
      answer: await unknown(c, current, "collections.unknown"),
    };
  };

  app.get(HOME, web.requireSession("admin"), async (c) => {
    return await listPage(c, c.var.session);
  });

  app.post(HOME, web.requirePost("admin"), async (c) => {
    const { t } = await web.language(c);
    const value = formText(c.var.form, "name", 1000);
    const parsed = collectionInputSchema.safeParse({ name: value });
    if (!parsed.success) {
      return await listPage(c, c.var.session, {
        status: 400,
        value,
        error: t("collections.error.name"),
      });
    }
    try {
      const created = await createCollection(db, deps.clock, parsed.data);
      return c.redirect(`${HOME}/${created.id}?done=created`, 303);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        return await listPage(c, c.var.session, {
          status: 409,
          value,
          error: t("collections.error.taken"),
        });
      }
      throw error;
    }
  });

  app.get(`${HOME}/:id`, web.requireSession("admin"), async (c) => {
    const col = await collectionOf(c, c.var.session);
    if (!col.ok) return col.answer;
    return await collectionPage(c, c.var.session, col.found);
  });

  app.post(`${HOME}/:id`, web.requirePost("admin", HOME), async (c) => {
    const col = await collectionOf(c, c.var.session);
    if (!col.ok) return col.answer;
    const { t } = await web.language(c);
    const value = formText(c.var.form, "name", 1000);
    const again = (status: PageStatus, error: string) =>
      collectionPage(c, c.var.session, col.found, {
        status,
        rename: { value, error },
      });
    const parsed = collectionPatchSchema.safeParse({ name: value });
    if (!parsed.success) return await again(400, t("collections.error.name"));
    try {
      await updateCollection(
        db,
        deps.clock,
        col.found.collection.id,
        parsed.data,
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        return await again(409, t("collections.error.taken"));
      }
      throw error;
    }
    return c.redirect(`${HOME}/${col.found.collection.id}?done=renamed`, 303);
  });

  /** The input of a posted filter form, or the page with its problems. */
  const postedFilter = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    form: PostedForm,
    found: { collection: CollectionRow; filters: FilterRow[] },
    editing: number | null,
  ) => {
    const { values, input } = filterFromForm(form);
    const { placeNames } = await choices();
    const parsed = filterInputSchema.safeParse(
      input(found.collection.id, placeNames),
    );
    if (parsed.success) return { ok: true as const, input: parsed.data };
    const errors = filterErrors(
      parsed.error.issues,
      (await web.language(c)).t,
    );
    return {
      ok: false as const,
      answer: await collectionPage(c, current, found, {
        status: 400,
        ...(editing === null
          ? { add: { values, errors } }
          : { edit: { id: editing, values, errors } }),
      }),
    };
  };

  app.post(`${HOME}/:id/filters`, web.requirePost("admin", HOME), async (c) => {
    const col = await collectionOf(c, c.var.session);
    if (!col.ok) return col.answer;
    const filter = await postedFilter(
      c,
      c.var.session,
      c.var.form,
      col.found,
      null,
    );
    if (!filter.ok) return filter.answer;
    if (!await stillThere(() => createFilter(db, deps.clock, filter.input))) {
      return await unknown(c, c.var.session, "collections.unknown");
    }
    return c.redirect(`${HOME}/${col.found.collection.id}?done=added`, 303);
  });

  /** The filter of the path, when it belongs to the collection. */
  const filterIdOf = (
    c: Context<AppEnv>,
    found: { filters: FilterRow[] },
  ): number | null => {
    const id = idOf(c.req.param("fid") ?? "");
    return found.filters.some((f) => f.id === id) ? id : null;
  };

  app.post(
    `${HOME}/:id/filters/:fid`,
    web.requirePost("admin", HOME),
    async (c) => {
      const col = await collectionOf(c, c.var.session);
      if (!col.ok) return col.answer;
      const fid = filterIdOf(c, col.found);
      if (fid === null) {
        return await unknown(c, c.var.session, "collections.unknownFilter");
      }
      const filter = await postedFilter(
        c,
        c.var.session,
        c.var.form,
        col.found,
        fid,
      );
      if (!filter.ok) return filter.answer;
      if (
        !await stillThere(() =>
          replaceFilter(db, deps.clock, fid, filter.input)
        )
      ) {
        return await unknown(c, c.var.session, "collections.unknownFilter");
      }
      return c.redirect(`${HOME}/${col.found.collection.id}?done=saved`, 303);
    },
  );

  app.post(
    `${HOME}/:id/filters/:fid/delete`,
    web.requirePost("admin", HOME),
    async (c) => {
      const col = await collectionOf(c, c.var.session);
      if (!col.ok) return col.answer;
      const fid = filterIdOf(c, col.found);
      if (fid === null) {
        return await unknown(c, c.var.session, "collections.unknownFilter");
      }
      if (!await stillThere(() => deleteFilter(db, fid))) {
        return await unknown(c, c.var.session, "collections.unknownFilter");
      }
      return c.redirect(`${HOME}/${col.found.collection.id}?done=removed`, 303);
    },
  );

  app.get(`${HOME}/:id/delete`, web.requireSession("admin"), async (c) => {
    const col = await collectionOf(c, c.var.session);
    if (!col.ok) return col.answer;
    const { collection, filters } = col.found;
    return web.render(
      c,
      { current: c.var.session },
      async (common) =>
        ConfirmView({
          ...common,
          title: common.t("collections.confirmTitle", {
            name: collection.name,
          }),
          text: common.t("collections.confirmText", { count: filters.length }),
          action: `${HOME}/${collection.id}/delete`,
          csrfToken: await web.csrfToken(c.var.session),
          confirm: common.t("collections.confirmButton"),
          cancel: {
            href: `${HOME}/${collection.id}`,
            label: common.t("collections.cancel"),
          },
          path: HOME,
        }),
    );
  });

  app.post(`${HOME}/:id/delete`, web.requirePost("admin", HOME), async (c) => {
    const col = await collectionOf(c, c.var.session);
    if (!col.ok) return col.answer;
    if (
      !await stillThere(() => deleteCollection(db, col.found.collection.id))
    ) {
      return await unknown(c, c.var.session, "collections.unknown");
    }
    return c.redirect(`${HOME}?done=deleted`, 303);
  });

  return app;
}
