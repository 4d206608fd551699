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
