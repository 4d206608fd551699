/**
 * The administration of the fediverse, collections and OAuth clients at the
 * HTTP level: admins only (editors, members and visitors refused), CSRF and
 * cross-site posts refused, bad input a 400 page with nothing written,
 * unknown ids a 404 page; trusting a loopback peer and refusing a private
 * address; a deleted client's token refused by the API.
 */
import assert from "node:assert/strict";
import { oauthClients, resources } from "../db/schema.ts";
import { upsertActor } from "../lib/federation/actors.ts";
import { upsertRemoteEvent } from "../lib/events/remote.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { deleteClient } from "../lib/oauth/clients.ts";
import { createApp } from "../routes/mod.ts";
import { startPeer } from "./fedpeer.ts";
import {
  call,
  countRows,
  createTestApp,
  createTestUser,
  hasher,
  oauthAccessToken,
  type TestContext,
} from "./helpers.ts";
import {
  csrfOf,
  type Fields,
  get,
  postForm,
  signedInWithCsrf,
  signIn,
} from "./web-helpers.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z") / 1000;
const DAY = 86_400;
const REMOTE = "https://gancio.example/federation/u/relay";

/** A page's HTML, asserting its status. */
async function page(
  ctx: { app: TestContext["app"] },
  path: string,
  cookie: string,
  status = 200,
): Promise<string> {
  const res = await get(ctx, path, cookie);
  const html = await res.text();
  assert.equal(res.status, status, `${path}: ${html.slice(0, 300)}`);
  return html;
}

/** The text of a page without its tags (entities of quotes decoded). */
function textOf(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"').replace(/&amp;/g, "&").replace(/\s+/g, " ");
}

async function apiJson(ctx: TestContext, path: string, token: string) {
  const res = await call(ctx, "GET", path, { token });
  assert.equal(res.status, 200, path);
  return await res.json();
}

/** A remote actor (with its instance) that has sent us events and comments. */
async function seedRemote(ctx: TestContext, events = 2, comments = 3) {
  const db = ctx.database.db;
  await upsertActor(
    db,
    ctx.clock,
    REMOTE,
    {
      id: REMOTE,
      type: "Application",
      preferredUsername: "relay",
      name: "Gancio Example",
    },
    { trusted: true, following: true },
    { name: "Gancio Example" },
  );
  const ids: number[] = [];
  for (let i = 0; i < events; i++) {
    const { id } = await upsertRemoteEvent({ db, clock: ctx.clock }, {
      ap_id: `https://gancio.example/federation/m/${i + 1}`,
      apUserApId: REMOTE,
      title: `Remote ${i + 1}`,
      description: "",
      start_datetime: NOW + (i + 1) * DAY,
      end_datetime: null,
      status: "EventScheduled",
      place: null,
      online_locations: ["https://gancio.example/live"],
      tags: ["remote"],
      media: [],
      ap_object: { type: "Event" },
      ld_signature: null,
    });
    ids.push(id);
  }
  const at = new Date(ctx.clock.now());
  for (let i = 0; i < comments; i++) {
    await db.insert(resources).values({
      activitypub_id: `https://gancio.example/notes/${i}`,
      data: { type: "Note", content: "<p>hi</p>" },
      apUserApId: REMOTE,
      eventId: ids[0] ?? null,
      createdAt: at,
      updatedAt: at,
    });
  }
}

