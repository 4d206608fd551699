/**
 * A counting ActivityPub receiver for the fan-out benchmark: answers 202 to
 * POST /inbox/{n} and counts deliveries per inbox and per activity id. It does
 * not verify signatures and serves nothing else (404 / 405). It listens on one
 * loopback port, or on several (one origin per port) to stand for several
 * instances.
 */

export interface Receiver {
  /** The origin of the first port. */
  base: string;
  /** Every origin served (one per port). */
  bases: string[];
  /** The shared inbox URL of inbox `n` (spread over the origins). */
  inboxUrl(n: number): string;
  /** Deliveries per inbox number. */
  perInbox: Map<number, number>;
  /** Deliveries per "inbox activityId". */
  perDelivery: Map<string, number>;
  /** Requests that were not a POST to /inbox/{n}. */
  stray: number;
  /** performance.now() of the first and latest delivery. */
  first: number | null;
  last: number | null;
  /** Resolves true when `count` distinct inboxes have received one activity whose id starts with `idPrefix` (false on timeout). */
  whenAllReceived(
    idPrefix: string,
    count: number,
    timeoutMs: number,
  ): Promise<boolean>;
  close(): Promise<void>;
}

export function startReceiver(ports = 1): Receiver {
  const perInbox = new Map<number, number>();
  const perDelivery = new Map<string, number>();
  const inboxesByActivity = new Map<string, Set<number>>();
  const waiters: { id: string; count: number; done: () => void }[] = [];
  const state = {
    stray: 0,
    first: null as number | null,
    last: null as number | null,
  };
  const handler = async (req: Request) => {
    const m = /^\/inbox\/(\d+)$/.exec(new URL(req.url).pathname);
    if (!m) {
      state.stray++;
      return new Response("not found", { status: 404 });
    }
    if (req.method !== "POST") {
      state.stray++;
      return new Response(null, { status: 405 });
    }
    const inbox = Number(m[1]);
    let activityId = "?";
    try {
      const body = await req.json();
      if (typeof body?.id === "string") activityId = body.id;
    } catch { /* counted under "?" */ }
    const now = performance.now();
    state.first ??= now;
    state.last = now;
    perInbox.set(inbox, (perInbox.get(inbox) ?? 0) + 1);
    const key = `${inbox} ${activityId}`;
    perDelivery.set(key, (perDelivery.get(key) ?? 0) + 1);
    let seen = inboxesByActivity.get(activityId);
    if (!seen) inboxesByActivity.set(activityId, seen = new Set());
    seen.add(inbox);
    for (const w of [...waiters]) {
      if (activityId.startsWith(w.id) && seen.size >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
    }
    return new Response(null, { status: 202 });
  };
  const servers = Array.from(
    { length: ports },
    () =>
      Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        handler,
      ),
  );
  const bases = servers.map((server) =>
    `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`
  );
  return {
    base: bases[0],
    bases,
    inboxUrl: (n) => `${bases[n % bases.length]}/inbox/${n}`,
    perInbox,
    perDelivery,
    get stray() {
      return state.stray;
    },
    get first() {
      return state.first;
    },
    get last() {
      return state.last;
    },
    whenAllReceived(idPrefix, count, timeoutMs) {
      for (const [id, seen] of inboxesByActivity) {
        if (id.startsWith(idPrefix) && seen.size >= count) {
          return Promise.resolve(true);
        }
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(false);
        }, timeoutMs);
        const waiter = {
          id: idPrefix,
          count,
          done: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
        waiters.push(waiter);
      });
    },
    close: async () => {
      await Promise.all(servers.map((server) => server.shutdown()));
    },
  };
}
