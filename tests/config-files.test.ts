/**
 * Two configurations (docs/CONTRIBUTING.md): deno.json holds what serving
 * needs, so `deno task start` installs only that; deno.dev.json adds the
 * test, bench and build tools for the tasks that use them. The runtime
 * packages must be the same in both, at the same versions.
 */
import assert from "node:assert/strict";
import { ROOT } from "./helpers.ts";

interface Config {
  imports: Record<string, string>;
  compilerOptions: unknown;
  tasks?: Record<string, string>;
}

const read = async (name: string): Promise<Config> =>
  JSON.parse(await Deno.readTextFile(`${ROOT}${name}`));

Deno.test("deno.dev.json has every runtime import of deno.json, at the same version, and the same compiler options", async () => {
  const run = await read("deno.json");
  const dev = await read("deno.dev.json");
  for (const [name, target] of Object.entries(run.imports)) {
    assert.equal(dev.imports[name], target, name);
  }
  assert.deepEqual(dev.compilerOptions, run.compilerOptions);
});

Deno.test("serving needs no test, bench or build tool: none is in deno.json, and the serving tasks use it", async () => {
  const run = await read("deno.json");
  for (
    const tool of [
      "playwright-core",
      "drizzle-kit",
      "esbuild",
      "@cloudflare/workerd-linux-64",
      "@fedify/testing",
      // The embedded database runs on node:sqlite; the native addon is only
      // the test Hrana server's engine.
      "libsql",
    ]
  ) {
    assert.equal(run.imports[tool], undefined, tool);
  }
  for (const task of ["start", "db:migrate", "user"]) {
    assert.doesNotMatch(run.tasks![task], /deno\.dev\.json/, task);
  }
  for (const task of ["test", "check", "bench", "worker", "db:generate"]) {
    assert.match(run.tasks![task], /--config deno\.dev\.json/, task);
  }
});

Deno.test("the browser tests launch the Chromium CHROMIUM_PATH names, else Debian's", async () => {
  const { chromiumPath } = await import("./browser.ts");
  assert.equal(chromiumPath(() => undefined), "/usr/bin/chromium");
  assert.equal(chromiumPath(() => ""), "/usr/bin/chromium");
  assert.equal(
    chromiumPath((name) =>
      name === "CHROMIUM_PATH" ? "/opt/chromium/chrome" : undefined
    ),
    "/opt/chromium/chrome",
  );
  for (const doc of ["README.md", "docs/CONTRIBUTING.md"]) {
    assert.match(await Deno.readTextFile(`${ROOT}${doc}`), /CHROMIUM_PATH/);
  }
});

Deno.test("the docs say what the code does: allow_registration, the browser test files, the fediverse identity after a restore", async () => {
  const doc = (name: string) => Deno.readTextFile(`${ROOT}docs/${name}`);
  const registration = (await doc("CONFIGURATION.md")).split("\n").find((l) =>
    l.startsWith("| `allow_registration`")
  );
  assert.ok(registration);
  assert.doesNotMatch(registration, /nothing reads it/);
  assert.match(registration, /\/register/);
  // A count of the browser test files, if the guide gives one, is right.
  let browserFiles = 0;
  for await (const entry of Deno.readDir(`${ROOT}tests`)) {
    if (entry.name.endsWith("-browser.test.ts")) browserFiles++;
  }
  const words = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
  ];
  const contributing = await doc("CONTRIBUTING.md");
  for (
    const [, count] of contributing.matchAll(
      /(\w+) (?:browser test files|`\*-browser\.test\.ts` files)|`\*-browser\.test\.ts` files, (\w+) at present/g,
    )
  ) {
    if (count === undefined) continue;
    const n = /^\d+$/.test(count) ? Number(count) : words.indexOf(count);
    if (n >= 0) assert.equal(n, browserFiles, `CONTRIBUTING.md says ${count}`);
  }
  assert.match(
    (await doc("BACKUP.md")).replace(/\s+/g, " "),
    /fediverse identity survives[^.]*same `BASE_URL`/,
  );
});
