/**
 * The federation's contexts as types: what each part (dispatchers, inbox,
 * publishing, trust) is given. Built by createFederationContexts in core.ts;
 * here on their own so that the builders can name them without importing
 * core.ts.
 */
import type { Federation, KvStore, MessageQueue } from "@fedify/fedify";
import type { Event } from "@fedify/vocab";
import type { DocumentLoader } from "@fedify/vocab-runtime";
import type { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "../../db/client.ts";
import type { BatchRead } from "../../db/batch.ts";
import type { Clock } from "../clock.ts";
import type { EventRow } from "../events/serialize.ts";
import type { Logger } from "../log.ts";
import type { Settings } from "../settings.ts";
import type { BundlingQueue } from "./batching.ts";
import type { ActorKeyPairs } from "./keys.ts";
import type { FetchSigner } from "./loader.ts";
import type { EventObject, FederationUrls } from "./object.ts";
import type { RawActivities } from "./raw-activities.ts";
import type { LibsqlMessageQueue } from "./store/queue.ts";

/** What a queue needs for drainQueue (and to hear of rows queued by a write's batch). */
/**
 * Other work carried by the federation's queue (e-mail, lib/mail/): the
 * listener hands it the messages it `handles`, whose own retries it keeps
 * (`handle` never throws).
 */
export interface QueueWork {
  handles(message: unknown): boolean;
  // deno-lint-ignore no-explicit-any
  handle(message: any): Promise<void>;
}

export type DrainableQueue = Pick<
  LibsqlMessageQueue,
  "drainListening" | "hasLocalWork" | "noteEnqueued"
>;

/**
 * Where the federation keeps things: the database, the key-value store
 * (remembering each peer's signature scheme for a while) and the queue as
 * given; with the clock and the log every part writes to.
 */
export interface FederationStorage {
  db: Db;
  clock: Clock;
  log: Logger;
  /** The key-value store, remembering each peer's signature scheme for a while. */
  kv: KvStore;
  /** The queue as given (`deps.queue`): drained on demand, told of rows a write's batch queued. */
  queue: MessageQueue & Partial<DrainableQueue>;
}

/** How remote documents are fetched (through the egress guard, with Quando's limits). */
export interface FederationFetching {
  /** Fetches with Quando's limits, signed by the instance actor; never cached. */
  freshLoader: DocumentLoader;
  /** The fresh loader behind Fedify's five-minute cache of remote documents. */
  cachedLoader: DocumentLoader;
  /** A loader signing as `signer` (Fedify's authenticated document loader). */
  signedLoader(signer: FetchSigner): DocumentLoader;
  /** Fetches may reach loopback and private hosts (tests, local peers). */
  allowPrivateAddresses: boolean;
}

/** Who the instance is: its public origin, its actor's keys, URLs and settings. */
export interface FederationIdentity {
  /** The public origin (no trailing slash). */
  baseUrl: string;
  /** The instance actor's key pairs (RSA, Ed25519). */
  keyPairs(): Promise<ActorKeyPairs>;
  /** Settings when federation is on, else null (everything answers 404). */
  activeSettings(): Promise<Settings | null>;
  /** The federation URLs for `settings`. */
  urlsOf(settings: Settings): FederationUrls;
  /** The instance actor's URL. */
  me(settings: Settings): string;
}

/** Local events in their ActivityPub form. */
export interface FederationEventForms {
  /** Places and tags of events, in two statements of a batch, for their AP form. */
  eventObjectsQuery(
    rows: EventRow[],
    settings: Settings,
  ): BatchRead<EventObject[]>;
  /** Places and tags of events, in one round trip, for their AP form. */
  eventObjects(rows: EventRow[], settings: Settings): Promise<EventObject[]>;
  /** An event's JSON-LD as Fedify's Event (keeping every term). */
  toVocabEvent(json: EventObject): Promise<Event>;
}

/** What publishing sends through, besides Fedify's `Federation`. */
export interface FederationOutbox {
  /** Stores what publishing enqueues as one row per ordering key. */
  bundling: BundlingQueue;
  /** Activities delivered as we write them (lib/federation/raw-activities.ts). */
  rawActivities: RawActivities;
  /**
   * Publications are left to the queue, after the response; otherwise the
   * writer publishes at once and the queue is only the fallback.
   */
  deferPublication: boolean;
}

/** Inbox work's view of the queue. */
export interface FederationInboxWork {
  /** The queue message being handled (inbox work: the activity exactly as received). */
  currentMessage: AsyncLocalStorage<unknown>;
}

/**
 * The federation's contexts, built once by createFederationContexts; the
 * service hands each part (dispatchers, inbox, publishing, trust) only the
 * ones it uses.
 */
export interface FederationContexts {
  storage: FederationStorage;
  fetching: FederationFetching;
  identity: FederationIdentity;
  forms: FederationEventForms;
  outbox: FederationOutbox;
  inboxWork: FederationInboxWork;
  federation: Federation<void>;
}
