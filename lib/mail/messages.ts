/**
 * The messages the instance sends, in plain text and HTML, in the
 * recipient's language (their `language`, else the instance's), with the
 * instance's name in the subject. Only text from the catalogue, escaped
 * values and links to this instance go into them.
 */
import { escapeHtml } from "../html.ts";
import {
  INTERFACE_LANGUAGES,
  type MessageKey,
  pickLanguage,
  translator,
} from "../i18n.ts";
import type { ComposedMail } from "./outbox.ts";
import type { Settings } from "../settings.ts";

/** What every message needs to know of the instance and the recipient. */
export interface MailContext {
  instance: string;
  baseUrl: string;
  /** The recipient's language, if known; else `instanceLocale`'s. */
  language: string | null | undefined;
  instanceLocale: string;
  timeZone: string;
}

/** One message's parts, before they are written out as text and HTML. */
interface Letter {
  kind: string;
  to: string;
  subject: MessageKey;
  subjectParams?: Record<string, string | number>;
  /** Paragraphs before the link. */
  before: string[];
  /** A quoted text (a moderator's message), after the paragraphs. */
  quote?: string;
  action?: { label: MessageKey; url: string };
  /** Paragraphs after the link. */
  after?: string[];
  /** The small print of a notification. */
  footer?: string;
  headers?: Record<string, string>;
}

/** The translator and date format of the recipient's language. */
function languageOf(ctx: MailContext) {
  const lang = pickLanguage(
    ctx.language ?? undefined,
    undefined,
    ctx.instanceLocale,
    INTERFACE_LANGUAGES,
  );
  const t = translator(lang);
  const date = new Intl.DateTimeFormat(lang, {
    dateStyle: "long",
    timeStyle: "short",
    timeZone: ctx.timeZone,
  });
  return { lang, t, until: (d: Date) => date.format(d) };
}

/** Writes a letter out as text and HTML. */
function write(ctx: MailContext, letter: Letter): ComposedMail {
  const { t, lang } = languageOf(ctx);
  const subject = t("mail.subject", {
    instance: ctx.instance,
    subject: t(letter.subject, letter.subjectParams),
  });
  const text = [
    t("mail.hello"),
    ...letter.before,
    ...(letter.quote ? [letter.quote.replace(/^/gm, "> ")] : []),
    ...(letter.action ? [letter.action.url] : []),
    ...(letter.after ?? []),
    ...(letter.footer ? ["-- ", letter.footer] : [`-- \n${ctx.instance}`]),
  ].join("\n\n");
  const p = (s: string) => `<p>${escapeHtml(s)}</p>`;
  const html = `<!DOCTYPE html>
<html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><title>${
    escapeHtml(subject)
  }</title></head>
<body style="font-family:sans-serif;line-height:1.5;max-width:40em">
${p(t("mail.hello"))}
${letter.before.map(p).join("\n")}
${
    letter.quote
      ? `<blockquote style="border-left:3px solid #888;margin:0;padding-left:1em">${
        letter.quote.split(/\n{2,}/).map((para) =>
          `<p>${escapeHtml(para).replace(/\n/g, "<br>")}</p>`
        ).join("")
      }</blockquote>`
      : ""
  }
${
    letter.action
      ? `<p><a href="${escapeHtml(letter.action.url)}">${
        escapeHtml(t(letter.action.label))
      }</a></p>\n<p style="font-size:small">${
        escapeHtml(letter.action.url)
      }</p>`
      : ""
  }
${(letter.after ?? []).map(p).join("\n")}
<hr>
<p style="font-size:small">${escapeHtml(letter.footer ?? ctx.instance)}</p>
</body></html>
`;
  return {
    kind: letter.kind,
    to: letter.to,
    subject,
    text,
    html,
    headers: letter.headers,
  };
}

/** An absolute link to `path` on the instance. */
function link(ctx: MailContext, path: string): string {
  return new URL(path, ctx.baseUrl).href;
}

/**
 * A link to set the password of `email`'s account: asked for on /forgot
 * (`byAdmin` false) or sent by an admin.
 */
export function passwordMail(
  ctx: MailContext,
  input: { email: string; token: string; expiresAt: Date; byAdmin: boolean },
): ComposedMail {
  const { t, until } = languageOf(ctx);
  const params = { email: input.email, instance: ctx.instance };
  return write(ctx, {
    kind: input.byAdmin ? "password-link" : "password-reset",
    to: input.email,
    subject: "mail.password.subject",
    before: [
      t(
        input.byAdmin ? "mail.adminPassword.text" : "mail.password.text",
        params,
      ),
    ],
    action: {
      label: "mail.password.action",
      url: link(ctx, `/reset/${input.token}`),
    },
    after: [
      t("mail.linkOnce", { until: until(input.expiresAt) }),
      t("mail.password.after"),
    ],
  });
}

