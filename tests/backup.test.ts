/**
 * Backup and restore (lib/backup.ts, `deno task export` / `deno task import`):
 * an instance exported and imported into a fresh database answers the same,
 * response by response, for every GET endpoint of its OpenAPI document, its
 * pages, feeds and ActivityPub objects; its login tokens still work and the
 * actor's keys are the same. A cut or foreign file, or a non-empty target,
 * is refused and leaves the target as it was.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { apUsers, instances, mediaFiles } from "../db/schema.ts";
import {
  BackupError,
  backupTables,
  exportBackup,
  importBackup,
} from "../lib/backup.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import { loadOrCreateKeyPairs } from "../lib/federation/keys.ts";
import { exportJwk } from "@fedify/fedify";
import { createDbMediaStore, type MediaStore } from "../lib/media/store.ts";
import {
  call,
  countRows,
  createTestApp,
  PERMS,
  ROOT,
  type TestContext,
  userWithToken,
} from "./helpers.ts";
import { png } from "./images.ts";
import { hranaTestDatabaseUrl } from "./support/hrana-process.ts";

async function json<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

/** An instance with something in every table a community fills. */
async function populate(ctx: TestContext) {
  const admin = await userWithToken(ctx, "admin");
  const member = await userWithToken(ctx, "user");
  await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Restored",
      instance_timezone: "Europe/Rome",
      allow_anon_event: true,
    },
  });
  const form = new FormData();
  form.append("file", new File([png(8, 6)], "poster.png"));
  const upload = await json<{ url: string }>(
    await ctx.app.request("/api/media", {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}` },
      body: form,
    }),
    201,
  );
  const start = Date.parse("2026-07-01T18:00:00Z") / 1000;
  const single = await json<{ id: number; slug: string }>(
    await call(ctx, "POST", "/api/events", {
      token: member.token,
      json: {
        title: "Repair café",
        start_datetime: start,
        end_datetime: start + 7200,
        place_name: "Community hall",
        place_address: "Via Roma 1",
        tags: ["Repair", "café"],
        description: "<p>Bring <b>things</b>.</p>",
        media: [{ url: upload.url, name: "Poster", focalpoint: [0.1, -0.2] }],
      },
    }),
    201,
  );
  const series = await json<{ id: number }>(
    await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Weekly walk",
        start_datetime: start + 86_400,
        place_name: "Park gate",
        tags: ["walk"],
        recurrent: { frequency: "1w" },
      },
    }),
    201,
  );
  // An anonymous submission waiting for confirmation, with a message.
  const hidden = await json<{ id: number }>(
    await call(ctx, "POST", "/api/events", {
      json: { title: "Secret", start_datetime: start + 3600, place_id: 1 },
    }),
    201,
  );
  await json(
    await call(ctx, "POST", `/api/events/${hidden.id}/messages`, {
      token: admin.token,
      json: { message: "Please add an end time", is_author_visible: true },
    }),
    201,
  );
  // A remote actor, its instance and one of its events.
  const now = ctx.clock.now();
  await ctx.database.db.insert(instances).values({
    domain: "gancio.example",
    createdAt: now,
    updatedAt: now,
  });
  const actor = "https://gancio.example/federation/u/relay";
  await ctx.database.db.insert(apUsers).values({
    ap_id: actor,
    instanceDomain: "gancio.example",
    object: { id: actor, type: "Application", name: "Gancio" },
    trusted: true,
    following: true,
    createdAt: now,
    updatedAt: now,
  });
  await upsertRemoteEvent({ db: ctx.database.db, clock: ctx.clock }, {
    ap_id: "https://gancio.example/federation/m/7",
    apUserApId: actor,
    title: "Remote concert",
    description: "<p>Loud</p>",
    start_datetime: start + 7 * 86_400,
    end_datetime: null,
    status: "EventScheduled",
    place: {
      name: "Arena",
      address: "Elsewhere",
      latitude: 45.1,
      longitude: 9.2,
      postal_address: null,
    },
    online_locations: [],
    tags: ["music"],
    media: [],
    ap_object: { id: "https://gancio.example/federation/m/7", type: "Event" },
    ld_signature: null,
  });
  const collection = await json<{ id: number; name: string }>(
    await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Music" },
    }),
    201,
  );
  await json(
    await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: {
        collectionId: collection.id,
        tags: ["music"],
        actors: [{ ap_id: actor }],
      },
    }),
    201,
  );
  const client = await json<{ client_id: string }>(
    await call(ctx, "POST", "/api/client", {
      json: {
        client_name: "Poster app",
        redirect_uris: "https://app.example/callback",
      },
    }),
    201,
  );
  // The actor's keys, generated and stored as on a real first start.
  await loadOrCreateKeyPairs(ctx.database.db, ctx.clock);
  return {
    admin,
    member,
    single,
    series,
    hidden,
    collection,
    client,
    media: upload.url.split("/").pop()!,
  };
}

async function exportLines(ctx: TestContext): Promise<string[]> {
  const lines: string[] = [];
  for await (
    const line of exportBackup(
      ctx.database.db,
      createDbMediaStore(ctx.database.db, ctx.clock),
      ctx.clock.now(),
    )
  ) lines.push(line);
  return lines;
}

async function* each(lines: string[]) {
  yield* lines;
}

/**
 * A fresh, migrated, empty database: in memory, or on the Hrana server when
 * the suite runs on a remote database (tests/remote-suites.test.ts).
 */
async function emptyDatabase() {
  const database = await openDatabase(hranaTestDatabaseUrl() ?? ":memory:");
  await migrateDatabase(database);
  return database;
}

/** Pages carry a fresh nonce per answer; everything else must be equal. */
function comparable(text: string): string {
  return text.replace(/nonce(=|-)"?[A-Za-z0-9_+/=-]+/g, "nonce");
}

Deno.test("backup: export, then import into a fresh database, answers every GET the same; tokens and the actor's keys survive", async () => {
  const source = await createTestApp();
  const target = await emptyDatabase();
  try {
    const made = await populate(source);
    const lines = await exportLines(source);
    const header = JSON.parse(lines[0]);
    assert.equal(header.format, "quando-backup");
    assert.equal(header.version, 1);
    assert.deepEqual(JSON.parse(lines.at(-1)!).end, true);

    const summary = await importBackup(
      target.db,
      createDbMediaStore(target.db, source.clock),
      each(lines),
    );
    assert.equal(summary.rows.events, await countRows(source, "events"));
    const restored = await createTestApp({ database: target });

    // Every GET path of the OpenAPI document, its parameters filled in.
    const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(
      await call(source, "GET", "/api/openapi.json"),
    );
    const events = await source.database.db.all<{ id: number; slug: string }>(
      sql`SELECT id, slug FROM events ORDER BY id`,
    );
    /** The values of a path parameter, by its name and where it is. */
    const valuesOf = (path: string, name: string): string[] => {
      if (name === "format") return ["ics", "rss", "atom", "json"];
      if (name === "slug") return events.map((e) => e.slug);
      if (name === "tag") return ["repair", "walk", "music"];
      if (name === "name") return [made.collection.name];
      if (name === "file") return [made.media];
      if (path.startsWith("/api/users/")) {
        return [String(made.admin.user.id), String(made.member.user.id)];
      }
      if (path.includes("/place")) return ["1", "2", "3"];
      if (path.startsWith("/api/collections/")) {
        return [String(made.collection.id)];
      }
      return events.map((e) => String(e.id));
    };
    /** Every path a template gives, its parameters filled in every way. */
    const expand = (template: string): string[] => {
      const match = /\{(\w+)\}/.exec(template);
      if (!match) return [template];
      return valuesOf(template, match[1]).flatMap((value) =>
        expand(template.replace(match[0], encodeURIComponent(value)))
      );
    };
    const paths: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if ("get" in methods) paths.push(...expand(path));
    }
    assert.ok(paths.length >= 30, `only ${paths.length} paths`);
    // Pages, feeds and ActivityPub, beyond the API document.
    paths.push(
      "/",
      `/event/${made.single.slug}`,
      "/tag/repair",
      "/place/1",
      "/collection/Music",
      "/feed/rss",
      "/feed/ics",
      "/api/events?limit=500&past_limit=500",
      "/api/events/unconfirmed",
      "/api/resources/list",
      "/federation/u/relay",
      "/.well-known/nodeinfo",
      "/nodeinfo/2.1",
      ...events.map((e) => `/federation/m/${e.id}`),
    );
    const callers: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${made.admin.token}` },
      { authorization: `Bearer ${made.member.token}` },
    ];
    let compared = 0;
    for (const path of paths) {
      for (const headers of callers) {
        const accept: Record<string, string> = path.startsWith("/federation/")
          ? { accept: "application/activity+json" }
          : {};
        const [before, after] = await Promise.all(
          [source, restored].map((ctx) =>
            ctx.app.request(path, { headers: { ...headers, ...accept } })
          ),
        );
        const [a, b] = [await before.text(), await after.text()];
        assert.equal(after.status, before.status, `${path} status`);
        assert.equal(comparable(b), comparable(a), `${path} body`);
        compared++;
      }
    }
    assert.ok(compared >= 120, `compared ${compared}`);
    // The admin's token, issued before the backup, is a token after it.
    const me = await json<{ id: number }>(
      await call(restored, "GET", "/api/users/me", {
        token: made.admin.token,
      }),
    );
    assert.equal(me.id, made.admin.user.id);
    // The same key pairs: the fediverse identity survives.
    const [keysBefore, keysAfter] = await Promise.all(
      [source, restored].map(async (ctx) => {
        const pairs = await loadOrCreateKeyPairs(ctx.database.db, ctx.clock);
        return [
          await exportJwk(pairs.rsa.privateKey),
          await exportJwk(pairs.ed25519.publicKey),
        ];
      }),
    );
    assert.deepEqual(keysAfter, keysBefore);
    // New rows continue the ids, and the search index was rebuilt.
    const next = await json<{ id: number }>(
      await call(restored, "POST", "/api/events", {
        token: made.member.token,
        json: {
          title: "After restore",
          start_datetime: 1_900_000_000,
          place_id: 1,
        },
      }),
      201,
    );
    assert.ok(next.id > events.at(-1)!.id);
    const found = await json<{ title: string }[]>(
      await call(restored, "GET", "/api/events?query=repair&start=0"),
    );
    assert.deepEqual(found.map((e) => e.title), ["Repair café"]);
  } finally {
    source.close();
    target.close();
  }
});