Deno.test("admin pages answer admins only: visitors go to sign in, members and editors are refused, every post needs the CSRF token and this origin", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    await seedRemote(ctx, 0, 0);
    const created = await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Jazz" },
    });
    const collection = await created.json();
    const filter = await (await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: { tags: ["jazz"], collectionId: collection.id },
    })).json();
    const client = await (await call(ctx, "POST", "/api/client", {
      json: {
        client_name: "Calendar app",
        redirect_uris: "https://app.example/cb",
      },
    })).json();
    const pages = [
      "/admin/fediverse",
      "/admin/fediverse/instances/gancio.example",
      "/admin/collections",
      `/admin/collections/${collection.id}`,
      `/admin/collections/${collection.id}/delete`,
      "/admin/clients",
      `/admin/clients/${client.client_id}/delete`,
    ];
    const posts: [string, Fields][] = [
      ["/admin/fediverse/trust", { url: "gancio.example" }],
      ["/admin/fediverse/actors/follow", { ap_id: REMOTE }],
      ["/admin/fediverse/actors/untrust", { ap_id: REMOTE }],
      ["/admin/fediverse/actors/block", { ap_id: REMOTE, blocked: "true" }],
      ["/admin/fediverse/instances/block", {
        domain: "gancio.example",
        blocked: "true",
      }],
      ["/admin/collections", { name: "New one" }],
      [`/admin/collections/${collection.id}`, { name: "Renamed" }],
      [`/admin/collections/${collection.id}/filters`, { tags: "x" }],
      [`/admin/collections/${collection.id}/filters/${filter.id}`, {
        tags: "y",
      }],
      [`/admin/collections/${collection.id}/filters/${filter.id}/delete`, {}],
      [`/admin/collections/${collection.id}/delete`, {}],
      [`/admin/clients/${client.client_id}/delete`, {}],
    ];
    const snapshot = async () => ({
      actors: await apiJson(ctx, "/api/ap_actors", admin.token),
      instances: await apiJson(ctx, "/api/instances", admin.token),
      collections: await apiJson(
        ctx,
        "/api/collections?withFilters=true",
        admin.token,
      ),
      clients: await countRows(ctx, "oauth_clients"),
      queue: await countRows(ctx, "fedify_queue"),
    });
    const before = await snapshot();

    for (const path of pages) {
      const out = await get(ctx, path);
      assert.equal(out.status, 303, path);
      assert.equal(
        out.headers.get("location"),
        `/login?next=${encodeURIComponent(path)}`,
      );
    }
    for (const role of ["user", "editor"] as const) {
      const who = await createTestUser(ctx, { role });
      const cookie = await signIn(ctx, who);
      const own = csrfOf(await page(ctx, "/account", cookie));
      for (const path of pages) {
        assert.equal((await get(ctx, path, cookie)).status, 403, path);
      }
      for (const [path, fields] of posts) {
        const res = await postForm(ctx, path, { ...fields, csrf_token: own }, {
          cookie,
        });
        assert.equal(res.status, 403, `${role} ${path}`);
      }
    }
    for (const [path, fields] of posts) {
      // A visitor is sent to sign in; nothing happens.
      const anonymous = await postForm(ctx, path, fields);
      assert.equal(anonymous.status, 303, path);
      assert.match(anonymous.headers.get("location") ?? "", /^\/login\?next=/);
      // An admin's post without the token, with a made-up one, or from another site.
      for (
        const [extra, headers] of [
          [{}, {}],
          [{ csrf_token: "x".repeat(43) }, {}],
          [{ csrf_token: admin.csrf }, { origin: "https://evil.example" }],
        ] as [Fields, Record<string, string>][]
      ) {
        const res = await postForm(ctx, path, { ...fields, ...extra }, {
          cookie: admin.cookie,
          ...headers,
        });
        assert.equal(res.status, 403, `${path} ${JSON.stringify(extra)}`);
      }
    }
    assert.deepEqual(await snapshot(), before, "nothing was written");

    // The admin opens every page; the navigation marks where they are.
    for (const path of pages) {
      const html = await page(ctx, path, admin.cookie);
      assert.match(html, /<html lang="en">/);
    }
    assert.match(
      await page(ctx, "/admin/clients", admin.cookie),
      /<a href="\/admin\/clients" aria-current="page">/,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("fediverse page: actors with their state and what each sent us (counts), instances with their actors; in Italian too", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    await seedRemote(ctx, 2, 3);
    await upsertActor(
      ctx.database.db,
      ctx.clock,
      "https://mastodon.example/users/bob",
      { type: "Person", preferredUsername: "bob" },
      { follower: true },
    );
    const html = textOf(await page(ctx, "/admin/fediverse", admin.cookie));
    assert.match(html, /Actors \(2\)/);
    assert.match(html, /Gancio Example @relay@gancio\.example/);
    assert.match(html, /Trusted · Followed/);
    assert.match(html, /Events received: 2 · Comments received: 3/);
    assert.match(html, /bob @bob@mastodon\.example/);
    assert.match(html, /Follows us/);
    assert.match(html, /Events received: 0 · Comments received: 0/);
    assert.match(html, /Instances \(2\)/);
    assert.match(html, /Actors of gancio\.example: 1/);

    const instance = textOf(
      await page(
        ctx,
        "/admin/fediverse/instances/gancio.example",
        admin.cookie,
      ),
    );
    assert.match(instance, /gancio\.example/);
    assert.match(instance, /Gancio Example/);
    assert.doesNotMatch(instance, /@bob@/);
    await page(
      ctx,
      "/admin/fediverse/instances/nowhere.example",
      admin.cookie,
      404,
    );

    const italian = textOf(
      await page(ctx, "/admin/fediverse?lang=it", admin.cookie),
    );
    assert.match(italian, /Attori \(2\)/);
    assert.match(italian, /Eventi ricevuti: 2 · Commenti ricevuti: 3/);
    assert.doesNotMatch(italian, /Events received/);
  } finally {
    ctx.close();
  }
});