/** The confirmation of a registration: the account opens with the link. */
export function registrationMail(
  ctx: MailContext,
  input: { email: string; token: string; expiresAt: Date },
): ComposedMail {
  const { t, until } = languageOf(ctx);
  return write(ctx, {
    kind: "registration",
    to: input.email,
    subject: "mail.register.subject",
    before: [t("mail.register.text", { instance: ctx.instance })],
    action: {
      label: "mail.register.action",
      url: link(ctx, `/confirm/${input.token}`),
    },
    after: [
      t("mail.linkOnce", { until: until(input.expiresAt) }),
      t("mail.ignore"),
    ],
  });
}

/**
 * What a registration with an address that has an account sends it
 * instead (the page answers the same either way).
 */
export function registrationTakenMail(
  ctx: MailContext,
  input: { email: string },
): ComposedMail {
  const { t } = languageOf(ctx);
  return write(ctx, {
    kind: "registration",
    to: input.email,
    subject: "mail.registerTaken.subject",
    before: [t("mail.registerTaken.text", { instance: ctx.instance })],
    action: { label: "mail.registerTaken.action", url: link(ctx, "/forgot") },
    after: [t("mail.ignore")],
  });
}

/** The confirmation of a changed address, sent to the new one. */
export function emailChangeMail(
  ctx: MailContext,
  input: { email: string; token: string; expiresAt: Date },
): ComposedMail {
  const { t, until } = languageOf(ctx);
  return write(ctx, {
    kind: "email-change",
    to: input.email,
    subject: "mail.email.subject",
    before: [
      t("mail.email.text", { email: input.email, instance: ctx.instance }),
    ],
    action: {
      label: "mail.email.action",
      url: link(ctx, `/confirm/${input.token}`),
    },
    after: [
      t("mail.linkOnce", { until: until(input.expiresAt) }),
      t("mail.email.after"),
      t("mail.ignore"),
    ],
  });
}

/** An invitation, sent to the invited address. */
export function invitationMail(
  ctx: MailContext,
  input: { email: string; url: string; role: string; expiresAt: Date },
): ComposedMail {
  const { t, until } = languageOf(ctx);
  return write(ctx, {
    kind: "invitation",
    to: input.email,
    subject: "mail.invite.subject",
    before: [
      t("mail.invite.text", { instance: ctx.instance, role: input.role }),
    ],
    action: { label: "mail.invite.action", url: input.url },
    after: [t("mail.linkOnce", { until: until(input.expiresAt) })],
  });
}

/** The notification headers: where to stop them (RFC 2369 List-Unsubscribe). */
function unsubscribe(ctx: MailContext): Record<string, string> {
  return { "List-Unsubscribe": `<${link(ctx, "/account")}>` };
}

/** A moderator's notice of submissions waiting. */
export function submissionsMail(
  ctx: MailContext,
  input: { email: string; count: number },
): ComposedMail {
  const { t } = languageOf(ctx);
  return write(ctx, {
    kind: "submissions",
    to: input.email,
    subject: "mail.submissions.subject",
    subjectParams: { count: input.count },
    before: [
      t("mail.submissions.text", {
        count: input.count,
        instance: ctx.instance,
      }),
    ],
    action: { label: "mail.submissions.action", url: link(ctx, "/admin") },
    footer: t("mail.submissions.footer", { url: link(ctx, "/account") }),
    headers: unsubscribe(ctx),
  });
}

/** What happened to an author's event. */
export type AuthorNews = "confirmed" | "rejected" | "messaged";

/** The author told that their event was confirmed, rejected or messaged. */
export function authorMail(
  ctx: MailContext,
  input: {
    email: string;
    news: AuthorNews;
    title: string;
    /** The event's page (confirmed) ; else the author's list. */
    eventPath?: string;
    message?: string;
  },
): ComposedMail {
  const { t } = languageOf(ctx);
  const params = { title: input.title, instance: ctx.instance };
  return write(ctx, {
    kind: `event-${input.news}`,
    to: input.email,
    subject: `mail.${input.news}.subject`,
    before: [t(`mail.${input.news}.text`, params)],
    quote: input.message || undefined,
    action: input.news === "confirmed" && input.eventPath
      ? { label: "mail.confirmed.action", url: link(ctx, input.eventPath) }
      : { label: "mail.yourEvents", url: link(ctx, "/my") },
    // About the author's own submission, like any answer to a request: no
    // subscription to leave, so no List-Unsubscribe.
    footer: t("mail.authorFooter"),
  });
}

/** The context of a message to someone whose language is `language` (null: the instance's). */
export function mailContextOf(
  settings: Pick<
    Settings,
    "instance_title" | "instance_locale" | "instance_timezone"
  >,
  baseUrl: string,
  language: string | null | undefined,
): MailContext {
  return {
    instance: settings.instance_title,
    baseUrl,
    language,
    instanceLocale: settings.instance_locale,
    timeZone: settings.instance_timezone,
  };
}
