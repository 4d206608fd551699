/**
 * How a series repeats, in the page's words ("Every Tuesday", "Every 2 weeks
 * on Monday", "Monthly on the 3rd", "On the last Friday of every month",
 * "…, until 30 June 2026"), and as a schema.org Schedule. The rule is read
 * the way the feeds read it (lib/feeds/series.ts): from the wall clock of
 * the series' first start in the instance time zone.
 */
import type { Recurrence } from "../../db/schema.ts";
import { parseRecurrence } from "../events/recurrence.ts";
import { type RulePlan, rulePlan } from "../feeds/series.ts";
import type { MessageKey, Translate } from "../i18n.ts";
import { formatter, isoInZone, type Locality } from "./format.ts";

/** A series' rule, read; null when it has none or it cannot be read. */
export function seriesRule(
  recurrent: Recurrence | null | undefined,
  start: number,
  timezone: string,
): RulePlan | null {
  if (!recurrent) return null;
  try {
    return rulePlan(parseRecurrence(recurrent), start, timezone);
  } catch {
    return null;
  }
}

const DAY_INDEX: Record<string, number> = {
  SU: 0,
  MO: 1,
  TU: 2,
  WE: 3,
  TH: 4,
  FR: 5,
  SA: 6,
};

const SCHEMA_DAYS = [
  "Sunday",
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
];

/** The weekday a BYDAY value names (`TU`, `2TU`, `-1FR`): position and day. */
function byDayParts(value: string): { nth: number | null; day: number } {
  const match = /^(-?\d)?([A-Z]{2})$/.exec(value)!;
  return {
    nth: match[1] ? Number(match[1]) : null,
    day: DAY_INDEX[match[2]],
  };
}

/** A weekday's name in the locale (0 = Sunday); 2023-01-01 was a Sunday. */
function weekdayName(day: number, locality: Locality): string {
  return formatter({ locale: locality.locale, timezone: "UTC" }, {
    weekday: "long",
  }).format(
    new Date(Date.UTC(2023, 0, 1 + day)),
  );
}

const plurals = new Map<string, Intl.PluralRules>();

/** "3rd", "1er", "3", "3." — the day of the month as the page's language writes it after "on the". */
function dayOfMonth(day: number, locale: string, t: Translate): string {
  let rules = plurals.get(locale);
  if (!rules) {
    try {
      rules = new Intl.PluralRules(locale, { type: "ordinal" });
    } catch {
      rules = new Intl.PluralRules("en", { type: "ordinal" });
    }
    plurals.set(locale, rules);
  }
  const category = rules.select(day);
  const key =
    (["one", "two", "few"].includes(category)
      ? `public.event.dayOrdinal.${category}`
      : "public.event.dayOrdinal.other") as MessageKey;
  return t(key, { day });
}

/** The rule in words, without its end. */
function ruleWords(
  rule: RulePlan,
  start: number,
  locality: Locality,
  t: Translate,
): string {
  const n = rule.interval;
  const one = n === 1;
  switch (rule.freq) {
    case "DAILY":
      return one
        ? t("public.event.repeats.daily")
        : t("public.event.repeats.dailyN", { n });
    case "WEEKLY": {
      const weekday = weekdayName(byDayParts(rule.byDay![0]).day, locality);
      return one
        ? t("public.event.repeats.weekly", { weekday })
        : t("public.event.repeats.weeklyN", { n, weekday });
    }
    case "YEARLY": {
      const date = formatter(locality, { day: "numeric", month: "long" })
        .format(new Date(start * 1000));
      return one
        ? t("public.event.repeats.yearly", { date })
        : t("public.event.repeats.yearlyN", { n, date });
    }
    case "MONTHLY": {
      if (rule.byMonthDay) {
        const day = dayOfMonth(rule.byMonthDay[0], locality.locale, t);
        return one
          ? t("public.event.repeats.monthlyDay", { day })
          : t("public.event.repeats.monthlyDayN", { n, day });
      }
      const { nth, day } = byDayParts(rule.byDay![0]);
      const position = nth === -1 ? "last" : String(nth);
      const ordinal = t(
        (day === 0
          ? `public.event.ordinalSunday.${position}`
          : `public.event.ordinal.${position}`) as MessageKey,
      );
      const weekday = weekdayName(day, locality);
      return one
        ? t("public.event.repeats.monthlyWeekday", { ordinal, weekday })
        : t("public.event.repeats.monthlyWeekdayN", { n, ordinal, weekday });
    }
  }
}

/** A phrase at the start of a sentence: its first letter in capitals. */
function sentenceCase(phrase: string, locale: string): string {
  if (!phrase) return phrase;
  const first = String.fromCodePoint(phrase.codePointAt(0)!);
  return first.toLocaleUpperCase(locale) + phrase.slice(first.length);
}

/**
 * How a series repeats in words, as a sentence, with its last date when it
 * has one ("Every Tuesday, until 30 June 2026"); `start` is the series'
 * first start. The home page and the event page both show it.
 */
export function repeatsInWords(
  rule: RulePlan,
  start: number,
  locality: Locality,
  t: Translate,
): string {
  // Some wordings start with an ordinal ("il primo lunedì di ogni mese").
  const words = sentenceCase(
    ruleWords(rule, start, locality, t),
    locality.locale,
  );
  if (rule.until === undefined) return words;
  const date = formatter(locality, { dateStyle: "long" }).format(
    new Date(rule.until * 1000),
  );
  return t("public.event.repeats.until", { rule: words, date });
}

/**
 * The rule as a schema.org Schedule (https://schema.org/Schedule). A "last
 * weekday of the month" rule has no byMonthWeek (schema.org counts weeks
 * from 1 to 5 only): its byDay and monthly frequency stay.
 */
export function scheduleJsonLd(
  rule: RulePlan,
  start: number,
  end: number | null,
  timezone: string,
) {
  const unit = { DAILY: "D", WEEKLY: "W", MONTHLY: "M", YEARLY: "Y" }[
    rule.freq
  ];
  const first = isoInZone(start, timezone);
  const schedule: Record<string, unknown> = {
    "@type": "Schedule",
    repeatFrequency: `P${rule.interval}${unit}`,
    startDate: first.slice(0, 10),
    startTime: first.slice(11, 19),
    scheduleTimezone: timezone,
  };
  if (end !== null && end > start) {
    schedule.endTime = isoInZone(end, timezone).slice(11, 19);
    schedule.duration = `PT${Math.round((end - start) / 60)}M`;
  }
  if (rule.until !== undefined) {
    schedule.endDate = isoInZone(rule.until, timezone).slice(0, 10);
  }
  if (rule.byDay) {
    const { nth, day } = byDayParts(rule.byDay[0]);
    schedule.byDay = `https://schema.org/${SCHEMA_DAYS[day]}`;
    if (nth !== null && nth > 0) schedule.byMonthWeek = nth;
  }
  if (rule.byMonthDay) schedule.byMonthDay = rule.byMonthDay[0];
  if (rule.byMonth) schedule.byMonth = rule.byMonth[0];
  return schedule;
}
