/**
 * The federation's contexts, built once per service, one per concern:
 * storage (database, key-value store, queue, clock, log), fetching (the
 * loaders), identity (the public origin, the instance actor's keys, URLs and
 * settings when federation is on), events in their ActivityPub form, the
 * outbox (bundling, raw activities) and inbox work (the message being
 * handled), with the Fedify `Federation` (its queue wrapped to handle queued
 * publications and to bundle deliveries). Dispatchers, inbox listeners,
 * publishing and trust each take only the contexts they use: nothing here
 * lives at module level.
 */
import {
  createExponentialBackoffPolicy,
  createFederation,
  kvCache,
  type KvStore,
  type MessageQueue,
  type RetryPolicy,
} from "@fedify/fedify";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { EventRow } from "../events/serialize.ts";
import type { Logger } from "../log.ts";
import { getSettings, type Settings } from "../settings.ts";
import { type ActorKeyPairs, loadOrCreateKeyPairs } from "./keys.ts";
import {
  createDocumentLoader,
  type FetchLimits,
  type FetchSigner,
  localContextLoader,
  quandoUserAgent,
} from "./loader.ts";
import { actorUrl, type FederationUrls } from "./object.ts";
import { createEventForms } from "./event-forms.ts";
import type {
  DrainableQueue,
  FederationContexts,
  FederationFetching,
  FederationIdentity,
  FederationInboxWork,
  FederationOutbox,
  FederationStorage,
  QueueWork,
} from "./context-types.ts";
import { type EgressFetch, portableEgress } from "../net/egress.ts";
import { createBundlingQueue, rememberSignatureSpecs } from "./batching.ts";
import { createRawActivities } from "./raw-activities.ts";
import {
  duringDelivery,
  FIRST_KNOCK,
  installDeliveryFetch,
  rememberSpecsOnSuccess,
  SPEC_PREFIX,
} from "./signatures.ts";

export type {
  DrainableQueue,
  FederationContexts,
  FederationEventForms,
  FederationFetching,
  FederationIdentity,
  FederationInboxWork,
  FederationOutbox,
  FederationStorage,
  QueueWork,
} from "./context-types.ts";

/**
 * A queued publication (a `fedify_queue` row written by an event write's own
 * batch): the event the write named, the family before it, and the write's
 * time, which makes the activities' ids the same however often it is handled.
 */
export interface PublicationMessage {
  type: "quando:publish";
  event: number;
  before: PublishedBefore[];
  stamp: number;
  /** Only the events not in `before` (queued by earlier versions' hourly extension). */
  onlyNew?: boolean;
  /**
   * The hourly job's announcement of occurrences that came into a series'
   * horizon: only the events in `before`, a Create each.
   */
  due?: boolean;
}

/** What publishing needs of an event as it was before a change. */
export interface PublishedBefore {
  id: number;
  parentId: number | null;
  /** Announced (isAnnounced): followers have its Create. */
  federated: boolean;
  /**
   * Federated but not yet announced (an occurrence beyond its series'
   * horizon): its Create is the hourly job's.
   */
  pending?: boolean;
}

/** Whether a queue message is a queued publication (not one of Fedify's). */
export function isPublicationMessage(
  message: unknown,
): message is PublicationMessage {
  return (message as PublicationMessage | null)?.type === "quando:publish";
}

export interface FederationDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** The public origin (no trailing slash). */
  baseUrl: string;
  /** Let fetches reach loopback and private hosts (tests, local peers). */
  allowPrivateAddresses: boolean;
  kv: KvStore;
  /**
   * The delivery and inbox queue; with `drainListening` and `hasLocalWork`
   * (the libSQL queue) it can also be drained on demand (drainQueue).
   */
  queue: MessageQueue & Partial<DrainableQueue>;
  /** Delivery retries; Fedify's exponential backoff by default. */
  outboxRetryPolicy?: RetryPolicy;
  /** Fixed key pairs (tests); otherwise generated once and stored. */
  keyPairs?: ActorKeyPairs;
  /** Tighter fetch limits (tests); Quando's defaults otherwise. */
  fetchLimits?: Partial<Omit<FetchLimits, "allowPrivateAddress">>;
  /**
   * The egress guard every fetch goes through (lib/net/egress.ts); the
   * portable one when absent. main.ts gives Deno's pinned one.
   */
  egress?: EgressFetch;
  /**
   * Publications are left to the queue, after the response (remote
   * databases, where each statement is a round trip); otherwise the writer
   * publishes at once and the queue is only the fallback.
   */
  deferPublication?: boolean;
  /** Other work the queue carries (e-mail), handled before Fedify sees it. */
  queueWork?: QueueWork[];
}

