/** Upload quotas and the removal of files no event references. */
import assert from "node:assert/strict";
import { type Db, migrateDatabase, openDatabase } from "../db/client.ts";
import { apUsers, events } from "../db/schema.ts";
import { FixedClock } from "../lib/clock.ts";
import { isForeignKeyViolation } from "../lib/errors.ts";
import { deleteEventsById, upsertRemoteEvent } from "../lib/events/remote.ts";
import { sweepMedia } from "../lib/media/cleanup.ts";
import { createDbMediaStore, createS3MediaStore } from "../lib/media/store.ts";
import { checkImage, storeImage } from "../lib/media/upload.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  postEvent,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { png } from "./images.ts";

/** The pinned clock of createTestApp: 2026-06-01T12:00:00Z. */
const NOW = 1_780_315_200;
const HOUR = 3600;
const DAY = 86_400;
const PNG_HEADER = png(8, 8).byteLength;

/** A PNG of exactly `size` bytes. */
function pngOf(size: number): Uint8Array<ArrayBuffer> {
  return png(8, 8, size - PNG_HEADER);
}

/** POST /api/media; returns the response. */
async function upload(
  ctx: TestContext,
  token: string,
  file: Uint8Array<ArrayBuffer>,
): Promise<Response> {
  const form = new FormData();
  form.append("file", new File([file], "poster.png"));
  return await ctx.app.request("/api/media", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

/** Uploads and returns the file name; fails the test unless 201. */
async function uploaded(
  ctx: TestContext,
  token: string,
  size = 2000,
): Promise<string> {
  const res = await upload(ctx, token, pngOf(size));
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text).url;
}

/** POST /api/events as multipart with an image; `token` undefined is anonymous. */
async function multipartEvent(
  ctx: TestContext,
  token: string | undefined,
  image: Uint8Array<ArrayBuffer>,
  title = "Poster night",
): Promise<Response> {
  const form = new FormData();
  form.append("title", title);
  form.append("start_datetime", String(NOW + DAY));
  form.append("place_name", "Print shop");
  form.append("image", new File([image], "poster.png"));
  return await ctx.app.request("/api/events", {
    method: "POST",
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
}

interface EventFull {
  id: number;
  media: { url: string }[];
  children: { id: number; start_datetime: number }[];
}

/** Creates an event (JSON) using the given files; returns the full form. */
function eventWith(
  ctx: TestContext,
  token: string,
  files: string[],
  extra: Record<string, unknown> = {},
): Promise<EventFull> {
  return postEvent(ctx, token, {
    title: "Gallery night",
    end_datetime: undefined,
    place_name: "Gallery",
    place_address: undefined,
    media: files.map((url) => ({ url })),
    ...extra,
  });
}

async function countRowsOf(db: Db, table: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(
    `select count(*) as n from ${table}`,
  );
  return Number(row.n);
}

async function served(ctx: TestContext, name: string): Promise<number> {
  const res = await ctx.app.request(`/media/${name}`);
  await res.body?.cancel();
  return res.status;
}

async function deleteEvent(ctx: TestContext, token: string, id: number) {
  const res = await call(ctx, "DELETE", `/api/events/${id}`, { token });
  assert.equal(res.status, 204, await res.text());
}

Deno.test("upload quota: per user, 413 in the error shape beyond it, nothing stored", async () => {
  const ctx = await createTestApp({
    env: { MEDIA_QUOTA_BYTES: "5000", MEDIA_MAX_BYTES: "4096" },
  });
  try {
    const alice = await userWithToken(ctx);
    const bob = await userWithToken(ctx);
    await uploaded(ctx, alice.token, 2000);
    await uploaded(ctx, alice.token, 2000);
    const rows = await countRows(ctx, "media_files");
    const refused = await expectError(
      await upload(ctx, alice.token, pngOf(2000)),
      413,
      "payload_too_large",
    );
    assert.match(refused.message, /quota of 5000 bytes/);
    assert.equal(await countRows(ctx, "media_files"), rows);
    // Up to the quota exactly is fine; one byte more is not.
    await expectError(
      await upload(ctx, alice.token, pngOf(1001)),
      413,
      "payload_too_large",
    );
    await uploaded(ctx, alice.token, 1000);

    // A multipart event with an image: refused whole, no event, no file.
    const events = await countRows(ctx, "events");
    await expectError(
      await multipartEvent(ctx, alice.token, pngOf(1024)),
      413,
      "payload_too_large",
    );
    assert.equal(await countRows(ctx, "events"), events);
    assert.equal(await countRows(ctx, "media_files"), rows + 1);

    // Someone else's quota is their own.
    await uploaded(ctx, bob.token, 4000);
    const res = await multipartEvent(ctx, bob.token, pngOf(1000));
    assert.equal(res.status, 201, await res.text());
  } finally {
    ctx.close();
  }
});

Deno.test("upload quota: parallel uploads cannot slip past it together", async () => {
  const ctx = await createTestApp({ env: { MEDIA_QUOTA_BYTES: "5000" } });
  try {
    const { token } = await userWithToken(ctx);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => upload(ctx, token, pngOf(2000))),
    );
    const statuses = answers.map((r) => r.status).sort();
    await Promise.all(answers.map((r) => r.body?.cancel()));
    assert.deepEqual(statuses, [201, 201, 413, 413, 413, 413]);
    assert.equal(await countRows(ctx, "media_files"), 2);
  } finally {
    ctx.close();
  }
});

Deno.test("upload quota: anonymous submissions share one quota", async () => {
  const ctx = await createTestApp({ env: { MEDIA_QUOTA_BYTES: "5000" } });
  try {
    const admin = await userWithToken(ctx, "admin");
    const settings = await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { allow_anon_event: true },
    });
    assert.equal(settings.status, 200);
    const first = await multipartEvent(ctx, undefined, pngOf(3000), "First");
    assert.equal(first.status, 201, await first.text());
    await expectError(
      await multipartEvent(ctx, undefined, pngOf(3000), "Second"),
      413,
      "payload_too_large",
    );
    assert.equal(await countRows(ctx, "events"), 1);
    assert.equal(await countRows(ctx, "media_files"), 1);
    // Signed-in users are not held by the anonymous pool.
    await uploaded(ctx, admin.token, 3000);
  } finally {
    ctx.close();
  }
});

