/**
 * The public-read cache (routes/middleware/cache.ts, lib/response-cache.ts): anonymous
 * GETs of events and feeds are answered from memory until a write, by this
 * process or another connection, or until the TTL passes; nobody ever sees an
 * answer meant for someone else.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CHANGE_CHECK_MS, openDatabase } from "../db/client.ts";
import { events } from "../db/schema.ts";
import { FixedClock } from "../lib/clock.ts";
import { CacheLookups } from "../lib/cache-lookups.ts";
import { ResponseCache } from "../lib/response-cache.ts";
import { eq, sql } from "drizzle-orm";
import {
  call,
  createTestApp,
  postEvent,
  statementsDuring,
  type TestContext,
  userWithToken,
} from "./helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;

function createEvent(
  ctx: TestContext,
  token: string,
  fields: Record<string, unknown> = {},
) {
  return postEvent(ctx, token, {
    title: "Cached concert",
    end_datetime: NOW + DAY + 3600,
    tags: ["cached"],
    ...fields,
  });
}

async function getJson(ctx: TestContext, path: string, token?: string) {
  const res = await call(ctx, "GET", path, token ? { token } : {});
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A 500-character answer, as a computation gives it to ResponseCache. */
const answer = () =>
  Promise.resolve({
    status: 200,
    headers: [] as [string, string][],
    body: "x".repeat(500),
    validators: false,
  });

/**
 * Asks for `path` twice: the cache admits an answer on its second request
 * within the lifetime, so the next one is a hit. Returns the second answer.
 */
async function warm(ctx: TestContext, path: string) {
  await getJson(ctx, path);
  return await getJson(ctx, path);
}

Deno.test("a repeated anonymous GET is answered from memory; a write ends it at once", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  const event = await createEvent(ctx, token);
  const path = `/api/events/${event.id}`;

  const first = await warm(ctx, path);
  assert.equal(first.status, 200);
  let second!: Awaited<ReturnType<typeof getJson>>;
  const statements = await statementsDuring(ctx, async () => {
    second = await getJson(ctx, path);
  });
  // Nothing is read: the change marker comes from the write counter.
  assert.equal(statements, 0);
  assert.deepEqual(second.body, first.body);
  assert.equal(second.headers.get("content-type"), "application/json");
  assert.equal(second.headers.get("access-control-allow-origin"), "*");
  assert.match(
    second.headers.get("content-security-policy") ?? "",
    /default-src 'none'/,
  );

  const put = await call(ctx, "PATCH", path, {
    token,
    json: { title: "Renamed concert" },
  });
  assert.equal(put.status, 200);
  assert.equal((await getJson(ctx, path)).body.title, "Renamed concert");
  const tagged = await getJson(ctx, "/api/events/tag/cached");
  assert.equal(tagged.body.events[0].title, "Renamed concert");

  assert.equal(
    (await call(ctx, "DELETE", path, { token })).status,
    204,
  );
  assert.equal((await getJson(ctx, path)).status, 404);
  assert.deepEqual(
    (await getJson(ctx, "/api/events/tag/cached")).body.events,
    [],
  );
  ctx.close();
});

for (const reusableResponses of [true, false]) {
  Deno.test(
    `hits send the computed answer's bytes and headers, again and again (${
      reusableResponses
        ? "Deno: a kept Response cloned"
        : "Workers: a new Response each time"
    })`,
    async () => {
      const ctx = await createTestApp({ reusableResponses });
      const { token } = await userWithToken(ctx, "admin");
      // Text beyond Latin-1: the body is not one byte per character.
      const event = await createEvent(ctx, token, {
        title: "Cached 📍 concert",
      });
      const path = `/api/events/${event.id}`;
      const answer = async () => {
        const res = await call(ctx, "GET", path);
        return {
          status: res.status,
          headers: [...res.headers],
          bytes: new Uint8Array(await res.arrayBuffer()),
        };
      };
      const computed = await answer();
      assert.equal(computed.status, 200);
      await answer();
      for (let hit = 0; hit < 3; hit++) {
        const statements = await statementsDuring(ctx, async () => {
          assert.deepEqual(await answer(), computed);
        });
        assert.equal(statements, 0);
      }
      ctx.close();
    },
  );
}

