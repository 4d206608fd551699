/**
 * One revision against another, side by side: the server CPU
 * per request of `GET /api/events/{id}` over distinct ids (the bench's
 * distinct-id row), both servers loaded at the same moments. A change to
 * the read path is a few percent at most, where runs of one server after
 * another swing by more (BENCHMARKS.md, issue 33); this is how such a change
 * is shown.
 *
 *   deno task bench:versus <base> [HEAD=HEAD] [PAIRS=3] [TURNS=6] [SECONDS=5]
 *
 * Each revision is checked out into a temporary git worktree (sharing this
 * tree's node_modules) and started by its own tests/bench/server.ts: both,
 * since a server started from this tree's files spent 2–14% less CPU per read
 * than the same code from a worktree (pairs of fresh processes on 2026-11-27,
 * cause unknown; two servers from one tree: −0.5%). So commit what you
 * compare. One file
 * of 20,000 events is seeded, and each side crawls its own copy (a body made
 * by one revision may not be the other's, lib/events/bodies.ts) in three
 * passes of 6 s: over 20,000 requests each here, so every visible event's
 * answer is kept unless the machine is far slower (not checked, unlike
 * `deno task bench`). Then PAIRS pairs of fresh servers over
 * copies of those files, each pair warmed up and measured for TURNS turns of
 * SECONDS, both main threads held to one CPU each and swapped every turn.
 * Prints each turn, each pair's geometric mean of the turns' ratios, and
 * over the pairs the mean with its 95% bound (tests/bench/stats.ts).
 * Environment of both servers: VERSUS_ENV (default `PUBLIC_CACHE_MS=0`).
 */
import { join } from "node:path";
import { createDatabase, seedEvents } from "./seed.ts";
import {
  cpuTicks,
  pinProcess,
  ROOT,
  type ServerProcess,
  type startServer,
} from "./server.ts";
import { geometricMean, pairedDifference, pct } from "./stats.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

const REVISION = Deno.args[0];
if (!REVISION) {
  console.error(
    "usage: deno task bench:versus <base> [HEAD] [PAIRS] [TURNS] [SECONDS]",
  );
  Deno.exit(2);
}
const HEAD = Deno.args[1] ?? "HEAD";
const PAIRS = Number(Deno.args[2] ?? 3);
const TURNS = Number(Deno.args[3] ?? 6);
const SECONDS = Number(Deno.args[4] ?? 5);
const EVENTS = 20_000;
const CONNECTIONS = 32;
const EXTRA = Object.fromEntries(
  (Deno.env.get("VERSUS_ENV") ?? "PUBLIC_CACHE_MS=0").split(/\s+/)
    .filter(Boolean).map((pair) => pair.split("=", 2) as [string, string]),
);
const log = (line: string) => console.error(line);

