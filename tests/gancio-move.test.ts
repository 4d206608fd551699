/**
 * Moving a Gancio instance over, whichever way it is read: a Gancio
 * database (built here in Gancio's table shapes) with a series whose
 * occurrences were edited on their own (one moved and retitled, one
 * retitled), an online event, an anonymous submission and settings, and a
 * Gancio-shaped HTTP API answering from the same database. Imported by
 * `--url` then `--sqlite`, the reverse, or the same twice, each Gancio event
 * is in Quando exactly once, with its change; the settings come over; and
 * Gancio's event URLs redirect to the events they became.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { sql } from "drizzle-orm";
import {
  type GancioImportOptions,
  importGancio,
  summaryLines,
} from "../lib/imports/gancio.ts";
import { importDepsOf } from "../lib/imports/sources.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { getSettings, updateSettings } from "../lib/settings.ts";
import {
  call,
  createTestApp,
  createTestUser,
  hasher,
  PERMS,
  ROOT,
  type TestContext,
} from "./helpers.ts";
import { png } from "./images.ts";
import { openGancioDatabase } from "./support/gancio-database.ts";

const AT = "2024-03-01 10:00:00.000 +00:00";
/** Europe/Rome wall-clock times of the series (Tuesdays, 18:00). */
const TUE_MAY_26 = 1779811200;
const TUE_JUN_02 = 1780416000;
const TUE_JUN_09 = 1781020800;
const WED_JUN_10_19H = 1781110800;
const TUE_JUN_16 = 1781625600;
const TUE_JUN_23 = 1782230400;
const HOURS_2 = 7200;

/** A Gancio database in a temporary file. */
async function gancioDatabase(path: string) {
  const { db, insert } = await openGancioDatabase(path, AT);

  for (
    const [key, value, secret] of [
      ["title", "Gancio Bologna", false],
      ["description", "What happens in Bologna.\n\nSend yours!", false],
      ["instance_timezone", "Europe/Rome", false],
      ["instance_locale", "it", false],
      ["allow_registration", true, false],
      ["allow_anon_event", true, false],
      ["hide_boosts", true, false],
      ["enable_federation", true, false],
      ["privateKey", "-----BEGIN PRIVATE KEY-----", true],
    ] as const
  ) {
    // Gancio keeps each value as JSON text.
    insert("settings", {
      key,
      value: JSON.stringify(value),
      is_secret: secret,
    });
  }
  insert("users", {
    id: 1,
    email: "admin@gancio.example",
    role: "admin",
    is_active: true,
    password: "$2b$10$abcdefghijklmnopqrstuu",
  });
  insert("places", {
    id: 1,
    name: "Sala Borsa",
    address: "Piazza del Nettuno 3, Bologna",
    latitude: 44.4938,
    longitude: 11.3426,
  });
  insert("places", { id: 2, name: "online", address: "online" });
  const series = {
    title: "Tuesday choir",
    description: "<p>Sing with us.</p>",
    is_visible: true,
    userId: 1,
    placeId: 1,
    media: [],
    online_locations: [],
  };
  insert("events", {
    ...series,
    id: 100,
    slug: "tuesday-choir",
    start_datetime: TUE_MAY_26,
    end_datetime: TUE_MAY_26 + HOURS_2,
    recurrent: { frequency: "1w", type: "ordinal", days: [2] },
  });
  const occurrences: [number, string, number, string][] = [
    [98, "tuesday-choir-2", TUE_MAY_26, "Tuesday choir"],
    [101, "tuesday-choir-3", TUE_JUN_02, "Tuesday choir"],
    // Edited on its own in Gancio: moved to Wednesday 19:00, retitled.
    [102, "tuesday-choir-4", WED_JUN_10_19H, "Tuesday choir, on Wednesday"],
    // Edited on its own: retitled only.
    [103, "tuesday-choir-5", TUE_JUN_16, "Tuesday choir: summer concert"],
    [104, "tuesday-choir-6", TUE_JUN_23, "Tuesday choir"],
  ];
  for (const [id, slug, start, title] of occurrences) {
    insert("events", {
      ...series,
      id,
      slug,
      title,
      start_datetime: start,
      end_datetime: start + HOURS_2,
      parentId: 100,
    });
  }
  insert("events", {
    id: 110,
    slug: "assemblea-generale",
    title: "Assembly",
    description: "<p>All of us.</p>",
    start_datetime: 1780686000,
    end_datetime: 1780686000 + HOURS_2,
    is_visible: true,
    userId: 1,
    placeId: 1,
    media: [{ url: "poster.png", name: "The poster", focalpoint: [0, 0] }],
    online_locations: [],
  });
  insert("events", {
    id: 111,
    slug: "online-talk",
    title: "Online talk",
    description: "",
    start_datetime: 1781280000,
    is_visible: true,
    userId: 1,
    placeId: 2,
    media: [],
    online_locations: ["https://meet.example/talk"],
  });
  // An anonymous submission, confirmed.
  insert("events", {
    id: 112,
    slug: "street-party",
    title: "Street party",
    description: "",
    start_datetime: 1781960400,
    is_visible: true,
    userId: null,
    placeId: 1,
    media: [],
    online_locations: [],
  });
  db.close();
}

