/**
 * The egress guard (lib/net/egress.ts, lib/net/pinned-egress.ts): which addresses a
 * fetch of a URL chosen by others may reach, what a refusal says (never the
 * address a name resolved to), and that on Deno the connection goes to the
 * address that was checked, resolved once.
 */
import assert from "node:assert/strict";
import { lookup } from "node:dns/promises";
import { createPinnedEgress } from "../lib/net/pinned-egress.ts";
import { isPublicAddress } from "../lib/net/address.ts";
import {
  ADDRESS_NOT_ALLOWED,
  allowedAddresses,
  createPortableEgress,
  type Resolver,
} from "../lib/net/egress.ts";
import { createDocumentLoader } from "../lib/federation/loader.ts";
import { call, createTestApp, userWithToken } from "./helpers.ts";
import { addFollower } from "./support/roundtrips.ts";

const NOT_PUBLIC = [
  // IPv4
  "0.0.0.0",
  "0.255.255.255",
  "10.0.0.1",
  "10.255.255.255",
  "100.64.0.1",
  "100.127.255.255",
  "127.0.0.1",
  "127.255.255.254",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.0.2.1",
  "192.88.99.1",
  "192.168.1.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  // IPv6
  "::",
  "::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.1.2.3",
  "::127.0.0.1",
  "64:ff9b::127.0.0.1",
  "64:ff9b::a00:1",
  "64:ff9b:1::1",
  "100::1",
  "2001::1",
  "2001:1ff:ffff::1",
  "2001:db8::1",
  "2002:7f00:1::1",
  "2002:a00:1::1",
  "3fff::1",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "febf::1",
  "fec0::1",
  "fec0:0000:0000:0000:0000:0000:0000:0001",
  "FEC0::1",
  "feff::1",
  "ff02::1",
  "[fec0::1]",
  // Not addresses at all: refused, never guessed.
  "",
  "localhost",
  "1.2.3",
  "1::2::3",
  "12345::1",
];

const PUBLIC = [
  "1.1.1.1",
  "8.8.8.8",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "2001:200::1",
  "::ffff:8.8.8.8",
  "64:ff9b::8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "[2606:4700::1]",
];

Deno.test("address table: every special-purpose range is refused (fec0::/10 included), embedded IPv4 is checked, public addresses pass", () => {
  for (const address of NOT_PUBLIC) {
    assert.equal(isPublicAddress(address), false, `${address} is refused`);
  }
  for (const address of PUBLIC) {
    assert.equal(isPublicAddress(address), true, `${address} is public`);
  }
});

Deno.test("address table: odd spellings of URL hosts (decimal, hex, octal IPv4; bracketed IPv6) are refused", async () => {
  const never: Resolver = () => {
    throw new Error("an IP host is never resolved");
  };
  for (
    const href of [
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0x7f.1/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://0/",
      "http://[::ffff:127.0.0.1]/",
      "http://[0:0:0:0:0:ffff:7f00:1]/",
      "http://[fec0::1]/",
      "http://[FEC0:0::1]:8080/",
      "http://[fe80::1]/",
      "http://[::]/",
      "http://169.254.169.254/latest/meta-data/",
    ]
  ) {
    const { hostname } = new URL(href);
    await assert.rejects(
      allowedAddresses(hostname, never, false),
      (error: Error) => error.message === ADDRESS_NOT_ALLOWED,
      href,
    );
  }
  // A name is refused when any of its addresses is not public.
  await assert.rejects(
    allowedAddresses(
      "mixed.example",
      () => Promise.resolve(["8.8.8.8", "10.0.0.1"]),
      false,
    ),
    { message: ADDRESS_NOT_ALLOWED },
  );
  assert.deepEqual(
    await allowedAddresses(
      "public.example",
      () => Promise.resolve(["8.8.8.8"]),
      false,
    ),
    ["8.8.8.8"],
  );
  // ALLOW_PRIVATE_ADDRESSES lets loopback through.
  assert.deepEqual(
    await allowedAddresses(
      "local.example",
      () => Promise.resolve(["127.0.0.1"]),
      true,
    ),
    ["127.0.0.1"],
  );
});

Deno.test('sources: a feed at [fec0::1] (site-local) is refused with "address not allowed"', async () => {
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const res = await call(ctx, "POST", "/api/sources", {
      token: admin.token,
      json: { url: "http://[fec0::1]/calendar.ics" },
    });
    const body = await res.json();
    assert.equal(body.result, "failed");
    assert.match(body.source.last_error, /address not allowed/);
    const listed = await (await call(ctx, "GET", "/api/sources", {
      token: admin.token,
    })).json();
    assert.match(JSON.stringify(listed), /address not allowed/);
  } finally {
    ctx.close();
  }
});

/** A resolver that answers from a table, counting its calls. */
function tableResolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve: Resolver = (hostname) => {
    calls.push(hostname);
    const found = table[hostname];
    if (!found) {
      return Promise.reject(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: "ENOTFOUND",
        }),
      );
    }
    return Promise.resolve(found);
  };
  return { resolve, calls };
}

