/**
 * The app over a database behind an in-process Hrana-over-HTTP server
 * (hrana-server.ts), as on Turso: what tests of remote-database behaviour
 * (round trips, foreign keys, caching across instances) start from.
 */
import { migrateDatabase, openDatabase } from "../../db/client.ts";
import type { FederationService } from "../../lib/federation/service.ts";
import {
  createTestApp,
  type TestAppOptions,
  type TestContext,
} from "../helpers.ts";
import {
  type HranaServer,
  type HranaServerOptions,
  startHranaServer,
} from "./hrana-server.ts";

export interface RemoteApp {
  server: HranaServer;
  ctx: TestContext;
  /** Round trips made inside federation publishing since the last reset. */
  readonly publishing: number;
  /** Zeroes the server's counter and the publishing count. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * The app on a fresh database file behind an in-process Hrana server.
 * `env` goes to loadConfig (PUBLIC_CACHE_MS, say).
 */
export async function startRemoteApp(
  options: {
    server?: HranaServerOptions;
    env?: Record<string, string>;
    now?: string;
    federation?: TestAppOptions["federation"];
  } = {},
): Promise<RemoteApp> {
  const dir = await Deno.makeTempDir({ prefix: "quando-roundtrips-" });
  const server = await startHranaServer({
    path: `${dir}/remote.db`,
    ...options.server,
  });
  const database = await openDatabase(server.url);
  await migrateDatabase(database);
  const ctx = await createTestApp({
    database,
    env: options.env,
    now: options.now,
    // As in production on a remote database: writes leave their
    // publication to the queue, after the response.
    federation: { deferPublication: true, ...options.federation },
  });
  let publishing = 0;
  countPublishing(ctx.federation, server, (n) => publishing += n);
  return {
    server,
    ctx,
    get publishing() {
      return publishing;
    },
    reset() {
      server.resetCount();
      publishing = 0;
    },
    async close() {
      ctx.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Wraps the federation service's publishing methods so that the round trips
 * they make are reported through `add` (the requests run one at a time here,
 * so the server's count during a call is that call's).
 */
function countPublishing(
  federation: FederationService,
  server: HranaServer,
  add: (n: number) => void,
): void {
  const target = federation as unknown as Record<string, unknown>;
  for (const name of ["publishWritten"]) {
    const original = target[name];
    if (typeof original !== "function") continue;
    target[name] = async (...args: unknown[]) => {
      const before = server.requests;
      try {
        return await original.apply(federation, args);
      } finally {
        add(server.requests - before);
      }
    };
  }
}
