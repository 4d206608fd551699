/**
 * The HTTP signature scheme of deliveries, against peers on loopback, counting
 * the requests of each delivery:
 * - a Pleroma-shaped inbox (200 to every POST, keeping only what it can verify
 *   as draft-cavage) receives every delivery, one request each;
 * - a Gancio-shaped inbox that answers 500 to an Update it cannot read gets
 *   one request per delivery, no second knock, and stays draft-cavage;
 * - a peer that takes only RFC 9421 (401 to draft-cavage) gets its
 *   deliveries by the second knock, and is then sent RFC 9421 first.
 */
import assert from "node:assert/strict";
import { verifyRequest } from "@fedify/fedify";
import { getDocumentLoader } from "@fedify/vocab-runtime";
import { addFollower } from "./support/roundtrips.ts";
import {
  call,
  createTestApp,
  createTestUser,
  eventually,
  loginToken,
  type TestContext,
} from "./helpers.ts";

type Json = Record<string, unknown>;
type Scheme = "cavage" | "rfc9421";

/** One POST an inbox received. */
interface Received {
  scheme: Scheme | null;
  /** The activity's type and id. */
  type: string;
  id: string;
  status: number;
}

/** A document loader reading the instance's documents (its keys) through the app. */
function appLoader(ctx: TestContext) {
  const contexts = getDocumentLoader();
  return async (url: string) => {
    if (!url.startsWith(ctx.config.baseUrl)) return await contexts(url);
    const path = url.replace(ctx.config.baseUrl, "").split("#")[0];
    const res = await ctx.app.request(path, {
      headers: { accept: "application/activity+json" },
    });
    assert.equal(res.status, 200, url);
    return { contextUrl: null, documentUrl: url, document: await res.json() };
  };
}

/** Whether `request` carries a valid signature of the instance actor. */
async function signedByInstance(
  ctx: TestContext,
  request: Request,
): Promise<boolean> {
  const key = await verifyRequest(request, {
    documentLoader: appLoader(ctx),
    contextLoader: getDocumentLoader(),
  });
  return key?.ownerId?.href === `${ctx.config.baseUrl}/federation/u/relay`;
}

function schemeOf(request: Request): Scheme | null {
  if (request.headers.has("signature-input")) return "rfc9421";
  if (request.headers.has("signature")) return "cavage";
  return null;
}

/**
 * An instance (its queue running, deliveries never retried, so that each
 * delivery is one attempt) with one follower whose shared inbox is a
 * loopback server answering as `answer` says; every POST is recorded.
 */
async function withPeer(
  answer: (
    request: Request,
    body: Json,
    ctx: TestContext,
  ) => Promise<number> | number,
  fn: (peer: {
    ctx: TestContext;
    received: Received[];
    post(title: string): Promise<number>;
    update(id: number, title: string): Promise<void>;
    /** Waits for `count` requests, then a little for a stray second knock. */
    settle(count: number): Promise<void>;
  }) => Promise<void>,
) {
  const ctx = await createTestApp({
    env: { ALLOW_PRIVATE_ADDRESSES: "true" },
    now: new Date().toISOString(),
    federation: { outboxRetryPolicy: () => null },
  });
  const received: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method !== "POST") return new Response(null, { status: 404 });
      const body = await request.clone().json() as Json;
      const status = await answer(request, body, ctx);
      received.push({
        scheme: schemeOf(request),
        type: String(body.type),
        id: String(body.id),
        status,
      });
      return new Response(status === 200 ? '"ok"' : null, { status });
    },
  );
  const inbox = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/inbox`;
  const stop = new AbortController();
  const queue = ctx.federation.startQueue(stop.signal);
  try {
    await addFollower(ctx, inbox);
    const user = await createTestUser(ctx);
    const token = await loginToken(ctx, user.email, user.password);
    const start = Math.floor(Date.now() / 1000) + 86_400;
    await fn({
      ctx,
      received,
      async post(title) {
        const res = await call(ctx, "POST", "/api/events", {
          token,
          json: { title, start_datetime: start, place_name: "Hall" },
        });
        const event = await res.json();
        assert.equal(res.status, 201, JSON.stringify(event));
        return event.id;
      },
      async update(id, title) {
        const res = await call(ctx, "PATCH", `/api/events/${id}`, {
          token,
          json: { title },
        });
        assert.equal(res.status, 200, await res.text());
      },
      async settle(count) {
        await eventually(
          `${count} requests`,
          () => received.length >= count || undefined,
          10_000,
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      },
    });
  } finally {
    stop.abort();
    await queue;
    ctx.close();
    await server.shutdown();
  }
}

/** The requests of each delivery (one activity id), in order: their schemes. */
function perDelivery(received: Received[]): string[][] {
  const byId = new Map<string, string[]>();
  for (const r of received) {
    const list = byId.get(r.id) ?? [];
    list.push(`${r.type} ${r.scheme} ${r.status}`);
    byId.set(r.id, list);
  }
  return [...byId.values()];
}

Deno.test("a Pleroma-shaped inbox (200 to every POST, keeping only what verifies as draft-cavage) receives every delivery, one request each", async () => {
  const kept: string[] = [];
  await withPeer(async (request, body, ctx) => {
    // As Pleroma: "ok" at once; the signature is checked later, as
    // draft-cavage, and what fails is dropped.
    if (
      schemeOf(request) === "cavage" && await signedByInstance(ctx, request)
    ) {
      kept.push(String(body.id));
    }
    return 200;
  }, async ({ received, post, update, settle }) => {
    const first = await post("First");
    await settle(1);
    await update(first, "First (moved)");
    await settle(2);
    await post("Second");
    await settle(3);
    assert.deepEqual(perDelivery(received), [
      ["Create cavage 200"],
      ["Update cavage 200"],
      ["Create cavage 200"],
    ]);
    assert.deepEqual(
      kept.toSorted(),
      received.map((r) => r.id).toSorted(),
      "every delivery kept",
    );
  });
});

Deno.test("a Gancio-shaped inbox that answers 500 to an Update it cannot read gets one request per delivery, no second knock, and stays draft-cavage", async () => {
  await withPeer(async (request, body, ctx) => {
    // Gancio verifies draft-cavage only; an RFC 9421 request makes it fail.
    if (
      schemeOf(request) !== "cavage" || !await signedByInstance(ctx, request)
    ) {
      return 500;
    }
    // Its Update handler reads what it cannot find: a 500, not about the
    // signature.
    return body.type === "Update" ? 500 : 202;
  }, async ({ received, post, update, settle }) => {
    const first = await post("First");
    await settle(1);
    await update(first, "First (moved)");
    await settle(2);
    await post("Second");
    await settle(3);
    assert.deepEqual(perDelivery(received), [
      ["Create cavage 202"],
      ["Update cavage 500"],
      // The failed Update left the scheme as it was.
      ["Create cavage 202"],
    ]);
  });
});

Deno.test("a peer that takes only RFC 9421 (401 to draft-cavage) gets its deliveries by the second knock, and is then sent RFC 9421 first", async () => {
  await withPeer(async (request, _body, ctx) => {
    if (schemeOf(request) !== "rfc9421") return 401;
    return await signedByInstance(ctx, request) ? 202 : 401;
  }, async ({ received, post, settle }) => {
    await post("First");
    await settle(2);
    await post("Second");
    await settle(3);
    await post("Third");
    await settle(4);
    assert.deepEqual(perDelivery(received), [
      ["Create cavage 401", "Create rfc9421 202"],
      ["Create rfc9421 202"],
      ["Create rfc9421 202"],
    ]);
  });
});
