/**
 * Round trips per endpoint on a remote database: the app over the local
 * Hrana-over-HTTP server (tests/support/hrana-server.ts), counting one per
 * pipeline request, as Turso bills and as Workers counts subrequests. Warm
 * path (settings read within the last second), public-read cache off, one
 * follower (a write's publication is queued in its batch and done by the
 * queue after the response). Then the federated
 * creation of a 13-occurrence weekly series with one follower, the queue
 * drained: every database call, request and queue work included.
 *
 *   deno run --config deno.dev.json -A tests/bench/roundtrips.ts [--markdown]
 */
import { measureAll, startRemoteApp } from "../support/roundtrips.ts";
import { measureSeriesFederation } from "../support/series-federation.ts";

const markdown = Deno.args.includes("--markdown");

const app = await startRemoteApp({ env: { PUBLIC_CACHE_MS: "0" } });
let rows;
try {
  rows = await measureAll(app);
} finally {
  await app.close();
}

const series = await measureSeriesFederation();

const width = Math.max(...rows.map((r) => r.name.length));
if (markdown) {
  console.log("| endpoint | round trips |");
  console.log("|---|---:|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.roundTrips} |`);
  }
} else {
  console.log(`${"endpoint".padEnd(width)}  round trips`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(width)}  ${String(r.roundTrips).padStart(11)}`,
    );
  }
}
const worstRead = Math.max(
  ...rows.filter((r) => r.kind === "read").map((r) => r.roundTrips),
);
const worstWrite = Math.max(
  ...rows.filter((r) => r.kind === "write").map((r) => r.roundTrips),
);
console.log(
  `\nworst public read: ${worstRead} (bound 2); worst event write: ${worstWrite} (bound 4)`,
);
console.log(
  `13-occurrence weekly series, one follower: ${series.total} database calls ` +
    `(request ${series.request}, publishing ${series.publishing}, queue ${series.queue}); ` +
    `${series.deliveries} deliveries received (${series.announced} occurrences within the federation horizon)`,
);
