/**
 * Activities delivered as we write them. Fedify serialises what it sends by
 * compacting its vocabulary objects, which peers do not all read: a Place
 * loses its `address` (not in Fedify's vocabulary), a one-element `tag` or
 * `attachment` list becomes a single value, terms outside its vocabulary
 * (`eventStatus`, `ical:status`, `joinMode`, `externalParticipationUrl`...)
 * are dropped, and a Tombstone's `formerType` becomes the compact IRI
 * `as:Event`. Gancio and Mobilizon read `tag` and `attachment` only as
 * arrays; Gancio needs the address to find or create the place of an update
 * (read as the one `location` object, which object.ts writes single when
 * there is one), and deletes only what it knows was an `Event`.
 *
 * So the publisher writes the JSON it wants delivered, registers it under
 * the activity's id, and sends Fedify's reading of it (Create.fromJsonLd...)
 * through Fedify as usual (which resolves the inboxes and queues one
 * message per inbox). When the messages
 * are queued, rewriteOutboxMessage puts the registered JSON in place of
 * Fedify's, signed again the two ways Fedify signs: an Object Integrity Proof
 * (FEP-8b32, `eddsa-jcs-2022`, over the JSON as written) and then a Linked
 * Data signature (`RsaSignature2017`), with the keys the message carries.
 * Fedify then delivers it with HTTP signatures as any other.
 */
import { type DocumentLoader, importJwk, signJsonLd } from "@fedify/fedify";
import { DataIntegrityProof } from "@fedify/vocab";
import serialize from "json-canon";
import { EVENT_CONTEXT } from "./object.ts";

/** The contexts of a raw activity: those Fedify gives its own, and ours. */
export const RAW_ACTIVITY_CONTEXT_BASE = [
  // The terms of the Linked Data signature (creator, signatureValue...).
  "https://w3id.org/identity/v1",
  "https://www.w3.org/ns/activitystreams",
  // The terms of the proof.
  "https://w3id.org/security/data-integrity/v1",
] as const;

/** The context of our raw activities: those above and our events' terms. */
export const RAW_ACTIVITY_CONTEXT = [
  ...RAW_ACTIVITY_CONTEXT_BASE,
  EVENT_CONTEXT[1],
];

/** A JSON-LD document. */
export type JsonObject = Record<string, unknown>;

/** What Fedify queues for one delivery (the fields read or replaced here). */
interface OutboxMessage {
  type: "outbox";
  activityId?: string;
  activity: unknown;
  keys: { keyId: string; privateKey: JsonWebKey }[];
}

function isOutboxMessage(message: unknown): message is OutboxMessage {
  const m = message as Partial<OutboxMessage> | null;
  return m?.type === "outbox" && typeof m.activityId === "string" &&
    Array.isArray(m.keys);
}

/**
 * Fedify's fan-out message (an activity for many inboxes, expanded into one
 * outbox message per inbox when the queue handles it), with the raw
 * activity it carries for that moment (FANOUT_RAW).
 */
interface FanoutMessage {
  type: "fanout";
  activityId?: string;
  [FANOUT_RAW]?: JsonObject;
}

/** Where a fan-out message carries the raw activity through the queue. */
const FANOUT_RAW = "quandoRawActivity";

function isFanoutMessage(message: unknown): message is FanoutMessage {
  const m = message as Partial<FanoutMessage> | null;
  return m?.type === "fanout" && typeof m.activityId === "string";
}

/** The messages of a queue row: itself, or those of a bundle (batching.ts). */
function messagesOf(message: unknown): unknown[] {
  const m = message as { type?: unknown; messages?: unknown } | null;
  return m?.type === "quando:bundle" && Array.isArray(m.messages)
    ? m.messages
    : [message];
}

/** The activities registered for delivery as written, by id. */
export interface RawActivities {
  /** Registers `activity` (with its `@context` and `id`) to be delivered as written. */
  register(activity: JsonObject): void;
  /** Forgets the activities of `ids` once their messages are queued. */
  forget(ids: Iterable<string>): void;
  /**
   * The queued message with the registered JSON of its activity: an outbox
   * message gets it in place of Fedify's, signed; a fan-out message carries
   * it along for the outbox messages it will be expanded into. Other
   * messages as they are.
   */
  rewriteOutboxMessage(message: unknown): Promise<unknown>;
  /**
   * For the handling of a queue row: registers the raw activities its
   * fan-out messages carry, so the outbox messages they expand into are
   * rewritten (`rewrite`), and forgets them (`done`); null when it has none.
   */
  whileHandling(
    message: unknown,
  ): { rewrite(message: unknown): Promise<unknown>; done(): void } | null;
}

