/**
 * Embedding through `app.request()`: `/embed.js` (type, CORS, caching, size,
 * a script that compiles), `/api/instance`, the framed list `/embed` with
 * each option and bad values (400), its policy letting any site frame it
 * while every other page refuses, the public-read cache keeping one entry
 * per list whatever order its options come in, and `/embed/new` writing
 * both snippets with escaped values. Every page parses without error.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { parse, parseFragment } from "parse5";
import { EMBED_MAX_DEFAULT } from "../lib/embed/options.ts";
import { translator } from "../lib/i18n.ts";
import {
  call,
  createTestApp,
  type El,
  parseErrors,
  type TestContext,
  text,
  userWithToken,
} from "./helpers.ts";

const TZ = "Europe/Rome";
const BASE = "http://quando.test";
/** 19:00 in Rome; "now" is 2026-06-01T12:00Z. */
const START = Date.parse("2026-06-06T17:00:00Z") / 1000;
const DAY = 86_400;

function dom(html: string) {
  const { document } = parseHTML(html) as unknown as { document: El };
  return {
    document,
    $: (s: string) => document.querySelector(s),
    $$: (s: string) => [...document.querySelectorAll(s)],
  };
}

/** A parse5 node, as far as these tests read it. */
interface Parse5Node {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  value?: string;
  childNodes?: Parse5Node[];
}

/** The text of the textarea `id`, as a browser reads it (entities decoded). */
function textareaText(html: string, id: string): string {
  const find = (node: Parse5Node): Parse5Node | null => {
    if (
      node.nodeName === "textarea" &&
      node.attrs?.some((a) => a.name === "id" && a.value === id)
    ) {
      return node;
    }
    for (const child of node.childNodes ?? []) {
      const found = find(child);
      if (found) return found;
    }
    return null;
  };
  const area = find(parse(html) as unknown as Parse5Node);
  assert.ok(area, id);
  return (area.childNodes ?? []).map((n) => n.value ?? "").join("");
}

interface World {
  ctx: TestContext;
  cantina: number;
  piazza: number;
  slugs: Record<string, string>;
}

/** Rome's instance: jazz and a cancelled film at the Cantina, folk at the Piazza, an untagged talk. */
async function world(): Promise<World> {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const settings = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Quando Bologna",
      instance_timezone: TZ,
      instance_locale: "en-GB",
    },
  });
  assert.equal(settings.status, 200, await settings.text());
  const create = async (json: Record<string, unknown>) => {
    const res = await call(ctx, "POST", "/api/events", {
      token: admin.token,
      json,
    });
    const body = await res.text();
    assert.equal(res.status, 201, body);
    return JSON.parse(body) as {
      id: number;
      slug: string;
      place: { id: number } | null;
    };
  };
  const jazz = await create({
    title: "Jazz at the Cantina",
    start_datetime: START,
    end_datetime: START + 2 * 3600,
    place_name: "Cantina Bentivoglio",
    tags: ["Jazz"],
  });
  const folk = await create({
    title: "Folk evening",
    start_datetime: START + DAY,
    place_name: "Piazza Maggiore",
    tags: ["folk"],
  });
  const film = await create({
    title: "Film night",
    start_datetime: START + 2 * DAY,
    place_name: "Cantina Bentivoglio",
    tags: ["cinema"],
    status: "EventCancelled",
  });
  const talk = await create({
    title: 'A talk <b>with</b> "quotes"',
    start_datetime: START + 3 * DAY,
    online_locations: ["https://stream.example.org/talk"],
  });
  return {
    ctx,
    cantina: jazz.place!.id,
    piazza: folk.place!.id,
    slugs: {
      jazz: jazz.slug,
      folk: folk.slug,
      film: film.slug,
      talk: talk.slug,
    },
  };
}

async function page(ctx: TestContext, path: string, headers = {}) {
  const res = await ctx.app.request(path, { headers });
  const html = await res.text();
  return { res, html, ...dom(html) };
}

const titles = (d: ReturnType<typeof dom>) => d.$$("li a.t").map(text);