Deno.test("fediverse page: trusting a loopback peer through the form records it as the API does; follow again queues a Follow; withdraw trust; block and unblock", async () => {
  const peer = await startPeer("alice");
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
  });
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    const res = await postForm(ctx, "/admin/fediverse/trust", {
      csrf_token: admin.csrf,
      url: ` ${peer.actorId} `,
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303, await res.text());
    assert.equal(res.headers.get("location"), "/admin/fediverse?done=trusted");
    const after = textOf(
      await page(ctx, "/admin/fediverse?done=trusted", admin.cookie),
    );
    assert.match(after, /The actor is trusted and a follow was sent/);
    assert.match(after, /Test alice @alice@127\.0\.0\.1:\d+/);
    assert.match(after, /Trusted · Follow not accepted yet/);
    const [actor] = (await apiJson(ctx, "/api/ap_actors", admin.token)).data;
    assert.equal(actor.ap_id, peer.actorId);
    assert.equal(actor.trusted, true);
    assert.equal(actor.instanceDomain, `127.0.0.1:${peer.port}`);

    // Follow again: one more Follow in the delivery queue.
    const queued = await countRows(ctx, "fedify_queue");
    const again = await postForm(ctx, "/admin/fediverse/actors/follow", {
      csrf_token: admin.csrf,
      ap_id: peer.actorId,
      back: "/admin/fediverse?page=1",
    }, { cookie: admin.cookie });
    assert.equal(again.status, 303);
    assert.equal(
      again.headers.get("location"),
      "/admin/fediverse?page=1&done=followed",
    );
    assert.ok((await countRows(ctx, "fedify_queue")) > queued);

    // Block (twice: the second leaves it blocked), then unblock.
    for (const blocked of ["true", "true", "false"]) {
      const r = await postForm(ctx, "/admin/fediverse/actors/block", {
        csrf_token: admin.csrf,
        ap_id: peer.actorId,
        blocked,
        back: "https://evil.example/",
      }, { cookie: admin.cookie });
      assert.equal(r.status, 303);
      assert.equal(
        r.headers.get("location"),
        `/admin/fediverse?done=${blocked === "true" ? "blocked" : "unblocked"}`,
        "back to this site only",
      );
      const [row] = (await apiJson(ctx, "/api/ap_actors", admin.token)).data;
      assert.equal(row.blocked, blocked === "true");
    }

    const untrust = await postForm(ctx, "/admin/fediverse/actors/untrust", {
      csrf_token: admin.csrf,
      ap_id: peer.actorId,
    }, { cookie: admin.cookie });
    assert.equal(untrust.status, 303);
    const [untrusted] = (await apiJson(ctx, "/api/ap_actors", admin.token))
      .data;
    assert.equal(untrusted.trusted, false);
    assert.equal(untrusted.following, false);
  } finally {
    ctx.close();
    await peer.stop();
  }
});