/**
 * Gancio's public API over its database, as Gancio answers it: the listing
 * without parents, the detail without `userId` and `is_visible`, tags as
 * strings, the place as an object.
 */
function gancioApi(path: string) {
  const db = new DatabaseSync(path, { readOnly: true });
  const places = new Map(
    db.prepare("select * from places").all().map((p) => [p.id, p]),
  );
  const json = (v: unknown) => typeof v === "string" ? JSON.parse(v) : v;
  const shape = (e: Record<string, unknown>) => ({
    id: e.id,
    title: e.title,
    slug: e.slug,
    description: e.description,
    start_datetime: e.start_datetime,
    end_datetime: e.end_datetime,
    media: json(e.media) ?? [],
    recurrent: json(e.recurrent),
    online_locations: json(e.online_locations) ?? [],
    parentId: e.parentId,
    tags: [],
    place: places.get(e.placeId as number) ?? null,
  });
  const hits = { media: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/media/poster.png") {
        hits.media++;
        return new Response(png(40, 30), {
          headers: { "content-type": "image/png" },
        });
      }
      if (url.pathname === "/.well-known/nodeinfo") {
        return Response.json({
          links: [{
            rel: "http://nodeinfo.diaspora.software/ns/schema/2.0",
            href: `${url.origin}/.well-known/nodeinfo/2.0`,
          }],
        });
      }
      if (url.pathname === "/.well-known/nodeinfo/2.0") {
        return Response.json({
          version: "2.0",
          software: { name: "gancio", version: "1.19.0" },
          protocols: ["activitypub"],
          openRegistrations: true,
          usage: { users: { total: 1 }, localPosts: 9 },
          metadata: {
            nodeName: "Gancio Bologna",
            nodeDescription: "What happens in Bologna.\n\nSend yours!",
          },
        });
      }
      if (url.pathname === "/api/events") {
        const start = Number(url.searchParams.get("start"));
        const max = Number(url.searchParams.get("max")) || 100;
        return Response.json(
          db.prepare(
            `select * from events where recurrent is null and is_visible = 1
             and (start_datetime >= ? or end_datetime >= ?)
             order by start_datetime limit ?`,
          ).all(start, start, max).map(shape),
        );
      }
      const detail = /^\/api\/event\/detail\/(\d+)$/.exec(url.pathname);
      const row = detail &&
        db.prepare("select * from events where id = ?").get(
          Number(detail[1]),
        );
      return row
        ? Response.json(shape(row))
        : new Response("Not Found", { status: 404 });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    hits,
    close: async () => {
      await server.shutdown();
      db.close();
    },
  };
}