/**
 * Whether a local event is on the fediverse: visible, not a series template
 * (served at its URL and in the collections; see isAnnounced for what
 * followers receive).
 */
export function isFederated(e: EventRow | null): e is EventRow {
  return e !== null && e.apUserApId === null && e.is_visible &&
    !(e.recurrent !== null && e.parentId === null);
}

/** Whether a queue message is one of Fedify's deliveries (to one inbox). */
function isOutboxMessage(message: unknown): boolean {
  return (message as { type?: unknown } | null)?.type === "outbox";
}

/**
 * Whether followers have (or are sent) a local event's Create: federated
 * and announced (an occurrence of a series beyond its horizon is not yet).
 */
export function isAnnounced(e: EventRow | null): e is EventRow {
  return isFederated(e) && e.announced;
}

/** `value` when it is a JSON object, else an empty one. */
export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

/** `decodeURIComponent`, or null when `text` is not valid percent-encoding. */
export function decodeURIComponentSafe(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * The instance's identity: its public origin, its actor's key pairs (given,
 * or generated once and stored), URLs and settings when federation is on.
 */
export function createIdentity(
  deps: Pick<FederationDeps, "db" | "clock" | "baseUrl" | "keyPairs">,
): FederationIdentity {
  const { db, clock, baseUrl } = deps;
  let keysPromise: ReturnType<typeof loadOrCreateKeyPairs> | null = null;
  const keyPairs = () => {
    if (deps.keyPairs) return Promise.resolve(deps.keyPairs);
    keysPromise ??= loadOrCreateKeyPairs(db, clock).catch((err) => {
      keysPromise = null;
      throw err;
    });
    return keysPromise;
  };

  /** Settings when federation is on, else null (everything answers 404). */
  async function activeSettings(): Promise<Settings | null> {
    const settings = await getSettings(db);
    return settings.enable_federation ? settings : null;
  }
  const urlsOf = (settings: Settings): FederationUrls => ({
    base: baseUrl,
    actorName: settings.instance_actor,
  });
  const me = (settings: Settings) => actorUrl(urlsOf(settings));
  return { baseUrl, keyPairs, activeSettings, urlsOf, me };
}

/**
 * The loaders: every fetch goes through one loader with Quando's limits
 * (size, time, redirects, private addresses), signed by the instance actor;
 * contexts come from local copies only. `kv` keeps the cached copies.
 */
export function createFetching(
  deps: Pick<
    FederationDeps,
    "baseUrl" | "allowPrivateAddresses" | "egress" | "fetchLimits"
  >,
  identity: FederationIdentity,
  kv: KvStore,
): FederationFetching {
  const { activeSettings, keyPairs, me } = identity;
  const fetchLimits: FetchLimits = {
    allowPrivateAddress: deps.allowPrivateAddresses,
    userAgent: quandoUserAgent(deps.baseUrl),
    egress: deps.egress,
    ...deps.fetchLimits,
  };
  // Every GET is signed by the instance actor (draft-cavage), so servers
  // that answer only signed fetches ("authorized fetch": Mastodon's secure
  // mode, GoToSocial) answer us too.
  const instanceSigner = async (): Promise<FetchSigner | null> => {
    const settings = await activeSettings();
    if (!settings) return null;
    const { rsa } = await keyPairs();
    // The RSA key is the actor's first: Fedify names it `#main-key`.
    return {
      keyId: new URL(`${me(settings)}#main-key`),
      privateKey: rsa.privateKey,
    };
  };
  const freshLoader = createDocumentLoader(fetchLimits, instanceSigner);
  // Actors and keys may be reused for five minutes, as Fedify's own loader does.
  const cachedLoader = kvCache({
    loader: freshLoader,
    kv,
    prefix: ["_fedify", "remoteDocument"],
  });
  return {
    freshLoader,
    cachedLoader,
    signedLoader: (signer) => createDocumentLoader(fetchLimits, signer),
    allowPrivateAddresses: deps.allowPrivateAddresses,
  };
}

/**
 * The outbox (what publishing enqueues is stored as one row per ordering
 * key: a series' activities to one inbox origin, one insert, claim and
 * delete; activities delivered as we write them), and the queue as Fedify
 * gets it, handling queued publications (`publishQueued`) itself and
 * running inbox work inside `inboxWork.currentMessage`.
 */
export function createOutbox(
  deps: Pick<
    FederationDeps,
    | "log"
    | "queue"
    | "egress"
    | "allowPrivateAddresses"
    | "deferPublication"
    | "queueWork"
  >,
  inboxWork: FederationInboxWork,
  publishQueued: (message: PublicationMessage) => Promise<void>,
): { outbox: FederationOutbox; federationQueue: MessageQueue } {
  const { currentMessage } = inboxWork;
  // Activities delivered as we write them (lib/federation/raw-activities.ts).
  const rawActivities = createRawActivities(localContextLoader);
  const bundling = createBundlingQueue(deps.queue, {
    around: (message, handle) => currentMessage.run(message, handle),
    log: deps.log,
    // A fan-out message expands into outbox messages of its raw activity.
    whileHandling: (message) => rawActivities.whileHandling(message),
  });
  /**
   * How a delivery is sent: through the egress guard like every other
   * request (inbox URLs come from remote actors' documents), never
   * following a redirect.
   */
  const sendDelivery = (request: Request) =>
    (deps.egress ?? portableEgress)(request, {
      allowPrivateAddress: deps.allowPrivateAddresses,
    });
  const otherWork = deps.queueWork ?? [];
  /** The queue as Fedify gets it, handling queued publications itself. */
  const federationQueue: MessageQueue = {
    get nativeRetrial() {
      return bundling.queue.nativeRetrial;
    },
    enqueue: (message, options) => bundling.queue.enqueue(message, options),
    enqueueMany: bundling.queue.enqueueMany
      ? (messages, options) => bundling.queue.enqueueMany!(messages, options)
      : undefined,
    listen: (handler, options) =>
      bundling.queue.listen(
        (message) =>
          otherWork.find((work) => work.handles(message))?.handle(message) ??
            (isPublicationMessage(message)
              ? publishQueued(message)
              : isOutboxMessage(message)
              // A delivery: its signature scheme is chosen and remembered
              // as lib/federation/signatures.ts says.
              ? duringDelivery(() => handler(message), sendDelivery)
              : handler(message)),
        options,
      ),
  };
  return {
    outbox: {
      bundling,
      rawActivities,
      deferPublication: deps.deferPublication ?? false,
    },
    federationQueue,
  };
}

/**
 * Builds the federation's contexts, one builder per concern, and the Fedify
 * `Federation` over them. `publishQueued` handles the publications the queue
 * hands over (publishing, built over these contexts).
 */
export function createFederationContexts(
  deps: FederationDeps,
  publishQueued: (message: PublicationMessage) => Promise<void>,
): FederationContexts {
  const { db, clock, log, baseUrl } = deps;
  // Inbox work runs from the queue; the message holds the activity exactly as
  // received (Fedify's parsed copy drops terms it does not know).
  const inboxWork: FederationInboxWork = {
    currentMessage: new AsyncLocalStorage<unknown>(),
  };
  const { outbox, federationQueue } = createOutbox(
    deps,
    inboxWork,
    publishQueued,
  );

  // The signature scheme of each peer, read and written around every
  // delivery, is remembered for a while, and written only after a delivery
  // signed with it really succeeded.
  installDeliveryFetch();
  const kv = rememberSpecsOnSuccess(rememberSignatureSpecs(deps.kv));
  const storage: FederationStorage = { db, clock, log, kv, queue: deps.queue };
  const identity = createIdentity(deps);
  const fetching = createFetching(deps, identity, kv);
  const federation = createFederation<void>({
    kv,
    // Each peer's remembered scheme, under Quando's own prefix (what
    // Fedify remembered under its own is not read).
    kvPrefixes: { httpMessageSignaturesSpec: [...SPEC_PREFIX] },
    // Deliveries are signed with draft-cavage first: every peer verifies it.
    firstKnock: FIRST_KNOCK,
    queue: federationQueue,
    manuallyStartQueue: true,
    origin: baseUrl,
    documentLoaderFactory: () => fetching.cachedLoader,
    contextLoaderFactory: () => localContextLoader,
    authenticatedDocumentLoaderFactory: (signer) =>
      fetching.signedLoader(signer),
    // 1 s doubling up to 12 h, 20 attempts: a peer down for about two days
    // still gets what was sent meanwhile.
    outboxRetryPolicy: deps.outboxRetryPolicy ??
      createExponentialBackoffPolicy({
        maxAttempts: 20,
        maxDelay: { hours: 12 },
      }),
    // A peer that is down for a while must still get its deliveries once it
    // is back; the queue's backoff already spaces the attempts.
    circuitBreaker: false,
    onOutboxError: (error, activity) => {
      log.warning("delivery failed", {
        activity: activity?.id?.href,
        error: String(error),
      });
    },
  });
  const forms = createEventForms({ storage, identity, federation });
  return {
    storage,
    fetching,
    identity,
    forms,
    outbox,
    inboxWork,
    federation,
  };
}