Deno.test("fediverse page: a refused trust (private address, garbage, empty, too long) is a 400 page with the problem next to the field, nothing written; unknown actors and instances are 404 pages", async () => {
  const peer = await startPeer("carol");
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    const cases: [string, RegExp][] = [
      [
        peer.actorId,
        /No ActivityPub actor answered there\. Addresses of private networks are refused/,
      ],
      ["not a url!!", /This is not an actor's address/],
      ["   ", /Give an address, a handle or a domain/],
      [`https://x.example/${"a".repeat(2100)}`, /Use at most 2000 characters/],
    ];
    for (const [url, problem] of cases) {
      const res = await postForm(ctx, "/admin/fediverse/trust", {
        csrf_token: admin.csrf,
        url,
      }, { cookie: admin.cookie });
      const html = await res.text();
      assert.equal(res.status, 400, url.slice(0, 40));
      assert.match(textOf(html), problem);
      assert.match(html, /aria-describedby="url-hint url-error"/);
      assert.match(html, /aria-invalid="true"/);
      if (url.trim() && url.length < 100) {
        assert.ok(html.includes(`value="${url}"`), "what was typed is kept");
      }
    }
    assert.deepEqual(peer.received, []);
    assert.equal(await countRows(ctx, "ap_users"), 0);
    assert.equal(await countRows(ctx, "instances"), 0);
    assert.equal(await countRows(ctx, "fedify_queue"), 0);

    // Unknown actor or instance: a 404 page; a form naming none: 400.
    for (
      const path of [
        "/admin/fediverse/actors/follow",
        "/admin/fediverse/actors/untrust",
        "/admin/fediverse/actors/block",
      ]
    ) {
      const res = await postForm(ctx, path, {
        csrf_token: admin.csrf,
        ap_id: "https://nowhere.example/users/x",
        blocked: "true",
      }, { cookie: admin.cookie });
      assert.equal(res.status, 404, path);
      assert.match(await res.text(), /No such actor is known/);
      const none = await postForm(ctx, path, { csrf_token: admin.csrf }, {
        cookie: admin.cookie,
      });
      assert.equal(none.status, 400, path);
    }
    await seedRemote(ctx, 0, 0);
    const neither = await postForm(ctx, "/admin/fediverse/actors/block", {
      csrf_token: admin.csrf,
      ap_id: REMOTE,
      blocked: "maybe",
    }, { cookie: admin.cookie });
    assert.equal(neither.status, 400);
    const instanceNone = await postForm(
      ctx,
      "/admin/fediverse/instances/block",
      { csrf_token: admin.csrf, domain: "gancio.example" },
      { cookie: admin.cookie },
    );
    assert.equal(instanceNone.status, 400);
    const unknownInstance = await postForm(
      ctx,
      "/admin/fediverse/instances/block",
      { csrf_token: admin.csrf, domain: "nowhere.example", blocked: "true" },
      { cookie: admin.cookie },
    );
    assert.equal(unknownInstance.status, 404);
    assert.match(await unknownInstance.text(), /No such instance is known/);
    const [actor] = (await apiJson(ctx, "/api/ap_actors", admin.token)).data;
    assert.equal(actor.blocked, false);
    const [instance] = (await apiJson(ctx, "/api/instances", admin.token))
      .data;
    assert.equal(instance.blocked, false);
  } finally {
    ctx.close();
    await peer.stop();
  }
});

Deno.test("fediverse page: an admin blocks an instance from the page and the API shows it blocked (and from the instance's own page, unblocks it)", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    await seedRemote(ctx, 1, 0);
    const res = await postForm(ctx, "/admin/fediverse/instances/block", {
      csrf_token: admin.csrf,
      domain: "gancio.example",
      blocked: "true",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303);
    const [instance] = (await apiJson(ctx, "/api/instances", admin.token))
      .data;
    assert.equal(instance.domain, "gancio.example");
    assert.equal(instance.blocked, true);
    const html = textOf(
      await page(ctx, "/admin/fediverse?done=blocked", admin.cookie),
    );
    assert.match(html, /Blocked\./);
    assert.match(html, /gancio\.example Gancio Example Blocked/);

    const back = "/admin/fediverse/instances/gancio.example";
    const unblock = await postForm(ctx, "/admin/fediverse/instances/block", {
      csrf_token: admin.csrf,
      domain: "gancio.example",
      blocked: "false",
      back,
    }, { cookie: admin.cookie });
    assert.equal(unblock.headers.get("location"), `${back}?done=unblocked`);
    const [open] = (await apiJson(ctx, "/api/instances", admin.token)).data;
    assert.equal(open.blocked, false);
  } finally {
    ctx.close();
  }
});

