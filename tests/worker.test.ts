/**
 * The Cloudflare Workers build, end to end: worker.ts bundled by
 * tools/worker-build.ts and served by workerd from npm (tools/worker-serve.ts,
 * what `deno task worker` runs), over a remote database (the local Hrana
 * server of tests/support/), driven over HTTP like a client would, with a
 * fediverse peer on loopback receiving signed deliveries through the
 * `waitUntil` drain and through the `scheduled` handler.
 *
 * workerd must run here: if it cannot, this test fails (it never skips).
 */
import assert from "node:assert/strict";
import { Follow } from "@fedify/vocab";
import { migrateDatabase, openDatabase } from "../db/client.ts";
import { createWasmHasher } from "../lib/auth/password.ts";
import { systemClock } from "../lib/clock.ts";
import { loadConfig } from "../lib/config.ts";
import { createFederationForDatabase } from "../lib/federation/setup.ts";
import { prepareInstance } from "../lib/instance.ts";
import { silentLogger } from "../lib/log.ts";
import { createDbMediaStore } from "../lib/media/store.ts";
import { createApp } from "../routes/mod.ts";
import { HOURLY_CRON, QUEUE_CRON, startWorker } from "../tools/worker-serve.ts";
import { startPeer } from "./fedpeer.ts";
import { apiAt as api, eventually, freePort, loginAt } from "./helpers.ts";
import { png } from "./images.ts";
import { startHranaServer } from "./support/hrana-server.ts";

const ADMIN = { email: "admin@example.org", password: "admin-password-1" };
const future = () => Math.floor(Date.now() / 1000) + 7 * 86_400;

type Json = Record<string, unknown>;

/** The Create activities the peer received for an event object. */
function createsOf(received: Json[], objectId: string): Json[] {
  return received.filter((a) =>
    a.type === "Create" &&
    (a.object as Json | undefined)?.id === objectId
  );
}