Deno.test("deleting an event removes the files no other event uses, and frees the quota", async () => {
  const ctx = await createTestApp({ env: { MEDIA_QUOTA_BYTES: "5000" } });
  try {
    const { token } = await userWithToken(ctx);
    const shared = await uploaded(ctx, token, 2000);
    const own = await uploaded(ctx, token, 2000);
    const first = await eventWith(ctx, token, [shared, own]);
    const second = await eventWith(ctx, token, [shared]);
    await expectError(
      await upload(ctx, token, pngOf(2000)),
      413,
      "payload_too_large",
    );

    await deleteEvent(ctx, token, first.id);
    assert.equal(await served(ctx, own), 404, "only the deleted event had it");
    assert.equal(await served(ctx, shared), 200, "another event still uses it");
    assert.equal(await countRows(ctx, "media_files"), 1);
    await uploaded(ctx, token, 2000);

    await deleteEvent(ctx, token, second.id);
    assert.equal(await served(ctx, shared), 404);
  } finally {
    ctx.close();
  }
});

Deno.test("series: occurrences keep the parent's files; deleting the series keeps those of past occurrences", async () => {
  // The token outlives the ten days the clock moves on.
  const ctx = await createTestApp({ env: { ACCESS_TOKEN_TTL: "2592000" } });
  try {
    const { token } = await userWithToken(ctx);
    const poster = await uploaded(ctx, token);
    const series = await eventWith(ctx, token, [poster], {
      start_datetime: NOW + DAY,
      end_datetime: NOW + DAY + HOUR,
      recurrent: { frequency: "1w" },
    });
    assert.ok(series.children.length >= 3);
    // An occurrence inherits the poster: deleting it keeps the file.
    await deleteEvent(ctx, token, series.children[2].id);
    assert.equal(await served(ctx, poster), 200);

    // Two occurrences are over when the series is deleted: they stay, with the poster.
    ctx.clock.advance(10 * DAY * 1000);
    await deleteEvent(ctx, token, series.id);
    const [past1, past2] = series.children;
    for (const past of [past1, past2]) {
      const res = await call(ctx, "GET", `/api/events/${past.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        (await res.json()).media.map((m: { url: string }) => m.url),
        [
          poster,
        ],
      );
    }
    assert.equal(await served(ctx, poster), 200);

    await deleteEvent(ctx, token, past1.id);
    assert.equal(await served(ctx, poster), 200);
    await deleteEvent(ctx, token, past2.id);
    assert.equal(await served(ctx, poster), 404);
    assert.equal(await countRows(ctx, "media_files"), 0);
  } finally {
    ctx.close();
  }
});

Deno.test("deleteEventsById (purges) removes files only the deleted events used; remote media are left alone", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const shared = await uploaded(ctx, token);
    const own = await uploaded(ctx, token);
    const first = await eventWith(ctx, token, [shared, own]);
    const second = await eventWith(ctx, token, [shared]);
    await deleteEventsById(ctx.database.db, [first.id]);
    assert.equal(await served(ctx, own), 404);
    assert.equal(await served(ctx, shared), 200);

    // A remote event's media are URLs on its server: purging it touches none of ours.
    await ctx.database.db.insert(apUsers).values({
      ap_id: "https://remote.example/u/relay",
      trusted: true,
      following: true,
      createdAt: ctx.clock.now(),
      updatedAt: ctx.clock.now(),
    });
    await upsertRemoteEvent({ db: ctx.database.db, clock: ctx.clock }, {
      ap_id: "https://remote.example/m/1",
      apUserApId: "https://remote.example/u/relay",
      title: "Remote",
      description: "",
      start_datetime: NOW - 20 * DAY,
      end_datetime: NOW - 19 * DAY,
      status: "EventScheduled",
      place: null,
      online_locations: ["https://remote.example/live"],
      tags: [],
      media: [{
        name: "",
        url: `https://remote.example/media/${shared}`,
        width: null,
        height: null,
        size: null,
        focalpoint: [0, 0],
      }],
      ap_object: {},
      ld_signature: null,
    });
    assert.equal(await ctx.federation.purgeEndedRemoteEvents(), 1);
    assert.equal(await served(ctx, shared), 200);
    await deleteEvent(ctx, token, second.id);
    assert.equal(await served(ctx, shared), 404);
  } finally {
    ctx.close();
  }
});

