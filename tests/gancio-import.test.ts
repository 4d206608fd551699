/**
 * Moving from Gancio (lib/imports/gancio.ts, `deno task import:gancio`): a
 * local server answers Gancio's public API from fixtures written in its
 * shapes (tests/fixtures/gancio/events.json); the import keeps times,
 * places, tags, images, descriptions (sanitised) and series, and running it
 * again changes nothing, or only what changed. A database built in Gancio's
 * table shapes (tests/fixtures/gancio/schema.sql) brings users without usable
 * passwords and the trusted and blocked peers. The CLI runs end to end.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { sql } from "drizzle-orm";
import { apUsers, instances } from "../db/schema.ts";
import { type CliIO, runUserCommand } from "../lib/cli/users.ts";
import { isBlockedSender } from "../lib/federation/actors.ts";
import {
  type GancioImportOptions,
  importGancio,
  summaryLines,
} from "../lib/imports/gancio.ts";
import { GancioError } from "../lib/imports/gancio/mapping.ts";
import { importDepsOf } from "../lib/imports/sources.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { getSettings } from "../lib/settings.ts";
import { findUserByEmail } from "../lib/users.ts";
import {
  call,
  createTestApp,
  createTestUser,
  hasher,
  loginToken,
  PERMS,
  ROOT,
  type TestContext,
} from "./helpers.ts";
import { png } from "./images.ts";
import { openGancioDatabase } from "./support/gancio-database.ts";
import { get, signIn } from "./web-helpers.ts";

const FIXTURES = new URL("./fixtures/gancio/", import.meta.url);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

type Detail = Record<string, unknown> & {
  id: number;
  start_datetime: number;
  end_datetime: number | null;
  recurrent: unknown;
};

/** A Gancio instance answering its public API from the fixture; the test edits `events`. */
async function gancioServer() {
  const events: Detail[] = JSON.parse(
    await Deno.readTextFile(new URL("events.json", FIXTURES)),
  );
  const hits: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      hits.push(url.pathname + url.search);
      if (url.pathname === "/api/events") {
        // Gancio's listing: no parents, from `start` on (by start or end),
        // ascending by start, `max` of them.
        const start = Number(url.searchParams.get("start"));
        const max = Number(url.searchParams.get("max")) || Infinity;
        const list = events.filter((e) =>
          e.recurrent === null &&
          (e.start_datetime >= start || (e.end_datetime ?? 0) >= start)
        ).sort((a, b) => a.start_datetime - b.start_datetime).slice(0, max)
          .map((e) => ({
            id: e.id,
            title: e.title,
            slug: e.slug,
            start_datetime: e.start_datetime,
            end_datetime: e.end_datetime,
            media: e.media,
            tags: e.tags,
            place: e.place,
            parentId: e.parentId,
          }));
        return Response.json(list);
      }
      const detail = /^\/api\/event\/detail\/(\d+)$/.exec(url.pathname);
      if (detail) {
        const event = events.find((e) => e.id === Number(detail[1]));
        return event
          ? Response.json(event)
          : new Response("Not Found", { status: 404 });
      }
      if (url.pathname === "/media/a1b2c3.jpg") {
        return new Response(png(40, 30), {
          headers: { "content-type": "image/jpeg" },
        });
      }
      if (url.pathname === "/") {
        return new Response("<html>a blog</html>", {
          headers: { "content-type": "text/html" },
        });
      }
      return new Response("Not Found", { status: 404 });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    events,
    hits,
    close: () => server.shutdown(),
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

function options(
  extra: Partial<GancioImportOptions>,
  allowPrivateAddress = true,
): GancioImportOptions {
  return {
    fetchLimits: { allowPrivateAddress, userAgent: "Quando tests" },
    ...extra,
  };
}

/** Every event, oldest first. */
async function allEvents(ctx: TestContext) {
  return await ctx.database.db.all<{
    id: number;
    title: string;
    start_datetime: number;
    parentId: number | null;
    recurrent: string | null;
    userId: number | null;
    is_visible: number;
  }>(
    sql`SELECT id, title, start_datetime, parentId, recurrent, userId, is_visible FROM events ORDER BY start_datetime, id`,
  );
}

Deno.test("Gancio API import: times, places, tags, images and series kept; a second run changes nothing; a changed event updates", async () => {
  const gancio = await gancioServer();
  const ctx = await createTestApp();
  try {
    const admin = await createTestUser(ctx, { role: "admin" });
    const deps = await importDeps(ctx);
    const first = await importGancio(deps, options({ url: gancio.url }));
    // Singles 11, 12, 31 (its series is not public), the series 20, its
    // occurrence from before the series came (21); 22 is the series' own.
    assert.deepEqual(first.events, {
      created: 5,
      updated: 0,
      cancelled: 0,
      unchanged: 1,
      skipped: 0,
    }, first.problems.join("\n"));
    assert.deepEqual(first.problems, [
      "series 30 is not public: its occurrences are imported one by one",
    ]);
    assert.equal(first.users, null);

    const list = await (await call(ctx, "GET", "/api/events?start=0&max=50"))
      .json() as { id: number; title: string }[];
    const mass = list.find((e) => e.title === "Critical Mass")!;
    const full = await (await call(ctx, "GET", `/api/events/${mass.id}`))
      .json();
    assert.equal(iso(full.start_datetime), "2026-06-12T19:00:00.000Z");
    assert.equal(iso(full.end_datetime), "2026-06-12T22:00:00.000Z");
    assert.equal(full.place.name, "Piazza Maggiore");
    assert.equal(full.place.address, "Piazza Maggiore, Bologna");
    assert.equal(full.place.latitude, 44.4939);
    assert.equal(full.place.longitude, 11.3428);
    assert.deepEqual(
      full.tags.map((t: { tag: string }) => t.tag).sort(),
      ["Critical Mass", "bike"],
    );
    assert.match(full.description, /<b>bike<\/b>/);
    assert.doesNotMatch(full.description, /script/);
    assert.equal(full.user.id, admin.user.id);
    // The image: stored like an upload, with its alt text and focal point.
    assert.equal(full.media.length, 1);
    assert.equal(full.media[0].name, "Bikes on the bridge");
    assert.deepEqual(full.media[0].focalpoint, [0.25, -0.5]);
    assert.equal(full.media[0].width, 40);
    const served = await call(ctx, "GET", `/media/${full.media[0].url}`);
    assert.equal(served.status, 200);
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), png(40, 30));
    const online = list.find((e) => e.title === "Online assembly")!;
    const onlineFull =
      await (await call(ctx, "GET", `/api/events/${online.id}`))
        .json();
    assert.deepEqual(onlineFull.online_locations, [
      "https://meet.example/assembly",
    ]);
    // Gancio's "online" pseudo-place: an online event, no place at all.
    assert.equal(onlineFull.place, null);
    const placeNames = await ctx.database.db.all<{ name: string }>(
      sql`SELECT name FROM places`,
    );
    assert.ok(!placeNames.some((p) => p.name.toLowerCase() === "online"));
    const onlinePage = await call(ctx, "GET", `/event/${onlineFull.slug}`);
    const onlineHtml = await onlinePage.text();
    assert.equal(onlinePage.status, 200);
    assert.match(onlineHtml, /meet\.example\/assembly/);
    assert.doesNotMatch(onlineHtml, /openstreetmap|geo:|maps\?/i);

    // The series: a Quando series from the Gancio parent, its occurrences
    // laid out by Quando (June 3 once), May 20 kept as a single event.
    let rows = await allEvents(ctx);
    const parent = rows.find((r) => r.recurrent !== null)!;
    assert.equal(JSON.parse(parent.recurrent!).frequency, "1w");
    const walks = rows.filter((r) => r.title === "Weekly walk");
    assert.equal(
      walks.filter((w) => iso(w.start_datetime) === "2026-06-03T17:00:00.000Z")
        .length,
      1,
    );
    const may20 = walks.find((w) =>
      iso(w.start_datetime) === "2026-05-20T17:00:00.000Z"
    )!;
    assert.equal(may20.parentId, null);
    assert.ok(walks.filter((w) => w.parentId === parent.id).length >= 8);
    const repair = rows.find((r) => r.title === "Repair café")!;
    assert.equal(repair.parentId, null);

    // Again: nothing changes, nothing is fetched but the API.
    const imageHits = gancio.hits.filter((h) => h.startsWith("/media/"))
      .length;
    const second = await importGancio(deps, options({ url: gancio.url }));
    assert.deepEqual(second.events, {
      created: 0,
      updated: 0,
      cancelled: 0,
      unchanged: 6,
      skipped: 0,
    });
    assert.equal(
      gancio.hits.filter((h) => h.startsWith("/media/")).length,
      imageHits,
    );
    assert.equal((await allEvents(ctx)).length, rows.length);

    // A changed event is updated in place; a lost image is a problem line.
    const changed = gancio.events.find((e) => e.id === 11)!;
    changed.title = "Critical Mass (moved)";
    changed.start_datetime += 3600;
    changed.end_datetime! += 3600;
    const third = await importGancio(deps, options({ url: gancio.url }));
    assert.equal(third.events.updated, 1);
    assert.equal(third.events.created, 0);
    rows = await allEvents(ctx);
    const moved = rows.find((r) => r.id === mass.id)!;
    assert.equal(moved.title, "Critical Mass (moved)");
    assert.equal(iso(moved.start_datetime), "2026-06-12T20:00:00.000Z");
    (changed.media as { url: string }[])[0].url = "gone.jpg";
    const fourth = await importGancio(deps, options({ url: gancio.url }));
    assert.equal(fourth.events.updated, 1);
    assert.match(fourth.problems.join("\n"), /gone\.jpg could not be read/);
    assert.match(
      summaryLines(fourth).join("\n"),
      /events: 0 created, 1 updated/,
    );
  } finally {
    ctx.close();
    await gancio.close();
  }
});

