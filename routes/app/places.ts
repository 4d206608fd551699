/**
 * Places (editors and admins):
 * - `GET /admin/places` (`?q=`, `?page=`): every place, with its events' count;
 * - `GET /admin/places/{id}`, `POST /admin/places/{id}`: a place's name,
 *   address and coordinates (lib/events/places.ts editPlace: its events
 *   change with it, and federate);
 * - `GET /admin/places/{id}/merge` (`?q=`): duplicates to check, and
 *   `POST /admin/places/{id}/merge` merges the checked ones into it.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  countPlaceEvents,
  editPlace,
  findPlace,
  listPlaces,
  MAX_MERGED_PLACES,
  mergePlaces,
  type PlaceInput,
  type PlaceWriteResult,
} from "../../lib/events/places.ts";
import type { Translate } from "../../lib/i18n.ts";
import type { PlaceRow } from "../../lib/events/serialize.ts";
import { eventWriteDeps, federateChange } from "../api/event-writes.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { MessageView } from "../views/app/message.tsx";
import {
  PlaceEditView,
  type PlaceErrors,
  type PlaceFields,
  PlaceMergeView,
  PlacesView,
} from "../views/app/places.tsx";
import {
  formText,
  formTexts,
  idOf,
  pageOf,
  type PageStatus,
  type WebKit,
} from "./kit.ts";

const HOME = "/admin/places";
const PAGE_SIZE = 20;
/** A place id of a path (as idOf reads it). */
const ID = ":id{[1-9][0-9]{0,14}}";

/** The form's fields of a place as stored. */
function fieldsOf(place: PlaceRow): PlaceFields {
  return {
    name: place.name,
    address: place.address,
    latitude: place.latitude === null ? "" : String(place.latitude),
    longitude: place.longitude === null ? "" : String(place.longitude),
  };
}

/** A coordinate typed in the form: null when blank, NaN when not a number in range. */
function coordinate(text: string, limit: number): number | null {
  const trimmed = text.trim().replace(",", ".");
  if (trimmed === "") return null;
  if (!/^-?\d{1,3}(\.\d+)?$/.test(trimmed)) return NaN;
  const value = Number(trimmed);
  return Math.abs(value) <= limit ? value : NaN;
}

/** The write input of a posted place form, or what is wrong with it. */
function readPlaceForm(
  t: Translate,
  values: PlaceFields,
): { input: PlaceInput } | { errors: PlaceErrors } {
  const errors: PlaceErrors = {};
  const name = values.name.trim();
  if (name.length === 0 || name.length > 200) {
    errors.name = t("places.badName");
  }
  if (values.address.trim().length > 300) {
    errors.address = t("places.badAddress");
  }
  const latitude = coordinate(values.latitude, 90);
  const longitude = coordinate(values.longitude, 180);
  if (Number.isNaN(latitude)) errors.latitude = t("places.badLatitude");
  if (Number.isNaN(longitude)) errors.longitude = t("places.badLongitude");
  if (
    !errors.latitude && !errors.longitude &&
    (latitude === null) !== (longitude === null)
  ) {
    errors[latitude === null ? "latitude" : "longitude"] = t(
      "places.bothCoordinates",
    );
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    input: { name, address: values.address.trim(), latitude, longitude },
  };
}

