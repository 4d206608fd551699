/**
 * A signed-in user's events: `GET /my` (theirs, paged, a series with its
 * next dates), and for the owner, editors and admins (the API's rule,
 * canEditEvent): `GET/POST /events/{id}/edit` (a single event, a whole
 * series, or one date of it), `POST /events/{id}/status` (cancel, or take
 * the cancellation back), `GET/POST /events/{id}/delete` (a confirmation,
 * then the deletion), `GET /events/{id}/cancel` (the cancellation's
 * confirmation, posted to the status route).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { unixNow } from "../../lib/clock.ts";
import { canEditEvent } from "../../lib/events/access.ts";
import {
  type EventFormFields,
  type EventFormMode,
  formFieldsOfEvent,
  recurrenceChoice,
} from "../../lib/events/form.ts";
import { listOwnEventGroups, type OwnEvent } from "../../lib/events/own.ts";
import { loadEventFull } from "../../lib/events/load.ts";
import type { EventFull } from "../../lib/events/serialize.ts";
import { deleteEvent, updateEvent } from "../../lib/events/write.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import { emptyMediaTrashNow } from "../../lib/media/cleanup.ts";
import type { Settings } from "../../lib/settings.ts";
import type { UserRow } from "../../lib/users.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { EventFormView } from "../views/app/event-form.tsx";
import {
  CancelView,
  DeleteView,
  type MyEvent,
  MyEventsView,
} from "../views/app/my-events.tsx";
import {
  eventWrites,
  type FormErrors,
  readEventForm,
  suggestions,
  writeProblems,
} from "./event-form.ts";
import { formText, safeNext, type WebKit } from "./kit.ts";

/** Events (single ones and series) on a page of `/my`. */
const PAGE_SIZE = 20;
/** The next dates `/my` shows of a series (the series' own page lists more). */
const DATES_SHOWN = 6;
/** The id in these pages' paths. */
const ID = ":id{[1-9][0-9]{0,15}}";
/** What `/my` may say happened (`?done=`). */
const NOTICES: Record<string, MessageKey> = {
  saved: "events.notice.saved",
  cancelled: "events.notice.cancelled",
  uncancelled: "events.notice.uncancelled",
  deleted: "events.notice.deleted",
  registered: "confirm.registered",
};

/** A page number of a query or form (1 when absent or not one). */
function pageOf(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

/** What an event's form changes: one date of a series, a series, or a single event. */
function modeOf(
  event: Pick<EventFull, "parentId" | "recurrent">,
): Exclude<EventFormMode, "create"> {
  return event.parentId !== null
    ? "occurrence"
    : event.recurrent
    ? "series"
    : "single";
}

/**
 * When an event happens, in words, in the page's language and the
 * instance's zone: days only for an all-day event (midnight to midnight).
 */
export function whenOf(
  start: number,
  end: number | null,
  lang: string,
  timeZone: string,
): string {
  const fields = formFieldsOfEvent({
    title: "",
    start_datetime: start,
    end_datetime: end,
    description: "",
    online_locations: [],
    tags: [],
    place: null,
    recurrent: null,
    media: [],
  }, timeZone);
  if (fields.all_day) {
    const days = new Intl.DateTimeFormat(lang, { dateStyle: "full", timeZone });
    const last = (end ?? start) - 43_200;
    return fields.start === fields.end
      ? days.format(new Date(start * 1000))
      : days.formatRange(new Date(start * 1000), new Date(last * 1000));
  }
  const times = new Intl.DateTimeFormat(lang, {
    dateStyle: "full",
    timeStyle: "short",
    timeZone,
  });
  return end === null
    ? times.format(new Date(start * 1000))
    : times.formatRange(new Date(start * 1000), new Date(end * 1000));
}

/** A series' rule in words. */
function ruleOf(
  t: Translate,
  rule: OwnEvent["recurrent"],
  lang: string,
  timeZone: string,
): string | undefined {
  if (!rule) return undefined;
  const choice = recurrenceChoice(rule);
  const words = t(`events.rule.${choice}` as MessageKey, {
    frequency: rule.frequency,
  });
  return typeof rule.until === "number"
    ? t("events.rule.until", {
      rule: words,
      date: new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone })
        .format(new Date(rule.until * 1000)),
    })
    : words;
}

