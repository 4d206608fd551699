/**
 * The checks an inbox post passes before Fedify sees it: a bounded body, a
 * JSON shape of bounded depth and size, only JSON-LD contexts held locally,
 * a sender that is not blocked, and a valid HTTP signature. Fedify processes
 * JSON-LD (and verifies Linked Data signatures) before HTTP signatures; these
 * checks make sure nobody gets that work, or a fetch other than of the
 * signing key, without signing.
 */
import { verifyRequest } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/vocab-runtime";
import { knownContext } from "./contexts.ts";
import { localContextLoader } from "./loader.ts";

/**
 * Largest inbox post. Real activities are far smaller (a Mastodon post or a
 * Mobilizon event with a long description stays under 64 KiB); 256 KiB leaves
 * room for long descriptions while bounding what one request can cost.
 */
export const INBOX_MAX_BYTES = 256 * 1024;
/** Deepest nesting of arrays and objects accepted (real activities: about 10). */
export const INBOX_MAX_DEPTH = 32;
/** Most JSON values (objects, arrays, scalars) in one activity. */
export const INBOX_MAX_VALUES = 10_000;

/** Why a post was refused before Fedify saw it. */
export interface InboxRefusal {
  status: 400 | 401 | 403 | 413;
  message: string;
}

interface Shape {
  depth: number;
  values: number;
  contexts: string[];
}

/** Walks a parsed JSON value without recursion: depth, size and context URLs. */
function shapeOf(root: unknown): Shape {
  const shape: Shape = { depth: 0, values: 0, contexts: [] };
  const stack: Array<[unknown, number, boolean]> = [[root, 1, false]];
  while (stack.length > 0) {
    const [value, depth, inContext] = stack.pop() as [unknown, number, boolean];
    shape.values++;
    if (shape.values > INBOX_MAX_VALUES) return shape;
    if (depth > shape.depth) shape.depth = depth;
    if (depth > INBOX_MAX_DEPTH) return shape;
    if (typeof value === "string") {
      if (inContext) shape.contexts.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1, inContext]);
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        // Strings under @context (or in its array), at any depth (scoped
        // contexts), and @import values are context URLs.
        stack.push([item, depth + 1, key === "@context" || key === "@import"]);
      }
    }
  }
  return shape;
}

/**
 * Checks a parsed activity's shape and contexts: null when it may go on, or
 * the reason it may not. Unknown contexts are named, never fetched.
 */
export function checkActivityShape(json: unknown): InboxRefusal | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    return { status: 400, message: "An activity is a JSON object" };
  }
  const shape = shapeOf(json);
  if (shape.depth > INBOX_MAX_DEPTH) {
    return {
      status: 400,
      message: `The activity nests deeper than ${INBOX_MAX_DEPTH} levels`,
    };
  }
  if (shape.values > INBOX_MAX_VALUES) {
    return {
      status: 400,
      message: `The activity holds more than ${INBOX_MAX_VALUES} values`,
    };
  }
  const unknown = shape.contexts.find((url) => knownContext(url) === null);
  if (unknown !== undefined) {
    return {
      status: 400,
      message: `Unknown JSON-LD context ${
        JSON.stringify(unknown.slice(0, 200))
      } (only well-known contexts are accepted; none is fetched)`,
    };
  }
  return null;
}

/** The parsed body of an inbox post, or why it is refused. */
export async function readInboxPost(
  request: Request,
): Promise<{ json: Record<string, unknown> } | { refusal: InboxRefusal }> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > INBOX_MAX_BYTES) {
    return {
      refusal: {
        status: 413,
        message: `An inbox post is at most ${INBOX_MAX_BYTES} bytes`,
      },
    };
  }
  const bytes = await request.clone().arrayBuffer();
  if (bytes.byteLength > INBOX_MAX_BYTES) {
    return {
      refusal: {
        status: 413,
        message: `An inbox post is at most ${INBOX_MAX_BYTES} bytes`,
      },
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { refusal: { status: 400, message: "The body is not JSON" } };
  }
  const refusal = checkActivityShape(json);
  if (refusal) return { refusal };
  return { json: json as Record<string, unknown> };
}

/**
 * Whether the post carries a valid HTTP signature (draft-cavage with Digest,
 * or RFC 9421). Only the key named by the signature is fetched, through the
 * given loader; contexts come from the local copies.
 */
export async function hasValidHttpSignature(
  request: Request,
  documentLoader: DocumentLoader,
): Promise<boolean> {
  const signed = request.headers.has("signature") ||
    request.headers.has("signature-input");
  if (!signed) return false;
  try {
    const key = await verifyRequest(request.clone(), {
      documentLoader,
      contextLoader: localContextLoader,
    });
    return key !== null;
  } catch {
    // An unreachable, oversized or malformed key document.
    return false;
  }
}
