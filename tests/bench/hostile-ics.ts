/**
 * `deno run -A tests/bench/hostile-ics.ts`: the server as `deno task start`
 * runs it (its V8 memory flags, an embedded database in a temporary folder),
 * measured idle (the baseline), then while a 5 MiB calendar of each hostile
 * shape (tests/support/hostile-ics.ts) is uploaded and subscribed to, then
 * restarted with every hostile feed due. Prints /api/health latency, each
 * answer, the process's RSS and its peak, and how soon the restart listens.
 */
import { join } from "node:path";
import { startServerProcess } from "../helpers.ts";
import {
  hostileFeedServer,
  restartWithFeedsDue,
  rssOf,
  subscribeEach,
  uploadEach,
  watchHealth,
} from "../support/hostile-attack.ts";

const MIB = 1024 * 1024;
const dir = await Deno.makeTempDir();
const feed = hostileFeedServer(5 * MIB);
const env = {
  DATABASE_URL: `file:${join(dir, "quando.db")}`,
  ADMIN_EMAIL: "admin@example.org",
  ADMIN_PASSWORD: "a-long-password",
  ALLOW_PRIVATE_ADDRESSES: "true",
  LOG_LEVEL: "error",
};
const mb = (n: number | undefined) => n === undefined ? "?" : n.toFixed(0);
const ms = (n: number) => n.toFixed(1);

let server = await startServerProcess(dir, env, undefined, {
  memoryFlags: true,
});
try {
  const login = await fetch(`${server.base}/api/login/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email: env.ADMIN_EMAIL,
      password: env.ADMIN_PASSWORD,
    }),
  });
  const token = (await login.json()).access_token;

  const idleWatch = watchHealth(server.base);
  await new Promise((r) => setTimeout(r, 3_000));
  const idle = await idleWatch.stop();
  const idleRss = rssOf(server.pid);

  const attackWatch = watchHealth(server.base);
  const uploads = await uploadEach(server.base, token, feed);
  const syncs = await subscribeEach(server.base, token, feed);
  const attack = await attackWatch.stop();
  const attackRss = rssOf(server.pid);

  console.log("# Hostile calendars against `deno task start` (5 MiB each)\n");
  console.log("| shape | upload | ms | subscription | ms |");
  console.log("|---|---|---|---|---|");
  for (const upload of uploads) {
    const sync = syncs.find((s) => s.shape === upload.shape)!;
    console.log(
      `| ${upload.shape} | ${upload.status} ${upload.outcome} | ${
        ms(upload.ms)
      } | ${sync.status} ${sync.outcome} | ${ms(sync.ms)} |`,
    );
  }
  console.log(
    "\n| phase | health checks | failed | p50 ms | max ms | RSS MB | peak RSS MB |",
  );
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| idle (baseline) | ${idle.checks} | ${idle.failures} | ${
      ms(idle.p50Ms)
    } | ${ms(idle.maxMs)} | ${mb(idleRss?.rssMb)} | ${mb(idleRss?.peakMb)} |`,
  );
  console.log(
    `| under attack | ${attack.checks} | ${attack.failures} | ${
      ms(attack.p50Ms)
    } | ${ms(attack.maxMs)} | ${mb(attackRss?.rssMb)} | ${
      mb(attackRss?.peakMb)
    } |`,
  );
  console.log(`\nalive after the attack: ${server.alive()}`);

  const restarted = await restartWithFeedsDue(server, dir, env);
  server = restarted.server;
  const listening = restarted.listeningMs;
  const restartWatch = watchHealth(server.base);
  await new Promise((r) => setTimeout(r, 5_000));
  const restart = await restartWatch.stop();
  console.log(
    `restart with ${syncs.length} hostile feeds due: answered after ${
      ms(listening)
    } ms (process start included); health over the next 5 s: ` +
      `p50 ${ms(restart.p50Ms)} ms, max ${
        ms(restart.maxMs)
      } ms, ${restart.failures} failed; ` +
      `alive: ${server.alive()}; peak RSS ${mb(rssOf(server.pid)?.peakMb)} MB`,
  );
} finally {
  await server.stop();
  await feed.close();
  await Deno.remove(dir, { recursive: true });
}
