/**
 * The API reference (/api/docs) through `app.request()`, parsed with a real
 * HTML parser (linkedom): served by the instance with a policy that allows no
 * script and no other origin, every operation of /api/openapi.json listed
 * with what the document says about it; and the renderer itself on crafted
 * documents: text stays text, `$ref` cycles and blow-ups end.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { createTestApp, type TestContext, text } from "./helpers.ts";
import { apiDocsRenderer } from "../routes/views/api-docs.tsx";

/** The parts of a DOM element the tests use (the type check has no DOM library). */
interface El {
  id: string;
  nodeType: number;
  childNodes: Iterable<El>;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
  tagName: string;
}

interface Doc extends El {
  documentElement: El;
  title: string;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

function parse(html: string): Doc {
  return (parseHTML(html) as unknown as { document: Doc }).document;
}

function $$(root: El, selector: string): El[] {
  return [...root.querySelectorAll(selector)];
}

/** Text with runs of white space as one space. */

/** Text with elements apart, as a reader hears it: "name string required 1–200". */
function words(el: El | null): string {
  // Adjacent text nodes (entities split them) stay together.
  const walk = (node: El): string =>
    node.nodeType === 3
      ? node.textContent ?? ""
      : ` ${[...node.childNodes].map(walk).join("")} `;
  return el
    ? walk(el).replace(/\s+/g, " ").replace(/ ([,.:;)])/g, "$1").trim()
    : "";
}

/** The directives of a Content-Security-Policy header. */
function directives(csp: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of csp.split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

/** "METHOD /path" → operation, from the document. */
function operationsOf(doc: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (METHODS.includes(method)) {
        out.set(`${method.toUpperCase()} ${path}`, op);
      }
    }
  }
  return out;
}

async function withApp(fn: (ctx: TestContext) => Promise<void>) {
  const ctx = await createTestApp();
  try {
    await fn(ctx);
  } finally {
    ctx.close();
  }
}

