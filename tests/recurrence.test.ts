import assert from "node:assert/strict";
import { ApiError } from "../lib/errors.ts";
import {
  occurrenceStarts,
  parseRecurrence,
  type RecurrenceRule,
} from "../lib/events/recurrence.ts";

const TZ = "Europe/Rome";
const DAY = 86_400;

/** Unix seconds of an explicit UTC ISO string. */
function unix(iso: string): number {
  const ms = Date.parse(iso);
  assert.ok(Number.isFinite(ms), `bad date ${iso}`);
  return ms / 1000;
}

/** ISO strings (UTC, no milliseconds) for readable assertions. */
function iso(slots: number[]): string[] {
  return slots.map((s) => new Date(s * 1000).toISOString().replace(".000", ""));
}

/** Local Rome weekday and HH:MM of a slot. */
function romeLocal(slot: number): { weekday: string; time: string } {
  const fmt = new Intl.DateTimeFormat("en-GB", {
    timeZone: TZ,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  const parts = Object.fromEntries(
    fmt.formatToParts(new Date(slot * 1000)).map((p) => [p.type, p.value]),
  );
  return { weekday: parts.weekday, time: `${parts.hour}:${parts.minute}` };
}

function series(
  start: string,
  rule: RecurrenceRule,
  minCount: number,
  opts: { from?: string; until?: string; maxCount?: number } = {},
): number[] {
  const startUnix = unix(start);
  const from = opts.from ? unix(opts.from) : startUnix;
  return occurrenceStarts({
    start: startUnix,
    rule,
    timeZone: TZ,
    from,
    until: opts.until ? unix(opts.until) : from,
    minCount,
    maxCount: opts.maxCount,
  });
}

const weekly: RecurrenceRule = { frequency: "1w", type: "ordinal" };

Deno.test("recurrence: weekly series from the past resumes after `from`", () => {
  // Mon 27 Mar 2023 08:00 Rome (CEST, UTC+2).
  const slots = series("2023-03-27T06:00:00Z", weekly, 10, {
    from: "2026-06-01T12:00:00Z",
  });
  assert.equal(slots.length, 10);
  assert.equal(iso(slots)[0], "2026-06-08T06:00:00Z");
  for (const s of slots) {
    assert.deepEqual(romeLocal(s), { weekday: "Mon", time: "08:00" });
  }
  for (let i = 1; i < slots.length; i++) {
    assert.equal(slots[i] - slots[i - 1], 7 * DAY);
  }
});

Deno.test("recurrence: weekly and biweekly start with the series start", () => {
  // Sun 27 Mar 2033 08:00 Rome is already summer time (DST starts at 01:00Z).
  assert.deepEqual(iso(series("2033-03-27T06:00:00Z", weekly, 2)), [
    "2033-03-27T06:00:00Z",
    "2033-04-03T06:00:00Z",
  ]);
  assert.deepEqual(
    iso(
      series("2033-03-27T06:00:00Z", { frequency: "2w", type: "ordinal" }, 2),
    ),
    ["2033-03-27T06:00:00Z", "2033-04-10T06:00:00Z"],
  );
});

Deno.test("recurrence: from before the start still begins at the start", () => {
  const slots = series("2033-03-27T06:00:00Z", weekly, 2, {
    from: "2033-01-01T00:00:00Z",
  });
  assert.deepEqual(iso(slots), [
    "2033-03-27T06:00:00Z",
    "2033-04-03T06:00:00Z",
  ]);
});

Deno.test("recurrence: monthly ordinal keeps the day of month", () => {
  assert.deepEqual(
    iso(
      series("2033-03-27T06:00:00Z", { frequency: "1m", type: "ordinal" }, 2),
    ),
    ["2033-03-27T06:00:00Z", "2033-04-27T06:00:00Z"],
  );
});

Deno.test("recurrence: monthly on the last weekday", () => {
  assert.deepEqual(
    iso(series("2033-03-27T06:00:00Z", { frequency: "1m", type: "-1" }, 3)),
    [
      "2033-03-27T06:00:00Z",
      "2033-04-24T06:00:00Z",
      "2033-05-29T06:00:00Z",
    ],
  );
});

Deno.test("recurrence: monthly on the second weekday, across DST start", () => {
  // Tue 8 Feb 2033 08:00 CET = 07:00Z; from April it is 06:00Z.
  assert.deepEqual(
    iso(series("2033-02-08T07:00:00Z", { frequency: "1m", type: "2" }, 5)),
    [
      "2033-02-08T07:00:00Z",
      "2033-03-08T07:00:00Z",
      "2033-04-12T06:00:00Z",
      "2033-05-10T06:00:00Z",
      "2033-06-14T06:00:00Z",
    ],
  );
});

Deno.test("recurrence: wall-clock time is kept across the end of DST", () => {
  const slots = series("2033-10-24T06:00:00Z", weekly, 3);
  assert.deepEqual(iso(slots), [
    "2033-10-24T06:00:00Z",
    "2033-10-31T07:00:00Z",
    "2033-11-07T07:00:00Z",
  ]);
  for (const s of slots) {
    assert.deepEqual(romeLocal(s), { weekday: "Mon", time: "08:00" });
  }
});

Deno.test("recurrence: wall-clock time is kept across the start of DST", () => {
  // Sun 20 Mar 2033 08:00 CET; DST starts Sun 27 Mar 2033.
  const slots = series("2033-03-20T07:00:00Z", weekly, 3);
  assert.deepEqual(iso(slots), [
    "2033-03-20T07:00:00Z",
    "2033-03-27T06:00:00Z",
    "2033-04-03T06:00:00Z",
  ]);
  for (const s of slots) {
    assert.deepEqual(romeLocal(s), { weekday: "Sun", time: "08:00" });
  }
});

Deno.test("recurrence: a time in the spring-forward gap moves forward", () => {
  // Sat 26 Mar 2033 02:30 CET daily; on 27 Mar 02:30 does not exist.
  const slots = series("2033-03-26T01:30:00Z", {
    frequency: "1d",
    type: "ordinal",
  }, 3);
  assert.deepEqual(iso(slots), [
    "2033-03-26T01:30:00Z",
    "2033-03-27T01:30:00Z", // 03:30 CEST
    "2033-03-28T00:30:00Z", // 02:30 CEST
  ]);
});

Deno.test("recurrence: an ambiguous fall-back time picks the earlier instant", () => {
  // Sat 29 Oct 2033 02:30 CEST daily; on 30 Oct 02:30 happens twice.
  const slots = series("2033-10-29T00:30:00Z", {
    frequency: "1d",
    type: "ordinal",
  }, 3);
  assert.deepEqual(iso(slots), [
    "2033-10-29T00:30:00Z",
    "2033-10-30T00:30:00Z", // 02:30 CEST, not 02:30 CET
    "2033-10-31T01:30:00Z",
  ]);
});

Deno.test("recurrence: until wins when it gives more slots, else minCount", () => {
  // The window opens just before the series start, so the start counts.
  const from = "2033-01-03T06:00:00Z";
  const until = new Date((unix(from) + 90 * DAY) * 1000).toISOString();
  const weeks = series("2033-01-03T07:00:00Z", weekly, 8, { from, until });
  // Mondays 3 Jan .. 28 Mar 2033: 13 weeks fit in 90 days, more than 8.
  assert.equal(weeks.length, 13);
  assert.ok(weeks.every((s) => s >= unix(from) && s < unix(until)));

  const years = series(
    "2033-01-03T07:00:00Z",
    {
      frequency: "1y",
      type: "ordinal",
    },
    8,
    { from, until },
  );
  assert.equal(years.length, 8);
  assert.deepEqual(iso(years).slice(0, 3), [
    "2033-01-03T07:00:00Z",
    "2034-01-03T07:00:00Z",
    "2035-01-03T07:00:00Z",
  ]);
});

Deno.test("recurrence: every N days", () => {
  assert.deepEqual(
    iso(
      series("2033-03-25T07:00:00Z", { frequency: "3d", type: "ordinal" }, 4),
    ),
    [
      "2033-03-25T07:00:00Z",
      "2033-03-28T06:00:00Z",
      "2033-03-31T06:00:00Z",
      "2033-04-03T06:00:00Z",
    ],
  );
});

Deno.test("recurrence: monthly on the 31st skips shorter months", () => {
  assert.deepEqual(
    iso(
      series("2033-01-31T07:00:00Z", { frequency: "1m", type: "ordinal" }, 4),
    ),
    [
      "2033-01-31T07:00:00Z",
      "2033-03-31T06:00:00Z",
      "2033-05-31T06:00:00Z",
      "2033-07-31T06:00:00Z",
    ],
  );
});

Deno.test("recurrence: maxCount caps the result", () => {
  const capped = series("2033-01-03T07:00:00Z", weekly, 50, { maxCount: 5 });
  assert.equal(capped.length, 5);
  const defaultCap = series("2033-01-03T07:00:00Z", {
    frequency: "1d",
    type: "ordinal",
  }, 10_000);
  assert.equal(defaultCap.length, 500);
  const untilCapped = series("2033-01-03T07:00:00Z", weekly, 1, {
    until: "2040-01-01T00:00:00Z",
    maxCount: 7,
  });
  assert.equal(untilCapped.length, 7);
});

Deno.test("parseRecurrence: accepted inputs are normalized", () => {
  assert.deepEqual(parseRecurrence({ frequency: "1w", type: "ordinal" }), {
    frequency: "1w",
    type: "ordinal",
  });
  assert.deepEqual(parseRecurrence({ frequency: "2w", type: "relative" }), {
    frequency: "2w",
    type: "ordinal",
  });
  assert.deepEqual(parseRecurrence({ frequency: "1w" }), {
    frequency: "1w",
    type: "ordinal",
  });
  assert.deepEqual(parseRecurrence({ frequency: "1m" }), {
    frequency: "1m",
    type: "ordinal",
  });
  assert.deepEqual(parseRecurrence({ frequency: "1m", type: 2 }), {
    frequency: "1m",
    type: "2",
  });
  assert.deepEqual(parseRecurrence({ frequency: "3m", type: -1 }), {
    frequency: "3m",
    type: "-1",
  });
  assert.deepEqual(parseRecurrence({ frequency: "1m", type: "4" }), {
    frequency: "1m",
    type: "4",
  });
  assert.deepEqual(
    parseRecurrence({ frequency: "99d", type: "ordinal", extra: true }),
    { frequency: "99d", type: "ordinal" },
  );
  assert.deepEqual(parseRecurrence({ frequency: "1y", type: "relative" }), {
    frequency: "1y",
    type: "ordinal",
  });
});

Deno.test("parseRecurrence: unsupported inputs are 400 naming the field", () => {
  const cases: [unknown, string][] = [
    [{ frequency: "1x" }, "recurrent.frequency"],
    [{ frequency: "0w" }, "recurrent.frequency"],
    [{ frequency: "100d" }, "recurrent.frequency"],
    [{ frequency: "1m", type: "5" }, "recurrent.type"],
    [{ frequency: "1m", type: "relative" }, "recurrent.type"],
    [{ frequency: "1w", type: 2 }, "recurrent.type"],
    [{ frequency: 7 }, "recurrent.frequency"],
    [{}, "recurrent.frequency"],
    ["1w", "recurrent"],
    [null, "recurrent"],
    [[], "recurrent"],
  ];
  for (const [input, field] of cases) {
    assert.throws(
      () => parseRecurrence(input),
      (err: unknown) => {
        assert.ok(err instanceof ApiError, `${JSON.stringify(input)}`);
        assert.equal(err.status, 400);
        assert.equal(err.code, "invalid_request");
        const fields = (err.details ?? []).map((d) =>
          (d as { field: string }).field
        );
        assert.deepEqual(fields, [field], JSON.stringify(input));
        return true;
      },
    );
  }
  assert.throws(
    () => parseRecurrence({ frequency: "bad" }, "event.recurrent"),
    (err: unknown) =>
      err instanceof ApiError &&
      JSON.stringify(err.details).includes('"event.recurrent.frequency"'),
  );
});

Deno.test("recurrence: until ends a series (inclusive), whatever minCount asks; parseRecurrence keeps it and refuses a bad one", () => {
  const rule = parseRecurrence({
    frequency: "1w",
    until: unix("2026-06-24T16:00:00Z"),
  });
  assert.deepEqual(rule, {
    frequency: "1w",
    type: "ordinal",
    until: unix("2026-06-24T16:00:00Z"),
  });
  // Wednesdays at 18:00 in Rome (16:00 UTC): the 24th is the last.
  assert.deepEqual(
    iso(
      series("2026-06-03T16:00:00Z", rule, 8, {
        until: "2026-12-01T00:00:00Z",
      }),
    ),
    [
      "2026-06-03T16:00:00Z",
      "2026-06-10T16:00:00Z",
      "2026-06-17T16:00:00Z",
      "2026-06-24T16:00:00Z",
    ],
  );
  // A second earlier and the 24th is out.
  assert.equal(
    series("2026-06-03T16:00:00Z", { ...rule, until: rule.until! - 1 }, 8)
      .length,
    3,
  );
  for (const until of ["2026-06-24", -1, 1.5, 7_258_118_400]) {
    assert.throws(
      () => parseRecurrence({ frequency: "1w", until }),
      (err: unknown) =>
        err instanceof ApiError &&
        JSON.stringify(err.details).includes('"recurrent.until"'),
      String(until),
    );
  }
  assert.deepEqual(
    parseRecurrence({ frequency: "1m", type: -1, until: null }),
    {
      frequency: "1m",
      type: "-1",
    },
  );
});