/** The registry of raw activities, signing with `contextLoader`'s contexts. */
export function createRawActivities(
  contextLoader: DocumentLoader,
): RawActivities {
  // Counted: the same activity may be registered by two handlings at once
  // (a writer's own publication and the queue's replay of it), and the
  // first to finish must not take it from the other.
  const registered = new Map<string, { raw: JsonObject; count: number }>();
  // One activity is queued once per inbox: it is signed once.
  const signed = new Map<string, Promise<JsonObject>>();
  return {
    register(activity) {
      const id = String(activity.id);
      const entry = registered.get(id);
      if (!entry) {
        registered.set(id, { raw: activity, count: 1 });
        return;
      }
      entry.count++;
      // The same id with other content (two writes of one event within a
      // millisecond): the latest is sent, signed anew.
      if (JSON.stringify(entry.raw) !== JSON.stringify(activity)) {
        entry.raw = activity;
        signed.delete(id);
      }
    },
    forget(ids) {
      for (const id of ids) {
        const entry = registered.get(id);
        if (entry && --entry.count > 0) continue;
        registered.delete(id);
        signed.delete(id);
      }
    },
    whileHandling(message) {
      const carried = messagesOf(message).flatMap((m) =>
        isFanoutMessage(m) && m[FANOUT_RAW] ? [m[FANOUT_RAW]] : []
      );
      if (carried.length === 0) return null;
      for (const raw of carried) this.register(raw);
      return {
        rewrite: (m) => this.rewriteOutboxMessage(m),
        done: () => this.forget(carried.map((raw) => String(raw.id))),
      };
    },
    async rewriteOutboxMessage(message) {
      if (isFanoutMessage(message)) {
        const raw = registered.get(message.activityId!)?.raw;
        return raw ? { ...message, [FANOUT_RAW]: raw } : message;
      }
      if (!isOutboxMessage(message)) return message;
      const id = message.activityId!;
      const raw = registered.get(id)?.raw;
      if (!raw) return message;
      let activity = signed.get(id);
      if (!activity) {
        activity = signRawActivity(
          raw,
          message.keys,
          proofKeyOf(message.activity),
          contextLoader,
        );
        signed.set(id, activity);
      }
      return { ...message, activity: await activity };
    },
  };
}

/**
 * The key id Fedify's proof names (the actor's Multikey, `#multikey-N`: not
 * the id the queued message gives the same key), or null without a proof.
 */
function proofKeyOf(activity: unknown): string | null {
  const proof = (activity as { proof?: unknown } | null)?.proof;
  const first = Array.isArray(proof) ? proof[0] : proof;
  const method = (first as { verificationMethod?: unknown } | undefined)
    ?.verificationMethod;
  return typeof method === "string" ? method : null;
}

/**
 * `activity` with an Object Integrity Proof (Ed25519, eddsa-jcs-2022, naming
 * `proofKeyId`; none when null) and then a Linked Data signature (RSA), as
 * Fedify signs what it sends, made with the keys of a queued message.
 */
export async function signRawActivity(
  activity: JsonObject,
  keys: readonly { keyId: string; privateKey: JsonWebKey }[],
  proofKeyId: string | null,
  contextLoader: DocumentLoader,
): Promise<JsonObject> {
  const imported = await Promise.all(keys.map(async (key) => ({
    keyId: new URL(key.keyId),
    privateKey: await importJwk(key.privateKey, "private"),
  })));
  let document: JsonObject = { ...activity };
  delete document.proof;
  delete document.signature;
  const ed25519 = imported.find((k) =>
    k.privateKey.algorithm.name === "Ed25519"
  );
  if (ed25519 && proofKeyId) {
    document = {
      ...document,
      proof: await jcsProof(
        document,
        ed25519.privateKey,
        new URL(proofKeyId),
        contextLoader,
      ),
    };
  }
  const rsa = imported.find((k) =>
    k.privateKey.algorithm.name === "RSASSA-PKCS1-v1_5"
  );
  if (rsa) {
    try {
      document = await signJsonLd(document, rsa.privateKey, rsa.keyId, {
        contextLoader,
      }) as JsonObject;
    } catch {
      // As Fedify does: a document its JSON-LD processing refuses is sent
      // without a Linked Data signature (the proof and the HTTP signature
      // still authenticate it).
    }
  }
  return document;
}

/**
 * The `eddsa-jcs-2022` proof of `document` (FEP-8b32): the SHA-256 of the
 * proof's options and of the document, each in the JSON Canonicalization
 * Scheme (RFC 8785), signed with Ed25519; in the compact form Fedify gives
 * proofs, without its own `@context` (the document's has the terms).
 */
async function jcsProof(
  document: JsonObject,
  privateKey: CryptoKey,
  keyId: URL,
  contextLoader: DocumentLoader,
): Promise<JsonObject> {
  // As the verifier writes it back (Temporal trims trailing zeros of the
  // fraction): the string hashed must be that one.
  const created = Temporal.Now.instant();
  const options = {
    "@context": document["@context"],
    type: "DataIntegrityProof",
    cryptosuite: "eddsa-jcs-2022",
    verificationMethod: keyId.href,
    proofPurpose: "assertionMethod",
    created: created.toString(),
  };
  const sha256 = async (value: unknown) =>
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        new TextEncoder().encode(serialize(value)),
      ),
    );
  const [optionsHash, documentHash] = await Promise.all([
    sha256(options),
    sha256(document),
  ]);
  const signed = new Uint8Array(optionsHash.length + documentHash.length);
  signed.set(optionsHash, 0);
  signed.set(documentHash, optionsHash.length);
  const signature = await crypto.subtle.sign("Ed25519", privateKey, signed);
  const proof = new DataIntegrityProof({
    cryptosuite: "eddsa-jcs-2022",
    verificationMethod: keyId,
    proofPurpose: "assertionMethod",
    created,
    proofValue: new Uint8Array(signature),
  });
  const { "@context": _context, ...compact } = await proof.toJsonLd({
    format: "compact",
    contextLoader,
  }) as JsonObject;
  return compact;
}
