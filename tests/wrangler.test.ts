/**
 * wrangler.toml is what wrangler deploys: `wrangler deploy --dry-run`
 * (wrangler 4.153.0 from npm, the newest that runs on Node 20 here) runs the
 * [build] command, takes the bundle as it is, attaches argon2.wasm as a
 * compiled WebAssembly module, and reports the upload size.
 */
import assert from "node:assert/strict";
import { ROOT } from "./helpers.ts";

Deno.test({
  name:
    "wrangler deploy --dry-run accepts wrangler.toml: the built bundle, argon2.wasm as compiled-wasm, within 1 MiB gzip",
  sanitizeResources: false,
  async fn() {
    const outDir = await Deno.makeTempDir();
    try {
      const { code, stdout, stderr } = await new Deno.Command(
        Deno.execPath(),
        {
          args: [
            "run",
            "-A",
            "--no-lock",
            "npm:wrangler@4.153.0",
            "deploy",
            "--dry-run",
            "--outdir",
            outDir,
          ],
          cwd: ROOT,
          env: { WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1" },
          stdin: "null",
        },
      ).output();
      const out = new TextDecoder().decode(stdout) +
        new TextDecoder().decode(stderr);
      assert.equal(code, 0, out);
      assert.match(out, /argon2\.wasm\s*│\s*compiled-wasm/, out);
      const total = out.match(/Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/);
      assert.ok(total, out);
      assert.ok(Number(total[1]) <= 1024, `gzip ${total[1]} KiB`);
      assert.match(out, /env\.BASE_URL/);
      const uploaded = [...Deno.readDirSync(outDir)].map((e) => e.name);
      assert.ok(uploaded.includes("worker.js"), uploaded.join(", "));
    } finally {
      await Deno.remove(outDir, { recursive: true }).catch(() => {});
    }
  },
});
