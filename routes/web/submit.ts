/**
 * The submission form: `GET /submit`, `POST /submit`, for members and, when
 * `allow_anon_event` is on, for anyone (then waiting for confirmation).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import {
  type ActiveSession,
  isSessionCsrfToken,
} from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import { createEvent } from "../../lib/events/write.ts";
import { eventInputFromForm } from "../../lib/events/form.ts";
import { getSettings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  type SubmitFields,
  SubmittedView,
  SubmitView,
} from "../views/admin.tsx";
import { formText, type WebKit } from "./kit.ts";

const EMPTY_FIELDS: SubmitFields = {
  title: "",
  start: "",
  end: "",
  place_name: "",
  place_address: "",
  online_link: "",
  tags: "",
  description: "",
};

/** The form's fields of an API field, for showing its problem. */
const FORM_FIELD: Record<string, keyof SubmitFields> = {
  title: "title",
  start_datetime: "start",
  end_datetime: "end",
  place_name: "place_name",
  place_address: "place_address",
  place_id: "place_name",
  online_locations: "online_link",
  tags: "tags",
  description: "description",
};

/** The submission form's routes. */
export function submitRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = web;

  const submitForm = async (
    c: Context<AppEnv>,
    current: ActiveSession | null,
    values: SubmitFields,
    errors: Partial<Record<keyof SubmitFields, string>> = {},
    error?: string,
  ) => {
    const settings = await getSettings(db);
    return web.render(
      c,
      {
        settings,
        current,
        status: Object.keys(errors).length > 0 || error ? 400 : 200,
      },
      async (common) =>
        SubmitView({
          ...common,
          timeZone: settings.instance_timezone,
          anonymous: current === null,
          csrfToken: current ? await web.csrfToken(current) : null,
          values,
          errors,
          error,
        }),
    );
  };

  app.get("/submit", async (c) => {
    const current = await web.session(c);
    if (!current && !(await getSettings(db)).allow_anon_event) {
      return web.toSignIn(c, "/submit");
    }
    return await submitForm(c, current, EMPTY_FIELDS);
  });

  app.post("/submit", async (c) => {
    if (web.foreign(c)) {
      return web.refused(c, "The form was posted from another site.");
    }
    const current = await web.session(c);
    const settings = await getSettings(db);
    if (!current && !settings.allow_anon_event) {
      return web.toSignIn(c, "/submit");
    }
    const form = await c.req.parseBody();
    if (
      current &&
      !await isSessionCsrfToken(
        web.secret,
        current.id,
        formText(form, "csrf_token", 200),
      )
    ) {
      return web.refused(c, "The form's CSRF token is missing or wrong.");
    }
    const values = Object.fromEntries(
      Object.keys(EMPTY_FIELDS).map((name) => [
        name,
        formText(form, name, 20_000),
      ]),
    ) as SubmitFields;
    const { input, errors } = eventInputFromForm(
      values,
      settings.instance_timezone,
    );
    const shown: Partial<Record<keyof SubmitFields, string>> = {};
    const { t } = web.language(c, settings);
    for (const e of errors) {
      shown[e.field] = e.field === "start"
        ? t("submit.error.start")
        : e.field === "end"
        ? t("submit.error.end")
        : e.message;
    }
    if (errors.length > 0) return await submitForm(c, current, values, shown);
    try {
      const result = await createEvent(
        {
          db,
          clock: deps.clock,
          settings,
          publication: deps.federation?.publicationWrite(settings) ??
            undefined,
        },
        current?.user ?? null,
        input,
      );
      try {
        await deps.federation?.publishWritten(result);
      } catch (err) {
        deps.log.error("federating an event change failed", {
          event: result.id,
          error: String(err),
        });
      }
      const row = result.after.find((e) => e.id === result.id);
      if (row?.is_visible) {
        return c.redirect(`/event/${encodeURIComponent(row.slug)}`, 303);
      }
      return web.render(
        c,
        { settings, current },
        (common) => SubmittedView({ ...common, title: input.title ?? "" }),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      let general: string | undefined;
      for (
        const detail of (error.details ?? []) as {
          field?: string;
          message?: string;
        }[]
      ) {
        const name = detail.field ? FORM_FIELD[detail.field] : undefined;
        if (name) shown[name] ??= detail.message ?? error.message;
        else general ??= detail.message ?? error.message;
      }
      return await submitForm(
        c,
        current,
        values,
        shown,
        general ??
          (Object.keys(shown).length === 0 ? error.message : undefined),
      );
    }
  });

  return app;
}
