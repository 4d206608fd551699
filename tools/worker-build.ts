/**
 * Bundles worker.ts for Cloudflare Workers with esbuild (from npm), into
 * dist/worker/: `worker.js` (one ES module), `argon2.wasm` (imported by the
 * Worker as a compiled WebAssembly module) and `meta.json` (esbuild's
 * metafile, for finding what is big). Settings follow wrangler's: ES module
 * output, the `workerd`/`worker`/`browser` export conditions, Node built-ins
 * left to `nodejs_compat`.
 *
 *   deno task worker:build [--out DIR] [--analyze]
 *
 * Fails when anything that cannot run on Workers got into the bundle (a
 * native addon, the embedded libSQL engine, the file migrator).
 */
import * as esbuild from "esbuild";
import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const ROOT = fromFileUrl(new URL("..", import.meta.url));

export interface WorkerBuild {
  outDir: string;
  /** The bundle (worker.js). */
  mainPath: string;
  wasmPath: string;
  rawBytes: number;
  gzipBytes: number;
  metafile: esbuild.Metafile;
}

/** Inputs that must never be bundled: they load native code or read files. */
const FORBIDDEN = [
  /node_modules\/.*@node-rs\//,
  /node_modules\/.*\/libsql\/index\.js/,
  /node_modules\/.*@libsql\/client\/lib-esm\/node\.js/,
  /node_modules\/.*@libsql\/client\/lib-esm\/sqlite3\.js/,
  /drizzle-orm\/libsql\/migrator/,
  /(^|\/)db\/client\.ts$/,
  /(^|\/)lib\/auth\/password\.ts$/,
  // SMTP needs Node's sockets: main.ts injects it (lib/mail/smtp.ts).
  /node_modules\/.*\/nodemailer\//,
  /(^|\/)lib\/mail\/smtp\.ts$/,
];

const NODE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith("_")));

/** Bundles worker.ts into `outDir`. */
export async function buildWorker(
  options: { outDir?: string; minify?: boolean } = {},
): Promise<WorkerBuild> {
  const outDir = options.outDir ?? join(ROOT, "dist", "worker");
  mkdirSync(outDir, { recursive: true });
  const mainPath = join(outDir, "worker.js");
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, "worker.ts")],
    outfile: mainPath,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "worker", "browser", "import", "default"],
    mainFields: ["module", "main"],
    minify: options.minify ?? true,
    keepNames: false,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
    // hono/jsx as in deno.json (esbuild has no "precompile": the automatic
    // runtime renders the same HTML).
    tsconfigRaw: {
      compilerOptions: { jsx: "react-jsx", jsxImportSource: "hono/jsx" },
    },
    plugins: [{
      name: "node-builtins",
      setup(build) {
        // Workers' nodejs_compat serves Node's built-ins under `node:`.
        build.onResolve({ filter: /^[a-z_/:]+$/ }, (args) => {
          const name = args.path.replace(/^node:/, "");
          const base = name.split("/")[0];
          if (!NODE_BUILTINS.has(base) && !NODE_BUILTINS.has(name)) return;
          // esbuild cannot turn `require()` of an external into an import in
          // an ES module: a CommonJS shim re-exports the built-in's default
          // (what `require` gives on Node), as wrangler does.
          if (args.kind === "require-call") {
            return { path: `node:${name}`, namespace: "node-require" };
          }
          return { path: `node:${name}`, external: true };
        });
        build.onLoad(
          { filter: /.*/, namespace: "node-require" },
          (args) => ({
            contents: `import builtin from ${
              JSON.stringify(args.path)
            }; module.exports = builtin;`,
            loader: "js",
          }),
        );
        build.onResolve({ filter: /^cloudflare:/ }, (args) => ({
          path: args.path,
          external: true,
        }));
      },
    }],
  });
  // The esbuild service would keep the process (or a test) alive; the next
  // build starts it again.
  await esbuild.stop();
  const forbidden = Object.keys(result.metafile.inputs).filter((input) =>
    FORBIDDEN.some((re) => re.test(input))
  );
  if (forbidden.length > 0) {
    throw new Error(
      `the Worker bundle includes modules that cannot run on Workers:\n  ${
        forbidden.join("\n  ")
      }`,
    );
  }
  const wasmPath = join(outDir, "argon2.wasm");
  copyFileSync(
    fromFileUrl(import.meta.resolve("@phi-ag/argon2/argon2.wasm")),
    wasmPath,
  );
  writeFileSync(join(outDir, "meta.json"), JSON.stringify(result.metafile));
  const bytes = readFileSync(mainPath);
  return {
    outDir,
    mainPath,
    wasmPath,
    rawBytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    metafile: result.metafile,
  };
}

/** The largest packages (or source folders) of a build, by bundled bytes. */
export function largestParts(
  metafile: esbuild.Metafile,
  count = 15,
): [string, number][] {
  const sizes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = input.match(
        /node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/,
      );
      const key = pkg ? pkg[1] : input.split("/").slice(0, 2).join("/");
      sizes.set(key, (sizes.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...sizes].sort((a, b) => b[1] - a[1]).slice(0, count);
}

if (import.meta.main) {
  const args = Deno.args;
  const outIndex = args.indexOf("--out");
  const build = await buildWorker({
    outDir: outIndex >= 0 ? args[outIndex + 1] : undefined,
  });
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `${build.mainPath}: ${kb(build.rawBytes)} raw, ${
      kb(build.gzipBytes)
    } gzip (+ argon2.wasm)`,
  );
  if (args.includes("--analyze")) {
    for (const [name, bytes] of largestParts(build.metafile)) {
      console.log(`  ${kb(bytes).padStart(9)}  ${name}`);
    }
  }
}