Deno.test("fediverse page: with federation switched off, or absent, the page says so and trusting is refused (400); blocks still work", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    await seedRemote(ctx, 0, 0);
    await call(ctx, "PUT", "/api/settings", {
      token: admin.token,
      json: { enable_federation: false },
    });
    const html = textOf(await page(ctx, "/admin/fediverse", admin.cookie));
    assert.match(html, /Federation is switched off/);
    assert.doesNotMatch(html, /Withdraw trust/);
    const res = await postForm(ctx, "/admin/fediverse/trust", {
      csrf_token: admin.csrf,
      url: "gancio.example",
    }, { cookie: admin.cookie });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /Federation is switched off/);
    const untrust = await postForm(ctx, "/admin/fediverse/actors/untrust", {
      csrf_token: admin.csrf,
      ap_id: REMOTE,
    }, { cookie: admin.cookie });
    assert.equal(untrust.status, 400);
    const [actor] = (await apiJson(ctx, "/api/ap_actors", admin.token)).data;
    assert.equal(actor.trusted, true, "nothing changed");

    // A server built without federation.
    const bare = {
      app: createApp({
        database: ctx.database,
        config: ctx.config,
        clock: ctx.clock,
        hasher,
        log: silentLogger,
        media: createDbMediaStore(ctx.database.db, ctx.clock),
      }),
      config: ctx.config,
    };
    const cookie = await signIn(bare, admin);
    const bareHtml = await page(bare, "/admin/fediverse", cookie);
    assert.match(textOf(bareHtml), /This server runs without federation/);
    const csrf = csrfOf(bareHtml);
    const refused = await postForm(bare, "/admin/fediverse/trust", {
      csrf_token: csrf,
      url: "gancio.example",
    }, { cookie });
    assert.equal(refused.status, 400);
    const follow = await postForm(bare, "/admin/fediverse/actors/follow", {
      csrf_token: csrf,
      ap_id: REMOTE,
    }, { cookie });
    assert.equal(follow.status, 400);
    const block = await postForm(bare, "/admin/fediverse/actors/block", {
      csrf_token: csrf,
      ap_id: REMOTE,
      blocked: "true",
    }, { cookie });
    assert.equal(block.status, 303);
    const [blocked] = (await apiJson(ctx, "/api/ap_actors", admin.token)).data;
    assert.equal(blocked.blocked, true);
  } finally {
    ctx.close();
  }
});

