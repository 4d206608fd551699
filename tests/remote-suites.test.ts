/**
 * The API, OAuth, federation, feed and backup suites again, on a remote database: the
 * same test files run in a child `deno test` with QUANDO_TEST_DATABASE=hrana,
 * so every app they build talks to tests/support/hrana-server.ts (Hrana over
 * HTTP, as Turso serves it) instead of the embedded engine.
 */
import assert from "node:assert/strict";

const SUITES = [
  "tests/events.test.ts",
  "tests/oauth.test.ts",
  "tests/federation.test.ts",
  "tests/feeds.test.ts",
  "tests/backup.test.ts",
  "tests/pages-browse.test.ts",
];

Deno.test("the API, OAuth, federation, feed and browse-page suites pass on a remote (Hrana) database", async () => {
  const root = new URL("..", import.meta.url);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--config", "deno.dev.json", "--allow-all", ...SUITES],
    cwd: root,
    env: { QUANDO_TEST_DATABASE: "hrana", NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  const summary = out.split("\n").filter((l) => /^(ok|FAILED) \|/.test(l))
    .at(-1);
  console.log(`remote database run: ${summary ?? "(no summary)"}`);
  const failures = out.split("\n").filter((l) => / \.\.\. FAILED/.test(l));
  assert.equal(
    code,
    0,
    `failed on the remote database:\n${failures.join("\n")}\n${
      out.slice(-3000)
    }`,
  );
  assert.match(summary ?? "", /^ok \| [1-9]\d* passed/);
});