Deno.test("Gancio API import: private addresses are refused without ALLOW_PRIVATE_ADDRESSES; a non-Gancio answer, an answer over the JSON budget and an unreachable host stop it", async () => {
  const gancio = await gancioServer();
  const ctx = await createTestApp();
  try {
    await createTestUser(ctx, { role: "admin" });
    const deps = await importDeps(ctx);
    await assert.rejects(
      importGancio(deps, options({ url: gancio.url }, false)),
      (error: Error) =>
        error instanceof GancioError && /could not be read/.test(error.message),
    );
    assert.deepEqual(gancio.hits, []);
    // Something else answers there.
    const blog = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("<html>a blog</html>"),
    );
    try {
      await assert.rejects(
        importGancio(
          deps,
          options({ url: `http://127.0.0.1:${blog.addr.port}` }),
        ),
        (error: Error) =>
          error instanceof GancioError &&
          /is this a Gancio instance/.test(error.message),
      );
    } finally {
      await blog.shutdown();
    }
    // An answer whose values would fill the memory of JSON.parse (10 MiB of
    // empty arrays is millions of them), or that nests too deep.
    for (
      const [body, why] of [
        ["[" + "[],".repeat(3_000_000) + "[]]", /more than 1000000 values/],
        ["[".repeat(100) + "]".repeat(100), /nested deeper than 64/],
      ] as const
    ) {
      const hostile = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        () =>
          new Response(body, {
            headers: { "content-type": "application/json" },
          }),
      );
      try {
        await assert.rejects(
          importGancio(
            deps,
            options({ url: `http://127.0.0.1:${hostile.addr.port}` }),
          ),
          (error: Error) =>
            error instanceof GancioError &&
            /over the import budget/.test(error.message) &&
            why.test(error.message),
        );
      } finally {
        await hostile.shutdown();
      }
    }
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    await assert.rejects(
      importGancio(deps, options({ url: `http://127.0.0.1:${port}` })),
      GancioError,
    );
    // An unknown --as.
    await assert.rejects(
      importGancio(deps, options({ url: gancio.url, as: "nobody@x.org" })),
      /no active account/,
    );
    assert.equal((await allEvents(ctx)).length, 0);
  } finally {
    ctx.close();
    await gancio.close();
  }
});

