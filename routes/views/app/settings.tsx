/** The instance settings page (admins). */
import type { MessageKey } from "../../../lib/i18n.ts";
import { MAX_SERIES_HORIZON_DAYS } from "../../../lib/settings.ts";
import { Csrf } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** The settings the page switches on and off, in the order shown, by section. */
export const SWITCHES = {
  events: [
    "allow_registration",
    "registration_approval",
    "allow_anon_event",
    "allow_recurrent_event",
    "recurrent_event_visible",
  ],
  federation: ["enable_federation", "enable_resources"],
} as const;

/** A switch's setting. */
export type SwitchKey =
  | (typeof SWITCHES.events)[number]
  | (typeof SWITCHES.federation)[number];

/** The settings' values as typed into the form. */
export interface SettingsFields {
  instance_title: string;
  instance_description: string;
  instance_locale: string;
  instance_timezone: string;
  /** As typed (a whole number of days). */
  federation_series_horizon_days: string;
  switches: Record<SwitchKey, boolean>;
}

/** The fields a problem can be shown next to. */
export type SettingsErrors = Partial<
  Record<
    | "instance_title"
    | "instance_description"
    | "instance_locale"
    | "instance_timezone"
    | "federation_series_horizon_days",
    string
  >
>;

/** The settings page (`/admin/settings`). */
export function SettingsView(
  props: PageProps & {
    csrfToken: string;
    values: SettingsFields;
    errors: SettingsErrors;
    /** The languages to choose from: value and name. */
    locales: { value: string; name: string }[];
    timeZones: readonly string[];
    /** The fediverse account, `@name@host`, shown read-only. */
    actor: string;
    notice?: string;
  },
) {
  const { t, values, errors } = props;
  const described = (name: keyof SettingsErrors) =>
    errors[name] ? `${name}-hint ${name}-error` : `${name}-hint`;
  const label = (name: keyof SettingsErrors) => (
    <>
      <label for={name}>{t(`settings.field.${name}`)}</label>
      <p class="hint" id={`${name}-hint`}>{t(`settings.hint.${name}`)}</p>
    </>
  );
  const problem = (name: keyof SettingsErrors) =>
    errors[name] && (
      <p class="field-error" id={`${name}-error`}>{errors[name]}</p>
    );
  const toggle = (name: SwitchKey) => (
    <div class="switch">
      <input
        type="checkbox"
        id={name}
        name={name}
        value="on"
        checked={values.switches[name]}
        aria-describedby={`${name}-hint`}
      />
      <div>
        <label for={name}>{t(`settings.field.${name}` as MessageKey)}</label>
        <p class="hint" id={`${name}-hint`}>
          {t(`settings.hint.${name}` as MessageKey)}
        </p>
      </div>
    </div>
  );
  return (
    <WebPage {...props} title={t("settings.title")} path="/admin/settings">
      <h1>{t("settings.title")}</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {Object.keys(errors).length > 0 && (
        <p class="error" role="alert">{t("settings.problems")}</p>
      )}
      <form method="post" action="/admin/settings">
        <Csrf token={props.csrfToken} />
        <fieldset>
          <legend>{t("settings.section.instance")}</legend>
          {label("instance_title")}
          <input
            id="instance_title"
            name="instance_title"
            type="text"
            required
            maxlength={100}
            value={values.instance_title}
            aria-describedby={described("instance_title")}
            aria-invalid={errors.instance_title ? "true" : undefined}
          />
          {problem("instance_title")}
          {label("instance_description")}
          <textarea
            id="instance_description"
            name="instance_description"
            maxlength={2000}
            aria-describedby={described("instance_description")}
            aria-invalid={errors.instance_description ? "true" : undefined}
          >
            {values.instance_description}
          </textarea>
          {problem("instance_description")}
          {label("instance_locale")}
          <select
            id="instance_locale"
            name="instance_locale"
            aria-describedby={described("instance_locale")}
            aria-invalid={errors.instance_locale ? "true" : undefined}
          >
            {props.locales.map((locale) => (
              <option
                value={locale.value}
                lang={locale.value}
                selected={locale.value === values.instance_locale}
              >
                {locale.name}
              </option>
            ))}
          </select>
          {problem("instance_locale")}
          {label("instance_timezone")}
          <select
            id="instance_timezone"
            name="instance_timezone"
            class="wide"
            aria-describedby={described("instance_timezone")}
            aria-invalid={errors.instance_timezone ? "true" : undefined}
          >
            {props.timeZones.map((zone) => (
              <option value={zone} selected={zone === values.instance_timezone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </select>
          {problem("instance_timezone")}
        </fieldset>
        <fieldset>
          <legend>{t("settings.section.events")}</legend>
          {SWITCHES.events.map(toggle)}
        </fieldset>
        <fieldset>
          <legend>{t("settings.section.federation")}</legend>
          {SWITCHES.federation.map(toggle)}
          {label("federation_series_horizon_days")}
          <input
            id="federation_series_horizon_days"
            name="federation_series_horizon_days"
            type="number"
            inputmode="numeric"
            required
            min={0}
            max={MAX_SERIES_HORIZON_DAYS}
            step={1}
            value={values.federation_series_horizon_days}
            aria-describedby={described("federation_series_horizon_days")}
            aria-invalid={errors.federation_series_horizon_days
              ? "true"
              : undefined}
          />
          {problem("federation_series_horizon_days")}
          <p class="label">{t("settings.field.instance_actor")}</p>
          <p>
            <code>{props.actor}</code>
          </p>
          <p class="hint">{t("settings.actorFixed")}</p>
        </fieldset>
        <div class="actions">
          <button type="submit" class="approve">{t("settings.save")}</button>
        </div>
      </form>
    </WebPage>
  );
}
