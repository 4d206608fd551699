import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../lib/settings.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  userWithToken,
} from "./helpers.ts";

Deno.test("settings: 401 without token, 403 for editors, users", async () => {
  const ctx = await createTestApp();
  const editor = await userWithToken(ctx, "editor");
  const user = await userWithToken(ctx, "user");
  for (
    const [method, json] of [["GET"], ["PUT", { instance_title: "X" }]] as const
  ) {
    await expectError(await call(ctx, method, "/api/settings", { json }), 401);
    await expectError(
      await call(ctx, method, "/api/settings", { json, token: editor.token }),
      403,
    );
    await expectError(
      await call(ctx, method, "/api/settings", { json, token: user.token }),
      403,
    );
  }
  ctx.close();
});

Deno.test("settings: defaults, partial update, and values kept", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const initial =
    await (await call(ctx, "GET", "/api/settings", { token: admin.token }))
      .json();
  assert.deepEqual(initial, DEFAULT_SETTINGS);
  assert.equal("internal:jwt_secret" in initial, false);

  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Bologna Events",
      instance_timezone: "Europe/Rome",
      allow_anon_event: true,
    },
  });
  assert.equal(res.status, 200);
  const updated = await res.json();
  assert.equal(updated.instance_title, "Bologna Events");
  assert.equal(updated.instance_timezone, "Europe/Rome");
  assert.equal(updated.allow_anon_event, true);
  assert.equal(updated.recurrent_event_visible, true);

  const form = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    form: { recurrent_event_visible: "false" },
  });
  assert.equal(form.status, 200);
  const again =
    await (await call(ctx, "GET", "/api/settings", { token: admin.token }))
      .json();
  assert.equal(again.recurrent_event_visible, false);
  assert.equal(again.instance_title, "Bologna Events");
  ctx.close();
});

Deno.test("settings: unknown keys and wrong types are 400 and change nothing", async () => {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const before = await countRows(ctx, "settings");
  for (
    const json of [
      { instance_title: "Fine", no_such_key: 1 },
      { allow_registration: "yes" },
      { instance_timezone: "Mars/Olympus" },
      { instance_actor: "Not Valid!" },
      { instance_title: "" },
      ["instance_title"],
    ]
  ) {
    const res = await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json,
    });
    await expectError(res, 400, "invalid_request");
  }
  assert.equal(await countRows(ctx, "settings"), before);
  const now =
    await (await call(ctx, "GET", "/api/settings", { token: admin.token }))
      .json();
  assert.equal(now.instance_title, DEFAULT_SETTINGS.instance_title);
  ctx.close();
});
