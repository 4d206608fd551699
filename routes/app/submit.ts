/**
 * The submission form: `GET /submit`, `POST /submit` (multipart: it may
 * carry an image), for members and, when `allow_anon_event` is on, for
 * anyone (then waiting for confirmation).
 */
import { Hono } from "hono";
import { afterEventCreated } from "../../lib/mail/notices.ts";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import {
  EMPTY_EVENT_FORM,
  type EventFormFields,
} from "../../lib/events/form.ts";
import { createEvent } from "../../lib/events/write.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { EventFormView, SubmittedView } from "../views/app/event-form.tsx";
import {
  eventWrites,
  type FormErrors,
  readEventForm,
  suggestions,
  writeProblems,
} from "./event-form.ts";
import type { WebKit } from "./kit.ts";

/** The submission form's routes. */
export function submitRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const writes = eventWrites(deps);

  const submitForm = async (
    c: Context<AppEnv>,
    settings: Settings,
    current: ActiveSession | null,
    values: EventFormFields,
    errors: FormErrors = {},
    error?: string,
  ) => {
    const suggested = await suggestions(db);
    return web.render(
      c,
      {
        current,
        status: Object.keys(errors).length > 0 || error ? 400 : 200,
      },
      async (common) =>
        EventFormView({
          ...common,
          mode: "create",
          action: "/submit",
          heading: common.t("submit.title"),
          timeZone: settings.instance_timezone,
          anonymous: current === null,
          csrfToken: current ? await web.csrfToken(current) : null,
          values,
          errors,
          error,
          ...suggested,
          recurrenceAllowed: settings.allow_recurrent_event,
          image: null,
        }),
    );
  };

  app.get("/submit", async (c) => {
    const current = await web.session(c);
    const settings = await web.settings(c);
    if (!current && !settings.allow_anon_event) {
      return web.toSignIn(c, "/submit");
    }
    return await submitForm(c, settings, current, EMPTY_EVENT_FORM);
  });

  app.post("/submit", web.fromThisSite, async (c) => {
    const current = await web.session(c);
    const settings = await web.settings(c);
    if (!current && !settings.allow_anon_event) {
      return web.toSignIn(c, "/submit");
    }
    const form = await c.req.parseBody();
    const refusal = current && await web.wrongToken(c, current, form);
    if (refusal) return refusal;
    const post = readEventForm(form);
    const { t } = await web.language(c);
    const prepared = await writes.prepare(
      t,
      settings,
      post,
      "create",
      current?.user.id ?? null,
    );
    if (!prepared.ok) {
      return await submitForm(
        c,
        settings,
        current,
        post.values,
        prepared.errors,
      );
    }
    try {
      const result = await createEvent(
        writes.writeDeps(settings),
        current?.user ?? null,
        prepared.input,
        { saveImage: prepared.saveImage },
      );
      await writes.publish(result);
      await afterEventCreated(deps, result);
      const row = result.after.find((e) => e.id === result.id);
      if (row?.is_visible) {
        // A series' own page lists its dates.
        return c.redirect(`/event/${encodeURIComponent(row.slug)}`, 303);
      }
      return web.render(
        c,
        { current },
        (common) =>
          SubmittedView({ ...common, title: prepared.input.title ?? "" }),
      );
    } catch (error) {
      const problems = writeProblems(t, error, deps.config.mediaMaxBytes);
      if (!problems) throw error;
      return await submitForm(
        c,
        settings,
        current,
        post.values,
        problems.errors,
        problems.general,
      );
    }
  });

  return app;
}