async function git(...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args,
    cwd: ROOT,
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(
      `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/** A server's CPU so far (NaN once it is gone: the turn's figure shows it). */
const ticks = (pid: number) => cpuTicks(pid) ?? Number.NaN;

type Start = typeof startServer;
const wrk = await ensureWrk(log);
const dir = await Deno.makeTempDir({ prefix: "quando-versus-" });
const trees: string[] = [];
const running: ServerProcess[] = [];
/** A server starter of `revision`, from a worktree of its own. */
async function checkout(revision: string, name: string): Promise<Start> {
  const tree = join(dir, name);
  await git("worktree", "add", "--detach", tree, revision);
  trees.push(tree);
  await Deno.symlink(join(ROOT, "node_modules"), join(tree, "node_modules"));
  return (await import(join(tree, "tests/bench/server.ts"))).startServer;
}
try {
  const startThis = await checkout(HEAD, "head");
  const startThat = await checkout(REVISION, "base");
  // One base URL for every server: it is part of a kept body's variant.
  const env = (file: string) => ({
    LOG_LEVEL: "warning",
    BASE_URL: "http://quando.bench.test",
    ADMIN_EMAIL: "bench-admin@bench.invalid",
    ADMIN_PASSWORD: "bench-admin-password",
    DATABASE_URL: `file:${join(dir, file)}`,
    ...EXTRA,
  });
  const database = await createDatabase(join(dir, "seed.db"));
  await seedEvents(database, EVENTS);
  database.close();
  const crawl = join(ROOT, "tests/bench/crawl_events.lua");
  const distinct = join(ROOT, "tests/bench/distinct_events.lua");
  const load = (s: ServerProcess, script: string, seconds: number) =>
    runWrk(wrk, {
      url: s.base,
      connections: CONNECTIONS,
      threads: 1,
      duration: seconds,
      script,
      scriptArgs: script === crawl ? ["1", String(EVENTS), "1"] : [
        String(EVENTS),
      ],
    });
  const sides = [
    { name: HEAD, start: startThis, file: "this.db" },
    { name: REVISION, start: startThat, file: "that.db" },
  ];
  for (const side of sides) {
    await Deno.copyFile(join(dir, "seed.db"), join(dir, side.file));
    const server = await side.start(env(side.file));
    running.push(server);
    // Three passes: a body waits to be stored, and is dropped when too
    // many wait (lib/events/bodies.ts).
    for (let pass = 0; pass < 3; pass++) await load(server, crawl, 6);
    await server.stop();
    running.length = 0;
  }
  const pairs: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    // Every other pair starts the other side first.
    const order = pair % 2 ? [...sides].reverse() : sides;
    const started: Record<string, ServerProcess> = {};
    for (const side of order) {
      await Deno.copyFile(join(dir, side.file), join(dir, `run-${side.file}`));
      started[side.name] = await side.start(env(`run-${side.file}`));
      running.push(started[side.name]);
    }
    const [mine, theirs] = [started[HEAD], started[REVISION]];
    await Promise.all([mine, theirs].map((s) => load(s, distinct, 3)));
    const ratios: number[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      await pinProcess(mine.pid, (turn + pair) % 2);
      await pinProcess(theirs.pid, (turn + pair + 1) % 2);
      const before = [ticks(mine.pid), ticks(theirs.pid)];
      const [a, b] = await Promise.all(
        [mine, theirs].map((s) => load(s, distinct, SECONDS)),
      );
      const after = [ticks(mine.pid), ticks(theirs.pid)];
      // Clock ticks are 10 ms: µs per request = ticks * 10,000 / requests.
      const ours = (after[0] - before[0]) * 10_000 / a.requests;
      const other = (after[1] - before[1]) * 10_000 / b.requests;
      ratios.push(ours / other);
      console.log(
        `pair ${pair + 1}, turn ${turn + 1}: ${HEAD} ${
          Math.round(a.requestsPerSec)
        } req/s, ${ours.toFixed(1)} µs a request | ${REVISION} ${
          Math.round(b.requestsPerSec)
        } req/s, ${other.toFixed(1)} µs a request | ${pct(ours / other - 1)}`,
      );
    }
    pairs.push(geometricMean(ratios));
    console.log(
      `pair ${pair + 1}: ${HEAD} against ${REVISION}, CPU per request ${
        pct(pairs[pair] - 1)
      }`,
    );
    for (const server of running.splice(0)) await server.stop();
  }
  const over = pairedDifference(pairs);
  console.log(
    `${HEAD} against ${REVISION}, server CPU per distinct-id read: ${
      pairs.map((r) => pct(r - 1)).join(", ")
    }; geometric mean ${pct(over.mean)}, at most ${
      pct(over.highest)
    } (95%, ${over.n} pairs)`,
  );
} finally {
  for (const server of running) await server.stop();
  for (const tree of trees) {
    await git("worktree", "remove", "--force", tree).catch(() => {});
  }
  await Deno.remove(dir, { recursive: true });
}