/** The `/my` and event editing routes. */
export function eventPageRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;
  const writes = eventWrites(deps);

  /** A plain-text answer the page gives instead (404, 403, 400), never cached. */
  const plain = (c: Context<AppEnv>, text: string, status: 400 | 403 | 404) => {
    c.header("Cache-Control", "no-store");
    return c.text(text, status);
  };

  /**
   * The event `id` when `user` may change it: 404 when it does not exist or
   * is hidden from them, 403 when it is not theirs to change or comes from
   * another instance.
   */
  const editable = async (
    c: Context<AppEnv>,
    user: UserRow,
  ): Promise<
    { ok: true; event: EventFull } | { ok: false; answer: Response }
  > => {
    const { t } = await web.language(c);
    const event = await loadEventFull(
      db,
      Number(c.req.param("id")),
      user,
      unixNow(deps.clock),
    );
    if (!event) {
      return { ok: false, answer: plain(c, t("events.notFound"), 404) };
    }
    if (!canEditEvent(user, event)) {
      return { ok: false, answer: plain(c, t("events.refused.notYours"), 403) };
    }
    if (event.apUserApId !== null) {
      return { ok: false, answer: plain(c, t("events.refused.remote"), 403) };
    }
    return { ok: true, event };
  };

  app.get("/my", web.requireSession(), async (c) => {
    const settings = await web.settings(c);
    const page = pageOf(c.req.query("page"));
    const { groups, more } = await listOwnEventGroups(
      db,
      c.var.session.user.id,
      unixNow(deps.clock),
      page,
      PAGE_SIZE,
      DATES_SHOWN,
    );
    const { lang, t } = await web.language(c);
    const zone = settings.instance_timezone;
    const shown = (e: OwnEvent): MyEvent => ({
      id: e.id,
      slug: e.slug,
      title: e.title,
      when: whenOf(e.start_datetime, e.end_datetime, lang, zone),
      place: e.place?.name ?? null,
      cancelled: e.status === "EventCancelled",
      waiting: !e.is_visible,
    });
    const done = NOTICES[c.req.query("done") ?? ""];
    return web.render(
      c,
      { current: c.var.session },
      async (common) =>
        MyEventsView({
          ...common,
          csrfToken: await web.csrfToken(c.var.session),
          page,
          hasNext: more,
          notice: done ? t(done) : undefined,
          events: groups.map((g) => ({
            ...shown(g),
            ...(g.recurrent
              ? {
                rule: ruleOf(t, g.recurrent, lang, zone),
                occurrences: g.occurrences.map((o) => ({
                  ...shown(o),
                  occurrence: true,
                })),
              }
              : {}),
          })),
        }),
    );
  });

  /** The edit form of `event`, with what was typed and its problems. */
  const editForm = async (
    c: Context<AppEnv>,
    settings: Settings,
    current: ActiveSession,
    event: EventFull,
    values: EventFormFields,
    next: string | undefined,
    errors: FormErrors = {},
    error?: string,
  ) => {
    const mode = modeOf(event);
    const series = mode === "occurrence"
      ? { id: event.parentId!, title: event.parent?.title ?? event.title }
      : undefined;
    const image = event.media[0];
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
          mode,
          action: `/events/${event.id}/edit`,
          heading: common.t(
            series ? "events.edit.occurrenceTitle" : "events.edit.title",
            { title: event.title },
          ),
          timeZone: settings.instance_timezone,
          anonymous: false,
          csrfToken: await web.csrfToken(current),
          values,
          errors,
          error,
          ...suggested,
          recurrenceAllowed: settings.allow_recurrent_event,
          image: image ? { url: image.url, alt: image.name } : null,
          series,
          next,
        }),
    );
  };

  /** A local path to go back to (`next`), if one was given. */
  const nextOf = (value: string | undefined) =>
    value ? safeNext(value, "/my") : undefined;

  app.get(`/events/${ID}/edit`, web.requireSession(), async (c) => {
    const settings = await web.settings(c);
    const found = await editable(c, c.var.session.user);
    if (!found.ok) return found.answer;
    return await editForm(
      c,
      settings,
      c.var.session,
      found.event,
      formFieldsOfEvent(found.event, settings.instance_timezone),
      nextOf(c.req.query("next")),
    );
  });

  app.post(`/events/${ID}/edit`, web.requirePost(), async (c) => {
    const settings = await web.settings(c);
    const user = c.var.session.user;
    const found = await editable(c, user);
    if (!found.ok) return found.answer;
    const event = found.event;
    const next = nextOf(formText(c.var.form, "next"));
    const post = readEventForm(c.var.form);
    const { t } = await web.language(c);
    const prepared = await writes.prepare(
      t,
      settings,
      post,
      modeOf(event),
      user.id,
      event,
    );
    if (!prepared.ok) {
      return await editForm(
        c,
        settings,
        c.var.session,
        event,
        post.values,
        next,
        prepared.errors,
      );
    }
    try {
      const result = await updateEvent(
        writes.writeDeps(settings),
        user,
        event.id,
        prepared.input,
        { saveImage: prepared.saveImage },
      );
      await writes.publish(result);
    } catch (error) {
      const problems = writeProblems(t, error, deps.config.mediaMaxBytes);
      if (!problems) throw error;
      return await editForm(
        c,
        settings,
        c.var.session,
        event,
        post.values,
        next,
        problems.errors,
        problems.general,
      );
    }
    // The owner goes back to their events; a moderator to the queue.
    const back = next ??
      (event.userId === user.id ? "/my?done=saved" : "/admin");
    return c.redirect(back, 303);
  });

  app.post(
    `/events/${ID}/status`,
    web.requirePost("user", "/my"),
    async (c) => {
      const settings = await web.settings(c);
      const found = await editable(c, c.var.session.user);
      if (!found.ok) return found.answer;
      const status = formText(c.var.form, "status", 40);
      if (status !== "EventCancelled" && status !== "EventScheduled") {
        return plain(c, "status must be EventCancelled or EventScheduled", 400);
      }
      const result = await updateEvent(
        writes.writeDeps(settings),
        c.var.session.user,
        found.event.id,
        { status },
      );
      await writes.publish(result);
      const page = pageOf(formText(c.var.form, "page", 10));
      const done = status === "EventCancelled" ? "cancelled" : "uncancelled";
      return c.redirect(`/my?page=${page}&done=${done}`, 303);
    },
  );

  /**
   * What a confirmation page (cancel, delete) shows of an event the signed-in
   * user may edit, or the answer when they may not.
   */
  const confirming = async (c: Context<AppEnv>, current: ActiveSession) => {
    const settings = await web.settings(c);
    const found = await editable(c, current.user);
    if (!found.ok) return found;
    const { event } = found;
    const { lang } = await web.language(c);
    return {
      ok: true as const,
      shown: {
        csrfToken: await web.csrfToken(current),
        id: event.id,
        title: event.title,
        when: whenOf(
          event.start_datetime,
          event.end_datetime,
          lang,
          settings.instance_timezone,
        ),
        kind: modeOf(event),
      },
    };
  };

  // Cancelling asks first: a page of its own, so it works without scripts.
  app.get(`/events/${ID}/cancel`, web.requireSession(), async (c) => {
    const found = await confirming(c, c.var.session);
    if (!found.ok) return found.answer;
    return web.render(
      c,
      { current: c.var.session },
      (common) =>
        CancelView({
          ...common,
          ...found.shown,
          page: pageOf(c.req.query("page")),
        }),
    );
  });

  app.get(`/events/${ID}/delete`, web.requireSession(), async (c) => {
    const found = await confirming(c, c.var.session);
    if (!found.ok) return found.answer;
    return web.render(
      c,
      { current: c.var.session },
      (common) =>
        DeleteView({
          ...common,
          ...found.shown,
          next: nextOf(c.req.query("next")) ?? "/my",
        }),
    );
  });

  app.post(
    `/events/${ID}/delete`,
    web.requirePost("user", "/my"),
    async (c) => {
      const settings = await web.settings(c);
      const found = await editable(c, c.var.session.user);
      if (!found.ok) return found.answer;
      const result = await deleteEvent(
        writes.writeDeps(settings),
        c.var.session.user,
        found.event.id,
      );
      await writes.publish(result);
      await emptyMediaTrashNow({ db, media: deps.media, log: deps.log });
      const next = nextOf(formText(c.var.form, "next")) ?? "/my";
      return c.redirect(next === "/my" ? "/my?done=deleted" : next, 303);
    },
  );

  return app;
}
