/**
 * The calendar subscriptions page in a real browser, on a phone, light and
 * dark: an editor adds a feed served on loopback, sees what the first sync
 * brought, syncs again and removes it. axe-core finds no serious or critical
 * problem; screenshots go to tests/artifacts/.
 */
import assert from "node:assert/strict";
import {
  ADMIN,
  inspectPage,
  phoneContext,
  signInThroughForm,
  withServerAndBrowser,
} from "./browser.ts";

Deno.test({
  name:
    "an admin subscribes to a calendar from the browser, sees its first sync, syncs again and removes it; axe finds no serious problem, light or dark",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const feed = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response(
          [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//Quando tests//EN",
            "BEGIN:VEVENT",
            "UID:choir@feed",
            `DTSTART:${
              new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)
                .replaceAll("-", "")
            }T180000Z`,
            "SUMMARY:Choir rehearsal",
            "LOCATION:Parish hall, Via Roma 3",
            "RRULE:FREQ=WEEKLY;COUNT=4",
            "END:VEVENT",
            "END:VCALENDAR",
          ].join("\r\n"),
          { headers: { "content-type": "text/calendar" } },
        ),
    );
    try {
      await withServerAndBrowser({
        ALLOW_PRIVATE_ADDRESSES: "true",
      }, async (quando, browser) => {
        for (const dark of [false, true]) {
          const context = await phoneContext(browser, dark);
          const page = await context.newPage();
          await signInThroughForm(page, quando.base, ADMIN, "/admin/sources");
          const suffix = dark ? "-dark" : "";
          if (!dark) {
            assert.ok(await page.getByText("No calendar yet.").isVisible());
            await inspectPage(page, "/admin/sources (empty)");
            await page.getByLabel("Calendar address").fill(
              `http://127.0.0.1:${feed.addr.port}/choir.ics`,
            );
            await page.getByLabel("Name").fill("Parish choir");
            await page.getByLabel("Tags for its events").fill("music, choir");
            await Promise.all([
              page.waitForURL(/done=synced/),
              page.getByRole("button", { name: "Add and sync now" }).click(),
            ]);
            assert.match(
              await page.getByRole("status").textContent() ?? "",
              /Synced: 1 new/,
            );
          }
          assert.ok(
            await page.getByRole("heading", { name: "Parish choir" })
              .isVisible(),
          );
          await inspectPage(
            page,
            `/admin/sources${suffix}`,
            `admin-sources-phone${suffix}.png`,
          );
          await context.close();
        }
        const context = await phoneContext(browser);
        const page = await context.newPage();
        await signInThroughForm(page, quando.base, ADMIN, "/admin/sources");
        await Promise.all([
          page.waitForURL(/done=synced/),
          page.getByRole("button", { name: "Sync now", exact: true }).click(),
        ]);
        assert.match(
          await page.getByRole("status").textContent() ?? "",
          /1 unchanged/,
        );
        // The series is public, its dates listed.
        const events = await (await fetch(`${quando.base}/api/events`))
          .json() as { title: string }[];
        assert.equal(
          events.filter((e) => e.title === "Choir rehearsal").length,
          4,
        );
        await page.getByRole("link", { name: "Remove" }).click();
        await inspectPage(
          page,
          "remove a calendar",
          "admin-sources-remove-phone.png",
        );
        await Promise.all([
          page.waitForURL(/done=removed/),
          page.getByRole("button", { name: "Remove the calendar" }).click(),
        ]);
        assert.ok(await page.getByText("No calendar yet.").isVisible());
        await context.close();
      });
    } finally {
      await feed.shutdown();
    }
  },
});

Deno.test({
  name:
    "a failing calendar says when it is tried again; paused, it offers Resume, which puts it back; axe finds no serious problem",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const feed = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("gone", { status: 404 }),
    );
    try {
      await withServerAndBrowser({
        ALLOW_PRIVATE_ADDRESSES: "true",
      }, async (quando, browser) => {
        const context = await phoneContext(browser);
        const page = await context.newPage();
        await signInThroughForm(page, quando.base, ADMIN, "/admin/sources");
        await page.getByLabel("Calendar address").fill(
          `http://127.0.0.1:${feed.addr.port}/gone.ics`,
        );
        await page.getByLabel("Name").fill("Old partner calendar");
        await Promise.all([
          page.waitForURL(/done=failed/),
          page.getByRole("button", { name: "Add and sync now" }).click(),
        ]);
        assert.ok(
          await page.getByText(/Failed syncs in a row: 1\. Next automatic try/)
            .isVisible(),
        );
        // Paused (as after 8 failures, here through the API).
        const login = await fetch(`${quando.base}/api/login/token`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(ADMIN),
        });
        const token = (await login.json()).access_token;
        const [source] = await (await fetch(`${quando.base}/api/sources`, {
          headers: { authorization: `Bearer ${token}` },
        })).json();
        const paused = await fetch(`${quando.base}/api/sources/${source.id}`, {
          method: "PUT",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ paused: true }),
        });
        assert.equal((await paused.json()).paused, true);
        await page.goto(`${quando.base}/admin/sources`);
        assert.ok(
          await page.getByText(/Paused: only synced by hand/).isVisible(),
        );
        await inspectPage(
          page,
          "/admin/sources (paused)",
          "admin-sources-paused-phone.png",
        );
        await Promise.all([
          page.waitForURL(/done=resumed/),
          page.getByRole("button", { name: "Resume" }).click(),
        ]);
        assert.match(
          await page.getByRole("status").textContent() ?? "",
          /Calendar resumed/,
        );
        assert.equal(
          await page.getByRole("button", { name: "Resume" }).count(),
          0,
        );
        await context.close();
      });
    } finally {
      await feed.shutdown();
    }
  },
});
