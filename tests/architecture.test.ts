/**
 * The house rules docs/ARCHITECTURE.md states, checked on the source tree:
 * lib/ and db/ never import Hono or routes/; no file under routes/, lib/ or
 * db/ (migrations aside) is over 600 lines; the API's modules are mounted at
 * /api and write their paths without it; docs/ARCHITECTURE.md's map names
 * every folder and every route module. (Import cycles:
 * tests/import-cycles.test.ts.)
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** Every .ts/.tsx file under `folder` (relative to the repository), migrations aside. */
async function sourceFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (path !== "db/migrations") await walk(path);
      } else if (/\.tsx?$/.test(entry.name)) found.push(path);
    }
  };
  await walk(folder);
  return found.sort();
}

const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

/** The specifiers a module imports or re-exports statically. */
function importsOf(source: string): string[] {
  return [
    ...source.matchAll(
      /^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

Deno.test("architecture: lib/ and db/ import neither Hono nor routes/", async () => {
  const offenders: string[] = [];
  for (
    const file of [...await sourceFiles("lib"), ...await sourceFiles("db")]
  ) {
    for (const spec of importsOf(await read(file))) {
      if (/^(npm:)?@?hono(\/|$)|^hono/.test(spec) || /\/routes\//.test(spec)) {
        offenders.push(`${file} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("architecture: no file under routes/, lib/ or db/ is over 600 lines", async () => {
  const long: string[] = [];
  for (const folder of ["routes", "lib", "db"]) {
    for (const file of await sourceFiles(folder)) {
      const lines = (await read(file)).split("\n").length - 1;
      if (lines > 600) long.push(`${file}: ${lines}`);
    }
  }
  assert.deepEqual(long, []);
});

Deno.test("architecture: routes/api/ modules are mounted at /api and write their paths without it", async () => {
  const { ROUTE_MODULES } = await import("../routes/mod.ts");
  const problems: string[] = [];
  for (const file of await sourceFiles("routes/api")) {
    const source = await read(file);
    for (const m of source.matchAll(/\bpath: "(\/api[^"]*)"/g)) {
      problems.push(`${file} declares ${m[1]}`);
    }
    if (/: RouteModule = \{/.test(source) && !/mount: "\/api"/.test(source)) {
      problems.push(`${file}'s module is not mounted at /api`);
    }
  }
  assert.deepEqual(problems, []);
  // And the app mounts them where they say: the API's paths are under /api.
  const api = ROUTE_MODULES.filter((module) => module.mount === "/api");
  assert.ok(api.length >= 10, api.map((module) => module.name).join(", "));
});

Deno.test("architecture: docs/ARCHITECTURE.md's map names every folder of routes/, lib/ and db/ and every route module outside app/", async () => {
  const doc = await read("docs/ARCHITECTURE.md");
  const map = doc.slice(doc.indexOf("```") + 3);
  const block = map.slice(0, map.indexOf("```"));
  const missing: string[] = [];
  for (const folder of ["routes", "lib", "db", "routes/views"]) {
    for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
      if (entry.isDirectory && !block.includes(`${entry.name}/`)) {
        missing.push(`${folder}/${entry.name}/`);
      }
    }
  }
  for (
    const folder of [
      "routes/api",
      "routes/site",
      "routes/middleware",
      "routes/oauth",
      "routes/federation",
    ]
  ) {
    for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
      const name = entry.name.replace(/\.ts$/, "");
      if (
        entry.isFile &&
        !new RegExp(`(^|[^\\w-])${name}([^\\w-]|$)`).test(block)
      ) missing.push(`${folder}/${entry.name}`);
    }
  }
  assert.deepEqual(missing.sort(), []);
});