Deno.test("backup: a cut file, a foreign file, a bad row or a non-empty instance is refused, leaving the target as it was", async () => {
  const source = await createTestApp();
  try {
    await populate(source);
    const lines = await exportLines(source);
    const attempts: [string, string[], RegExp][] = [
      ["cut", lines.slice(0, -5), /cut/],
      ["foreign", ['{"hello":1}', ...lines.slice(1)], /not a Quando backup/],
      ["newer format", [
        JSON.stringify({ ...JSON.parse(lines[0]), version: 2 }),
        ...lines.slice(1),
      ], /version 2/],
      ["unknown column", [
        ...lines.slice(0, 2),
        '{"table":"users","row":{"id":99,"evil":1}}',
        ...lines.slice(2),
      ], /no column evil/],
      ["not JSON", [...lines.slice(0, 3), "{oops", ...lines.slice(3)], /JSON/],
      ["wrong count", [
        ...lines.slice(0, -1),
        JSON.stringify({ end: true, rows: 1, media: 0 }),
      ], /counts 1 rows/],
    ];
    for (const [what, file, message] of attempts) {
      const target = await emptyDatabase();
      try {
        await assert.rejects(
          importBackup(
            target.db,
            createDbMediaStore(target.db, source.clock),
            each(file),
          ),
          (error: Error) =>
            error instanceof BackupError && message.test(error.message),
          what,
        );
        for (const table of backupTables()) {
          const [row] = await target.db.all<{ n: number }>(
            sql.raw(`SELECT count(*) AS n FROM "${table.name}"`),
          );
          assert.equal(Number(row.n), 0, `${what}: ${table.name} left rows`);
        }
      } finally {
        target.close();
      }
    }
    // Into an instance with content: refused, nothing changed.
    const busy = await createTestApp();
    try {
      await userWithToken(busy, "admin");
      const before = await countRows(busy, "users");
      await assert.rejects(
        importBackup(
          busy.database.db,
          createDbMediaStore(busy.database.db, busy.clock),
          each(lines),
        ),
        /not empty/,
      );
      assert.equal(await countRows(busy, "users"), before);
    } finally {
      busy.close();
    }
  } finally {
    source.close();
  }
});