Deno.test("collections page: create, rename, add, edit and delete filters, delete after confirmation; the API sees the same; the public page lists what the filter selects", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    await seedRemote(ctx, 1, 0);
    const jazz = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Jazz night",
        start_datetime: NOW + DAY,
        place_name: "Cantina",
        tags: ["Jazz"],
      },
    });
    assert.equal(jazz.status, 201);
    const rock = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json: {
        title: "Rock night",
        start_datetime: NOW + 2 * DAY,
        place_name: "Garage",
        tags: ["rock"],
      },
    });
    const rockEvent = await rock.json();

    const created = await postForm(ctx, "/admin/collections", {
      csrf_token: admin.csrf,
      name: "  Live music ",
    }, { cookie: admin.cookie });
    assert.equal(created.status, 303);
    const location = created.headers.get("location") ?? "";
    const match = /^\/admin\/collections\/(\d+)\?done=created$/.exec(location);
    assert.ok(match, location);
    const id = Number(match[1]);
    const base = `/admin/collections/${id}`;
    const list = await page(ctx, "/admin/collections", admin.cookie);
    assert.match(list, /href="\/collection\/Live%20music"/);

    const add = await postForm(ctx, `${base}/filters`, {
      csrf_token: admin.csrf,
      tags: "jazz, rock",
      actors: ["local", REMOTE],
    }, { cookie: admin.cookie });
    assert.equal(add.status, 303);
    assert.equal(add.headers.get("location"), `${base}?done=added`);
    const exclude = await postForm(ctx, `${base}/filters`, {
      csrf_token: admin.csrf,
      places: String(rockEvent.place.id),
      negate: "true",
    }, { cookie: admin.cookie });
    assert.equal(exclude.status, 303);
    const filters = await apiJson(
      ctx,
      `/api/collections/${id}/filters`,
      admin.token,
    );
    assert.equal(filters.length, 2);
    assert.deepEqual(filters[0].tags, ["jazz", "rock"]);
    assert.deepEqual(filters[0].actors, [{ ap_id: null }, { ap_id: REMOTE }]);
    assert.equal(filters[0].negate, false);
    assert.deepEqual(filters[1].places, [{
      id: rockEvent.place.id,
      name: "Garage",
    }]);
    assert.equal(filters[1].negate, true);
    const detail = textOf(await page(ctx, `${base}?done=added`, admin.cookie));
    assert.match(detail, /Filter added\./);
    assert.match(
      detail,
      /Includes events with tags jazz, rock and from this instance, Gancio Example/,
    );
    assert.match(detail, /Excludes events with places Garage/);
    assert.match(detail, /Public page: \/collection\/Live music/);
    const events = await (await call(
      ctx,
      "GET",
      "/api/collections/Live%20music/events",
    )).json();
    assert.deepEqual(events.events.map((e: { title: string }) => e.title), [
      "Jazz night",
    ]);
    const publicPage = await (await get(ctx, "/collection/Live%20music"))
      .text();
    assert.match(publicPage, /Jazz night/);
    assert.doesNotMatch(publicPage, /Rock night/);

    // Edit the first filter: only rock now, the exclusion still there.
    const edit = await postForm(ctx, `${base}/filters/${filters[0].id}`, {
      csrf_token: admin.csrf,
      tags: "rock",
    }, { cookie: admin.cookie });
    assert.equal(edit.status, 303);
    const edited = await apiJson(
      ctx,
      `/api/collections/${id}/filters`,
      admin.token,
    );
    assert.deepEqual(edited[0].tags, ["rock"]);
    assert.deepEqual(edited[0].actors, []);
    const removed = await postForm(
      ctx,
      `${base}/filters/${filters[1].id}/delete`,
      { csrf_token: admin.csrf },
      { cookie: admin.cookie },
    );
    assert.equal(removed.status, 303);
    assert.equal(
      (await apiJson(ctx, `/api/collections/${id}/filters`, admin.token))
        .length,
      1,
    );

    const renamed = await postForm(ctx, base, {
      csrf_token: admin.csrf,
      name: "Gigs",
    }, { cookie: admin.cookie });
    assert.equal(renamed.status, 303);
    const [collection] = await apiJson(ctx, "/api/collections", admin.token);
    assert.equal(collection.name, "Gigs");

    const confirm = textOf(await page(ctx, `${base}/delete`, admin.cookie));
    assert.match(confirm, /Delete the collection Gigs\?/);
    assert.match(confirm, /Its filters \(1\) are deleted with it/);
    assert.equal(
      await countRows(ctx, "collections"),
      1,
      "asking deletes nothing",
    );
    const deleted = await postForm(ctx, `${base}/delete`, {
      csrf_token: admin.csrf,
    }, { cookie: admin.cookie });
    assert.equal(deleted.status, 303);
    assert.equal(
      deleted.headers.get("location"),
      "/admin/collections?done=deleted",
    );
    assert.deepEqual(await apiJson(ctx, "/api/collections", admin.token), []);
    assert.equal(await countRows(ctx, "filters"), 0);
    await page(ctx, base, admin.cookie, 404);
  } finally {
    ctx.close();
  }
});