/** A Gancio database in a temporary file, in Gancio's table shapes. */
async function gancioDatabase(path: string) {
  const at = "2024-03-01 10:00:00.000 +00:00";
  const { db, insert } = await openGancioDatabase(path, at);

  const bcrypt = "$2b$10$abcdefghijklmnopqrstuuVGh2m3ts0hXyOa9vVbH5Z0qVvAoe5u";
  insert("users", {
    id: 1,
    email: "Admin@Gancio.example",
    role: "admin",
    is_active: true,
    password: bcrypt,
    description: "the admin",
  });
  insert("users", {
    id: 2,
    email: "ed@gancio.example",
    role: "editor",
    is_active: true,
    password: bcrypt,
  });
  insert("users", {
    id: 3,
    email: "member@gancio.example",
    role: "user",
    is_active: true,
    password: bcrypt,
  });
  insert("users", {
    id: 4,
    email: "gone@gancio.example",
    role: "user",
    is_active: false,
    password: bcrypt,
  });
  insert("users", {
    id: 5,
    email: "owner@quando.example",
    role: "user",
    is_active: true,
    password: bcrypt,
  });
  insert("places", {
    id: 1,
    name: "Cassero",
    address: "Via Don Minzoni 18, Bologna",
    latitude: 44.5016,
    longitude: 11.3383,
  });
  for (const tag of ["queer", "party"]) insert("tags", { tag, weigth: 1 });
  insert("instances", {
    domain: "trusted.example",
    name: "Friends",
    blocked: false,
  });
  insert("instances", { domain: "spam.example", blocked: true });
  insert("ap_users", {
    ap_id: "https://trusted.example/federation/u/relay",
    following: true,
    follower: true,
    trusted: true,
    blocked: false,
    object: { id: "https://trusted.example/federation/u/relay" },
    instanceDomain: "trusted.example",
  });
  insert("ap_users", {
    ap_id: "https://mastodon.example/users/troll",
    follower: true,
    trusted: false,
    blocked: true,
    instanceDomain: null,
  });
  insert("events", {
    id: 1,
    title: "Pride party",
    slug: "pride-party",
    description: "<p>Dance!</p>",
    start_datetime: 1782813600,
    end_datetime: 1782813600 + 4 * 3600,
    media: [{
      url: "poster.png",
      name: "The poster",
      focalpoint: [0, 0.5],
      width: 40,
      height: 30,
    }],
    is_visible: true,
    online_locations: [],
    userId: 3,
    placeId: 1,
  });
  db.prepare(
    `insert into event_tags ("eventId", "tagTag", "createdAt", "updatedAt") values (1, 'queer', ?, ?), (1, 'party', ?, ?)`,
  ).run(at, at, at, at);
  insert("events", {
    id: 2,
    title: "Waiting for confirmation",
    slug: "waiting",
    description: "",
    start_datetime: 1782813600 + 86_400,
    is_visible: false,
    media: [{ url: "lost.png", name: "" }],
    userId: null,
    placeId: 1,
  });
  insert("events", {
    id: 3,
    title: "A remote event",
    slug: "remote",
    start_datetime: 1782813600,
    is_visible: true,
    placeId: 1,
    apUserApId: "https://trusted.example/federation/u/relay",
  });
  db.close();
}