Deno.test("/embed.js: one small script for any origin, typed, long-cacheable by its ETag, that compiles", async () => {
  const { ctx } = await world();
  try {
    const res = await ctx.app.request("/embed.js");
    const body = await res.text();
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      "text/javascript; charset=utf-8",
    );
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(
      res.headers.get("cross-origin-resource-policy"),
      "cross-origin",
    );
    const maxAge = Number(
      /max-age=(\d+)/.exec(res.headers.get("cache-control") ?? "")?.[1],
    );
    assert.ok(maxAge >= 3600, res.headers.get("cache-control") ?? "");
    assert.match(res.headers.get("cache-control")!, /^public/);
    const etag = res.headers.get("etag")!;
    assert.match(etag, /^"[\w-]{43}"$/);
    // Small: about 6.5 KB as it is, about 3 KB compressed.
    const size = new TextEncoder().encode(body).length;
    assert.ok(size < 7 * 1024, `${size} bytes`);
    const gzipped = await new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    assert.ok(gzipped.byteLength < 3.5 * 1024, `${gzipped.byteLength} bytes`);
    // It compiles (without running: a function body is only parsed).
    new Function(body);
    assert.ok(body.includes(JSON.stringify(BASE)), "the instance's origin");
    assert.ok(body.includes("customElements.define(NAME"));
    assert.ok(!/innerHTML|outerHTML|insertAdjacentHTML|eval\(/.test(body));
    // Nothing but this instance is ever asked.
    assert.deepEqual(
      [...body.matchAll(/https?:\/\/[^"'\s)]+/g)].map((m) => m[0]),
      [BASE],
    );
    for (const lang of ["en", "it", "fr", "es", "de"]) {
      assert.ok(
        body.includes(JSON.stringify(translator(lang)("public.embed.heading"))),
        lang,
      );
    }
    // The same script again, then not again: 304 by its ETag.
    const again = await ctx.app.request("/embed.js");
    assert.equal(again.headers.get("etag"), etag);
    assert.equal(await again.text(), body);
    const conditional = await ctx.app.request("/embed.js", {
      headers: { "if-none-match": etag },
    });
    assert.equal(conditional.status, 304);
    assert.equal(await conditional.text(), "");
    assert.equal(conditional.headers.get("access-control-allow-origin"), "*");
    const stale = await ctx.app.request("/embed.js", {
      headers: { "if-none-match": '"something-else"' },
    });
    assert.equal(stale.status, 200);
    await stale.body?.cancel();
  } finally {
    ctx.close();
  }
});

Deno.test("/api/instance: the title, origin, time zone and locale, for anyone and any origin", async () => {
  const { ctx } = await world();
  try {
    const res = await ctx.app.request("/api/instance", {
      headers: { origin: "https://elsewhere.example" },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await res.json(), {
      title: "Quando Bologna",
      description: "",
      url: BASE,
      timezone: TZ,
      locale: "en-GB",
    });
  } finally {
    ctx.close();
  }
});

Deno.test("/embed: the filtered list, framable by any site, in the asked theme and language; dates in the instance's zone", async () => {
  const { ctx, cantina, piazza, slugs } = await world();
  try {
    const all = await page(ctx, "/embed");
    assert.equal(all.res.status, 200);
    assert.match(all.res.headers.get("content-type")!, /^text\/html/);
    assert.deepEqual(parseErrors(all.html), []);
    const csp = all.res.headers.get("content-security-policy")!;
    assert.match(csp, /frame-ancestors \*(;|$)/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(all.res.headers.get("x-frame-options"), null);
    assert.equal(all.html.includes("<script"), false);
    assert.deepEqual(titles(all), [
      "Jazz at the Cantina",
      "Folk evening",
      "Film night",
      'A talk <b>with</b> "quotes"',
    ]);
    assert.equal(all.$("main")?.className, "qe auto");
    assert.equal(all.$("html")?.getAttribute("lang"), "en-GB");
    assert.equal(text(all.$("h1")), "Upcoming events");
    // Each title links to its page, in a new tab.
    const first = all.$("li a.t")!;
    assert.equal(first.getAttribute("href"), `${BASE}/event/${slugs.jazz}`);
    assert.equal(first.getAttribute("target"), "_blank");
    assert.equal(first.getAttribute("rel"), "noopener");
    // 19:00 in Rome, written in the page's locale, with its end.
    const when = new Intl.DateTimeFormat("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "numeric",
      minute: "2-digit",
      timeZone: TZ,
    }).format(new Date(START * 1000));
    assert.equal(text(all.$("li .m")), `${when} – 21:00 · Cantina Bentivoglio`);
    assert.equal(
      all.$("li time")?.getAttribute("datetime"),
      "2026-06-06T19:00:00+02:00",
    );
    // The cancelled film says so.
    assert.equal(text(all.$$("li")[2].querySelector(".b")), "Cancelled");
    assert.equal(all.$$("li")[2].className, "h-event x");
    const more = all.$("p.more a")!;
    assert.equal(more.getAttribute("href"), `${BASE}/`);
    assert.equal(text(more), "All events on Quando Bologna");

    const check = async (query: string, expected: string[]) => {
      const p = await page(ctx, `/embed?${query}`);
      assert.equal(p.res.status, 200, query);
      assert.deepEqual(titles(p), expected, query);
      assert.deepEqual(parseErrors(p.html), [], query);
      return p;
    };
    await check("tags=jazz", ["Jazz at the Cantina"]);
    await check("tags=JAZZ,folk", ["Jazz at the Cantina", "Folk evening"]);
    await check("tags=folk&tags=cinema", ["Folk evening", "Film night"]);
    await check(`places=${cantina}`, ["Jazz at the Cantina", "Film night"]);
    await check(`places=${piazza},${cantina}&tags=folk`, ["Folk evening"]);
    await check("max=2", ["Jazz at the Cantina", "Folk evening"]);
    await check("tags=nothing-has-this", []);
    const empty = await page(ctx, "/embed?tags=nothing-has-this");
    assert.equal(text(empty.$("p.note")), "No upcoming events.");
    assert.equal(empty.$("ol"), null);
    // Empty fields are the defaults (a GET form sends them).
    await check("tags=&places=&max=&theme=&lang=", titles(all));
    const dark = await check("theme=dark&max=1", ["Jazz at the Cantina"]);
    assert.equal(dark.$("main")?.className, "qe dark");
    const light = await check("theme=light&max=1", ["Jazz at the Cantina"]);
    assert.equal(light.$("main")?.className, "qe light");
    // In Italian: words and dates.
    const it = await check("lang=it&max=1", ["Jazz at the Cantina"]);
    assert.equal(it.$("html")?.getAttribute("lang"), "it");
    assert.equal(text(it.$("h1")), "Prossimi eventi");
    const itWhen = new Intl.DateTimeFormat("it", {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "numeric",
      minute: "2-digit",
      timeZone: TZ,
    }).format(new Date(START * 1000));
    assert.ok(text(it.$("li .m")).startsWith(itWhen), text(it.$("li .m")));
    assert.equal(text(it.$("p.more")), "Tutti gli eventi su Quando Bologna");
    // `lang` is never remembered: this page lives in other sites' frames.
    assert.equal(it.res.headers.get("set-cookie"), null);
    assert.match(it.res.headers.get("cache-control")!, /^public/);
    // A language the pages do not offer: the visitor's, else the instance's.
    const pt = await page(ctx, "/embed?lang=pt-BR", {
      "accept-language": "de",
    });
    assert.equal(pt.res.status, 200);
    assert.equal(text(pt.$("h1")), "Kommende Veranstaltungen");
  } finally {
    ctx.close();
  }
});

Deno.test("/embed: bad options are a 400 page naming the option; nothing else is framable", async () => {
  const { ctx } = await world();
  try {
    const tooMany = Array.from({ length: 11 }, (_, i) => `t${i}`).join(",");
    const bad: [string, string][] = [
      ["max=0", "Number of events"],
      ["max=51", "Number of events"],
      ["max=abc", "Number of events"],
      ["max=1&max=2", "Number of events"],
      ["max=-3", "Number of events"],
      ["theme=blue", "Colours"],
      ["places=abc", "Places"],
      ["places=0", "Places"],
      ["places=1,2,3,4,5,6,7,8,9,10,11", "Places"],
      [`tags=${tooMany}`, "Tags"],
      [`tags=${"x".repeat(101)}`, "Tags"],
      ["lang=%3Cscript%3E", "Language"],
    ];
    for (const [query, field] of bad) {
      const p = await page(ctx, `/embed?${query}`);
      assert.equal(p.res.status, 400, query);
      assert.match(p.res.headers.get("content-type")!, /^text\/html/);
      assert.equal(text(p.$("h1")), "These list options are not valid", query);
      assert.ok(text(p.$("main")).includes(`“${field}”`), query);
      assert.equal(p.res.headers.get("cache-control"), "no-store");
      assert.deepEqual(parseErrors(p.html), [], query);
    }
    // Ten tags and ten places are fine.
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}`).join(",");
    assert.equal((await page(ctx, `/embed?tags=${ten}`)).res.status, 200);
    assert.equal(
      (await page(ctx, "/embed?places=1,2,3,4,5,6,7,8,9,10")).res.status,
      200,
    );
    // Every other page still refuses to be framed.
    for (const path of ["/", "/embed/new", "/embed?max=0", "/embed.js"]) {
      const res = await ctx.app.request(path);
      await res.body?.cancel();
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
      assert.match(
        res.headers.get("content-security-policy")!,
        /frame-ancestors 'none'/,
        path,
      );
    }
  } finally {
    ctx.close();
  }
});

Deno.test("/embed: the public-read cache keeps one entry per list, whatever the order and case of its options, per language", async () => {
  const { ctx } = await world();
  try {
    const nonceOf = (res: Response) =>
      /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy")!)![1];
    const get = async (path: string, headers = {}) => {
      const res = await ctx.app.request(path, { headers });
      await res.body?.cancel();
      assert.equal(res.status, 200, path);
      return nonceOf(res);
    };
    // Kept once asked for again (the cache admits a list on its second
    // request), then served from memory: the same answer, its nonce included.
    await get("/embed?tags=jazz,folk&places=2,1&theme=dark");
    const first = await get("/embed?tags=jazz,folk&places=2,1&theme=dark");
    assert.equal(
      await get("/embed?theme=dark&places=1,2&tags=FOLK&tags=jazz&max=10"),
      first,
    );
    assert.equal(
      await get(
        `/embed?places=1&places=2&tags=folk,Jazz&theme=dark&max=${EMBED_MAX_DEFAULT}&utm_source=x`,
      ),
      first,
    );
    // Another list, or another language, is another entry.
    assert.notEqual(await get("/embed?tags=jazz&places=2,1&theme=dark"), first);
    assert.notEqual(
      await get("/embed?tags=jazz,folk&places=2,1&theme=dark&lang=it"),
      first,
    );
    assert.notEqual(
      await get("/embed?tags=jazz,folk&places=2,1&theme=dark", {
        "accept-language": "fr",
      }),
      first,
    );
  } finally {
    ctx.close();
  }
});

Deno.test("/embed/new: a form, a preview and both snippets, with every value escaped; linked from every page's footer", async () => {
  const { ctx, cantina } = await world();
  try {
    const home = await page(ctx, "/");
    assert.ok(
      home.$$("footer a").some((a) => a.getAttribute("href") === "/embed/new"),
      "the footer links to /embed/new",
    );

    const plain = await page(ctx, "/embed/new");
    assert.equal(plain.res.status, 200);
    assert.deepEqual(parseErrors(plain.html), []);
    assert.equal(text(plain.$("h1")), "Show events on your website");
    const csp = plain.res.headers.get("content-security-policy")!;
    assert.match(csp, /frame-src 'self'/);
    assert.match(csp, /script-src 'nonce-[^']+'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(
      plain.$("iframe.preview")?.getAttribute("src"),
      "/embed?max=10&theme=auto",
    );
    assert.equal(plain.$("form")?.getAttribute("method"), "get");
    // Places to choose from, by name.
    assert.deepEqual(
      plain.$$("input[name=places]").map((i) => i.getAttribute("value")),
      [String(cantina), String(cantina + 1)],
    );
    // The script carries the page's nonce; the Copy buttons wait for it.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    assert.equal(plain.$("main script")?.getAttribute("nonce"), nonce);
    assert.ok(
      plain.$$("button[data-copy]").every((b) =>
        b.getAttribute("hidden") !== null
      ),
    );

    const tricky = `a"b<c>'d&e`;
    const query = new URLSearchParams({
      tags: `${tricky}, jazz`,
      places: String(cantina),
      max: "5",
      theme: "dark",
      language: "it",
    });
    const p = await page(ctx, `/embed/new?${query}`);
    assert.equal(p.res.status, 200);
    assert.deepEqual(parseErrors(p.html), []);
    // The form shows what was chosen.
    assert.equal(p.$("#embed-tags")?.getAttribute("value"), `${tricky}, jazz`);
    assert.equal(p.$("#embed-max")?.getAttribute("value"), "5");
    assert.equal(
      p.$("#embed-theme option[selected]")?.getAttribute("value"),
      "dark",
    );
    assert.equal(
      p.$("#embed-language option[selected]")?.getAttribute("value"),
      "it",
    );
    assert.equal(
      p.$(`input[name=places][value="${cantina}"]`)?.getAttribute("checked"),
      "",
    );
    // The page itself stays in English (language= is the list's).
    assert.equal(p.$("html")?.getAttribute("lang"), "en-GB");

    // The snippets, read as a website owner's page would read them.
    const element = textareaText(p.html, "snippet-element");
    const iframe = textareaText(p.html, "snippet-iframe");
    assert.ok(element.includes("&quot;b&lt;c&gt;&#39;d&amp;e"), element);
    for (const snippet of [element, iframe]) {
      const errors: string[] = [];
      parseFragment(snippet, { onParseError: (e) => errors.push(e.code) });
      assert.deepEqual(errors, [], snippet);
    }
    const owner = dom(
      `<!DOCTYPE html><html><body>${element}\n${iframe}</body></html>`,
    );
    const script = owner.$("script")!;
    assert.equal(script.getAttribute("src"), `${BASE}/embed.js`);
    assert.notEqual(script.getAttribute("async"), null);
    const widget = owner.$("quando-events")!;
    assert.equal(widget.getAttribute("tags"), `${tricky},jazz`);
    assert.equal(widget.getAttribute("places"), String(cantina));
    assert.equal(widget.getAttribute("max"), "5");
    assert.equal(widget.getAttribute("theme"), "dark");
    assert.equal(widget.getAttribute("lang"), "it");
    // Where scripts do not run, a link to the instance instead.
    assert.equal(widget.querySelector("a")?.getAttribute("href"), `${BASE}/`);
    assert.equal(text(widget.querySelector("a")), "Eventi su Quando Bologna");
    const frame = owner.$("iframe")!;
    assert.equal(frame.getAttribute("title"), "Eventi su Quando Bologna");
    const src = new URL(frame.getAttribute("src")!);
    assert.equal(src.origin + src.pathname, `${BASE}/embed`);
    assert.deepEqual(Object.fromEntries(src.searchParams), {
      tags: `${tricky},jazz`,
      places: String(cantina),
      max: "5",
      theme: "dark",
      lang: "it",
    });
    // The preview is that list.
    assert.equal(
      p.$("iframe.preview")?.getAttribute("src"),
      `/embed?${src.searchParams.toString().replace(/%2C/g, ",")}`,
    );
    // And the framed list takes the snippet's query as it is.
    const framed = await page(ctx, `${src.pathname}${src.search}`);
    assert.equal(framed.res.status, 200);
    assert.deepEqual(titles(framed), ["Jazz at the Cantina"]);
    assert.equal(framed.$("main")?.className, "qe dark");

    // Bad values: the 400 page.
    for (
      const bad of ["max=99", "language=%3Cx%3E", "theme=neon", "places=x"]
    ) {
      const res = await ctx.app.request(`/embed/new?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.deepEqual(parseErrors(await res.text()), [], bad);
    }
  } finally {
    ctx.close();
  }
});