Deno.test({
  name:
    "Workers: the bundle under workerd on a remote database serves the API, pages, feeds, media, OAuth and federation, and delivers through waitUntil and scheduled",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    const hrana = await startHranaServer({ path: `${dir}/quando.db` });
    const migrating = await openDatabase(hrana.url);
    await migrateDatabase(migrating);
    migrating.close();
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    // The HTTP mail transport's API: a sink on loopback.
    const mails: { auth: string | null; body: Record<string, unknown> }[] = [];
    const mailPort = freePort();
    const mailSink = Deno.serve(
      { port: mailPort, hostname: "127.0.0.1", onListen: () => {} },
      async (request) => {
        mails.push({
          auth: request.headers.get("authorization"),
          body: await request.json(),
        });
        return Response.json({ id: "sent" });
      },
    );
    const env = {
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATABASE_URL: hrana.url,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ALLOW_PRIVATE_ADDRESSES: "true",
      LOG_LEVEL: "warning",
      // The public-read cache on, as wrangler.toml has it: hits are answered
      // in later requests than the one that filled the cache.
      PUBLIC_CACHE_MS: "1000",
      MAIL_HTTP_URL: `http://127.0.0.1:${mailPort}/emails`,
      MAIL_HTTP_TOKEN: "mail-token",
    };
    let worker;
    try {
      // No timer-driven triggers: the test fires `scheduled` itself, so it
      // knows which path delivered what.
      worker = await startWorker({
        env,
        outDir: `${dir}/build`,
        schedule: false,
      });
    } catch (err) {
      await hrana.stop();
      throw new Error(`workerd could not run the Worker: ${String(err)}`);
    }
    const peer = await startPeer("carol");
    try {
      await t.step("the bundle is within the size target", () => {
        assert.ok(
          worker.build.gzipBytes <= 1024 * 1024,
          `gzip ${worker.build.gzipBytes} bytes`,
        );
      });

      const health = await api(base, "GET", "/api/health");
      assert.equal(health.status, 200, worker.output());
      const token = await loginAt(base, ADMIN);

      await t.step("login: wrong password 401, right one a token", async () => {
        const wrong = await api(base, "POST", "/api/login/token", undefined, {
          email: ADMIN.email,
          password: "not-the-password",
        });
        assert.equal(wrong.status, 401);
        assert.equal(wrong.body.error, "invalid_credentials");
        const me = await api(base, "GET", "/api/users/me", token);
        assert.equal(me.status, 200);
        assert.equal(me.body.email, ADMIN.email);
      });

      await t.step(
        "e-mail over the HTTP transport: forgot password is mailed through waitUntil",
        async () => {
          const asked = await fetch(`${base}/forgot`, {
            method: "POST",
            headers: {
              origin: base,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: new URLSearchParams({ email: ADMIN.email }),
          });
          assert.equal(asked.status, 200);
          await asked.body?.cancel();
          const mail = await eventually(
            "the password mail",
            () => mails[0],
          ).catch((error) => {
            throw new Error(`${error}\n${worker.output()}`);
          });
          assert.equal(mail.auth, "Bearer mail-token");
          assert.equal(mail.body.to, ADMIN.email);
          assert.equal(mail.body.subject, "Quando: set your password");
          assert.match(
            String(mail.body.text),
            new RegExp(`${base}/reset/[A-Za-z0-9_-]{43}`),
          );
        },
      );

      await t.step("events: create, read, update, patch, delete", async () => {
        const created = await api(base, "POST", "/api/events", token, {
          title: "Worker picnic",
          start_datetime: future(),
          end_datetime: future() + 3600,
          place_name: "Riverside park",
          tags: ["Outdoors"],
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = created.body.id;
        const read = await api(base, "GET", `/api/events/${id}`);
        assert.equal(read.status, 200);
        assert.equal(read.body.title, "Worker picnic");
        const put = await api(base, "PUT", `/api/events/${id}`, token, {
          title: "Worker picnic, moved",
          start_datetime: future() + 86_400,
          end_datetime: future() + 90_000,
          place_name: "Riverside park",
        });
        assert.equal(put.status, 200, JSON.stringify(put.body));
        assert.equal(put.body.title, "Worker picnic, moved");
        const patched = await api(base, "PATCH", `/api/events/${id}`, token, {
          status: "EventPostponed",
        });
        assert.equal(patched.status, 200);
        assert.equal(patched.body.status, "EventPostponed");
        const bad = await api(base, "POST", "/api/events", token, {
          title: "",
          start_datetime: "soon",
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error, "invalid_request");
        const deleted = await api(base, "DELETE", `/api/events/${id}`, token);
        assert.equal(deleted.status, 204);
        assert.equal((await api(base, "GET", `/api/events/${id}`)).status, 404);
      });

      await t.step(
        "cached public reads answer again and again (a response is never reused across requests)",
        async () => {
          const created = await api(base, "POST", "/api/events", token, {
            title: "Cached on the edge",
            start_datetime: future(),
            place_name: "Square",
          });
          assert.equal(created.status, 201);
          for (
            const path of [`/api/events/${created.body.id}`, "/api/events"]
          ) {
            for (let i = 0; i < 4; i++) {
              const res = await fetch(`${base}${path}`);
              const text = await res.text();
              assert.equal(res.status, 200, `${path} #${i}: ${text}`);
              assert.match(text, /Cached on the edge/);
            }
          }
          const deleted = await api(
            base,
            "DELETE",
            `/api/events/${created.body.id}`,
            token,
          );
          assert.equal(deleted.status, 204);
          assert.equal(
            (await api(base, "GET", `/api/events/${created.body.id}`)).status,
            404,
            "this isolate's write ends the cached answer at once",
          );
        },
      );

      await t.step("a weekly series lays out its occurrences", async () => {
        const start = future();
        const series = await api(base, "POST", "/api/events", token, {
          title: "Worker yoga",
          start_datetime: start,
          end_datetime: start + 3600,
          tags: ["Weekly"],
          place_name: "Gym",
          recurrent: { frequency: "1w" },
        });
        assert.equal(series.status, 201, JSON.stringify(series.body));
        const children = series.body.children as Json[];
        assert.ok(children.length >= 4, `children: ${children.length}`);
        assert.equal(children[1].start_datetime, start + 7 * 86_400);
        const listed = await api(base, "GET", "/api/events/tag/weekly");
        assert.ok(listed.body.events.length >= 4);
      });

      let slug = "";
      await t.step("media: upload, then download the same bytes", async () => {
        const image = png(3, 2);
        const form = new FormData();
        form.append("file", new File([image], "dot.png"));
        const uploaded = await fetch(`${base}/api/media`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body: form,
        });
        const item = await uploaded.json();
        assert.equal(uploaded.status, 201, JSON.stringify(item));
        const served = await fetch(`${base}/media/${item.url}`);
        assert.equal(served.status, 200);
        assert.equal(served.headers.get("content-type"), "image/png");
        assert.deepEqual(new Uint8Array(await served.arrayBuffer()), image);
        const event = await api(base, "POST", "/api/events", token, {
          title: "Gallery night",
          start_datetime: future(),
          place_name: "Gallery",
          media: [{ url: item.url, name: "Poster", focalpoint: [0, 0] }],
        });
        assert.equal(event.status, 201, JSON.stringify(event.body));
        slug = event.body.slug;
      });

      await t.step("feeds, the public page and the consent page", async () => {
        const rss = await fetch(`${base}/feed/rss`);
        assert.equal(rss.status, 200);
        assert.match(rss.headers.get("content-type") ?? "", /xml/);
        assert.match(await rss.text(), /Gallery night/);
        const ics = await fetch(`${base}/feed/ics`);
        assert.equal(ics.status, 200);
        assert.match(await ics.text(), /BEGIN:VCALENDAR[\s\S]*Gallery night/);
        const page = await fetch(`${base}/event/${slug}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-type") ?? "", /text\/html/);
        assert.match(await page.text(), /Gallery night/);

        const client = await api(base, "POST", "/api/client", undefined, {
          client_name: "Worker app",
          redirect_uris: "https://app.example/callback",
        });
        assert.equal(client.status, 201, JSON.stringify(client.body));
        const consent = await fetch(
          `${base}/authorize?${new URLSearchParams({
            response_type: "code",
            client_id: client.body.client_id,
            redirect_uri: "https://app.example/callback",
            scope: "event:write",
            state: "s1",
          })}`,
        );
        const html = await consent.text();
        assert.equal(consent.status, 200, html);
        assert.match(html, /Worker app/);
        assert.match(html, /<form/);
        assert.equal(consent.headers.get("x-frame-options"), "DENY");
      });

      const actor = `${base}/federation/u/relay`;
      await t.step("WebFinger and the actor", async () => {
        const finger = await fetch(
          `${base}/.well-known/webfinger?resource=${encodeURIComponent(actor)}`,
        );
        assert.equal(finger.status, 200);
        const jrd = await finger.json();
        assert.ok(
          (jrd.links as Json[]).some((l) =>
            l.rel === "self" && l.href === actor
          ),
          JSON.stringify(jrd),
        );
        const res = await fetch(actor, {
          headers: { accept: "application/activity+json" },
        });
        assert.equal(res.status, 200);
        const body = await res.json();
        assert.equal(body.id, actor);
        assert.ok(body.publicKey || body.assertionMethod);
      });

      await t.step(
        "deliveries drained after the response (waitUntil)",
        async () => {
          // The peer follows the instance: the Follow is queued by the inbox,
          // handled and answered with an Accept after the inbox's response.
          await peer.send(
            actor,
            new Follow({
              id: new URL(`${peer.base}/follows/1`),
              actor: new URL(peer.actorId),
              object: new URL(actor),
            }),
          );
          await eventually(
            "the Accept",
            () => peer.received.some((a) => a.type === "Accept") || undefined,
          );
          const created = await api(base, "POST", "/api/events", token, {
            title: "Delivered from the Worker",
            start_datetime: future(),
            place_name: "Hall",
          });
          assert.equal(created.status, 201);
          const objectId = `${base}/federation/m/${created.body.id}`;
          const create = await eventually(
            "the Create at the peer",
            () => createsOf(peer.received, objectId)[0],
          );
          assert.equal(
            (create.object as Json).name,
            "Delivered from the Worker",
          );
          assert.equal(create.actor, actor);
        },
      );

      await t.step(
        "deliveries left in the queue are drained by scheduled",
        async () => {
          // Another instance process on the same database (a Deno server, or
          // an isolate that stopped before its waitUntil ran) enqueues a
          // delivery and never drains it.
          const database = await openDatabase(hrana.url);
          try {
            const config = loadConfig({ ...env, PORT: String(freePort()) });
            const hasher = await createWasmHasher();
            const { jwtSecret } = await prepareInstance(
              database,
              config,
              hasher,
              systemClock,
              silentLogger,
            );
            const federation = createFederationForDatabase(
              database,
              config,
              systemClock,
              silentLogger,
              { manualQueue: true },
            );
            const other = createApp({
              database,
              config: { ...config, jwtSecret },
              clock: systemClock,
              hasher,
              log: silentLogger,
              media: createDbMediaStore(database.db, systemClock),
              federation,
            });
            const res = await other.request("/api/events", {
              method: "POST",
              headers: {
                authorization: `Bearer ${token}`,
                "content-type": "application/json",
              },
              body: JSON.stringify({
                title: "Left in the queue",
                start_datetime: future(),
                place_name: "Hall",
              }),
            });
            assert.equal(res.status, 201);
            const objectId = `${base}/federation/m/${(await res.json()).id}`;
            await new Promise((r) => setTimeout(r, 1500));
            assert.equal(createsOf(peer.received, objectId).length, 0);
            // The every-minute trigger: awaited, so the delivery is done when
            // it returns.
            const { outcome } = await worker.scheduled(QUEUE_CRON);
            assert.equal(outcome, "ok");
            await eventually(
              "the Create after scheduled",
              () => createsOf(peer.received, objectId)[0],
              5_000,
            );
            // The hourly trigger runs the jobs.
            assert.equal((await worker.scheduled(HOURLY_CRON)).outcome, "ok");
            // Nothing was sent twice.
            await new Promise((r) => setTimeout(r, 500));
            const creates = peer.received.filter((a) => a.type === "Create");
            const ids = creates.map((a) => (a.object as Json).id);
            assert.equal(new Set(ids).size, ids.length, JSON.stringify(ids));
          } finally {
            database.close();
          }
        },
      );
    } finally {
      await mailSink.shutdown();
      await peer.stop();
      await worker.stop();
      await hrana.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
