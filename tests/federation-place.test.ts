/**
 * `/federation/p/{id}`: the id of every local event's `location` resolves to
 * a Place with its postal address and coordinates (written by hand: Fedify's
 * Place has no `address`), for ActivityPub clients; browsers go to the
 * place's page.
 */
import assert from "node:assert/strict";
import { call, createTestApp, expectError, userWithToken } from "./helpers.ts";

const AP = { accept: "application/activity+json" };

Deno.test("/federation/p/{id} serves the Place an event names as its location, with its address; browsers go to its page", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx, "user");
    const start = Math.floor(ctx.clock.now().getTime() / 1000) + 86_400;
    const created = await call(ctx, "POST", "/api/events", {
      token,
      json: {
        title: "Open mic",
        start_datetime: start,
        place_name: "Circolo",
        place_address: "Via Roma 1, Bologna",
        place_latitude: 44.4949,
        place_longitude: 11.3426,
      },
    });
    assert.equal(created.status, 201);
    const event = await created.json();

    const object = await call(ctx, "GET", `/federation/m/${event.id}`, {
      headers: AP,
    });
    assert.equal(object.status, 200);
    // One place: one object, not a list (docs/FEDERATION.md).
    const { location } = await object.json();
    assert.ok(!Array.isArray(location));
    const placeUrl = new URL(location.id);
    assert.equal(placeUrl.pathname, `/federation/p/${event.place.id}`);

    const res = await call(ctx, "GET", placeUrl.pathname, { headers: AP });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /activity\+json/);
    const place = await res.json();
    assert.ok(Array.isArray(place["@context"]));
    assert.equal(place.id, location.id);
    assert.equal(place.type, "Place");
    assert.equal(place.name, "Circolo");
    assert.equal(place.address.type, "PostalAddress");
    assert.equal(place.address.streetAddress, "Via Roma 1, Bologna");
    assert.equal(place.latitude, 44.4949);
    assert.equal(place.longitude, 11.3426);

    const page = await call(ctx, "GET", placeUrl.pathname, {
      headers: { accept: "text/html" },
    });
    assert.equal(page.status, 302);
    assert.equal(page.headers.get("location"), `/place/${event.place.id}`);

    await expectError(
      await call(ctx, "GET", "/federation/p/999999", { headers: AP }),
      404,
    );
    await expectError(
      await call(ctx, "GET", "/federation/p/0", { headers: AP }),
      404,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("/federation/p/{id} answers 404 while federation is off", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx, "admin");
    const off = await call(ctx, "PUT", "/api/settings", {
      token,
      json: { enable_federation: false },
    });
    assert.equal(off.status, 200);
    const start = Math.floor(ctx.clock.now().getTime() / 1000) + 86_400;
    const created = await call(ctx, "POST", "/api/events", {
      token,
      json: { title: "Quiet", start_datetime: start, place_name: "Hall" },
    });
    const event = await created.json();
    await expectError(
      await call(ctx, "GET", `/federation/p/${event.place.id}`, {
        headers: AP,
      }),
      404,
    );
  } finally {
    ctx.close();
  }
});