Deno.test("GET /api/docs: HTML from the instance under a policy with no script and no other origin", async () => {
  await withApp(async (ctx) => {
    const res = await ctx.app.request("/api/docs");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    const policy = directives(csp);
    assert.deepEqual(policy.get("default-src"), ["'none'"], csp);
    // Scripts fall back to default-src 'none'; nothing may re-allow them.
    for (const name of ["script-src", "script-src-elem", "script-src-attr"]) {
      assert.ok(!policy.has(name), `${name} in ${csp}`);
    }
    const nonce = policy.get("style-src")?.[0]?.match(
      /^'nonce-([A-Za-z0-9_-]{16,})'$/,
    )?.[1];
    assert.ok(nonce, `style-src is one nonce: ${csp}`);
    assert.equal(policy.get("style-src")!.length, 1);
    assert.deepEqual(policy.get("frame-ancestors"), ["'none'"]);
    // Every source is a keyword, the nonce or data: (the inline icon): no host, no scheme that reaches out.
    for (const [name, sources] of policy) {
      for (const source of sources) {
        assert.match(
          source,
          /^('none'|'nonce-[A-Za-z0-9_-]+'|data:)$/,
          `${name} allows ${source}`,
        );
      }
    }

    const html = await res.text();
    const doc = parse(html);
    assert.equal($$(doc, "script").length, 0, "no script element");
    assert.doesNotMatch(html, /<script|javascript:/i);
    for (const tag of html.match(/<[a-z][^>]*>/g) ?? []) {
      assert.doesNotMatch(tag, /\son[a-z]+=|\sstyle=/i, tag);
    }
    const styles = $$(doc, "style");
    assert.equal(styles.length, 1);
    assert.equal(styles[0].getAttribute("nonce"), nonce);
    assert.equal($$(doc, 'link[rel="stylesheet"]').length, 0);
    // Nothing is loaded from anywhere: no src, and every link stays here.
    assert.equal($$(doc, "[src]").length, 0);
    for (const el of $$(doc, "[href]")) {
      const href = el.getAttribute("href")!;
      assert.match(href, /^(#[A-Za-z0-9_-]+|\/(?!\/)[^\s]*|data:,)$/, href);
    }
    assert.equal(doc.documentElement.getAttribute("lang"), "en");
    assert.equal(doc.title, "Quando API reference");

    // A fresh nonce per response over the same page.
    const again = await ctx.app.request("/api/docs");
    const nonce2 = directives(
      again.headers.get("content-security-policy") ?? "",
    ).get("style-src")?.[0]?.slice(7, -1);
    assert.ok(nonce2 && nonce2 !== nonce);
    assert.equal((await again.text()).replace(nonce2, nonce), html);
  });
});

Deno.test("GET /api/docs: every operation of /api/openapi.json, with its summary, description, security, parameters, body and responses", async () => {
  await withApp(async (ctx) => {
    const spec = await (await ctx.app.request("/api/openapi.json")).json();
    const operations = operationsOf(spec);
    assert.ok(operations.size > 40);
    const doc = parse(await (await ctx.app.request("/api/docs")).text());

    const articles = new Map<string, El>();
    for (const article of $$(doc, "article.op")) {
      const name = text(article.querySelector("h3.op-title"));
      assert.ok(!articles.has(name), `${name} twice`);
      articles.set(name, article);
    }
    assert.deepEqual(
      [...articles.keys()].sort(),
      [...operations.keys()].sort(),
    );

    for (const [name, op] of operations) {
      const article = articles.get(name)!;
      const body = text(article);
      const heard = words(article);
      const flat = (s: string) => s.replace(/`/g, "").replace(/\s+/g, " ");
      if (op.summary) assert.ok(body.includes(flat(op.summary)), name);
      if (op.description) {
        assert.ok(body.includes(flat(op.description)), `${name}: description`);
      }
      assert.match(
        heard,
        op.security?.length
          ? /Authentication: Bearer token/
          : /Authentication: None/,
        name,
      );
      for (const p of op.parameters ?? []) {
        assert.ok(
          heard.includes(`${p.name} `) && heard.includes(`in ${p.in}`),
          `${name}: parameter ${p.name}`,
        );
      }
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const item = $$(article, ".responses > li").find((li) =>
          text(li.querySelector(".status")) === status
        );
        assert.ok(item, `${name}: response ${status}`);
        assert.ok(text(item).includes(flat(response.description)));
        const ref: string | undefined = response.content?.["application/json"]
          ?.schema?.$ref;
        if (ref) {
          const schema = ref.split("/").pop()!;
          const link = $$(item, "a.schema-link").find((a) =>
            text(a) === schema
          );
          assert.ok(link, `${name} ${status}: link to ${schema}`);
          const target = doc.querySelector(link.getAttribute("href")!);
          assert.equal(text(target?.querySelector("h3") ?? null), schema);
        }
      }
      // Every TOC entry leads to its operation.
      assert.ok(
        doc.querySelector(`nav a[href="#${article.id}"]`),
        `${name} in the contents`,
      );
    }

    // The request body is spelled out: properties, types, required, limits, enums, examples.
    const create = articles.get("POST /api/events")!;
    const props = new Map(
      $$(create, ".block .props > li").map((li) => [
        text(li.querySelector(".name")),
        words(li),
      ]),
    );
    assert.match(props.get("title") ?? "", /^title string required 1–200/);
    assert.match(
      props.get("start_datetime") ?? "",
      /integer required Unix seconds 0–7258118399 Example: 1900000000/,
    );
    assert.match(props.get("end_datetime") ?? "", /integer or null/);
    assert.match(
      props.get("status") ?? "",
      /One of: "EventScheduled", "EventCancelled"/,
    );
    assert.match(
      props.get("online_locations") ?? "",
      /array of string \(uri\)/,
    );
    assert.match(props.get("url") ?? "", /string required pattern/);
    for (
      const type of [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
      ]
    ) {
      assert.ok(
        $$(create, ".content-types code").some((c) => text(c) === type),
        type,
      );
    }
    // Parameters: place, requirement, enum, example.
    const feed = words(articles.get("GET /feed/{format}")!);
    assert.match(
      feed,
      /format string in path required One of: "ics", "rss", "atom", "json" Example: "ics"/,
    );
    assert.match(feed, /past_days integer in query Also list events/);

    // The overview: the error shape, the authentication, the document.
    const overview = words(doc.querySelector("section.overview"));
    // The error shape, said first: the document's own description under the h1.
    const lede = doc.querySelector("h1 + p.lede");
    assert.equal(text(lede), spec.info.description);
    assert.match(text(lede), /Errors are \{error, message, details\?\}/);
    assert.match(
      overview,
      /error string required .*message string required .*details array of object/,
    );
    assert.match(overview, /Bearer token in the header Authorization: Bearer/);
    assert.ok(overview.includes(
      spec.components.securitySchemes.bearerAuth
        .description,
    ));
    assert.ok(doc.querySelector('main a[href="/api/openapi.json"]'));
    assert.ok(doc.querySelector('header a[href="/api/openapi.json"]'));

    // Headings in order under one h1; landmarks named.
    const levels = $$(doc, "h1, h2, h3, h4, h5, h6").map((h) =>
      Number(h.tagName[1])
    );
    assert.equal(levels[0], 1);
    assert.equal(levels.filter((l) => l === 1).length, 1);
    for (let i = 1; i < levels.length; i++) {
      assert.ok(
        levels[i] <= levels[i - 1] + 1,
        `h${levels[i - 1]} → h${levels[i]}`,
      );
    }
    const nav = doc.querySelector("nav")!;
    assert.equal(
      text(doc.querySelector(`#${nav.getAttribute("aria-labelledby")}`)),
      "Contents",
    );
    assert.ok(doc.querySelector("main#main"));
    assert.ok(doc.querySelector('a.skip[href="#main"]'));
  });
});

Deno.test("GET /api/docs: rendered once per app, from that app's own document", async () => {
  const first = await createTestApp();
  const second = await createTestApp({
    env: { BASE_URL: "https://other.example" },
  });
  try {
    let calls = 0;
    const original = first.app.getOpenAPI31Document;
    first.app.getOpenAPI31Document = (...args) => {
      calls++;
      return original(...args);
    };
    const a1 = await (await first.app.request("/api/docs")).text();
    await (await first.app.request("/api/docs")).text();
    await (await first.app.request("/api/docs")).text();
    assert.equal(calls, 1, "the document is read once");
    const b = await (await second.app.request("/api/docs")).text();
    assert.ok(a1.includes("<code>http://quando.test</code>"));
    assert.ok(b.includes("<code>https://other.example</code>"));
    assert.ok(!b.includes("http://quando.test"));
  } finally {
    first.close();
    second.close();
  }
});

// --- the renderer on crafted documents ---

const XSS = `<script>alert(1)</script>`;
const BREAKOUT = `"><img src=x onerror=alert(2)>`;

Deno.test("renderer: every text of the document is text, never markup", async () => {
  const doc = {
    openapi: "3.1.0",
    info: {
      title: `Evil ${XSS}`,
      version: BREAKOUT,
      description: `Errors ${XSS} and \`<b>code</b>\``,
    },
    servers: [{ url: `javascript:alert(3)${BREAKOUT}` }],
    tags: [{ name: `tag${BREAKOUT}`, description: XSS }],
    components: {
      securitySchemes: {
        [`s${BREAKOUT}`]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: XSS,
          description: XSS,
        },
      },
      schemas: {
        [`Name${BREAKOUT}`]: {
          type: "object",
          title: XSS,
          properties: {
            [`p${XSS}`]: {
              type: "string",
              description: XSS,
              enum: [XSS, BREAKOUT],
              example: XSS,
              default: BREAKOUT,
              pattern: XSS,
              format: XSS,
            },
          },
          required: [`p${XSS}`],
        },
      },
    },
    paths: {
      [`/x/${BREAKOUT}/{id}`]: {
        post: {
          tags: [`tag${BREAKOUT}`],
          summary: `Summary ${XSS}`,
          description: `Description ${XSS}\n\nSecond \`${XSS}\` paragraph`,
          security: [{ [`s${BREAKOUT}`]: [XSS] }],
          parameters: [{
            name: `id${BREAKOUT}`,
            in: `path${XSS}`,
            required: true,
            description: XSS,
            schema: { type: "string", enum: [XSS], minimum: XSS },
            example: BREAKOUT,
          }],
          requestBody: {
            description: XSS,
            content: {
              [`application/json${XSS}`]: {
                schema: {
                  $ref: `#/components/schemas/Name${
                    encodeURIComponent(BREAKOUT)
                  }`,
                },
                example: XSS,
              },
            },
          },
          responses: {
            [`200${XSS}`]: {
              description: XSS,
              headers: { [`X-${XSS}`]: { schema: { type: "string" } } },
              content: {
                "application/json": { schema: { $ref: `#/${BREAKOUT}` } },
              },
            },
          },
        },
      },
    },
  };
  const html = (await apiDocsRenderer(doc))("n0nce");
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /<img/i);
  assert.doesNotMatch(html, /<b>/);
  assert.doesNotMatch(html, /href="javascript:/i);
  // Every attribute value is one quoted token free of quotes: nothing broke out.
  for (const tag of html.match(/<[a-z][^>]*>/g) ?? []) {
    assert.match(
      tag,
      /^<[a-z0-9]+(\s[a-z-]+(="[^"<>]*")?)*\s?\/?>$/,
      `a tag that does not parse cleanly: ${tag}`,
    );
  }
  const page = parse(html);
  const all = text(page.querySelector("body"));
  for (
    const shown of [
      `Summary ${XSS}`,
      `Description ${XSS}`,
      `Second ${XSS} paragraph`,
      `p${XSS}`,
      `id${BREAKOUT}`,
      `"${XSS.replace(/"/g, '\\"')}"`,
    ]
  ) {
    assert.ok(all.includes(shown), `shown as text: ${shown}`);
  }
  // Code spans are elements whose content is text.
  assert.ok(
    $$(page, "code").some((c) => text(c) === "<b>code</b>"),
    "`<b>code</b>` is a code element with that text",
  );
  assert.ok($$(page, "code").some((c) => text(c) === XSS));
  assert.equal(page.querySelector("style")?.getAttribute("nonce"), "n0nce");
});

/** Renders in a worker, so a renderer that never ends fails the test instead of hanging it. */
async function renderBounded(
  doc: unknown,
  ms: number,
): Promise<{ length: number; html: string }> {
  const view = new URL("../routes/views/api-docs.tsx", import.meta.url).href;
  const source = `import { apiDocsRenderer } from ${JSON.stringify(view)};
self.onmessage = async (e) => {
  try {
    const html = (await apiDocsRenderer(e.data))("n");
    self.postMessage({ html: html.slice(0, 4_000_000), length: html.length });
  } catch (error) {
    self.postMessage({ error: String(error && error.stack || error) });
  }
};`;
  const url = URL.createObjectURL(
    new Blob([source], { type: "application/javascript" }),
  );
  const worker = new Worker(url, { type: "module" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no page after ${ms} ms`)),
        ms,
      );
      worker.onmessage = (e) =>
        e.data.error
          ? reject(new Error(`the renderer threw: ${e.data.error}`))
          : resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`the worker failed: ${e.message}`));
      };
      worker.postMessage(doc);
    });
  } finally {
    clearTimeout(timer);
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}

Deno.test("renderer: $ref cycles, self-references, diamonds and dangling refs end in a bounded page", async () => {
  // S0 → S1 → ... → S39, two properties each: 2^40 paths if spelled out naively.
  const diamond: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    diamond[`S${i}`] = {
      type: "object",
      properties: {
        left: { $ref: `#/components/schemas/S${i + 1}` },
        right: {
          type: "array",
          items: { $ref: `#/components/schemas/S${i + 1}` },
        },
      },
    };
  }
  diamond.S40 = { type: "string" };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const doc = {
    openapi: "3.1.0",
    info: { title: "Cycles", version: "1" },
    components: {
      schemas: {
        ...diamond,
        A: {
          type: "object",
          properties: { b: ref("B"), name: { type: "string" } },
        },
        B: { type: "object", properties: { a: ref("A") }, required: ["a"] },
        Node: {
          type: "object",
          properties: {
            value: { type: "integer" },
            children: { type: "array", items: ref("Node") },
            parent: { anyOf: [ref("Node"), { type: "null" }] },
          },
        },
        Loop: {
          allOf: [ref("Loop"), { properties: { x: { type: "string" } } }],
        },
        Alias: ref("Alias"),
        Missing: { type: "object", properties: { gone: ref("Nowhere") } },
        Remote: { $ref: "https://schemas.example/remote.json" },
      },
      parameters: {
        P: { $ref: "#/components/parameters/P" },
      },
      requestBodies: {
        Body: { $ref: "#/components/requestBodies/Body" },
      },
    },
    paths: {
      "/a": {
        post: {
          summary: "Mutual recursion",
          requestBody: {
            content: { "application/json": { schema: ref("A") } },
          },
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: ref("Node") } },
            },
          },
        },
        put: {
          summary: "Self-reference and allOf loop",
          requestBody: {
            content: {
              "application/json": { schema: ref("Node") },
              "text/plain": { schema: ref("Loop") },
            },
          },
          responses: { "204": { description: "done" } },
        },
      },
      "/diamond": {
        post: {
          summary: "Exponential",
          parameters: [{ $ref: "#/components/parameters/P" }],
          requestBody: {
            content: { "application/json": { schema: ref("S0") } },
          },
          responses: { "default": { $ref: "#/components/responses/Nope" } },
        },
      },
      "/odd": {
        patch: {
          summary: "Dangling and remote refs",
          requestBody: { $ref: "#/components/requestBodies/Body" },
          parameters: [{ name: "q", in: "query", schema: ref("Alias") }],
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: ref("Remote") } },
            },
            "400": {
              description: "bad",
              content: { "application/json": { schema: ref("Missing") } },
            },
          },
        },
      },
    },
  };
  // Nobody is asked for a remote schema.
  const fetched: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL) => {
    fetched.push(String(input));
    return Promise.reject(new Error("no network"));
  };
  let result: { length: number; html: string };
  try {
    result = await renderBounded(doc, 20_000);
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.deepEqual(fetched, []);
  assert.ok(result.length < 2_000_000, `${result.length} characters`);
  const page = parse(result.html);
  const titles = $$(page, "h3.op-title").map(text).sort();
  assert.deepEqual(titles, [
    "PATCH /odd",
    "POST /a",
    "POST /diamond",
    "PUT /a",
  ]);
  // A → B → A is spelled out once, then named as recursive with a link.
  const mutual = page.querySelector("#op-post-a")!;
  const recursive = $$(mutual, ".recursive");
  assert.equal(recursive.length, 1);
  assert.match(text(recursive[0]), /Recursive: A contains itself/);
  assert.equal(
    recursive[0].querySelector("a")?.getAttribute("href"),
    "#schema-a",
  );
  assert.deepEqual(
    $$(mutual, ".block .props .name").map(text),
    ["b", "a", "name"],
  );
  // Node's children are Nodes: one level, then the link.
  const self = words(page.querySelector("#op-put-a"));
  assert.match(self, /children array of Node Recursive: Node contains itself/);
  assert.match(self, /parent Node or null/);
  // The diamond is cut short, and says so.
  const exp = page.querySelector("#op-post-diamond")!;
  assert.equal($$(exp, ".truncated").length, 1);
  assert.ok(text(exp).length < 200_000, `${text(exp).length} characters`);
  // Dangling and remote refs are shown as what they are.
  const odd = words(page.querySelector("#op-patch-odd"));
  assert.match(odd, /q Alias in query/);
  assert.match(odd, /200 ok application\/json: Remote/);
  assert.match(
    words(page.querySelector("#schema-missing")),
    /gone #\/components\/schemas\/Nowhere/,
  );
  assert.match(
    words(page.querySelector("#schema-remote")),
    /Schema: https:\/\/schemas\.example\/remote\.json/,
  );
});