Deno.test('sources and .ics imports: a name resolving to an internal address says "address not allowed", never the address; an unknown name says the same', async () => {
  const { resolve } = tableResolver({
    "intranet.example": ["10.20.30.40"],
    "printer.example": ["fd00::1234"],
  });
  for (
    const egress of [
      createPortableEgress({ resolve }),
      createPinnedEgress({ resolve }),
    ]
  ) {
    const ctx = await createTestApp({ egress });
    try {
      const admin = await userWithToken(ctx, "admin");
      const errors: string[] = [];
      for (
        const host of ["intranet.example", "printer.example", "nowhere.example"]
      ) {
        const body = await (await call(ctx, "POST", "/api/sources", {
          token: admin.token,
          json: { url: `http://${host}/calendar.ics` },
        })).json();
        assert.equal(body.result, "failed");
        errors.push(body.source.last_error);
        assert.equal(
          body.source.last_error,
          `The feed could not be read: http://${host}/calendar.ics: address not allowed`,
        );
      }
      // An image of an imported file: the problem says the same.
      const res = await ctx.app.request("/api/events/import", {
        method: "POST",
        headers: {
          authorization: `Bearer ${admin.token}`,
          "content-type": "text/calendar",
        },
        body: [
          "BEGIN:VCALENDAR",
          "VERSION:2.0",
          "PRODID:-//Quando tests//EN",
          "BEGIN:VEVENT",
          "UID:poster@x",
          "DTSTART:20260701T100000Z",
          "SUMMARY:Poster",
          "LOCATION:Hall",
          "IMAGE;VALUE=URI:http://intranet.example/poster.png",
          "END:VEVENT",
          "END:VCALENDAR",
        ].join("\r\n"),
      });
      assert.equal(res.status, 200);
      const outcome = await res.json();
      const text = JSON.stringify(outcome.problems);
      assert.match(text, /address not allowed/);
      for (const said of [...errors, text]) {
        assert.doesNotMatch(said, /10\.20\.30\.40|fd00|ENOTFOUND|private/i);
      }
    } finally {
      ctx.close();
    }
  }
});

Deno.test("sources: this machine's own name (resolved by the system) is refused without its address", async (t) => {
  const name = Deno.hostname();
  let addresses: string[] = [];
  try {
    addresses = (await lookup(name, { all: true })).map((a) => a.address);
  } catch {
    // Not resolvable here.
  }
  if (addresses.length === 0 || addresses.every(isPublicAddress)) {
    await t.step({
      name: "the host name resolves to no internal address here",
      ignore: true,
      fn() {},
    });
    return;
  }
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const body = await (await call(ctx, "POST", "/api/sources", {
      token: admin.token,
      json: { url: `http://${name}:9/calendar.ics` },
    })).json();
    assert.match(body.source.last_error, /address not allowed/);
    for (const address of addresses) {
      assert.ok(
        !body.source.last_error.includes(address),
        `${body.source.last_error} names ${address}`,
      );
    }
  } finally {
    ctx.close();
  }
});

/** A loopback server that records the requests it gets. */
function loopbackServer() {
  const hits: { host: string | null; path: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      hits.push({ host: request.headers.get("host"), path: url.pathname });
      if (url.pathname === "/hop") {
        return new Response(null, {
          status: 302,
          headers: { location: "/actor" },
        });
      }
      return Response.json({
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${url.origin}/actor`,
        type: "Person",
      }, { headers: { "content-type": "application/activity+json" } });
    },
  );
  return { port: server.addr.port, hits, close: () => server.shutdown() };
}

Deno.test("pinned egress: one resolution per connection, and the connection goes to the address that resolution answered", async () => {
  const server = loopbackServer();
  try {
    // First answer: the loopback server; a second resolution would answer
    // another address, where nothing listens.
    let calls = 0;
    const egress = createPinnedEgress({
      resolve: () => {
        calls++;
        return Promise.resolve(calls === 1 ? ["127.0.0.1"] : ["127.0.0.2"]);
      },
    });
    const res = await egress(
      new Request(`http://peer.example:${server.port}/actor`),
      { allowPrivateAddress: true },
    );
    assert.equal(res.status, 200);
    assert.equal((await res.json()).type, "Person");
    assert.equal(calls, 1, "resolved once");
    assert.deepEqual(server.hits, [{
      host: `peer.example:${server.port}`,
      path: "/actor",
    }]);

    // Rebinding: the name answers a public address, then loopback. The
    // checked (public) answer is the one connected to: loopback is never
    // reached, and the name is not resolved a second time.
    calls = 0;
    const rebinding = createPinnedEgress({
      resolve: () => {
        calls++;
        return Promise.resolve(calls === 1 ? ["198.20.0.1"] : ["127.0.0.1"]);
      },
    });
    await assert.rejects(
      rebinding(new Request(`http://rebind.example:${server.port}/actor`), {
        allowPrivateAddress: false,
        signal: AbortSignal.timeout(1_000),
      }),
    );
    assert.equal(calls, 1, "resolved once");
    assert.equal(server.hits.length, 1, "loopback never reached");

    // The other order: the first answer is internal, so it is refused
    // before any connection.
    let first = true;
    const internalFirst = createPinnedEgress({
      resolve: () => {
        const answer = first ? ["127.0.0.1"] : ["198.20.0.1"];
        first = false;
        return Promise.resolve(answer);
      },
    });
    await assert.rejects(
      internalFirst(new Request(`http://rebind.example:${server.port}/actor`), {
        allowPrivateAddress: false,
      }),
      { message: ADDRESS_NOT_ALLOWED },
    );
    assert.equal(server.hits.length, 1, "loopback never reached");
  } finally {
    await server.close();
  }
});

