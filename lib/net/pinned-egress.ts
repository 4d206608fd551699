/**
 * The egress guard on Deno (main.ts injects it): one resolution per
 * connection, and the connection goes to the address that resolution
 * checked. It sends the request with `node:http`/`node:https`, whose
 * `lookup` option Deno honours: our lookup resolves the name, refuses it
 * unless every address is public (lib/net/address.ts), and hands the socket
 * the checked addresses, so the runtime never resolves the name a second
 * time (no DNS rebinding window). TLS still verifies the certificate
 * against the URL's host name (and sends it as SNI). Each request opens its
 * own connection (no pooled socket that was checked for another name).
 *
 * Only main.ts imports it: Workers have no sockets to pin, and use the
 * portable guard of lib/net/egress.ts.
 */
import http from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { Readable } from "node:stream";
import { hostLiteral } from "./address.ts";
import {
  allowedAddresses,
  CouldNotConnectError,
  type EgressFetch,
  type Resolver,
  systemResolver,
} from "./egress.ts";

/** Statuses whose response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type LookupCallback = (
  error: Error | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The pinned guard. `resolve` is the name resolver (the system's by
 * default; tests inject one); it is called once per request.
 */
export function createPinnedEgress(
  options: { resolve?: Resolver } = {},
): EgressFetch {
  const resolve = options.resolve ?? systemResolver;
  return async (request, { signal, allowPrivateAddress }) => {
    signal?.throwIfAborted();
    const url = new URL(request.url);
    // An IP host is checked here (node connects to it without a lookup); a
    // name is resolved and checked once, by the lookup below.
    if (hostLiteral(url.hostname) !== null) {
      await allowedAddresses(url.hostname, resolve, allowPrivateAddress);
    }
    const body = request.body
      ? new Uint8Array(await request.arrayBuffer())
      : null;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Bodies are read as sent: no decoding to do, and the size cap holds.
    headers["accept-encoding"] = "identity";
    let refusal: Error | null = null;
    const lookup = (
      hostname: string,
      opts: { all?: boolean; family?: number },
      callback: LookupCallback,
    ) => {
      allowedAddresses(hostname, resolve, allowPrivateAddress).then(
        (addresses) => {
          const found = addresses.map((address) => ({
            address,
            family: isIP(address) === 6 ? 6 : 4,
          }));
          if (opts?.all) callback(null, found);
          else callback(null, found[0].address, found[0].family);
        },
        (error: Error) => {
          refusal = error;
          callback(error, opts?.all ? [] : "");
        },
      );
    };
    const send = url.protocol === "https:" ? https.request : http.request;
    return await new Promise<Response>((resolvePromise, reject) => {
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        if (signal?.aborted) reject(signal.reason);
        else if (refusal) reject(refusal);
        else reject(new CouldNotConnectError({ cause: error }));
      };
      const req = send(url, {
        method: request.method,
        headers,
        lookup: lookup as never,
        // A connection of its own, checked for this request only.
        agent: false,
      }, (res) => {
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        const responseHeaders = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          responseHeaders.append(raw[i], raw[i + 1]);
        }
        const status = res.statusCode ?? 502;
        let stream: ReadableStream<Uint8Array> | null = null;
        if (NULL_BODY.has(status) || request.method === "HEAD") {
          res.resume();
        } else {
          stream = Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
        }
        signal?.addEventListener("abort", () => res.destroy(), { once: true });
        try {
          resolvePromise(
            new Response(stream, {
              status,
              statusText: res.statusMessage,
              headers: responseHeaders,
            }),
          );
        } catch (error) {
          res.destroy();
          reject(new CouldNotConnectError({ cause: error }));
        }
      });
      req.on("error", fail);
      if (signal) {
        signal.addEventListener("abort", () => {
          fail(signal.reason);
          req.destroy();
        }, { once: true });
      }
      req.end(body ?? undefined);
    });
  };
}