/** The places pages' routes. */
export function placeRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const unknown = (c: Context<AppEnv>, current: ActiveSession) =>
    web.render(c, { current, status: 404 }, (common) =>
      MessageView({
        ...common,
        title: common.t("places.notFound"),
        text: common.t("places.notFound"),
        back: { href: HOME, label: common.t("places.back") },
        path: HOME,
      }));

  /** Federates what a place write did to the events held there. */
  const federate = async (result: PlaceWriteResult) => {
    for (const change of result.changes) await federateChange(deps, change);
  };

  app.get(HOME, web.requireSession("editor"), async (c) => {
    const query = (c.req.query("q") ?? "").trim().slice(0, 200);
    let page = pageOf(c.req.query("page"));
    let list = await listPlaces(db, query, page, PAGE_SIZE);
    if (page > 1 && page > list.totalPages) {
      page = Math.max(1, list.totalPages);
      list = await listPlaces(db, query, page, PAGE_SIZE);
    }
    const q = query ? `&q=${encodeURIComponent(query)}` : "";
    return web.render(c, { current: c.var.session }, (common) =>
      PlacesView({
        ...common,
        query,
        count: list.count,
        places: list.data.map(({ place, events }) => ({
          id: place.id,
          name: place.name,
          address: place.address,
          events,
        })),
        paging: {
          page,
          totalPages: list.totalPages,
          href: (p) => `${HOME}?page=${p}${q}`,
        },
      }));
  });

  /** A place's edit page, with what a post typed and got wrong. */
  const editPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    place: PlaceRow,
    extra: { values?: PlaceFields; errors?: PlaceErrors; notice?: string },
    status: PageStatus = 200,
  ) => {
    const events = await countPlaceEvents(db, place.id);
    return web.render(c, { current, status }, async (common) =>
      PlaceEditView({
        ...common,
        id: place.id,
        events,
        values: extra.values ?? fieldsOf(place),
        errors: extra.errors ?? {},
        notice: extra.notice,
        csrfToken: await web.csrfToken(current),
      }));
  };

  app.get(`${HOME}/${ID}`, web.requireSession("editor"), async (c) => {
    const id = idOf(c.req.param("id"))!;
    const place = await findPlace(db, id);
    if (!place) return unknown(c, c.var.session);
    const { t } = await web.language(c);
    const done = c.req.query("done");
    const merged = Number(c.req.query("count"));
    const notice = done === "saved"
      ? t("places.saved")
      : done === "merged" && Number.isSafeInteger(merged)
      ? t("places.merged", { count: merged })
      : undefined;
    return await editPage(c, c.var.session, place, { notice });
  });

  app.post(`${HOME}/${ID}`, web.requirePost("editor", HOME), async (c) => {
    const id = idOf(c.req.param("id"))!;
    const place = await findPlace(db, id);
    if (!place) return unknown(c, c.var.session);
    const { t } = await web.language(c);
    const form = c.var.form;
    const values: PlaceFields = {
      name: formText(form, "name", 300),
      address: formText(form, "address", 400),
      latitude: formText(form, "latitude", 40),
      longitude: formText(form, "longitude", 40),
    };
    const read = readPlaceForm(t, values);
    if ("errors" in read) {
      return await editPage(c, c.var.session, place, {
        values,
        errors: read.errors,
      }, 400);
    }
    try {
      const settings = await web.settings(c);
      await federate(
        await editPlace(eventWriteDeps(deps, settings), id, read.input),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        return await editPage(c, c.var.session, place, {
          values,
          errors: { name: t("places.taken") },
        }, 409);
      }
      if (error instanceof ApiError && error.status === 404) {
        return unknown(c, c.var.session);
      }
      throw error;
    }
    return c.redirect(`${HOME}/${id}?done=saved`, 303);
  });

  /** The merge page of `place`: candidates matching `q` (its own name at first). */
  const mergePage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    place: PlaceRow,
    query: string,
    error?: string,
    status: PageStatus = 200,
  ) => {
    const found = await listPlaces(db, query, 1, MAX_MERGED_PLACES + 1);
    const candidates = found.data.filter((p) => p.place.id !== place.id)
      .slice(0, MAX_MERGED_PLACES);
    return web.render(c, { current, status }, async (common) =>
      PlaceMergeView({
        ...common,
        id: place.id,
        name: place.name,
        query,
        error,
        candidates: candidates.map(({ place, events }) => ({
          id: place.id,
          name: place.name,
          address: place.address,
          events,
        })),
        csrfToken: await web.csrfToken(current),
      }));
  };

  app.get(`${HOME}/${ID}/merge`, web.requireSession("editor"), async (c) => {
    const place = await findPlace(db, idOf(c.req.param("id"))!);
    if (!place) return unknown(c, c.var.session);
    const asked = c.req.query("q");
    const query = (asked ?? place.name).trim().slice(0, 200);
    return await mergePage(c, c.var.session, place, query);
  });

  app.post(
    `${HOME}/${ID}/merge`,
    web.requirePost("editor", HOME),
    async (c) => {
      const id = idOf(c.req.param("id"))!;
      const place = await findPlace(db, id);
      if (!place) return unknown(c, c.var.session);
      const { t } = await web.language(c);
      const ids = formTexts(c.var.form, "place", 20).map(idOf);
      if (
        ids.length === 0 || ids.length > MAX_MERGED_PLACES ||
        ids.some((i) => i === null || i === id)
      ) {
        return await mergePage(
          c,
          c.var.session,
          place,
          place.name,
          t("places.mergeNothing"),
          400,
        );
      }
      try {
        const settings = await web.settings(c);
        await federate(
          await mergePlaces(
            eventWriteDeps(deps, settings),
            id,
            ids as number[],
          ),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return unknown(c, c.var.session);
        }
        throw error;
      }
      const count = new Set(ids).size;
      return c.redirect(`${HOME}/${id}?done=merged&count=${count}`, 303);
    },
  );

  return app;
}