Deno.test("collections page: bad names and filters are 400 pages with the problem next to the field and what was typed kept, nothing written; a taken name 409; unknown ids 404 pages", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    const one = await (await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "One" },
    })).json();
    const two = await (await call(ctx, "POST", "/api/collections", {
      token: admin.token,
      json: { name: "Two" },
    })).json();
    const filterOfTwo = await (await call(ctx, "POST", "/api/filters", {
      token: admin.token,
      json: { tags: ["x"], collectionId: two.id },
    })).json();
    const snapshot = async () =>
      JSON.stringify(
        await apiJson(ctx, "/api/collections?withFilters=true", admin.token),
      );
    const before = await snapshot();

    for (const name of ["", "   ", "n".repeat(101)]) {
      const res = await postForm(ctx, "/admin/collections", {
        csrf_token: admin.csrf,
        name,
      }, { cookie: admin.cookie });
      assert.equal(res.status, 400, JSON.stringify(name));
      const html = await res.text();
      assert.match(html, /Give a name of 1 to 100 characters/);
      assert.match(html, /aria-describedby="name-error"/);
      const rename = await postForm(ctx, `/admin/collections/${one.id}`, {
        csrf_token: admin.csrf,
        name,
      }, { cookie: admin.cookie });
      assert.equal(rename.status, 400);
    }
    const taken = await postForm(ctx, "/admin/collections", {
      csrf_token: admin.csrf,
      name: "Two",
    }, { cookie: admin.cookie });
    assert.equal(taken.status, 409);
    assert.match(await taken.text(), /A collection has this name/);
    const takenRename = await postForm(ctx, `/admin/collections/${one.id}`, {
      csrf_token: admin.csrf,
      name: "Two",
    }, { cookie: admin.cookie });
    assert.equal(takenRename.status, 409);

    const badFilters: [Fields, RegExp][] = [
      [{ tags: "ok", actors: "not a url" }, /Choose at most 50 from the list/],
      [{ places: "abc" }, /Choose at most 50 places from the list/],
      [
        { tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(",") },
        /At most 50 tags/,
      ],
      [{ tags: "x".repeat(101) }, /At most 50 tags/],
    ];
    for (const [fields, problem] of badFilters) {
      const res = await postForm(ctx, `/admin/collections/${one.id}/filters`, {
        csrf_token: admin.csrf,
        ...fields,
      }, { cookie: admin.cookie });
      assert.equal(res.status, 400, JSON.stringify(fields).slice(0, 60));
      const html = await res.text();
      assert.match(textOf(html), problem);
      assert.match(html, /The filter was not saved/);
      if (typeof fields.tags === "string" && fields.tags.length < 50) {
        assert.ok(html.includes(`value="${fields.tags}"`), "tags kept");
      }
      const edit = await postForm(
        ctx,
        `/admin/collections/${two.id}/filters/${filterOfTwo.id}`,
        { csrf_token: admin.csrf, ...fields },
        { cookie: admin.cookie },
      );
      assert.equal(edit.status, 400);
      assert.match(await edit.text(), /<details open>/);
    }
    assert.equal(await snapshot(), before, "nothing was written");

    // Unknown or foreign ids: 404 pages, nothing written.
    const notFound: [string, Fields][] = [
      ["/admin/collections/999", { name: "X" }],
      ["/admin/collections/abc", { name: "X" }],
      ["/admin/collections/999/filters", { tags: "x" }],
      [`/admin/collections/${one.id}/filters/${filterOfTwo.id}`, { tags: "y" }],
      [`/admin/collections/${one.id}/filters/${filterOfTwo.id}/delete`, {}],
      ["/admin/collections/999/filters/1/delete", {}],
      ["/admin/collections/999/delete", {}],
    ];
    for (const [path, fields] of notFound) {
      const res = await postForm(ctx, path, {
        csrf_token: admin.csrf,
        ...fields,
      }, { cookie: admin.cookie });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    }
    for (
      const path of [
        "/admin/collections/999",
        "/admin/collections/abc",
        "/admin/collections/999/delete",
      ]
    ) {
      const html = await page(ctx, path, admin.cookie, 404);
      assert.match(html, /No such collection/);
    }
    assert.equal(await snapshot(), before, "nothing was written");
  } finally {
    ctx.close();
  }
});