async function importDeps(ctx: TestContext) {
  return {
    ...importDepsOf(
      { db: ctx.database.db, clock: ctx.clock, federation: ctx.federation },
      await getSettings(ctx.database.db),
    ),
    hasher,
    media: createDbMediaStore(ctx.database.db, ctx.clock),
    maxBytes: ctx.config.mediaMaxBytes,
  };
}

interface Row {
  id: number;
  title: string;
  slug: string;
  start_datetime: number;
  parentId: number | null;
  recurrent: string | null;
  userId: number | null;
  placeId: number | null;
}

async function allEvents(ctx: TestContext): Promise<Row[]> {
  return await ctx.database.db.all<Row>(
    sql`SELECT id, title, slug, start_datetime, parentId, recurrent, userId, placeId FROM events ORDER BY start_datetime, id`,
  );
}

/** `uploads`: the database alone, images from its uploads folder. */
type Mode = "url" | "sqlite" | "both" | "uploads";

/** A fresh Quando importing the Gancio instance in these modes, one after the other. */
async function moveWith(modes: Mode[]) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gancio.sqlite`;
  await gancioDatabase(path);
  const api = gancioApi(path);
  const ctx = await createTestApp();
  const gancioDb = new DatabaseSync(path, { readOnly: true });
  const admin = await createTestUser(ctx, { role: "admin" });
  const summaries = [];
  const reads = { uploads: 0 };
  try {
    for (const mode of modes) {
      const options: GancioImportOptions = {
        fetchLimits: { allowPrivateAddress: true, userAgent: "Quando tests" },
      };
      if (mode === "url" || mode === "both") options.url = api.url;
      if (mode !== "url") {
        options.database = (q) =>
          gancioDb.prepare(q).all() as Record<string, unknown>[];
      }
      if (mode === "uploads") {
        options.readUpload = (name) => {
          reads.uploads++;
          return name === "poster.png"
            ? Promise.resolve(png(40, 30))
            : Promise.reject(new Error("no such file"));
        };
      }
      const summary = await importGancio(await importDeps(ctx), options);
      summaries.push(summary);
    }
    return {
      ctx,
      admin,
      summaries,
      rows: await allEvents(ctx),
      mediaHits: api.hits.media,
      uploadReads: reads.uploads,
    };
  } finally {
    gancioDb.close();
    await api.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** What a move gave, without ids: each event's title, start and kind. */
const shapeOf = (rows: Row[]) =>
  rows.map((r) =>
    `${iso(r.start_datetime)} ${r.title} ${
      r.recurrent ? "series" : r.parentId ? "occurrence" : "single"
    }`
  );

Deno.test("a Gancio database with edited occurrences, imported by --url then --sqlite, gives each Gancio event exactly once with its change", async () => {
  const { ctx, summaries, rows } = await moveWith(["url", "sqlite"]);
  try {
    const [first, second] = summaries;
    assert.equal(first.events.skipped, 0, first.problems.join("\n"));
    assert.equal(second.events.created, 0, second.problems.join("\n"));
    assert.match(
      summaryLines(second).join("\n"),
      /matched to the events imported earlier from http:\/\/127\.0\.0\.1/,
    );
    const choir = rows.filter((r) => r.title.startsWith("Tuesday choir"));
    const at = (start: number) =>
      choir.filter((r) => r.start_datetime === start);
    const series = choir.find((r) => r.recurrent !== null)!;
    // The moved one: once, moved and retitled, in the series; nothing left
    // at the Tuesday it was moved from.
    assert.deepEqual(
      at(WED_JUN_10_19H).map((r) => [r.title, r.parentId]),
      [["Tuesday choir, on Wednesday", series.id]],
    );
    assert.deepEqual(at(TUE_JUN_09), []);
    // The retitled one: once, with its title.
    assert.deepEqual(
      at(TUE_JUN_16).map((r) => [r.title, r.parentId]),
      [["Tuesday choir: summer concert", series.id]],
    );
    // The others: once each (May 26, before the move, on its own).
    for (const start of [TUE_JUN_02, TUE_JUN_23]) {
      assert.deepEqual(
        at(start).filter((r) => r.recurrent === null).map((r) => r.parentId),
        [series.id],
        iso(start),
      );
    }
    assert.deepEqual(
      at(TUE_MAY_26).map((r) => r.recurrent === null ? r.parentId : "series"),
      ["series", null],
    );
    for (const title of ["Assembly", "Online talk", "Street party"]) {
      assert.equal(rows.filter((r) => r.title === title).length, 1, title);
    }
    // The online event has no place; the anonymous one no owner.
    assert.equal(rows.find((r) => r.title === "Online talk")!.placeId, null);
    assert.equal(rows.find((r) => r.title === "Street party")!.userId, null);
  } finally {
    ctx.close();
  }
});

Deno.test("Gancio import: --sqlite then --url, both at once, or the same twice give the same events as --url then --sqlite", async () => {
  const reference = await moveWith(["url", "sqlite"]);
  reference.ctx.close();
  for (
    const modes of [
      ["sqlite", "url"],
      ["both", "url"],
      ["url", "both"],
      ["url", "url"],
      ["sqlite", "sqlite"],
      ["sqlite", "both"],
    ] as Mode[][]
  ) {
    const { ctx, summaries, rows } = await moveWith(modes);
    try {
      assert.equal(
        summaries[1].events.created,
        0,
        `${modes}: ${summaries[1].problems.join("\n")}`,
      );
      assert.deepEqual(
        shapeOf(rows.filter((r) =>
          !r.title.startsWith("Tuesday choir") ||
          r.start_datetime <= TUE_JUN_23
        )),
        shapeOf(
          reference.rows.filter((r) =>
            !r.title.startsWith("Tuesday choir") ||
            r.start_datetime <= TUE_JUN_23
          ),
        ),
        modes.join(" then "),
      );
    } finally {
      ctx.close();
    }
  }
});

Deno.test("Gancio import: the database's settings come over (title, description, time zone, registration, anonymous submissions), never over one set here", async () => {
  const { ctx, summaries } = await moveWith(["sqlite"]);
  try {
    const settings = await getSettings(ctx.database.db);
    assert.equal(settings.instance_title, "Gancio Bologna");
    assert.equal(
      settings.instance_description,
      "What happens in Bologna.\n\nSend yours!",
    );
    assert.equal(settings.instance_timezone, "Europe/Rome");
    assert.equal(settings.instance_locale, "it");
    assert.equal(settings.allow_registration, true);
    assert.equal(settings.allow_anon_event, true);
    assert.equal(settings.hide_boosts, true);
    assert.match(
      summaryLines(summaries[0]).join("\n"),
      /settings: taken from Gancio: instance_title/,
    );
    // Series keep Gancio's wall-clock time: 18:00 in Rome.
    const page = await call(ctx, "GET", "/api/instance");
    assert.equal((await page.json()).timezone, "Europe/Rome");

    // A setting changed in Quando stays as it is at the next import.
    await updateSettings(ctx.database.db, ctx.clock, {
      instance_title: "Quando Bologna",
    });
    const dir = await Deno.makeTempDir();
    try {
      await gancioDatabase(`${dir}/g.sqlite`);
      const again = new DatabaseSync(`${dir}/g.sqlite`, { readOnly: true });
      const summary = await importGancio(await importDeps(ctx), {
        fetchLimits: { allowPrivateAddress: true, userAgent: "Quando tests" },
        database: (q) => again.prepare(q).all() as Record<string, unknown>[],
      });
      again.close();
      assert.ok(summary.settings!.kept.includes("instance_title"));
      assert.equal(
        (await getSettings(ctx.database.db)).instance_title,
        "Quando Bologna",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    ctx.close();
  }
});

Deno.test("Gancio's event URLs (/event/<slug>, an occurrence's /event/<slug>-N, /event/<id>) redirect (301) to the imported event; Quando's own slugs answer first", async () => {
  const { ctx, rows } = await moveWith(["url", "sqlite"]);
  try {
    const slugOf = (title: string, start?: number) =>
      rows.find((r) =>
        r.title === title && (start === undefined || r.start_datetime === start)
      )!.slug;
    const cases: [string, string][] = [
      ["/event/assemblea-generale", slugOf("Assembly")],
      ["/event/110", slugOf("Assembly")],
      ["/event/tuesday-choir-4", slugOf("Tuesday choir, on Wednesday")],
      ["/event/102", slugOf("Tuesday choir, on Wednesday")],
      ["/event/tuesday-choir-6", slugOf("Tuesday choir", TUE_JUN_23)],
      ["/event/tuesday-choir-5", slugOf("Tuesday choir: summer concert")],
      [
        "/event/98",
        rows.find((r) =>
          r.start_datetime === TUE_MAY_26 && r.recurrent === null
        )!.slug,
      ],
    ];
    for (const [from, slug] of cases) {
      const res = await call(ctx, "GET", from);
      assert.equal(res.status, 301, from);
      assert.equal(
        new URL(res.headers.get("location")!, "http://x").pathname,
        `/event/${slug}`,
        from,
      );
      await res.body?.cancel();
      const page = await call(ctx, "GET", `/event/${slug}`);
      assert.equal(page.status, 200, slug);
      await page.body?.cancel();
    }
    // Quando's own page at a slug both have.
    const own = await call(ctx, "GET", `/event/${slugOf("Online talk")}`);
    assert.equal(own.status, 200);
    await own.body?.cancel();
    const missing = await call(ctx, "GET", "/event/no-such-event");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    ctx.close();
  }
});

Deno.test("deno task import:gancio --url on this machine with --allow-private, then --sqlite alone: nothing twice", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gancio.sqlite`;
  await gancioDatabase(path);
  const api = gancioApi(path);
  try {
    const run = async (args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...PERMS, "main.ts", "import-gancio", ...args],
        cwd: ROOT,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          RUST_BACKTRACE: "0",
          DATABASE_URL: `file:${dir}/quando.db`,
          ADMIN_EMAIL: "owner@example.org",
          ADMIN_PASSWORD: "correct horse battery",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    };
    // Without the flag (and without ALLOW_PRIVATE_ADDRESSES): refused.
    const refused = await run(["--url", api.url]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /could not be read/);
    assert.match(refused.stderr, /add --allow-private/);
    const first = await run(["--url", api.url, "--allow-private"]);
    assert.equal(first.code, 0, first.stderr);
    const created = /events: (\d+) created/.exec(first.stderr);
    assert.ok(created && Number(created[1]) > 0, first.stderr);
    const second = await run(["--sqlite", path]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /events: 0 created/);
    assert.match(second.stderr, /matched to the events imported earlier/);
    assert.match(second.stderr, /settings: taken from Gancio/);
  } finally {
    await api.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Gancio import: a moved occurrence that an earlier version imported as a single event is named once, and its record given to the series' occurrence", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gancio.sqlite`;
  await gancioDatabase(path);
  const ctx = await createTestApp();
  const gancioDb = new DatabaseSync(path, { readOnly: true });
  try {
    await createTestUser(ctx, { role: "admin" });
    const run = async () =>
      importGancio(await importDeps(ctx), {
        fetchLimits: { allowPrivateAddress: true, userAgent: "Quando tests" },
        database: (q) => gancioDb.prepare(q).all() as Record<string, unknown>[],
      });
    await run();
    // What the earlier version left: the moved occurrence keyed by its new
    // start, as a single event of its own.
    const [{ id: single }] = await ctx.database.db.all<{ id: number }>(
      sql`SELECT id FROM events WHERE title = 'Assembly'`,
    );
    await ctx.database.db.run(
      sql`UPDATE imported_events SET recurrence_id = ${WED_JUN_10_19H}, eventId = ${single} WHERE uid = '100' AND recurrence_id = ${TUE_JUN_09}`,
    );
    const again = await run();
    assert.equal(again.events.created, 0, again.problems.join("\n"));
    assert.match(
      again.problems.join("\n"),
      new RegExp(`Quando event ${single}\\b.*delete event ${single}`),
    );
    const [{ n }] = await ctx.database.db.all<{ n: number }>(
      sql`SELECT count(*) AS n FROM imported_events WHERE uid = '100' AND recurrence_id = ${WED_JUN_10_19H}`,
    );
    assert.equal(n, 0);
    const third = await run();
    assert.doesNotMatch(third.problems.join("\n"), /earlier import/);
    assert.equal(third.events.created, 0);
  } finally {
    gancioDb.close();
    ctx.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Gancio import by --url: the title, description and registration come from its NodeInfo; the time zone is left, and the summary says so", async () => {
  const { ctx, summaries } = await moveWith(["url"]);
  try {
    const settings = await getSettings(ctx.database.db);
    assert.equal(settings.instance_title, "Gancio Bologna");
    assert.equal(
      settings.instance_description,
      "What happens in Bologna.\n\nSend yours!",
    );
    assert.equal(settings.allow_registration, true);
    assert.equal(settings.instance_timezone, "UTC");
    const lines = summaryLines(summaries[0]).join("\n");
    assert.match(lines, /taken from Gancio: instance_title/);
    assert.match(
      lines,
      /does not show its time zone: set it at \/admin\/settings/,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("Gancio import: an occurrence moved and retitled in Gancio comes in once, as a changed occurrence of its series", async () => {
  for (const mode of ["url", "sqlite"] as Mode[]) {
    const { ctx, rows } = await moveWith([mode]);
    try {
      const series = rows.find((r) => r.recurrent !== null)!;
      const moved = rows.filter((r) =>
        r.title === "Tuesday choir, on Wednesday"
      );
      assert.deepEqual(
        moved.map((r) => [r.start_datetime, r.parentId]),
        [[WED_JUN_10_19H, series.id]],
        mode,
      );
      assert.deepEqual(
        rows.filter((r) => r.start_datetime === TUE_JUN_09),
        [],
        mode,
      );
      const edited = await ctx.database.db.all<{ occurrence_edited: number }>(
        sql`SELECT occurrence_edited FROM events WHERE id = ${moved[0].id}`,
      );
      assert.equal(edited[0].occurrence_edited, 1);
    } finally {
      ctx.close();
    }
  }
});

Deno.test("Gancio import: an image comes in once whichever way it is read (the instance, or its uploads folder), and a database import without the folder keeps it", async () => {
  for (
    const [modes, mediaHits, uploadReads, files] of [
      [["url", "sqlite", "uploads"], 1, 0, 1],
      // Read from the folder before the instance's address was known: the
      // first import by --url fetches it once more (the file it replaces is
      // left to the sweep of unreferenced uploads).
      [["uploads", "url", "sqlite"], 1, 1, 2],
      [["url", "uploads"], 1, 0, 1],
      [["both", "uploads", "url"], 1, 0, 1],
    ] as [Mode[], number, number, number][]
  ) {
    const moved = await moveWith(modes);
    try {
      const assembly = moved.rows.find((r) => r.title === "Assembly")!;
      const full = await (await call(
        moved.ctx,
        "GET",
        `/api/events/${assembly.id}`,
      )).json();
      assert.equal(full.media.length, 1, modes.join(" then "));
      assert.equal(full.media[0].name, "The poster");
      assert.equal(moved.mediaHits, mediaHits, modes.join(" then "));
      assert.equal(moved.uploadReads, uploadReads, modes.join(" then "));
      for (const summary of moved.summaries.slice(1)) {
        assert.doesNotMatch(summary.problems.join("\n"), /poster/);
      }
      const [{ n }] = await moved.ctx.database.db.all<{ n: number }>(
        sql`SELECT count(*) AS n FROM media_files`,
      );
      assert.equal(n, files, modes.join(" then "));
    } finally {
      moved.ctx.close();
    }
  }
});