Deno.test("answers that depend on the caller are never cached or served from the cache", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  const hidden = await createEvent(ctx, token, { title: "Hidden one" });
  assert.equal(
    (await call(ctx, "PUT", `/api/events/${hidden.id}/toggle`, { token }))
      .status,
    200,
  );
  // The admin sees the hidden event; the public never does, before or after.
  assert.equal((await getJson(ctx, `/api/events/${hidden.id}`)).status, 404);
  const asAdmin = await getJson(ctx, `/api/events/${hidden.id}`, token);
  assert.equal(asAdmin.status, 200);
  assert.equal(asAdmin.body.is_visible, false);
  assert.equal((await getJson(ctx, `/api/events/${hidden.id}`)).status, 404);

  // A visible event: the owner's full form carries its private fields.
  const visible = await createEvent(ctx, token, { title: "Visible one" });
  const publicView = await getJson(ctx, `/api/events/${visible.id}`);
  const ownerView = await getJson(ctx, `/api/events/${visible.id}`, token);
  assert.equal(publicView.status, 200);
  assert.equal(ownerView.status, 200);
  assert.ok(ownerView.body.user.email, "the owner sees the e-mail");
  assert.equal(publicView.body.user.email, undefined);
  // Served again to the public after the owner's read: still the public form.
  const again = await getJson(ctx, `/api/events/${visible.id}`);
  assert.equal(again.body.user.email, undefined);

  // A bad token is a 401, not somebody's cached answer.
  const bad = await call(ctx, "GET", `/api/events/${visible.id}`, {
    token: "not-a-token",
  });
  assert.equal(bad.status, 401);
  ctx.close();
});

Deno.test("listings expire with the clock: the TTL bounds how long 'now' is stale", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  await createEvent(ctx, token, {
    start_datetime: NOW + 60,
    end_datetime: NOW + 120,
  });
  const upcoming = await warm(ctx, "/api/events/tag/cached");
  assert.equal(upcoming.body.events.length, 1);
  // Within the TTL (1 s by default) the same answer.
  assert.equal(
    await statementsDuring(ctx, async () => {
      await getJson(ctx, "/api/events/tag/cached");
    }),
    0,
  );
  // Three minutes later the event is over: recomputed, now past.
  ctx.clock.advance(180_000);
  const later = await getJson(ctx, "/api/events/tag/cached");
  assert.equal(later.body.events.length, 0);
  assert.equal(later.body.pastEvents.length, 1);
  ctx.close();
});

Deno.test("a write by another connection to the same database file ends cached answers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "quando-cache-" });
  const url = `file:${join(dir, "cache.db")}`;
  const ctx = await createTestApp({ env: { DATABASE_URL: url } });
  try {
    const { token } = await userWithToken(ctx, "admin");
    const event = await createEvent(ctx, token);
    const path = `/api/events/${event.id}`;
    assert.equal((await getJson(ctx, path)).body.title, "Cached concert");
    assert.equal((await getJson(ctx, path)).body.title, "Cached concert");

    // Another process (the CLI, a second server) writes the same file.
    const other = await openDatabase(url);
    await other.db.update(events).set({ title: "Changed elsewhere" }).where(
      eq(events.id, event.id),
    );
    other.close();
    // Seen once the marker is read again: within CHANGE_CHECK_MS (1 ms).
    await new Promise((resolve) => setTimeout(resolve, CHANGE_CHECK_MS + 1));
    assert.equal((await getJson(ctx, path)).body.title, "Changed elsewhere");
  } finally {
    ctx.close();
    await Deno.remove(dir, { recursive: true });
  }
});