Deno.test("the sweep removes uploads no event references after a day, never a referenced one", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx);
    const deps = {
      db: ctx.database.db,
      clock: ctx.clock,
      media: createDbMediaStore(ctx.database.db, ctx.clock),
    };
    const neverAttached = await uploaded(ctx, token);
    const attached = await uploaded(ctx, token);
    const detached = await uploaded(ctx, token);
    await eventWith(ctx, token, [attached]);
    const edited = await eventWith(ctx, token, [detached]);
    const put = await call(ctx, "PATCH", `/api/events/${edited.id}`, {
      token,
      json: { media: [] },
    });
    assert.equal(put.status, 200, await put.text());

    ctx.clock.advance(23 * HOUR * 1000);
    assert.equal((await sweepMedia(deps)).removed, 0, "within a day: kept");
    ctx.clock.advance(2 * HOUR * 1000);
    assert.deepEqual(await sweepMedia(deps), {
      removed: 2,
      storeDeleted: 0,
      storeFailed: 0,
    });
    assert.equal(await served(ctx, neverAttached), 404);
    assert.equal(await served(ctx, detached), 404);
    assert.equal(await served(ctx, attached), 200);

    // A referenced file cannot be removed, whatever asks; nor can a write
    // reference a removed one (a race with the sweep is a 409, not a dangling image).
    await assert.rejects(deps.media.delete(attached));
    assert.equal(await served(ctx, attached), 200);
    await assert.rejects(
      ctx.database.db.insert(events).values({
        title: "Late",
        slug: "late",
        start_datetime: NOW + DAY,
        media: [{
          name: "",
          url: neverAttached,
          width: null,
          height: null,
          size: null,
          focalpoint: [0, 0],
        }],
        createdAt: ctx.clock.now(),
        updatedAt: ctx.clock.now(),
      }),
      (err: unknown) => isForeignKeyViolation(err),
    );
  } finally {
    ctx.close();
  }
});

Deno.test("S3 store: removed files leave the bucket; a failed delete is retried by the next sweep", async () => {
  const database = await openDatabase(":memory:");
  try {
    await migrateDatabase(database);
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const objects = new Set<string>();
    let failDeletes = false;
    const media = createS3MediaStore({
      endpoint: "https://s3.example.test",
      bucket: "media",
      region: "auto",
      accessKeyId: "AKIDQUANDOTEST",
      secretAccessKey: "secret-never-sent",
      fetch: (input, init) => {
        const request = new Request(input, init);
        const key = new URL(request.url).pathname.split("/").pop()!;
        if (request.method === "PUT") objects.add(key);
        if (request.method === "DELETE") {
          if (failDeletes) {
            return Promise.resolve(new Response(null, { status: 503 }));
          }
          objects.delete(key);
        }
        return Promise.resolve(new Response(null, { status: 200 }));
      },
    });
    const deps = { db: database.db, clock, media, quotaBytes: 0 };
    const stored = await storeImage(deps, checkImage(pngOf(2000), 10_000), {
      ownerId: null,
    });
    assert.ok(objects.has(stored.url));

    clock.advance(25 * HOUR * 1000);
    failDeletes = true;
    assert.deepEqual(await sweepMedia(deps), {
      removed: 1,
      storeDeleted: 0,
      storeFailed: 1,
    });
    assert.ok(objects.has(stored.url), "the delete failed");
    failDeletes = false;
    assert.deepEqual(await sweepMedia(deps), {
      removed: 0,
      storeDeleted: 1,
      storeFailed: 0,
    });
    assert.equal(objects.size, 0);
  } finally {
    database.close();
  }
});

