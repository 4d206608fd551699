/**
 * The order of routes/mod.ts's ROUTE_MODULES where two modules could answer
 * one request, and that what each module declares reaches the app.
 */
import assert from "node:assert/strict";
import { CACHE_RULES, ROUTE_MODULES } from "../routes/mod.ts";
import { call, createTestApp, postEvent, userWithToken } from "./helpers.ts";

const names = ROUTE_MODULES.map((module) => module.name);
const before = (first: string, second: string) =>
  assert.ok(
    names.indexOf(first) !== -1 &&
      names.indexOf(first) < names.indexOf(second),
    `${first} before ${second}: ${names.join(", ")}`,
  );

Deno.test("route modules: federation first, sources before events, feeds before the site, the site last", () => {
  assert.equal(names[0], "federation");
  before("sources", "events");
  before("feeds", "site");
  assert.equal(names.at(-1), "site");
  assert.equal(new Set(names).size, names.length);
});

Deno.test("route modules: an event's .ics is the feed's calendar, its page the site's; the cache keeps what the modules declare", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx, "admin");
    const event = await postEvent(ctx, token, { title: "Ordered" });
    const ics = await call(ctx, "GET", `/event/${event.slug}.ics`);
    assert.equal(ics.status, 200);
    assert.match(ics.headers.get("content-type") ?? "", /^text\/calendar/);
    const page = await call(ctx, "GET", `/event/${event.slug}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    for (const path of ["/api/instance", "/feed/rss", "/", "/search"]) {
      assert.ok(
        CACHE_RULES.some((rule) => rule.paths.some((re) => re.test(path))),
        path,
      );
    }
  } finally {
    ctx.close();
  }
});
