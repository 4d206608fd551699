/**
 * No module of the project imports in a circle: the graph `deno info`
 * resolves from the entries (main.ts, worker.ts), cut into strongly
 * connected components (Tarjan); each must be a single module.
 */
import assert from "node:assert/strict";

interface InfoModule {
  specifier: string;
  dependencies?: {
    code?: { specifier?: string };
    type?: { specifier?: string };
  }[];
}

/** The project's own modules and what each imports among them. */
async function projectGraph(entry: string): Promise<Map<string, string[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", "deno.dev.json", entry],
    cwd: new URL("../", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: InfoModule[];
  };
  const graph = new Map<string, string[]>();
  for (const module of info.modules) {
    if (!module.specifier.startsWith("file://")) continue;
    const deps = (module.dependencies ?? []).flatMap((dep) =>
      [dep.code?.specifier, dep.type?.specifier].filter((s): s is string =>
        s?.startsWith("file://") ?? false
      )
    );
    graph.set(module.specifier, deps);
  }
  return graph;
}

/** The components of more than one module (Tarjan, iterative). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const deps = graph.get(top.node) ?? [];
      if (top.next < deps.length) {
        const dep = deps[top.next++];
        if (!index.has(dep)) {
          index.set(dep, counter);
          low.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          work.push({ node: dep, next: 0 });
        } else if (onStack.has(dep)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(dep)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1) found.push(component);
      }
    }
  }
  return found;
}

Deno.test("architecture: no import cycles from main.ts or worker.ts", async () => {
  for (const entry of ["main.ts", "worker.ts"]) {
    const graph = await projectGraph(entry);
    assert.ok(graph.size > 100, `${entry}: ${graph.size} modules`);
    const root = new URL("../", import.meta.url).href;
    assert.deepEqual(
      cycles(graph).map((c) => c.map((s) => s.slice(root.length)).sort()),
      [],
      entry,
    );
  }
});

Deno.test("import cycles: the check finds a cycle when there is one", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
  ]);
  assert.deepEqual(cycles(graph).map((c) => c.sort()), [["a", "b", "c"]]);
});