Deno.test("migration 0008: files already used by events are registered as referenced and owned", async () => {
  // The migrations up to 0007 first, with data in them; then 0008.
  const folder = await Deno.makeTempDir();
  const source = new URL("../db/migrations/", import.meta.url);
  await Deno.mkdir(`${folder}/meta`);
  const journal = JSON.parse(
    await Deno.readTextFile(new URL("meta/_journal.json", source)),
  );
  journal.entries = journal.entries.filter((e: { tag: string }) =>
    e.tag < "0008"
  );
  await Deno.writeTextFile(
    `${folder}/meta/_journal.json`,
    JSON.stringify(journal),
  );
  for (const entry of journal.entries as { tag: string }[]) {
    await Deno.copyFile(
      new URL(`${entry.tag}.sql`, source),
      `${folder}/${entry.tag}.sql`,
    );
  }
  const database = await openDatabase(":memory:");
  try {
    const { migrate } = await import("drizzle-orm/libsql/migrator");
    await migrate(database.db, { migrationsFolder: folder });
    const db = database.db;
    await db.run(
      `insert into users (id, email, password, createdAt, updatedAt) values (7, 'a@example.org', 'x', 0, 0)`,
    );
    for (const name of ["used.png", "orphan.png", "anon.png"]) {
      await db.run(
        `insert into media_files (name, content_type, size, data, createdAt) values ('${name}', 'image/png', 3, x'010203', 0)`,
      );
    }
    // Larger than two pieces, not a multiple of one.
    await db.run(
      `insert into media_files (name, content_type, size, data, createdAt) values ('big.png', 'image/png', 600001, randomblob(600001), 0)`,
    );
    const [before] = await db.all<{ data: ArrayBuffer }>(
      "select data from media_files where name = 'big.png'",
    );
    await db.run(
      `insert into events (title, slug, start_datetime, userId, media, createdAt, updatedAt) values
        ('a', 'a', 1, 7, '[{"url":"used.png"},{"url":"https://elsewhere.example/x.png"}]', 0, 0),
        ('b', 'b', 1, null, '[{"url":"anon.png"}]', 0, 0)`,
    );
    await migrateDatabase(database);
    const refs = await db.all<{ name: string }>(
      "select name from event_media order by name",
    );
    assert.deepEqual(refs.map((r) => r.name), ["anon.png", "used.png"]);
    const owners = await db.all<{ name: string; ownerId: number | null }>(
      `select name, "ownerId" from media_files order by name`,
    );
    assert.deepEqual(owners.map((r) => [r.name, r.ownerId]), [
      ["anon.png", null],
      ["big.png", null],
      ["orphan.png", null],
      ["used.png", 7],
    ]);
    // The bytes moved into pieces and read back the same.
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    const store = createDbMediaStore(db, clock);
    const legacy = await store.get("used.png");
    assert.ok(legacy?.kind === "file");
    assert.deepEqual(
      new Uint8Array(await new Response(legacy.body).arrayBuffer()),
      new Uint8Array([1, 2, 3]),
    );
    const big = await store.get("big.png");
    assert.ok(big?.kind === "file");
    assert.deepEqual(
      new Uint8Array(await new Response(big.body).arrayBuffer()),
      new Uint8Array(before.data),
    );
    // The first sweep after the upgrade takes only the files no event uses.
    const swept = await sweepMedia({ db, clock, media: store });
    assert.equal(swept.removed, 2);
    assert.equal(await countRowsOf(db, "media_chunks"), 2);
    const left = await db.all<{ name: string }>(
      "select name from media_files order by name",
    );
    assert.deepEqual(left.map((r) => r.name), ["anon.png", "used.png"]);
  } finally {
    database.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("references follow deleted events even where foreign keys are not enforced", async () => {
  // A remote database may not enforce them; the quota must still be freed.
  const database = await openDatabase(":memory:");
  try {
    await migrateDatabase(database);
    const db = database.db;
    const clock = new FixedClock("2026-06-01T12:00:00Z");
    await db.run("pragma foreign_keys = off");
    await db.run(
      `insert into media_files (name, content_type, size, createdAt) values ('a.png', 'image/png', 3, 0)`,
    );
    await db.run(
      `insert into events (id, title, slug, start_datetime, media, createdAt, updatedAt) values (1, 'a', 'a', 1, '[{"url":"a.png"}]', 0, 0)`,
    );
    assert.equal(await countRowsOf(db, "event_media"), 1);
    await deleteEventsById(db, [1]);
    assert.equal(await countRowsOf(db, "event_media"), 0);
    assert.equal(await countRowsOf(db, "media_files"), 0);
    assert.equal(
      (await sweepMedia({ db, clock, media: createDbMediaStore(db, clock) }))
        .removed,
      0,
    );
  } finally {
    database.close();
  }
});