Deno.test("renderer: an in-memory object cycle (not JSON) and a malformed document still render", async () => {
  const node: Record<string, unknown> = { type: "object", properties: {} };
  (node.properties as Record<string, unknown>).self = node;
  (node.properties as Record<string, unknown>).list = {
    type: "array",
    items: node,
  };
  node.allOf = [node, node];
  const doc = {
    info: { title: "Loops" },
    paths: {
      "/loop": {
        post: {
          summary: "An object that contains itself",
          requestBody: { content: { "application/json": { schema: node } } },
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: node } },
            },
          },
        },
      },
      "/junk": { get: "not an operation", post: { responses: [1, 2] } },
      "/null": null,
    },
    components: { schemas: { N: node, Bad: 42, Worse: null } },
    tags: "not a list",
  };
  const { html } = await renderBounded(doc, 20_000);
  const page = parse(html);
  assert.deepEqual($$(page, "h3.op-title").map(text).sort(), [
    "POST /junk",
    "POST /loop",
  ]);
  assert.ok(html.length < 2_000_000);
  // Nothing at all is a page too.
  for (const nothing of [null, 42, "x", [], {}]) {
    const empty = parse((await apiDocsRenderer(nothing))("n"));
    assert.equal(text(empty.querySelector("h1")), "API reference");
  }
});
