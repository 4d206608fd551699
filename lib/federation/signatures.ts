/**
 * Which HTTP signature scheme a delivery carries, and when a peer's scheme is
 * remembered.
 *
 * Every server Quando federates with verifies draft-cavage signatures
 * (Mastodon at every version, Misskey, GoToSocial, Friendica, Gancio,
 * Mobilizon, Pleroma), so it goes first (`FIRST_KNOCK`, Fedify's
 * `firstKnock`). RFC 9421 is used only with a peer known to take it: one that
 * refused a draft-cavage delivery with 400/401 and then accepted the same
 * delivery signed with RFC 9421 with a 2xx (Fedify's double knock). That is
 * never assumed: Pleroma, Akkoma, Pixelfed and Bonfire answer 200 to any inbox
 * POST and drop later what they cannot verify, so an answer is no proof that
 * a scheme works.
 *
 * Fedify 2.3.6's double knock (`doubleKnock`) cannot be told that, so two
 * small wrappers around it decide, only while Fedify handles a delivery (an
 * outbox message, marked by `duringDelivery`):
 *
 * - `fetch`: a delivery's first answer that is a failure for another reason
 *   than its signature (anything >= 400 but 400 and 401: Gancio's 500 for an
 *   Update it cannot read) is given back to Fedify's second knock too, which
 *   is then not sent: one request per attempt, and the failure is the peer's
 *   real answer (the queue retries it). Fedify calls the global `fetch`, so
 *   it is wrapped once per process; outside a delivery, or for a request
 *   that carries no signature, the wrapper only calls what it wraps.
 * - the KV store: Fedify remembers the second scheme whenever the second
 *   answer is not 400/401 (a 500 included). A scheme is written only when the
 *   delivery's last request, sent to that origin signed with that scheme, was
 *   really answered with a 2xx; every other write is dropped.
 *
 * The schemes are kept under Quando's own KV prefix (`SPEC_PREFIX`), not
 * Fedify's: what Fedify remembered before (RFC 9421 for every Pleroma, say)
 * is no proof of anything, and is no longer read.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { KvKey, KvStore, KvStoreSetOptions } from "@fedify/fedify";

export type SignatureSpec = "draft-cavage-http-signatures-12" | "rfc9421";

/** The scheme of a delivery to a peer whose scheme is not known. */
export const FIRST_KNOCK: SignatureSpec = "draft-cavage-http-signatures-12";

/** The KV prefix of each origin's remembered scheme (Fedify's `kvPrefixes`). */
export const SPEC_PREFIX = ["quando", "httpSignatureSpec"] as const;

/** Whether `key` is one origin's remembered scheme. */
export function isSpecKey(key: KvKey): boolean {
  return key.length === SPEC_PREFIX.length + 1 &&
    SPEC_PREFIX.every((part, i) => key[i] === part);
}

/** One signed request of a delivery, as the peer answered it. */
interface Knock {
  origin: string;
  spec: SignatureSpec;
  status: number;
  /** Not sent: the answer to the knock before it, given again. */
  replayed: boolean;
}

/** A failure answer kept to be given again, its body cut to `KEPT_BODY`. */
interface KeptAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array;
}

interface Delivery {
  knocks: Knock[];
  /** The last answer, when it was a failure not about the signature. */
  failure: KeptAnswer | null;
  /** How the delivery's requests are sent (the egress guard), when given. */
  send: ((request: Request) => Promise<Response>) | null;
}

/** How much of a failure's body is kept (Fedify logs the first 1 KiB). */
const KEPT_BODY = 4096;

const deliveries = new AsyncLocalStorage<Delivery>();

/** Whether a status may be a refusal of the signature (Fedify's reading too). */
function refusesSignature(status: number): boolean {
  return status === 400 || status === 401;
}

/** The scheme a request is signed with, or null when it carries none. */
function specOf(headers: Headers): SignatureSpec | null {
  if (headers.has("signature-input")) return "rfc9421";
  if (headers.has("signature")) return "draft-cavage-http-signatures-12";
  return null;
}

