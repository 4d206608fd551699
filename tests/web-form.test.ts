/** The event form's conversions (lib/events/form.ts), without HTTP. */
import assert from "node:assert/strict";
import {
  EMPTY_EVENT_FORM,
  eventInputFromForm,
  formFieldsOfEvent,
  htmlToPlainText,
  localTimeToUnix,
  plainTextToHtml,
} from "../lib/events/form.ts";

const unix = (iso: string) => Date.parse(iso) / 1000;

Deno.test("event form: plain text and its HTML go back and forth; other HTML reads as text", () => {
  for (
    const text of [
      "One line.",
      "Two\nlines & <angles>.\n\nA second paragraph: https://example.org/a?b=1&c=2",
      "Link in text https://example.org/x, then more.",
    ]
  ) {
    assert.equal(htmlToPlainText(plainTextToHtml(text)), text);
  }
  assert.equal(
    htmlToPlainText(
      '<h2>Menu</h2>\n<ul><li>Soup</li><li><strong>Bread</strong></li></ul><p>See <a href="https://e.org/m" rel="nofollow">the menu</a>&nbsp;&#8211; ok</p>',
    ),
    "Menu\n\nSoup\nBread\n\nSee the menu (https://e.org/m) – ok",
  );
});

Deno.test("event form: times in the zone, DST gaps moved forward, impossible dates refused; all-day midnight to midnight, shown back as days", () => {
  assert.equal(
    localTimeToUnix("2026-07-10T21:00", "Europe/Rome"),
    unix("2026-07-10T19:00:00Z"),
  );
  // 02:30 on 29 March 2026 does not exist in Rome: 03:30 CEST.
  assert.equal(
    localTimeToUnix("2026-03-29T02:30", "Europe/Rome"),
    unix("2026-03-29T01:30:00Z"),
  );
  for (
    const bad of [
      "2026-02-29T10:00",
      "2026-07-10T24:00",
      "2026-07-10",
      "1969-12-31T23:00",
      "x",
    ]
  ) {
    assert.equal(localTimeToUnix(bad, "UTC"), null, bad);
  }
  const { input, errors } = eventInputFromForm({
    ...EMPTY_EVENT_FORM,
    title: "Fair",
    start: "2026-10-24T15:00",
    end: "2026-10-25",
    all_day: "on",
    place_name: "Square",
  }, "Europe/Rome");
  assert.deepEqual(errors, []);
  // Across the end of summer time: the last day is 25 hours long.
  assert.equal(input.start_datetime, unix("2026-10-23T22:00:00Z"));
  assert.equal(input.end_datetime, unix("2026-10-25T23:00:00Z"));
  const back = formFieldsOfEvent({
    title: "Fair",
    start_datetime: input.start_datetime!,
    end_datetime: input.end_datetime!,
    description: "",
    online_locations: [],
    tags: ["a", "b"],
    place: null,
    recurrent: {
      frequency: "1m",
      type: "-1",
      until: unix("2026-12-31T22:59:59Z"),
    },
    media: [],
  }, "Europe/Rome");
  assert.equal(back.all_day, "on");
  assert.equal(back.start, "2026-10-24");
  assert.equal(back.end, "2026-10-25");
  assert.equal(back.tags, "a, b");
  assert.equal(back.recurrence, "1m-last");
  assert.equal(back.until, "2026-12-31");
});
