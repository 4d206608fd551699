/** The admins' e-mail page: whether mail is on, and the latest messages with their state. */
import { ButtonForm } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** A message as the page lists it. */
export interface MailLine {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  status: "queued" | "retrying" | "sent" | "failed";
  attempts: number;
  lastError: string | null;
  when: string;
}

/** `/admin/mail`. */
export function MailView(
  props: PageProps & {
    transport: string | null;
    messages: MailLine[];
    csrfToken: string;
    notice?: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("mailAdmin.title")} path="/admin/mail">
      <h1>{t("mailAdmin.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      <p id="mail-state">
        {props.transport
          ? t("mailAdmin.on", { transport: props.transport })
          : t("mailAdmin.off")}
      </p>
      {props.messages.length === 0
        ? <p>{t("mailAdmin.none")}</p>
        : (
          <ul class="plain">
            {props.messages.map((m) => (
              <li class="card" id={`mail-${m.id}`}>
                <h2 class="email" id={`mail-${m.id}-subject`}>{m.subject}</h2>
                <p class="muted">
                  {t("mailAdmin.to")}: {m.recipient} · {m.when} ·{" "}
                  {t("mailAdmin.state")}:{" "}
                  <strong class={`mail-${m.status}`}>
                    {t(`mailAdmin.status.${m.status}`)}
                  </strong>{" "}
                  · {t("mailAdmin.attempts")}: {m.attempts}
                </p>
                {m.lastError && m.status !== "sent" && (
                  <p class="mail-error">
                    {t("mailAdmin.error")}: <code>{m.lastError}</code>
                  </p>
                )}
                {m.status === "failed" && (
                  <ButtonForm
                    action={`/admin/mail/${m.id}/retry`}
                    csrfToken={props.csrfToken}
                    fields={{}}
                    label={t("mailAdmin.retry")}
                    describedBy={`mail-${m.id}-subject`}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
    </WebPage>
  );
}
