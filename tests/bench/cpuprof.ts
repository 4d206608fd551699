/**
 * Summarises a V8 CPU profile (`deno run --cpu-prof`): self time by function
 * and by package, and inclusive time of the functions named on the command line.
 *
 *   deno run --config deno.dev.json -A tests/bench/cpuprof.ts <file.cpuprofile> [top=25] [name...]
 */

interface Node {
  id: number;
  callFrame: {
    functionName: string;
    url: string;
    lineNumber: number;
  };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** The repository root as a file URL (profiles name scripts by URL). */
const ROOT = new URL("../..", import.meta.url).href;

/** The npm package (or project file) a script URL belongs to. */
function packageOf(url: string): string {
  const npm = /node_modules\/\.deno\/([^/]+)\//.exec(url) ??
    /\/npm\/registry\.npmjs\.org\/([^/]+(?:\/[^/]+)?)\//.exec(url);
  if (npm) return npm[1];
  if (url.startsWith(ROOT)) return url.slice(ROOT.length);
  if (url.startsWith("ext:")) return url.split("/").slice(0, 3).join("/");
  return url ? url.replace(/^.*\//, "") : "(native/idle)";
}

export function summarise(profile: Profile, top = 25, names: string[] = []) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
  });
  const label = (n: Node) =>
    `${n.callFrame.functionName || "(anonymous)"} ${
      packageOf(n.callFrame.url)
    }:${n.callFrame.lineNumber + 1}`;
  const byFn = new Map<string, number>();
  const byPkg = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    byFn.set(label(n), (byFn.get(label(n)) ?? 0) + t);
    const p = packageOf(n.callFrame.url);
    byPkg.set(p, (byPkg.get(p) ?? 0) + t);
  }
  const pct = (t: number) => `${(100 * t / total).toFixed(1)}%`.padStart(6);
  const print = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${pct(t)}  ${k}`);
    }
  };
  console.log(`profile: ${(total / 1e6).toFixed(1)} s sampled`);
  print("self time by package", byPkg);
  print("self time by function", byFn);
  if (names.length) {
    // Inclusive time: samples with a matching frame on their stack (once each).
    const inclusive = new Map<string, number>();
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0;
      const seen = new Set<string>();
      for (
        let cur: number | undefined = id;
        cur !== undefined;
        cur = parent.get(cur)
      ) {
        const fn = byId.get(cur)!.callFrame.functionName;
        for (const name of names) {
          if (fn === name && !seen.has(name)) {
            seen.add(name);
            inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
          }
        }
      }
    });
    print("inclusive time of named functions", inclusive);
  }
}

if (import.meta.main) {
  const [file, top, ...names] = Deno.args;
  const profile = JSON.parse(await Deno.readTextFile(file)) as Profile;
  summarise(profile, Number(top ?? 25), names);
}
