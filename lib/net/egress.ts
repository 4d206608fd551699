/**
 * Outgoing requests to URLs that others chose (feeds, actors, keys, images,
 * WebFinger, NodeInfo): the one guard they pass, and what it says when it
 * refuses. The guard connects only to public addresses (lib/net/address.ts)
 * unless private ones are allowed, and never tells the user which address
 * a name resolved to: a refusal says "address not allowed", a failure to
 * connect "could not connect", nothing of the resolver's or the socket's
 * own words.
 *
 * An `EgressFetch` sends one request without following redirects (the
 * caller checks each hop). Two exist: the portable one here (resolves with
 * `node:dns`, checks, then lets the runtime's `fetch` connect), used on
 * Cloudflare Workers and by default; and the Deno one that main.ts injects
 * (deno/egress.ts), which connects to the very address it checked.
 */
import { lookup } from "node:dns/promises";
import { hostLiteral, isPublicAddress } from "./address.ts";

/** How one guarded request is sent. */
export interface EgressOptions {
  signal?: AbortSignal;
  /** Let it reach loopback and private hosts (ALLOW_PRIVATE_ADDRESSES). */
  allowPrivateAddress: boolean;
}

/** Sends one request (redirects not followed) under the egress guard. */
export type EgressFetch = (
  request: Request,
  options: EgressOptions,
) => Promise<Response>;

/** Resolves a host name to its addresses (IPv4 and IPv6 literals). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** What a refusal says: never the address, never the resolver's answer. */
export const ADDRESS_NOT_ALLOWED = "address not allowed";
/** What a failure to connect (or to speak HTTP) says. */
export const COULD_NOT_CONNECT = "could not connect";

/**
 * The guard refused the host: it is, or resolves to, an address that is not
 * public, or it does not resolve at all (told apart from nothing, so that
 * the answer does not say which internal names exist).
 */
export class AddressNotAllowedError extends Error {
  constructor(options?: ErrorOptions) {
    super(ADDRESS_NOT_ALLOWED, options);
    this.name = "AddressNotAllowedError";
  }
}

/** The connection or the exchange failed; the cause stays for the logs. */
export class CouldNotConnectError extends Error {
  constructor(options?: ErrorOptions) {
    super(COULD_NOT_CONNECT, options);
    this.name = "CouldNotConnectError";
  }
}

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address. */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The addresses a URL's host may be reached at: its literal, or what the
 * resolver answers for its name. Without `allowPrivateAddress`, every one
 * must be public (one private answer refuses the host, so a name cannot mix
 * a public address with an internal one), and a name that does not resolve
 * is refused alike. Resolves once; callers connect to these addresses only.
 */
export async function allowedAddresses(
  hostname: string,
  resolve: Resolver,
  allowPrivateAddress: boolean,
): Promise<string[]> {
  const literal = hostLiteral(hostname);
  if (literal !== null) {
    if (!allowPrivateAddress && !isPublicAddress(literal)) {
      throw new AddressNotAllowedError();
    }
    return [literal];
  }
  let addresses: string[] = [];
  try {
    addresses = await resolve(hostname);
  } catch (cause) {
    if (allowPrivateAddress) throw new CouldNotConnectError({ cause });
    throw new AddressNotAllowedError({ cause });
  }
  if (addresses.length === 0) {
    if (allowPrivateAddress) throw new CouldNotConnectError();
    throw new AddressNotAllowedError();
  }
  if (!allowPrivateAddress && !addresses.every(isPublicAddress)) {
    throw new AddressNotAllowedError();
  }
  return addresses;
}

/** Whether an error is an abort or a timeout (kept as it is). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException &&
    (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * The portable guard: checks the host (its literal, or every address its
 * name resolves to), then lets the runtime's `fetch` connect. The runtime
 * resolves the name again, so a name whose answer changes in between (DNS
 * rebinding) is not caught here: Deno injects its pinned guard instead
 * (deno/egress.ts). On Cloudflare Workers, `node:dns` asks a public
 * DNS-over-HTTPS resolver and `fetch` cannot reach private networks or IP
 * hosts at all, so there is nothing internal to rebind to.
 */
export function createPortableEgress(
  options: { resolve?: Resolver; fetch?: typeof fetch } = {},
): EgressFetch {
  const resolve = options.resolve ?? systemResolver;
  return async (request, { signal, allowPrivateAddress }) => {
    if (!allowPrivateAddress) {
      const url = new URL(request.url);
      await allowedAddresses(url.hostname, resolve, false);
    }
    try {
      return await (options.fetch ?? fetch)(request, {
        redirect: "manual",
        signal,
      });
    } catch (error) {
      if (isAbort(error) || signal?.aborted) throw error;
      throw new CouldNotConnectError({ cause: error });
    }
  };
}

/** The guard used when the entry injects none. */
export const portableEgress: EgressFetch = createPortableEgress();
