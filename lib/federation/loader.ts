/**
 * The one way Quando fetches anything from the fediverse (actors, keys,
 * objects, WebFinger, NodeInfo; contexts come from memory only): every
 * request has a size cap, a timeout and a cap on redirects, and every hop is
 * sent through the egress guard (lib/net/egress.ts).
 */
import { signRequest } from "@fedify/fedify";
import {
  type DocumentLoader,
  type DocumentLoaderOptions,
  FetchError,
  getRemoteDocument,
  getUserAgent,
  type RemoteDocument,
} from "@fedify/vocab-runtime";
import {
  AddressNotAllowedError,
  COULD_NOT_CONNECT,
  type EgressFetch,
  isAbort,
  portableEgress,
} from "../net/egress.ts";
import { knownContext } from "./contexts.ts";

/** Largest document read from a remote server. */
export const FETCH_MAX_BYTES = 1024 * 1024;
/** How long one fetch (all its redirects included) may take. */
export const FETCH_TIMEOUT_MS = 10_000;
/** Redirects followed before a fetch gives up. */
export const FETCH_MAX_REDIRECTS = 5;

export interface FetchLimits {
  /** Let fetches reach loopback and private hosts (tests, local peers). */
  allowPrivateAddress: boolean;
  /** The User-Agent header sent. */
  userAgent: string;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /**
   * The guard each request goes through (lib/net/egress.ts): the portable
   * one by default, Deno's pinned one when main.ts injects it.
   */
  egress?: EgressFetch;
}

/** Signs each GET as the given key (authorized fetch), when set. */
export interface FetchSigner {
  keyId: URL;
  privateKey: CryptoKey;
}

/** A context that Quando does not hold locally: never fetched. */
export class UnknownContextError extends Error {
  constructor(readonly url: string) {
    super(`Unknown JSON-LD context (not fetched): ${url}`);
    this.name = "UnknownContextError";
  }
}

/** The User-Agent of Quando's outgoing requests. */
export function quandoUserAgent(baseUrl: string): string {
  return getUserAgent({ software: "Quando/0.1.0", url: new URL(baseUrl) });
}

/**
 * Loads JSON-LD contexts from the local copies only; an unknown one throws
 * `UnknownContextError` without any network request.
 */
export const localContextLoader: DocumentLoader = (url) => {
  const document = knownContext(url);
  if (document === null) return Promise.reject(new UnknownContextError(url));
  return Promise.resolve({ contextUrl: null, documentUrl: url, document });
};

/** Reads at most `maxBytes` of a body; throws (and stops reading) beyond. */
async function readCapped(
  url: string,
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchError(url, `Document larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new FetchError(url, `Document larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** What limitedGet read: the final URL, its status and headers, the body (empty unless 2xx). */
export interface LimitedResponse {
  url: string;
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
  /** Redirects followed, counting those before the call (`hops`). */
  hops: number;
}

/**
 * One GET under Quando's fetch rules: http(s) only, each hop of at most
 * `maxRedirects` redirects sent through the egress guard (public addresses
 * only, unless allowed), the body read only for a 2xx answer and at most
 * `maxBytes`. Any other status (304 included) is returned with an empty
 * body. A refused or unreachable host throws a FetchError that says
 * "address not allowed" or "could not connect", never which address the
 * name resolved to.
 */
export async function limitedGet(
  url: string,
  limits: FetchLimits,
  options: {
    headers?: Record<string, string>;
    signal: AbortSignal;
    hops?: number;
    sign?: (request: Request) => Promise<Request>;
  },
): Promise<LimitedResponse> {
  const maxBytes = limits.maxBytes ?? FETCH_MAX_BYTES;
  const maxRedirects = limits.maxRedirects ?? FETCH_MAX_REDIRECTS;
  let href = new URL(url).href;
  for (let hops = options.hops ?? 0;; hops++) {
    options.signal.throwIfAborted();
    const target = new URL(href);
    if (target.protocol !== "https:" && target.protocol !== "http:") {
      throw new FetchError(href, `Unsupported protocol ${target.protocol}`);
    }
    let request = new Request(href, {
      headers: { ...options.headers, "User-Agent": limits.userAgent },
      redirect: "manual",
    });
    if (options.sign) request = await options.sign(request);
    let response: Response;
    try {
      response = await (limits.egress ?? portableEgress)(request, {
        signal: options.signal,
        allowPrivateAddress: limits.allowPrivateAddress,
      });
    } catch (error) {
      if (isAbort(error) || options.signal.aborted) throw error;
      // The guard's own words carry no address; anything else (the
      // runtime's connection errors name the address) is said plainly.
      throw new FetchError(
        href,
        error instanceof AddressNotAllowedError
          ? error.message
          : COULD_NOT_CONNECT,
      );
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hops >= maxRedirects) {
        throw new FetchError(href, `More than ${maxRedirects} redirects`);
      }
      href = new URL(location, href).href;
      continue;
    }
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel();
      return {
        url: href,
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(new ArrayBuffer(0)),
        hops,
      };
    }
    return {
      url: href,
      status: response.status,
      headers: response.headers,
      body: await readCapped(href, response, maxBytes).catch((error) => {
        if (error instanceof FetchError || isAbort(error)) throw error;
        throw new FetchError(href, COULD_NOT_CONNECT);
      }),
      hops,
    };
  }
}

/**
 * A document loader with Quando's limits. Known contexts answer from memory;
 * anything else is fetched with `Accept: application/activity+json`, at most
 * `maxBytes` (1 MiB), within `timeoutMs` (10 s) for the whole chain of at most
 * `maxRedirects` (5) redirects, each hop through the egress guard (public
 * addresses only, unless allowed). With a signer (or a function giving one, null for none),
 * requests are signed (draft-cavage).
 */
export function createDocumentLoader(
  limits: FetchLimits,
  signer?: FetchSigner | (() => Promise<FetchSigner | null>),
): DocumentLoader {
  const maxBytes = limits.maxBytes ?? FETCH_MAX_BYTES;
  const timeoutMs = limits.timeoutMs ?? FETCH_TIMEOUT_MS;
  const maxRedirects = limits.maxRedirects ?? FETCH_MAX_REDIRECTS;

  async function load(
    url: string,
    signal: AbortSignal,
    hops: number,
  ): Promise<RemoteDocument> {
    signal.throwIfAborted();
    const href = new URL(url).href;
    const context = knownContext(href);
    if (context !== null) {
      return { contextUrl: null, documentUrl: href, document: context };
    }
    const key = typeof signer === "function" ? await signer() : signer;
    const got = await limitedGet(href, { ...limits, maxBytes, maxRedirects }, {
      headers: { Accept: "application/activity+json, application/ld+json" },
      signal,
      hops,
      sign: key
        ? (request) => signRequest(request, key.privateKey, key.keyId)
        : undefined,
    });
    if (got.status < 200 || got.status >= 300) {
      throw new FetchError(got.url, `HTTP ${got.status}`);
    }
    // Fedify's parser handles content types, Link headers and HTML pages
    // that point at their ActivityStreams form; a pointer costs one hop.
    return await getRemoteDocument(
      got.url,
      new Response(got.body, { status: 200, headers: got.headers }),
      (next) => {
        if (got.hops >= maxRedirects) {
          return Promise.reject(
            new FetchError(got.url, `More than ${maxRedirects} redirects`),
          );
        }
        return load(next, signal, got.hops + 1);
      },
    );
  }

  return (url: string, options?: DocumentLoaderOptions) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options?.signal
      ? AbortSignal.any([options.signal, timeout])
      : timeout;
    return load(url, signal, 0);
  };
}
