/**
 * The instance settings (admins): `GET /admin/settings`, `POST
 * /admin/settings`. Every setting of lib/settings.ts but `instance_actor`,
 * validated by the same schema as `PUT /api/settings`; a problem shows the
 * form again (400) with what was typed, and nothing is saved. The actor's
 * name is shown read-only: it is the instance's identity on the fediverse.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { INTERFACE_LANGUAGES } from "../../lib/i18n.ts";
import {
  type Settings,
  settingsSchema,
  updateSettings,
} from "../../lib/settings.ts";
import { currentTimeZones } from "../../lib/timezones.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  type SettingsErrors,
  type SettingsFields,
  SettingsView,
  SWITCHES,
  type SwitchKey,
} from "../views/app/settings.tsx";
import { formText, type PageStatus, type WebKit } from "./kit.ts";

const SWITCH_KEYS: readonly SwitchKey[] = [
  ...SWITCHES.events,
  ...SWITCHES.federation,
];

/**
 * What the form may change: every setting but the actor's name and
 * `hide_boosts`, which only the API keeps for Gancio's clients (Quando's
 * listings never show remote events, boosted or not: docs/CONFIGURATION.md).
 */
const editable = settingsSchema.omit({
  instance_actor: true,
  hide_boosts: true,
});

/** The form's values of the stored settings. */
function fieldsOf(settings: Settings): SettingsFields {
  return {
    instance_title: settings.instance_title,
    instance_description: settings.instance_description,
    instance_locale: settings.instance_locale,
    instance_timezone: settings.instance_timezone,
    federation_series_horizon_days: String(
      settings.federation_series_horizon_days,
    ),
    switches: Object.fromEntries(
      SWITCH_KEYS.map((key) => [key, settings[key]]),
    ) as Record<SwitchKey, boolean>,
  };
}

/** The languages offered: the interface's, and the stored one if it is another. */
function localesFor(current: string, lang: string) {
  const values = INTERFACE_LANGUAGES.includes(current)
    ? INTERFACE_LANGUAGES
    : [...INTERFACE_LANGUAGES, current];
  return values.map((value) => {
    let name = value;
    try {
      // Each language by its own name ("English", "italiano").
      name = new Intl.DisplayNames(value, { type: "language" }).of(value) ??
        value;
    } catch { /* an odd stored tag keeps its code */ }
    return {
      value,
      name: value === lang || name === value
        ? name
        : `${name} (${
          new Intl.DisplayNames(lang, { type: "language" }).of(value)
        })`,
    };
  });
}

/**
 * Every IANA zone the runtime knows by its current name (Europe/Kyiv, not
 * Europe/Kiev: lib/timezones.ts), with UTC and the stored one (an old name
 * stored before keeps working).
 */
function timeZonesFor(current: string): string[] {
  const zones = currentTimeZones();
  return zones.includes(current) ? zones : [...zones, current];
}

/** The settings page's routes. */
export function settingsRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const settingsPage = (
    c: Context<AppEnv>,
    current: ActiveSession,
    settings: Settings,
    extra: {
      values?: SettingsFields;
      errors?: SettingsErrors;
      notice?: string;
    } = {},
    status: PageStatus = 200,
  ) => {
    const timeZones = timeZonesFor(settings.instance_timezone);
    let values = extra.values ?? fieldsOf(settings);
    // A choice no list offers (a forged post) shows the stored one again.
    if (!timeZones.includes(values.instance_timezone)) {
      values = { ...values, instance_timezone: settings.instance_timezone };
    }
    return web.render(c, { current, status }, async (common) => {
      const locales = localesFor(settings.instance_locale, common.lang);
      if (!locales.some((l) => l.value === values.instance_locale)) {
        values = { ...values, instance_locale: settings.instance_locale };
      }
      return SettingsView({
        ...common,
        csrfToken: await web.csrfToken(current),
        values,
        errors: extra.errors ?? {},
        locales,
        timeZones,
        actor: `@${settings.instance_actor}@${
          new URL(deps.config.baseUrl).host
        }`,
        notice: extra.notice,
      });
    });
  };

  app.get("/admin/settings", web.requireSession("admin"), async (c) => {
    const settings = await web.settings(c);
    const { t } = await web.language(c);
    return await settingsPage(c, c.var.session, settings, {
      notice: c.req.query("saved") ? t("settings.saved") : undefined,
    });
  });

  app.post("/admin/settings", web.requirePost("admin"), async (c) => {
    const { session: current, form } = c.var;
    const settings = await web.settings(c);
    const { t } = await web.language(c);
    // A checkbox left off is not sent at all: absent means false.
    const values: SettingsFields = {
      instance_title: formText(form, "instance_title", 2000),
      instance_description: formText(form, "instance_description", 10_000),
      instance_locale: formText(form, "instance_locale", 40),
      instance_timezone: formText(form, "instance_timezone", 100),
      federation_series_horizon_days: formText(
        form,
        "federation_series_horizon_days",
        20,
      ),
      switches: Object.fromEntries(
        SWITCH_KEYS.map((key) => [key, form[key] !== undefined]),
      ) as Record<SwitchKey, boolean>,
    };
    const checked = editable.safeParse({
      instance_title: values.instance_title,
      instance_description: values.instance_description,
      instance_locale: values.instance_locale,
      instance_timezone: values.instance_timezone,
      // A whole number as typed ("14"); anything else fails the schema.
      federation_series_horizon_days:
        /^\s*\d{1,3}\s*$/.test(values.federation_series_horizon_days)
          ? Number(values.federation_series_horizon_days)
          : NaN,
      ...values.switches,
    });
    const errors: SettingsErrors = {};
    for (const issue of checked.success ? [] : checked.error.issues) {
      const field = issue.path[0];
      if (
        field === "instance_title" || field === "instance_description" ||
        field === "instance_locale" || field === "instance_timezone" ||
        field === "federation_series_horizon_days"
      ) errors[field] = t(`settings.error.${field}`);
    }
    // Only the languages offered (the stored one is kept if it is another).
    if (
      !INTERFACE_LANGUAGES.includes(values.instance_locale) &&
      values.instance_locale !== settings.instance_locale
    ) errors.instance_locale = t("settings.error.instance_locale");
    if (!checked.success || Object.keys(errors).length > 0) {
      return await settingsPage(c, current, settings, { values, errors }, 400);
    }
    await updateSettings(db, deps.clock, checked.data);
    return c.redirect("/admin/settings?saved=1", 303);
  });

  return app;
}
