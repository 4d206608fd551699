/**
 * A series' rule in words, in the page's language: "every Tuesday", "every 2
 * weeks on Monday", "monthly on the 3rd", "on the last Friday of every
 * month". The weekday and the day of the month are those of the series'
 * first start in the instance's time zone (the rule repeats them).
 */
import type { Recurrence } from "../../db/schema.ts";
import type { Translate } from "../i18n.ts";
import { dayAndMonth, dayOf, weekdayOf } from "./calendar.ts";
import type { Locality } from "./format.ts";

const ORDINAL_CATEGORIES = new Set(["one", "two", "few", "many", "other"]);

/** A day of the month as the language writes it after "on the": "3rd", "1er", "3.". */
function dayOrdinal(day: number, locale: string, t: Translate): string {
  let category = "other";
  try {
    category = new Intl.PluralRules(locale, { type: "ordinal" }).select(day);
  } catch { /* an unusable locale: "other" */ }
  if (!ORDINAL_CATEGORIES.has(category)) category = "other";
  return t(
    `public.browse.ordinal.${category as
      | "one"
      | "two"
      | "few"
      | "many"
      | "other"}`,
    { n: day },
  );
}

/** Which weekday of its month a day is ("1".."4"), or "last". */
type Nth = "1" | "2" | "3" | "4" | "last";

/**
 * The rule of a series in words, or null when the rule is not one Quando
 * writes (then the page shows only the next dates).
 */
export function ruleInWords(
  rule: Recurrence,
  seriesStart: number,
  locality: Locality & { t: Translate },
): string | null {
  const { t } = locality;
  const m = /^(\d{1,2})([dwmy])$/.exec(String(rule.frequency ?? ""));
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2];
  const weekday = weekdayOf(seriesStart, locality);
  switch (unit) {
    case "d":
      return n === 1
        ? t("public.browse.rule.daily")
        : t("public.browse.rule.days", { n });
    case "w":
      return n === 1
        ? t("public.browse.rule.weekly", { weekday })
        : t("public.browse.rule.weeks", { n, weekday });
    case "y": {
      const date = dayAndMonth(seriesStart, locality);
      return n === 1
        ? t("public.browse.rule.yearly", { date })
        : t("public.browse.rule.years", { n, date });
    }
    case "m": {
      const type = String(rule.type ?? "ordinal");
      if (type === "ordinal") {
        const day = dayOrdinal(
          dayOf(seriesStart, locality.timezone).day,
          locality.locale,
          t,
        );
        return n === 1
          ? t("public.browse.rule.monthly", { day })
          : t("public.browse.rule.months", { n, day });
      }
      const nth: Nth | null = type === "-1"
        ? "last"
        : ["1", "2", "3", "4"].includes(type)
        ? type as Nth
        : null;
      if (!nth) return null;
      // Some languages write "first" after the weekday's gender: Sunday is
      // feminine in Italian (la prima domenica).
      const isSunday = weekdayIsSunday(seriesStart, locality);
      const nthWord = isSunday
        ? t(`public.browse.nthSunday.${nth}`)
        : t(`public.browse.nth.${nth}`);
      return n === 1
        ? t("public.browse.rule.monthlyNth", { nth: nthWord, weekday })
        : t("public.browse.rule.monthsNth", { nth: nthWord, weekday, n });
    }
  }
  return null;
}

/** Whether a moment falls on a Sunday in the time zone. */
function weekdayIsSunday(unix: number, locality: Locality): boolean {
  const d = dayOf(unix, locality.timezone);
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() === 0;
}

/** A phrase at the start of a sentence: its first letter in capitals. */
export function sentenceCase(phrase: string, locale: string): string {
  if (!phrase) return phrase;
  const first = String.fromCodePoint(phrase.codePointAt(0)!);
  return first.toLocaleUpperCase(locale) + phrase.slice(first.length);
}
