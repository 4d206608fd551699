/**
 * What the moderation pages (the queue, routes/app/moderation.ts; the
 * fediverse's replies, routes/app/resources.ts) share: dates in the page's
 * language, and the pages that say what went wrong.
 */
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import type { MessageKey } from "../../lib/i18n.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv } from "../env.ts";
import { MessageView } from "../views/app/message.tsx";
import type { PageStatus, WebKit } from "./kit.ts";

/** The moderation pages' shared helpers, over the interface's kit. */
export function createModerationKit(web: WebKit) {
  /** Dates in the page's language, times in the instance's zone. */
  const formatter = (lang: string, settings: Settings) =>
    new Intl.DateTimeFormat(lang, {
      dateStyle: "full",
      timeStyle: "short",
      timeZone: settings.instance_timezone,
    });

  /** A page that says what went wrong, with a way back. */
  const problem = (
    c: Context<AppEnv>,
    current: ActiveSession,
    status: PageStatus,
    heading: MessageKey,
    /** A key of the catalogue, or the domain's own sentence. */
    text: { key: MessageKey } | { said: string },
    back: string,
  ) =>
    web.render(c, { current, status }, (common) =>
      MessageView({
        ...common,
        title: common.t(heading),
        text: "key" in text ? common.t(text.key) : text.said,
        back: { href: back, label: common.t("moderation.back") },
      }));

  /**
   * What a refusal of the domain becomes: 404 (unknown id) the not-found
   * page, another 4xx a page with its message; anything else is a fault.
   */
  const refusal = (
    c: Context<AppEnv>,
    current: ActiveSession,
    error: unknown,
    back: string,
  ) => {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    if (error.status === 404) {
      return problem(
        c,
        current,
        404,
        "moderation.notFound.title",
        { key: "moderation.notFound.text" },
        back,
      );
    }
    const status = ([400, 403, 409] as const).find((s) => s === error.status) ??
      400;
    return problem(
      c,
      current,
      status,
      "moderation.refused.title",
      { said: error.message },
      back,
    );
  };

  return { formatter, problem, refusal };
}