Deno.test("pinned egress: the document loader works through it (redirects, ALLOW_PRIVATE_ADDRESSES on loopback), and a refused connection does not name the address", async () => {
  const server = loopbackServer();
  try {
    const { resolve, calls } = tableResolver({ "peer.example": ["127.0.0.1"] });
    const egress = createPinnedEgress({ resolve });
    const open = createDocumentLoader({
      allowPrivateAddress: true,
      userAgent: "test",
      egress,
    });
    const doc = await open(`http://peer.example:${server.port}/hop`);
    assert.equal(
      (doc.document as { id: string }).id,
      `http://peer.example:${server.port}/actor`,
    );
    assert.equal(calls.length, 2, "one resolution per hop");

    const strict = createDocumentLoader({
      allowPrivateAddress: false,
      userAgent: "test",
      egress,
    });
    const before = server.hits.length;
    await assert.rejects(
      strict(`http://peer.example:${server.port}/actor`),
      (error: Error) =>
        /address not allowed/.test(error.message) &&
        !error.message.includes("127.0.0.1"),
    );
    assert.equal(server.hits.length, before, "nothing reached");

    // Nothing listens there: "could not connect", not the socket's words.
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    for (
      const loader of [
        open,
        createDocumentLoader({ allowPrivateAddress: true, userAgent: "test" }),
      ]
    ) {
      await assert.rejects(
        loader(`http://127.0.0.1:${port}/actor`),
        (error: Error) =>
          error.message === `http://127.0.0.1:${port}/actor: could not connect`,
      );
    }
  } finally {
    await server.close();
  }
});

Deno.test("add_trust: an actor URL is fetched through the guarded loader only; when that fails, no second request (Fedify's WebFinger fallback) goes out", async () => {
  // Every fetch of the process is answered here, so nothing leaves the
  // machine; the host is a public address literal, which the guard lets by
  // (a documentation-range one it would refuse).
  const asked: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    asked.push(new URL(url).pathname);
    return Promise.resolve(new Response("not here", { status: 404 }));
  };
  const ctx = await createTestApp();
  try {
    const admin = await userWithToken(ctx, "admin");
    const res = await call(ctx, "POST", "/api/ap_actors/add_trust", {
      token: admin.token,
      json: { url: "http://93.184.216.34/users/gone" },
    });
    assert.equal(res.status, 400);
    await res.body?.cancel();
    assert.deepEqual(asked, ["/users/gone"]);
  } finally {
    globalThis.fetch = realFetch;
    ctx.close();
  }
});

Deno.test("deliveries: a follower whose inbox is a private address gets nothing unless ALLOW_PRIVATE_ADDRESSES (Fedify's own fetch goes through the guard)", async () => {
  const received: string[] = [];
  const inbox = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      received.push(new URL(request.url).pathname);
      await request.body?.cancel();
      return new Response(null, { status: 202 });
    },
  );
  const counts: Record<string, number> = {};
  try {
    for (const allow of [false, true]) {
      const ctx = await createTestApp({
        env: allow ? { ALLOW_PRIVATE_ADDRESSES: "true" } : {},
        federation: { manualQueue: true },
        // The queue's clock is the system's.
        now: new Date().toISOString(),
      });
      const stop = new AbortController();
      const queue = ctx.federation.startQueue(stop.signal);
      try {
        await addFollower(ctx, `http://127.0.0.1:${inbox.addr.port}/inbox`);
        const member = await userWithToken(ctx, "user");
        const start = Math.floor(Date.now() / 1000) + 86_400;
        const res = await call(ctx, "POST", "/api/events", {
          token: member.token,
          json: { title: "Picnic", start_datetime: start, place_name: "Park" },
        });
        assert.equal(res.status, 201);
        await res.body?.cancel();
        const before = received.length;
        for (let i = 0; i < 5; i++) {
          await ctx.federation.drainQueue({ maxMs: 500 });
        }
        counts[String(allow)] = received.length - before;
      } finally {
        stop.abort();
        await queue;
        ctx.close();
      }
    }
  } finally {
    await inbox.shutdown();
  }
  assert.deepEqual(counts, { false: 0, true: 1 });
});