for (const where of ["in memory", "in a file"]) {
  Deno.test(`writes that change nothing (the delivery queue's idle polls) keep cached answers (${where})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "quando-cache-" });
    // In memory only the write counter sees writes; a file also has data_version.
    const url = where === "in memory"
      ? ":memory:"
      : `file:${join(dir, "cache.db")}`;
    const ctx = await createTestApp({ env: { DATABASE_URL: url } });
    try {
      const { token } = await userWithToken(ctx, "admin");
      const event = await createEvent(ctx, token);
      const path = `/api/events/${event.id}`;
      const first = await warm(ctx, path);
      assert.equal(first.status, 200);

      const db = ctx.database.db;
      // The queue's idle poll: an UPDATE ... RETURNING that matches no row.
      await db.all(sql`UPDATE fedify_queue SET lockedUntil = 1
      WHERE id = (SELECT id FROM fedify_queue WHERE availableAt <= 0 LIMIT 1)
      RETURNING id`);
      await db.run(sql`UPDATE events SET title = 'never' WHERE id = -1`);
      await db.batch([
        db.run(sql`DELETE FROM events WHERE id = -1`),
        db.run(sql`UPDATE places SET name = 'never' WHERE id = -1`),
      ]);

      let again!: Awaited<ReturnType<typeof getJson>>;
      const statements = await statementsDuring(ctx, async () => {
        again = await getJson(ctx, path);
      });
      assert.equal(statements, 0, "answered from memory");
      assert.deepEqual(again.body, first.body);

      // A statement that does change a row ends the answer at once, with
      // RETURNING (libSQL then reports 0 changed rows) or without.
      await db.all(
        sql`UPDATE events SET title = 'Changed' WHERE id = ${event.id}
        RETURNING id`,
      );
      assert.equal((await getJson(ctx, path)).body.title, "Changed");
      await db.run(
        sql`UPDATE events SET title = 'Changed again' WHERE id = ${event.id}`,
      );
      assert.equal((await getJson(ctx, path)).body.title, "Changed again");
    } finally {
      ctx.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("cached feeds keep their validators: ETag and 304", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  await createEvent(ctx, token);
  const first = await call(ctx, "GET", "/feed/ics");
  assert.equal(first.status, 200);
  const body = await first.text();
  const etag = first.headers.get("etag");
  assert.ok(etag);
  const second = await call(ctx, "GET", "/feed/ics");
  assert.equal(await second.text(), body);
  assert.equal(second.headers.get("etag"), etag);
  assert.match(second.headers.get("content-type") ?? "", /text\/calendar/);

  const conditional = await call(ctx, "GET", "/feed/ics", {
    headers: { "If-None-Match": etag },
  });
  assert.equal(conditional.status, 304);
  assert.equal(conditional.headers.get("etag"), etag);
  assert.equal(await conditional.text(), "");
  const stale = await call(ctx, "GET", "/feed/ics", {
    headers: { "If-None-Match": '"something-else"' },
  });
  assert.equal(stale.status, 200);
  assert.equal(await stale.text(), body);
  ctx.close();
});

Deno.test("PUBLIC_CACHE_MS=0 turns the cache off", async () => {
  const ctx = await createTestApp({ env: { PUBLIC_CACHE_MS: "0" } });
  const { token } = await userWithToken(ctx, "admin");
  const event = await createEvent(ctx, token);
  await getJson(ctx, `/api/events/${event.id}`);
  const statements = await statementsDuring(ctx, async () => {
    await getJson(ctx, `/api/events/${event.id}`);
  });
  assert.ok(statements > 0, `${statements} statements`);
  ctx.close();
});

Deno.test("concurrent misses of one answer share a single computation", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  for (let i = 0; i < 5; i++) {
    await createEvent(ctx, token, {
      start_datetime: NOW + DAY + i * 3600,
      end_datetime: NOW + DAY + i * 3600 + 600,
    });
  }
  const alone = await statementsDuring(ctx, async () => {
    await getJson(ctx, "/api/events/tag/cached?limit=3");
  });
  await createEvent(ctx, token, { title: "One more" });
  const together = await statementsDuring(ctx, async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => getJson(ctx, "/api/events/tag/cached")),
    );
    for (const a of answers) assert.deepEqual(a.body, answers[0].body);
  });
  // One listing's statements, not 8 listings.
  assert.ok(
    together <= alone,
    `${together} statements for 8 readers; one listing takes ${alone}`,
  );
  ctx.close();
});

Deno.test("feeds are kept a minute (clients may keep them five), unless a write comes first", async () => {
  // The embedded database, whose change marker sees every write (remote
  // ones expire feeds after PUBLIC_CACHE_MS: remote-cache.test.ts).
  const ctx = await createTestApp({ env: { DATABASE_URL: ":memory:" } });
  const { token } = await userWithToken(ctx, "admin");
  await createEvent(ctx, token, { title: "Feed one" });
  await (await call(ctx, "GET", "/feed/rss")).text();
  assert.match(await (await call(ctx, "GET", "/feed/rss")).text(), /Feed one/);
  ctx.clock.advance(30_000);
  assert.equal(
    await statementsDuring(ctx, async () => {
      await (await call(ctx, "GET", "/feed/rss")).text();
    }),
    0,
  );
  ctx.clock.advance(31_000);
  assert.ok(
    await statementsDuring(ctx, async () => {
      await (await call(ctx, "GET", "/feed/rss")).text();
    }) > 0,
  );
  await createEvent(ctx, token, { title: "Feed two" });
  assert.match(await (await call(ctx, "GET", "/feed/rss")).text(), /Feed two/);
  ctx.close();
});

Deno.test("the cache cannot be filled by distinct keys: long URLs and Accept headers are not cached, and every entry counts its key", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  await createEvent(ctx, token);
  const twice = async (path: string, accept: string) => {
    const get = () => ctx.app.request(path, { headers: { accept } });
    await (await get()).text();
    await (await get()).text();
    return await statementsDuring(ctx, async () => {
      await (await get()).text();
    });
  };
  // An ordinary request is answered from memory the second time.
  assert.equal(await twice("/api/events", "application/json"), 0);
  // A 300-character Accept, or a path and query over 2 KB: never cached.
  assert.ok(
    await twice("/api/events", `application/json, ${"x".repeat(300)}`) > 0,
  );
  assert.ok(await twice(`/api/events?junk=${"y".repeat(2100)}`, "") > 0);
  ctx.close();

  // Tiny answers under many keys: the budget bounds how many are kept.
  const cache = new ResponseCache({
    ttlMs: 60_000,
    maxBytes: 64 * 1024,
    clock: new FixedClock("2026-06-01T12:00:00Z"),
  });
  for (let i = 0; i < 2_000; i++) {
    for (let twice = 0; twice < 2; twice++) {
      await cache.getOrCompute(
        `key-${i}-${"k".repeat(200)}`,
        "m",
        () =>
          Promise.resolve({
            status: 200,
            headers: [],
            body: "",
            validators: false,
          }),
      );
    }
  }
  let kept = 0;
  for (let i = 0; i < 2_000; i++) {
    if (cache.get(`key-${i}-${"k".repeat(200)}`, "m")) kept++;
  }
  assert.ok(kept > 0 && kept < 200, `kept ${kept} of 2,000 empty answers`);
});

Deno.test("an answer is kept on its second request within the lifetime: a crawl over distinct events keeps nothing", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await createEvent(ctx, token, { title: `Crawled ${i}` })).id);
  }
  const read = (id: number) =>
    statementsDuring(ctx, async () => {
      assert.equal((await getJson(ctx, `/api/events/${id}`)).status, 200);
    });
  // Asked for once: computed, not kept; the second request is computed
  // again and kept; the third is a hit.
  assert.ok(await read(ids[0]) > 0);
  assert.ok(await read(ids[0]) > 0, "a first request's answer is not kept");
  assert.equal(await read(ids[0]), 0);
  // Once the lifetime (1 s) is over, a request is a first one again.
  await read(ids[1]);
  ctx.clock.advance(1_500);
  assert.ok(await read(ids[1]) > 0);
  assert.ok(await read(ids[1]) > 0, "seen too long ago to be admitted");
  assert.equal(await read(ids[1]), 0);
  ctx.close();

  // A crawl: 2,000 distinct keys, each asked for once, keep no answer.
  const cache = new ResponseCache({
    ttlMs: 60_000,
    maxBytes: 64 * 1024,
    clock: new FixedClock("2026-06-01T12:00:00Z"),
  });
  for (let i = 0; i < 2_000; i++) {
    await cache.getOrCompute(
      `crawl-${i}`,
      "m",
      () =>
        Promise.resolve({
          status: 200,
          headers: [],
          body: "x",
          validators: false,
        }),
    );
  }
  let kept = 0;
  for (let i = 0; i < 2_000; i++) if (cache.get(`crawl-${i}`, "m")) kept++;
  assert.equal(kept, 0);
  // The keys seen once are bounded too (an eighth of the budget): the
  // oldest are forgotten, the latest admitted on their second request.
  const again = (key: string) =>
    cache.getOrCompute(
      key,
      "m",
      () =>
        Promise.resolve({
          status: 200,
          headers: [],
          body: "x",
          validators: false,
        }),
    ).then(() => cache.get(key, "m") !== null);
  assert.equal(await again("crawl-0"), false);
  assert.equal(await again("crawl-1999"), true);
});

Deno.test("a crawl wider than the cache: what is kept stays until served or expired, and while full only one miss in sixty-four (and one every 100 ms) is considered", async () => {
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const cache = new ResponseCache({ ttlMs: 1_000, maxBytes: 8_000, clock });
  // Each key asked for twice: admitted on the second request.
  const twice = async (key: string) => {
    for (let i = 0; i < 2; i++) await cache.getOrCompute(key, "m", answer);
  };
  for (let i = 0; i < 20; i++) await twice(`a-${i}`);
  const kept = (prefix: string, n: number) => {
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (cache.get(`${prefix}-${i}`, "m")) count++;
    }
    return count;
  };
  // About 1,300 bytes an answer: the cache fills with the first ones.
  const first = kept("a", 20);
  assert.ok(first > 0 && first < 8, `kept ${first}`);
  // Served once each above: now more may push them out.
  for (let i = 0; i < 20; i++) await twice(`b-${i}`);
  assert.ok(kept("b", 20) > 0, "served answers make room");
  // A fresh cache full of answers never served keeps the next ones out...
  const other = new ResponseCache({ ttlMs: 1_000, maxBytes: 8_000, clock });
  for (let i = 0; i < 20; i++) {
    for (let j = 0; j < 2; j++) {
      await other.getOrCompute(`c-${i}`, "m", answer);
    }
  }
  // The first miss since the cache filled is considered (none was for
  // 100 ms), then one in sixty-four while the clock stands still...
  let considered = 0;
  for (let i = 0; i < 640; i++) {
    if (other.considersMiss(`z-${i}`)) considered++;
  }
  assert.equal(considered, 11, "one miss in sixty-four while full");
  // ...and one at least every 100 ms, however few the misses.
  assert.equal(other.considersMiss("y-1"), false);
  clock.advance(99);
  assert.equal(other.considersMiss("y-2"), false);
  clock.advance(1);
  assert.equal(other.considersMiss("y-3"), true, "100 ms since the last");
  assert.equal(other.considersMiss("y-4"), false);
  const late = await other.getOrCompute("d", "m", answer);
  assert.ok(late);
  await other.getOrCompute("d", "m", answer);
  assert.equal(other.get("d", "m"), null, "no room: not kept");
  // ...until they expire.
  clock.advance(1_500);
  await other.getOrCompute("e", "m", answer);
  await other.getOrCompute("e", "m", answer);
  assert.ok(other.get("e", "m"), "kept once the others are out of date");
});

Deno.test("while the cache is full, an outdated answer keeps its place; one served often is considered again at once", async () => {
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const cache = new ResponseCache({ ttlMs: 1_000, maxBytes: 8_000, clock });
  for (let i = 0; i < 20; i++) {
    for (let j = 0; j < 2; j++) {
      await cache.getOrCompute(`k-${i}`, "m", answer);
    }
  }
  const kept: string[] = [];
  for (let i = 0; i < 20; i++) {
    if (cache.get(`k-${i}`, "m")) kept.push(`k-${i}`);
  }
  assert.ok(kept.length > 1, `kept ${kept.length}`);
  // The first kept answer is served often, the others once (above).
  const [often] = kept;
  for (let i = 0; i < 4; i++) assert.ok(cache.get(often, "m"));
  clock.advance(1_500);
  // Outdated now: not served, and the cache is still full of them.
  assert.equal(cache.get(often, "m"), null);
  assert.equal(cache.get(kept[1], "m"), null);
  let sampled = 0;
  for (let i = 0; i < 64; i++) {
    if (cache.considersMiss(often)) sampled++;
  }
  assert.equal(sampled, 64, "an answer served often is considered each time");
  sampled = 0;
  for (let i = 0; i < 64; i++) {
    if (cache.considersMiss(kept[1])) sampled++;
  }
  // The first of them is considered as the first miss in 100 ms.
  assert.equal(sampled, 2, "one served once is sampled as any other");
  // Asked for twice again, its answer replaces the outdated one.
  await cache.getOrCompute(often, "m", answer);
  await cache.getOrCompute(often, "m", answer);
  assert.ok(cache.get(often, "m"));
});

Deno.test("the listing, whose patterns overlap (/api/events and /api/events/*), is admitted as any answer: kept on its second request", async () => {
  const ctx = await createTestApp();
  const { token } = await userWithToken(ctx, "admin");
  await createEvent(ctx, token);
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) {
    counts.push(
      await statementsDuring(ctx, async () => {
        assert.equal((await getJson(ctx, "/api/events")).status, 200);
      }),
    );
  }
  // Run twice, the cache's middleware admitted the first answer already.
  assert.ok(counts[0] > 0 && counts[1] > 0, `statements ${counts}`);
  assert.equal(counts[2], 0);
  ctx.close();
});

Deno.test("a full cache that answers almost no lookup goes dormant, looks up one cacheable request in sixty-four, and wakes on its sample's hits or to measure again (embedded database only)", () => {
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const lookups = new CacheLookups(2, true, clock);
  const window = (hitEvery: number, full = true, part = 0) => {
    for (let i = 0; i < 1_024; i++) {
      lookups.noteLookup(part, i % hitEvery === 0, full);
    }
  };
  // Filling (not full): however few the hits, every request is looked up.
  window(1_000_000, false);
  assert.equal(lookups.dormant, false, "a cache with room is filling");
  // Full, with a hit in 16 lookups: it pays, and stays awake.
  window(16);
  assert.equal(lookups.dormant, false, "one hit in 16 keeps it awake");
  // Full, with fewer: dormant once the window of 1,024 lookups is over.
  for (let i = 0; i < 1_023; i++) lookups.noteLookup(0, i % 32 === 0, true);
  assert.equal(lookups.dormant, false, "judged over whole windows");
  lookups.noteLookup(0, false, true);
  assert.equal(lookups.dormant, true);
  // One cacheable request in 64 is looked up...
  let lookedUp = 0;
  for (let i = 0; i < 6_400; i++) {
    if (lookups.looksUp()) {
      lookedUp++;
      lookups.noteLookup(0, false, true);
    }
  }
  assert.equal(lookedUp, 100, "one request in sixty-four is looked up");
  // ...and a sample stays due until a cacheable request is looked up: the
  // requests the cache never holds (no noteLookup) do not take it.
  for (let i = 0; i < 63; i++) assert.equal(lookups.looksUp(), false);
  assert.equal(lookups.looksUp(), true);
  assert.equal(lookups.looksUp(), true, "still due: nothing was looked up");
  // The sample's hits wake it as soon as they reach one in 16 of a window.
  for (let i = 0; i < 63; i++) lookups.noteLookup(0, true, true);
  assert.equal(lookups.dormant, true);
  lookups.noteLookup(0, true, true);
  assert.equal(lookups.dormant, false, "woken by its hits");
  for (let i = 0; i < 100; i++) assert.ok(lookups.looksUp());
  // Dormant again, it looks every request up for a window after a window of
  // samples (1,024 lookups)...
  window(1_000_000);
  assert.equal(lookups.dormant, true);
  for (let i = 0; i < 1_023; i++) lookups.noteLookup(0, false, true);
  assert.equal(lookups.dormant, true);
  lookups.noteLookup(0, false, true);
  assert.equal(lookups.dormant, false, "measuring again");
  window(1_000_000);
  assert.equal(lookups.dormant, true, "still not paying");
  // ...or after 10 s, however few the samples.
  clock.advance(9_999);
  lookups.noteLookup(0, false, true);
  assert.equal(lookups.dormant, true);
  clock.advance(1);
  lookups.noteLookup(0, false, true);
  assert.equal(lookups.dormant, false, "10 s dormant at most");
  // Each part (the main cache, the filtered) is judged on its own: one that
  // pays, or still has room, keeps the cache awake.
  for (let i = 0; i < 1_024; i++) {
    lookups.noteLookup(i % 2, i % 2 === 0 && i % 8 === 0, true);
  }
  assert.equal(lookups.dormant, false, "the main part hits one in four");
  for (let i = 0; i < 1_024; i++) lookups.noteLookup(i % 2, false, i % 2 === 1);
  assert.equal(lookups.dormant, false, "the main part has room");
  // Over a remote database a miss is a round trip: never dormant.
  const remote = new CacheLookups(2, false, clock);
  for (let i = 0; i < 4_096; i++) remote.noteLookup(0, false, true);
  assert.equal(remote.dormant, false);
});

Deno.test("over HTTP: spread reads make a full cache dormant (requests answered as with the cache off), and a page asked for again, among other requests, wakes it", async () => {
  // A small budget (a few dozen answers): PUBLIC_CACHE_BYTES; the embedded
  // database (a remote one's cache is never dormant).
  const ctx = await createTestApp({
    env: { DATABASE_URL: ":memory:", PUBLIC_CACHE_BYTES: "65536" },
  });
  const { token } = await userWithToken(ctx, "admin");
  const ids: number[] = [];
  for (let i = 0; i < 121; i++) {
    ids.push((await createEvent(ctx, token, { title: `Spread ${i}` })).id);
  }
  const hot = ids.pop()!;
  const read = (id: number) =>
    statementsDuring(ctx, async () => {
      assert.equal((await getJson(ctx, `/api/events/${id}`)).status, 200);
    });
  // Filled: answers asked for twice are kept until the cache is full.
  for (const id of ids.slice(0, 40)) {
    await read(id);
    await read(id);
  }
  // Reads spread over 120 events, 10 ms apart: each asked for again 1.2 s
  // later, when its answer (1 s) would be out of date: no lookup hits.
  for (let i = 0; i < 1_100; i++) {
    ctx.clock.advance(10);
    await read(ids[i % ids.length]);
  }
  // Dormant: a page asked for again and again is mostly computed (awake, it
  // would be kept on its second request and served from the third on).
  const first: number[] = [];
  for (let i = 0; i < 32; i++) {
    ctx.clock.advance(10);
    first.push(await read(hot));
  }
  const served = first.filter((n) => n === 0).length;
  assert.ok(served <= 2, `${served} of 32 served from the cache`);
  // The page is one request in five now, among spread reads and requests the
  // cache never holds; it is noticed (by the sample, or when the cache looks
  // every request up again), kept, and then served from the cache.
  let streak = 0;
  let requests = 0;
  for (let i = 0; streak < 10 && requests < 20_000; i++) {
    ctx.clock.advance(10);
    requests++;
    if (i % 5 === 0) {
      streak = await read(hot) === 0 ? streak + 1 : 0;
    } else if (i % 5 < 3) {
      await read(ids[i % ids.length]);
    } else {
      assert.equal((await call(ctx, "GET", "/api/health")).status, 200);
    }
  }
  assert.equal(streak, 10, `awake after ${requests} requests`);
  ctx.close();
});

Deno.test("an answer served again moves up the recency order (at most every 100 ms): the least recently served goes first", async () => {
  const clock = new FixedClock("2026-06-01T12:00:00Z");
  const cache = new ResponseCache({ ttlMs: 1_000, maxBytes: 5_100, clock });
  const keep = async (key: string) => {
    for (let i = 0; i < 2; i++) await cache.getOrCompute(key, "m", answer);
  };
  // Four answers of about 1,260 bytes fit; each served once, at once (not
  // moved: each moved last when it was stored).
  const keys = ["a", "b", "c", "d"];
  for (const key of keys) await keep(key);
  for (const key of keys) assert.ok(cache.get(key, "m"), key);
  clock.advance(110);
  // Served 110 ms later, each moves to the end in turn: "a" first, so it is
  // the least recent again once "d" has moved...
  for (const key of keys) {
    clock.advance(10);
    assert.ok(cache.get(key, "m"));
  }
  // ...and, served again within 100 ms of its move, it stays there.
  clock.advance(10);
  assert.ok(cache.get("a", "m"));
  await keep("e");
  assert.ok(cache.get("e", "m"), "kept, pushing out the least recent");
  assert.equal(cache.get("a", "m"), null, "the least recently moved went");
  for (const key of ["b", "c", "d"]) assert.ok(cache.get(key, "m"), key);
});
