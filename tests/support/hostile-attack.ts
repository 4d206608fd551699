/**
 * Attacks a running instance with the hostile calendars of hostile-ics.ts,
 * as tests/ics-budget-server.test.ts and tests/bench/hostile-ics.ts do: each
 * shape uploaded by a member (POST /api/events/import) and served by a feed
 * an editor subscribes to, while /api/health is asked every 50 ms. Reports
 * what each request answered and how long the health check took.
 */
import { openDatabase } from "../../db/client.ts";
import { sources } from "../../db/schema.ts";
import { type ServerProcess, startServerProcess } from "../helpers.ts";
import { HOSTILE_SHAPES } from "./hostile-ics.ts";

/** A server serving each hostile shape at `/{shape}.ics`, built once. */
export function hostileFeedServer(bytes: number) {
  const bodies = new Map<string, Uint8Array>();
  for (const [name, shape] of Object.entries(HOSTILE_SHAPES)) {
    bodies.set(`/${name}.ics`, new TextEncoder().encode(shape.make(bytes)));
  }
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const body = bodies.get(new URL(request.url).pathname);
      return body
        ? new Response(body.slice(), {
          headers: { "content-type": "text/calendar" },
        })
        : new Response("not found", { status: 404 });
    },
  );
  return {
    bodies,
    url: (shape: string) => `http://127.0.0.1:${server.addr.port}/${shape}.ics`,
    close: () => server.shutdown(),
  };
}

/** Asks /api/health every `everyMs` until stopped; keeps each answer's time. */
export function watchHealth(base: string, everyMs = 50) {
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${base}/api/health`, {
          signal: AbortSignal.timeout(5_000),
        });
        await res.body?.cancel();
        if (!res.ok) failures++;
      } catch {
        failures++;
      }
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...times].sort((a, b) => a - b);
      return {
        checks: times.length,
        failures,
        p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
        maxMs: sorted.at(-1) ?? 0,
      };
    },
  };
}

/** What one hostile request answered. */
export interface HostileAnswer {
  shape: string;
  status: number;
  /** The error or the sync's result. */
  outcome: string;
  ms: number;
}

/** Uploads every shape as `token`'s .ics import. */
export async function uploadEach(
  base: string,
  token: string,
  feed: ReturnType<typeof hostileFeedServer>,
): Promise<HostileAnswer[]> {
  const answers: HostileAnswer[] = [];
  for (const [path, body] of feed.bodies) {
    const started = performance.now();
    const res = await fetch(`${base}/api/events/import`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "text/calendar",
      },
      body: body.slice(),
    });
    const json = await res.json();
    answers.push({
      shape: path.slice(1, -4),
      status: res.status,
      outcome: json.error ?? `created ${json.counts?.created}`,
      ms: performance.now() - started,
    });
  }
  return answers;
}

/** Subscribes `token` (an editor's) to every shape's feed (each synced at once). */
export async function subscribeEach(
  base: string,
  token: string,
  feed: ReturnType<typeof hostileFeedServer>,
): Promise<HostileAnswer[]> {
  const answers: HostileAnswer[] = [];
  for (const shape of Object.keys(HOSTILE_SHAPES)) {
    const started = performance.now();
    const res = await fetch(`${base}/api/sources`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: feed.url(shape), name: shape }),
    });
    const json = await res.json();
    answers.push({
      shape,
      status: res.status,
      outcome: json.result ?? json.error,
      ms: performance.now() - started,
    });
  }
  return answers;
}

/** The process's resident memory now and at its peak (Linux /proc), in MB. */
export function rssOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/**
 * Stops `server`, makes every subscription due at once (as after a crash
 * whose lease has run out) in its database, and starts it again under the
 * start task's memory flags; returns the new process and how long it took
 * to answer.
 */
export async function restartWithFeedsDue(
  server: ServerProcess,
  dir: string,
  env: Record<string, string> & { DATABASE_URL: string },
): Promise<{ server: ServerProcess; listeningMs: number }> {
  await server.stop();
  const database = await openDatabase(env.DATABASE_URL);
  await database.db.update(sources).set({
    lockedUntil: null,
    last_sync_at: null,
    next_sync_at: null,
    failures: 0,
  });
  database.close();
  const started = performance.now();
  const restarted = await startServerProcess(dir, env, undefined, {
    memoryFlags: true,
  });
  return { server: restarted, listeningMs: performance.now() - started };
}