async function keep(response: Response): Promise<KeptAnswer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    while (reader && size < KEPT_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, KEPT_BODY - size));
      size += chunks[chunks.length - 1].length;
    }
  } finally {
    await reader?.cancel().catch(() => {});
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body,
  };
}

function answer(kept: KeptAnswer): Response {
  return new Response(kept.body.slice(), {
    status: kept.status,
    statusText: kept.statusText,
    headers: kept.headers,
  });
}

/** The fetch every delivery goes through (`installDeliveryFetch`). */
function deliveryFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const delivery = deliveries.getStore();
    const request = input instanceof Request ? input : null;
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const spec = delivery && method === "POST"
      ? specOf(new Headers(init?.headers ?? request?.headers))
      : null;
    if (!delivery || !spec) return await inner(input, init);
    const origin = new URL(request?.url ?? String(input)).origin;
    const failure = delivery.failure;
    if (failure && delivery.knocks.at(-1)?.origin === origin) {
      // Fedify knocks again with the other scheme after any failure; this
      // one was not about the signature, so the peer's answer stands.
      delivery.knocks.push({
        origin,
        spec,
        status: failure.status,
        replayed: true,
      });
      return answer(failure);
    }
    // Inbox URLs come from remote actors' documents: through the egress
    // guard, outside this delivery's context (the guard's own fetch is then
    // the plain one).
    const send = delivery.send;
    const response = send
      ? await deliveries.exit(() => send(new Request(input, init)))
      : await inner(input, init);
    delivery.knocks.push({
      origin,
      spec,
      status: response.status,
      replayed: false,
    });
    if (response.status < 400 || refusesSignature(response.status)) {
      delivery.failure = null;
      return response;
    }
    delivery.failure = await keep(response);
    return answer(delivery.failure);
  };
}

const INSTALLED = Symbol.for("quando.deliveryFetch");

/**
 * Wraps the global `fetch` (once per process) so that deliveries marked by
 * `duringDelivery` are never knocked twice for a failure that is not about
 * their signature. Everything else goes through unchanged.
 */
export function installDeliveryFetch(): void {
  const current = globalThis.fetch as typeof fetch & { [INSTALLED]?: true };
  if (current[INSTALLED]) return;
  const wrapped = Object.assign(deliveryFetch(current), {
    [INSTALLED]: true as const,
  });
  globalThis.fetch = wrapped;
}

/**
 * Runs `fn` (Fedify handling one outbox message) as one delivery; with
 * `send`, its signed requests are sent by it (the egress guard) instead of
 * the global `fetch`.
 */
export function duringDelivery<T>(
  fn: () => T | Promise<T>,
  send?: (request: Request) => Promise<Response>,
): Promise<T> {
  return deliveries.run(
    { knocks: [], failure: null, send: send ?? null },
    async () => await fn(),
  );
}

/**
 * `kv`, where a peer's scheme is written only after a real success: the
 * current delivery's last request went to that origin, signed with that
 * scheme, was sent (not given an earlier answer again), and was answered
 * with a 2xx. Any other write of a scheme is dropped; everything else goes
 * through.
 */
export function rememberSpecsOnSuccess(kv: KvStore): KvStore {
  const wrapped: KvStore = {
    get: <T = unknown>(key: KvKey) => kv.get<T>(key),
    async set(key: KvKey, value: unknown, options?: KvStoreSetOptions) {
      if (!isSpecKey(key)) return await kv.set(key, value, options);
      const last = deliveries.getStore()?.knocks.at(-1);
      const succeeded = last !== undefined && !last.replayed &&
        last.origin === key[SPEC_PREFIX.length] && last.spec === value &&
        last.status >= 200 && last.status < 300;
      if (succeeded) await kv.set(key, value, options);
    },
    delete: (key) => kv.delete(key),
    list: (prefix) => kv.list(prefix),
  };
  if (kv.cas) wrapped.cas = kv.cas.bind(kv);
  return wrapped;
}