Deno.test("backup: every table of the schema is either backed up or derived by the database", () => {
  const names = backupTables().map((t) => t.name);
  assert.ok(names.includes("users") && names.includes("fedify_queue"));
  assert.equal(new Set(names).size, names.length);
});

Deno.test("backup: deno task export | deno task import round-trips a file database; db:backup copies it online", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = {
      DATABASE_URL: `file:${dir}/a.db`,
      ADMIN_EMAIL: "owner@example.org",
      ADMIN_PASSWORD: "correct horse battery",
    };
    const run = async (args: string[], env: Record<string, string> = first) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...PERMS, "main.ts", ...args],
        cwd: ROOT,
        clearEnv: true,
        env: { PATH: Deno.env.get("PATH") ?? "", RUST_BACKTRACE: "0", ...env },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: out.code,
        stdout: new TextDecoder().decode(out.stdout),
        stderr: new TextDecoder().decode(out.stderr),
      };
    };
    // `user list` prepares the instance (migrations, the first admin).
    assert.equal((await run(["user", "list"])).code, 0);
    const exported = await run(["export"]);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.trim().split("\n");
    assert.equal(JSON.parse(lines[0]).format, "quando-backup");
    assert.ok(lines.some((l) => l.includes('"owner@example.org"')));
    await Deno.writeTextFile(`${dir}/backup.jsonl`, exported.stdout);
    const into = { DATABASE_URL: `file:${dir}/b.db` };
    const imported = await run(["import", `${dir}/backup.jsonl`], into);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /imported \d+ rows/);
    const listed = await run(["user", "list"], into);
    assert.match(listed.stdout, /owner@example\.org/);
    // Twice: the instance is no longer empty.
    const again = await run(["import", `${dir}/backup.jsonl`], into);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /not empty/);
    const copied = await run(["db-backup", `${dir}/copy.db`]);
    assert.equal(copied.code, 0, copied.stderr);
    const fromCopy = await run(["user", "list"], {
      DATABASE_URL: `file:${dir}/copy.db`,
    });
    assert.match(fromCopy.stdout, /owner@example\.org/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** An S3-like store in memory: the bytes live outside the database. */
function memoryBucket(): MediaStore & { objects: Map<string, Uint8Array> } {
  const objects = new Map<string, Uint8Array>();
  return {
    kind: "s3",
    objects,
    put(name, bytes) {
      objects.set(name, bytes);
      return Promise.resolve();
    },
    get(name) {
      const bytes = objects.get(name);
      if (!bytes) return Promise.resolve(null);
      return Promise.resolve({
        kind: "file",
        contentType: "image/png",
        size: bytes.length,
        etag: null,
        lastModified: null,
        range: null,
        body: new Blob([bytes.slice()]).stream(),
      });
    },
    delete(name) {
      objects.delete(name);
      return Promise.resolve();
    },
  };
}

Deno.test("backup: with media on S3, the files travel in the backup and land in the new bucket", async () => {
  const source = await createTestApp();
  const target = await emptyDatabase();
  try {
    const bucket = memoryBucket();
    const bytes = png(4, 3);
    await source.database.db.insert(mediaFiles).values({
      name: "poster.png",
      content_type: "image/png",
      size: bytes.length,
      width: 4,
      height: 3,
      createdAt: source.clock.now(),
    });
    await bucket.put("poster.png", bytes, {
      contentType: "image/png",
      width: 4,
      height: 3,
    });
    const lines: string[] = [];
    for await (
      const line of exportBackup(source.database.db, bucket, source.clock.now())
    ) lines.push(line);
    assert.equal(JSON.parse(lines[0]).media_store, "s3");
    assert.deepEqual(JSON.parse(lines.at(-1)!).media, 1);
    assert.equal(
      lines.filter((l) => l.startsWith('{"table":"media_chunks"')).length,
      0,
    );
    const newBucket = memoryBucket();
    const summary = await importBackup(target.db, newBucket, each(lines));
    assert.equal(summary.media, 1);
    assert.deepEqual(newBucket.objects.get("poster.png"), bytes);
    const [row] = await target.db.all<{ name: string; size: number }>(
      sql`SELECT name, size FROM media_files`,
    );
    assert.deepEqual({ ...row }, { name: "poster.png", size: bytes.length });
    // A media line whose file no row describes is refused.
    const stray = [
      ...lines.slice(0, -2),
      JSON.stringify({ media: "ghost.png", data: btoa("x") }),
      JSON.stringify({ ...JSON.parse(lines.at(-1)!) }),
    ];
    const other = await emptyDatabase();
    try {
      await assert.rejects(
        importBackup(other.db, memoryBucket(), each(stray)),
        /a file no row describes/,
      );
    } finally {
      other.close();
    }
  } finally {
    source.close();
    target.close();
  }
});
