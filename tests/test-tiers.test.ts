/**
 * The fast tier (`deno task test:fast`) is the suite minus the files its
 * `--ignore` list names in deno.json: browsers, subprocesses, the Hrana
 * remote suite and the slowest in-process federation suites. This keeps a
 * new test file that starts a process or a browser out of it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

/** What a file in the fast tier must not use, with the reason. */
const SLOW_MARKERS: [RegExp, string][] = [
  [/\bDeno\.Command\b/, "starts a subprocess"],
  [/\bstartServerProcess\b/, "starts main.ts in a subprocess"],
  [/from "\.\/browser\.ts"/, "drives Chromium"],
  [/\bspawnHranaServer\b/, "starts the Hrana server in a subprocess"],
];

function ignoredPatterns(): RegExp[] {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const task = String(config.tasks["test:fast"]);
  const list = /--ignore=(\S+)/.exec(task)?.[1];
  assert.ok(list, "test:fast has an --ignore list");
  return list.split(",").map((glob) =>
    new RegExp(
      `^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`,
    )
  );
}

Deno.test("the fast tier holds no test file that starts a subprocess or a browser", () => {
  const ignored = ignoredPatterns();
  const fast: string[] = [];
  for (const entry of Deno.readDirSync(join(ROOT, "tests"))) {
    if (!entry.isFile || !entry.name.endsWith(".test.ts")) continue;
    const path = `tests/${entry.name}`;
    if (ignored.some((re) => re.test(path))) continue;
    fast.push(path);
    const source = Deno.readTextFileSync(join(ROOT, path));
    for (const [marker, why] of SLOW_MARKERS) {
      assert.ok(
        !marker.test(source),
        `${path} ${why}: add it to the --ignore list of test:fast in deno.json`,
      );
    }
  }
  assert.ok(fast.includes("tests/test-tiers.test.ts"), "this file is fast");
  assert.ok(fast.length > 40, `only ${fast.length} files in the fast tier`);
});
