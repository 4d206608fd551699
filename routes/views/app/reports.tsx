/** Reports: the form that reports an event (`/events/{id}/report`, anyone) and the moderators' queue (`/admin/reports`). */
import { REPORT_REASONS, type ReportReason } from "../../../db/schema.ts";
import { MAX_REPORT_TEXT } from "../../../lib/reports.ts";
import { ButtonForm, Notice, Pager, type Paging } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** `/events/{id}/report`: a reason, optional text, and Send. */
export function ReportFormView(
  props: PageProps & {
    action: string;
    eventTitle: string;
    eventHref: string;
    reason: string;
    text: string;
    errors: { reason?: string; text?: string };
    error?: string;
  },
) {
  const { t, errors } = props;
  return (
    <WebPage {...props} title={t("report.title")}>
      <h1>{t("report.title")}</h1>
      <p>{t("report.intro", { title: props.eventTitle })}</p>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action={props.action}>
        <fieldset
          aria-describedby={errors.reason ? "reason-error" : undefined}
        >
          <legend>{t("report.reason")}</legend>
          {REPORT_REASONS.map((reason) => (
            <label class="check">
              <input
                type="radio"
                name="reason"
                value={reason}
                required
                checked={props.reason === reason}
              />
              <span>{t(`report.reason.${reason}`)}</span>
            </label>
          ))}
          {errors.reason && (
            <p class="field-error" id="reason-error">{errors.reason}</p>
          )}
        </fieldset>
        <label for="text">{t("report.text")}</label>
        <p class="hint" id="text-hint">{t("report.textHint")}</p>
        <textarea
          id="text"
          name="text"
          maxlength={MAX_REPORT_TEXT}
          aria-describedby={errors.text ? "text-hint text-error" : "text-hint"}
          aria-invalid={errors.text ? "true" : undefined}
        >
          {props.text}
        </textarea>
        {errors.text && <p class="field-error" id="text-error">{errors.text}
        </p>}
        <div class="actions">
          <button type="submit" class="approve">{t("report.submit")}</button>
        </div>
      </form>
      <p>
        <a href={props.eventHref}>{t("report.back")}</a>
      </p>
    </WebPage>
  );
}

/** A report as the queue shows it. */
export interface ReportItem {
  id: number;
  eventTitle: string;
  eventHref: string;
  eventHidden: boolean;
  reason: ReportReason;
  text: string;
  /** When it was reported, in words. */
  reported: string;
  /** How and when it was closed, in words (closed reports). */
  closed: string | null;
}

/** `/admin/reports`: open (or closed) reports, each with its event and actions. */
export function ReportsView(
  props: PageProps & {
    show: "open" | "closed";
    reports: ReportItem[];
    count: number;
    paging: Paging;
    csrfToken: string;
    notice?: string;
  },
) {
  const { t } = props;
  const tab = (show: "open" | "closed") => (
    <li>
      <a
        href={show === "open" ? "/admin/reports" : "/admin/reports?show=closed"}
        aria-current={props.show === show ? "page" : undefined}
      >
        {t(show === "open" ? "reports.open" : "reports.closed")}
      </a>
    </li>
  );
  return (
    <WebPage {...props} title={t("reports.title")} path="/admin/reports">
      <h1>{t("reports.title")}</h1>
      <Notice text={props.notice} />
      <p class="hint">{t("reports.intro")}</p>
      <nav class="tabs" aria-label={t("reports.title")}>
        <ul>
          {tab("open")}
          {tab("closed")}
        </ul>
      </nav>
      <h2 class="count">{t("reports.count", { count: props.count })}</h2>
      {props.reports.length === 0
        ? <p>{t("reports.none")}</p>
        : (
          <ul class="queue">
            {props.reports.map((report) => (
              <li class={report.eventHidden ? "card is-hidden" : "card"}>
                <h3 id={`report-${report.id}`}>
                  <a href={report.eventHref}>{report.eventTitle}</a>
                  {report.eventHidden && (
                    <span class="badge">{t("reports.hidden")}</span>
                  )}
                </h3>
                <p>
                  <strong>{t(`report.reason.${report.reason}`)}</strong>
                </p>
                {report.text && <p class="text content">{report.text}</p>}
                <p class="muted">
                  {t("reports.reported", { date: report.reported })}
                  {report.closed && (
                    <>
                      <br />
                      {report.closed}
                    </>
                  )}
                </p>
                {props.show === "open" && (
                  <div class="actions compact">
                    <ButtonForm
                      action={`/admin/reports/${report.id}`}
                      csrfToken={props.csrfToken}
                      fields={{ action: "dismiss" }}
                      label={t("reports.dismiss")}
                      describedBy={`report-${report.id}`}
                    />
                    <ButtonForm
                      action={`/admin/reports/${report.id}`}
                      csrfToken={props.csrfToken}
                      fields={{ action: "resolve" }}
                      label={t("reports.resolve")}
                      describedBy={`report-${report.id}`}
                      kind="approve"
                    />
                    {!report.eventHidden && (
                      <ButtonForm
                        action={`/admin/reports/${report.id}`}
                        csrfToken={props.csrfToken}
                        fields={{ action: "hide" }}
                        label={t("reports.hide")}
                        describedBy={`report-${report.id}`}
                      />
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      <Pager {...props} paging={props.paging} label={t("reports.pages")} />
    </WebPage>
  );
}