Deno.test("Gancio database import: users without usable passwords (matched by e-mail), trusted and blocked peers, events with owners, tags and images; again changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  const ctx = await createTestApp();
  try {
    const path = `${dir}/gancio.sqlite`;
    await gancioDatabase(path);
    const admin = await createTestUser(ctx, { role: "admin" });
    const existing = await createTestUser(ctx, {
      email: "owner@quando.example",
      role: "editor",
    });
    const deps = await importDeps(ctx);
    const gancioDb = new DatabaseSync(path, { readOnly: true });
    const run = () =>
      importGancio(
        deps,
        options({
          database: (q) =>
            gancioDb.prepare(q).all() as Record<string, unknown>[],
          readUpload: (name) =>
            name === "poster.png"
              ? Promise.resolve(png(40, 30))
              : Promise.reject(new Error("no such file")),
        }),
      );
    const first = await run();
    assert.deepEqual(first.users, { created: 4, existing: 1 });
    assert.deepEqual(first.peers, {
      trusted: 1,
      blocked: 1,
      blockedInstances: 1,
    });
    assert.equal(first.events.created, 2, first.problems.join("\n"));
    assert.match(first.problems.join("\n"), /lost\.png could not be read/);
    const lines = summaryLines(first).join("\n");
    assert.match(lines, /deno task user reset-password/);
    assert.match(lines, /add_trust/);

    // Users: roles and states kept, e-mail normalised, no usable password;
    // the existing account is left as it was.
    const ganAdmin = (await findUserByEmail(
      ctx.database.db,
      "admin@gancio.example",
    ))!;
    assert.equal(ganAdmin.role, "admin");
    assert.equal(ganAdmin.description, "the admin");
    assert.equal(
      (await findUserByEmail(ctx.database.db, "ed@gancio.example"))!.role,
      "editor",
    );
    assert.equal(
      (await findUserByEmail(ctx.database.db, "gone@gancio.example"))!
        .is_active,
      false,
    );
    assert.equal(
      (await findUserByEmail(ctx.database.db, "owner@quando.example"))!.role,
      "editor",
    );
    assert.match(ganAdmin.password, /^\$argon2id\$/);
    for (const password of ["", "$2b$10$abcdefghijklmnopqrstuu", "password"]) {
      const res = await call(ctx, "POST", "/api/login/token", {
        json: { email: "member@gancio.example", password },
      });
      assert.ok(res.status === 401 || res.status === 400, String(res.status));
      await res.body?.cancel();
    }
    // A reset gives them one.
    const io: CliIO = {
      readPassword: () => Promise.resolve("a new long password"),
      out: () => {},
      err: () => {},
    };
    assert.equal(
      await runUserCommand(
        ["reset-password", "--email", "member@gancio.example"],
        { db: ctx.database.db, hasher, clock: ctx.clock, io },
      ),
      0,
    );
    await loginToken(ctx, "member@gancio.example", "a new long password");
    await loginToken(ctx, existing.email, existing.password);

    // Peers: trust and blocks, no follows carried over.
    const actors = await ctx.database.db.select().from(apUsers);
    const trusted = actors.find((a) => a.ap_id.includes("trusted.example"))!;
    assert.equal(trusted.trusted, true);
    assert.equal(trusted.following, false);
    assert.equal(trusted.follower, false);
    assert.equal(trusted.instanceDomain, "trusted.example");
    assert.equal(
      await isBlockedSender(
        ctx.database.db,
        "https://mastodon.example/users/troll",
      ),
      true,
    );
    assert.equal(
      await isBlockedSender(ctx.database.db, "https://spam.example/users/a"),
      true,
    );
    const blockedInstances = await ctx.database.db.select().from(instances)
      .where(sql`${instances.blocked} = 1`);
    assert.deepEqual(blockedInstances.map((i) => i.domain), ["spam.example"]);

    // Events: owned by their Gancio author, hidden ones stay hidden, the
    // remote one is left to federation.
    const rows = await allEvents(ctx);
    assert.deepEqual(rows.map((r) => r.title), [
      "Pride party",
      "Waiting for confirmation",
    ]);
    const member = (await findUserByEmail(
      ctx.database.db,
      "member@gancio.example",
    ))!;
    assert.equal(rows[0].userId, member.id);
    // An anonymous submission stays anonymous (not the importing admin's).
    assert.equal(rows[1].userId, null);
    assert.equal(rows[1].is_visible, 0);
    const queue = await (await get(
      ctx,
      "/admin",
      await signIn(ctx, { email: admin.email, password: admin.password }),
    )).text();
    assert.match(queue, /Waiting for confirmation/);
    assert.match(queue, /anonymous/);
    assert.doesNotMatch(queue, /user #\d/);
    const party = await (await call(ctx, "GET", `/api/events/${rows[0].id}`))
      .json();
    assert.deepEqual(
      party.tags.map((t: { tag: string }) => t.tag).sort(),
      ["party", "queer"],
    );
    assert.equal(party.place.name, "Cassero");
    assert.equal(party.place.latitude, 44.5016);
    assert.equal(party.media[0].name, "The poster");
    assert.deepEqual(party.media[0].focalpoint, [0, 0.5]);
    assert.equal(
      (await call(ctx, "GET", `/media/${party.media[0].url}`)).status,
      200,
    );

    // Again: nobody and nothing duplicated.
    const second = await run();
    gancioDb.close();
    assert.deepEqual(second.users, { created: 0, existing: 5 });
    assert.equal(second.events.created, 0);
    assert.equal((await allEvents(ctx)).length, 2);
    const [{ n }] = await ctx.database.db.all<{ n: number }>(
      sql`SELECT count(*) AS n FROM users`,
    );
    assert.equal(n, 6);
  } finally {
    ctx.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task import:gancio: end to end against a Gancio-shaped server; refused without ALLOW_PRIVATE_ADDRESSES", async () => {
  const gancio = await gancioServer();
  const dir = await Deno.makeTempDir();
  try {
    const run = async (args: string[], env: Record<string, string> = {}) => {
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
          ...env,
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    };
    const refused = await run(["--url", gancio.url]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /import:gancio failed: .*could not be read/);
    const done = await run(
      ["--url", gancio.url, "--since", "2026-01-01"],
      { ALLOW_PRIVATE_ADDRESSES: "true" },
    );
    assert.equal(done.code, 0, done.stderr);
    // June 3 is the series' own occurrence, or a past one of its own
    // (the clock is the real one here).
    const counts =
      /events: (\d+) created, 0 updated, (\d+) unchanged, 0 skipped/
        .exec(done.stderr);
    assert.ok(counts, done.stderr);
    assert.equal(Number(counts[1]) + Number(counts[2]), 6);
    assert.match(done.stderr, /series 30 is not public/);
    const usage = await run(["--since", "yesterday"]);
    assert.equal(usage.code, 2);
  } finally {
    await gancio.close();
    await Deno.remove(dir, { recursive: true });
  }
});
