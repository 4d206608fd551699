/** Events made through the API, the one way tests create them over HTTP. */
import assert from "node:assert/strict";
import { call, type TestContext } from "./app.ts";

/** The instant test apps are pinned to unless they pass `now`, in seconds. */
export const TEST_NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;

const HOUR = 3600;
const DAY = 24 * HOUR;

/**
 * Creates an event with POST /api/events, asserts the 201 and returns the
 * answer (the event's full form). `fields` are sent over these defaults: title
 * "Open mic", a day after TEST_NOW, ending two hours after its start, at
 * "Circolo", "Via Roma 1". A field given as `undefined` is left out of the
 * body (`end_datetime: undefined` for an event without an end,
 * `place_address: undefined` for a place without an address). Without a token
 * the event is submitted anonymously.
 */
export async function postEvent(
  ctx: TestContext,
  token: string | undefined,
  fields: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any -- tests read arbitrary response fields
): Promise<any> {
  const start = "start_datetime" in fields
    ? fields.start_datetime
    : TEST_NOW + DAY;
  const res = await call(ctx, "POST", "/api/events", {
    token,
    json: {
      title: "Open mic",
      start_datetime: start,
      end_datetime: typeof start === "number" ? start + 2 * HOUR : undefined,
      place_name: "Circolo",
      place_address: "Via Roma 1",
      ...fields,
    },
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text);
}