Deno.test("clients page: registered apps with their redirect URIs, scopes and users; deleting one (after confirmation) ends its tokens at once; unknown ids are 404 pages", async () => {
  const ctx = await createTestApp();
  try {
    const admin = await signedInWithCsrf(ctx, "admin", "/admin/fediverse");
    const member = await createTestUser(ctx, { role: "user" });
    // oauthAccessToken registers "Test app" and runs the whole flow.
    const token = await oauthAccessToken(ctx, member);
    const [client] = await ctx.database.db.select({ id: oauthClients.id })
      .from(oauthClients);
    assert.equal(
      (await call(ctx, "GET", "/api/events/mine", { token })).status,
      200,
    );
    const other = await (await call(ctx, "POST", "/api/client", {
      json: {
        client_name: "Unused app",
        redirect_uris: "https://unused.example/cb com.example.app:/cb",
        website: "https://unused.example",
      },
    })).json();

    const html = textOf(await page(ctx, "/admin/clients", admin.cookie));
    assert.match(html, /Applications registered through the API \(2\)/);
    assert.match(
      html,
      /Test app Redirect addresses: https:\/\/app\.example\/callback Scopes: event:write Registered: Jun 1, 2026, 12:00 PM Users who authorised it: 1/,
    );
    assert.match(
      html,
      /Unused app https:\/\/unused\.example Redirect addresses: https:\/\/unused\.example\/cb com\.example\.app:\/cb/,
    );
    assert.match(html, /Users who authorised it: 0/);

    const confirm = textOf(
      await page(ctx, `/admin/clients/${client.id}/delete`, admin.cookie),
    );
    assert.match(confirm, /Delete the app Test app\?/);
    assert.match(confirm, /Users who authorised it: 1\./);
    assert.equal(await countRows(ctx, "oauth_clients"), 2);

    const res = await postForm(ctx, `/admin/clients/${client.id}/delete`, {
      csrf_token: admin.csrf,
    }, { cookie: admin.cookie });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/admin/clients?done=deleted");
    const refused = await call(ctx, "GET", "/api/events/mine", { token });
    assert.equal(refused.status, 401);
    assert.equal(await countRows(ctx, "oauth_clients"), 1);
    assert.equal(await countRows(ctx, "oauth_grants"), 0);
    assert.equal(await countRows(ctx, "oauth_tokens"), 0);
    assert.equal(await countRows(ctx, "oauth_codes"), 0);
    const after = textOf(
      await page(ctx, "/admin/clients?done=deleted", admin.cookie),
    );
    assert.match(after, /The app was deleted/);
    assert.doesNotMatch(after, /Test app/);
    assert.match(after, /Unused app/);

    for (const id of [client.id, "nope", "x".repeat(300)]) {
      await page(ctx, `/admin/clients/${id}/delete`, admin.cookie, 404);
      const again = await postForm(ctx, `/admin/clients/${id}/delete`, {
        csrf_token: admin.csrf,
      }, { cookie: admin.cookie });
      assert.equal(again.status, 404);
      assert.match(await again.text(), /No such app is registered/);
    }
    assert.equal(await countRows(ctx, "oauth_clients"), 1);
    assert.ok(other.client_id);
  } finally {
    ctx.close();
  }
});

Deno.test("lib: deleteClient removes the client, its grants, tokens and codes in one batch, and says false for an unknown client", async () => {
  const ctx = await createTestApp();
  try {
    const member = await createTestUser(ctx, { role: "user" });
    await oauthAccessToken(ctx, member);
    const [client] = await ctx.database.db.select({ id: oauthClients.id })
      .from(oauthClients);
    assert.equal(await deleteClient(ctx.database.db, "unknown"), false);
    assert.equal(await countRows(ctx, "oauth_tokens") > 0, true);
    assert.equal(await deleteClient(ctx.database.db, client.id), true);
    for (
      const table of [
        "oauth_clients",
        "oauth_grants",
        "oauth_tokens",
        "oauth_codes",
      ]
    ) {
      assert.equal(await countRows(ctx, table), 0, table);
    }
    assert.equal(await countRows(ctx, "users"), 1, "the user stays");
  } finally {
    ctx.close();
  }
});
