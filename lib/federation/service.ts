/**
 * The ActivityPub side of Quando, built on Fedify: the instance actor and its
 * collections, WebFinger and NodeInfo, event objects, the inbox, publishing
 * through the persistent queue, and the admin operations on remote actors.
 */
import {
  type Context,
  createExponentialBackoffPolicy,
  createFederation,
  type Federation,
  kvCache,
  type KvStore,
  type MessageQueue,
  type RetryPolicy,
  signJsonLd,
} from "@fedify/fedify";
import {
  Accept,
  Activity,
  type Actor,
  Announce,
  Application,
  Create,
  Delete,
  Endpoints,
  Event,
  Follow,
  Ignore,
  isActor,
  Join,
  Like,
  type Object as APObject,
  type Recipient,
  Reject,
  Tombstone,
  Undo,
  Update,
} from "@fedify/vocab";
import {
  and,
  asc,
  count,
  desc,
  eq,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  type SQL,
  sql,
} from "drizzle-orm";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db } from "../../db/client.ts";
import {
  events,
  eventTags,
  fedifyQueue,
  type MediaItem,
  places,
  resources,
  tags,
} from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { invalidRequest, notFound } from "../errors.ts";
import type { ApUserRow, EventRow, PlaceRow } from "../events/serialize.ts";
import {
  allReads,
  type BatchItem,
  type BatchRead,
  runRead,
} from "../events/load.ts";
import {
  deleteEventsById,
  type EventChange,
  type PublicationWrite,
  type QueuedPublication,
  upsertRemoteEvent,
} from "../events/write.ts";
import type { Logger } from "../log.ts";
import { getSettings, type Settings } from "../settings.ts";
import {
  countFollowers,
  deliverableFollowers,
  deliverableFollowersQuery,
  findActor,
  isBlockedSender,
  setActorFlags,
  upsertActor,
} from "./actors.ts";
import { type ActorKeyPairs, loadOrCreateKeyPairs } from "./keys.ts";
import {
  createDocumentLoader,
  type FetchLimits,
  type FetchSigner,
  localContextLoader,
  quandoUserAgent,
  UnknownContextError,
} from "./loader.ts";
import { hasValidHttpSignature, readInboxPost } from "./inbox-guard.ts";
import {
  actorUrl,
  AS_PUBLIC,
  buildEventObject,
  buildPlaceObject,
  type EventObject,
  eventObjectUrl,
  type FederationUrls,
  localEventIdFromUrl,
} from "./object.ts";
import type { DrainBudget, LibsqlMessageQueue } from "./store.ts";
import { createBundlingQueue, rememberSignatureSpecs } from "./batching.ts";
import {
  createRawActivities,
  type JsonObject,
  RAW_ACTIVITY_CONTEXT,
} from "./raw-activities.ts";
import {
  idOf,
  parseRemoteEvent,
  parseRemoteNote,
  type RemoteNote,
} from "./parse.ts";

/** What a queue needs for drainQueue (and to hear of rows queued by a write's batch). */
export type DrainableQueue = Pick<
  LibsqlMessageQueue,
  "drainListening" | "hasLocalWork" | "noteEnqueued"
>;

/**
 * A queued publication (a `fedify_queue` row written by an event write's own
 * batch): the event the write named, the family before it, and the write's
 * time, which makes the activities' ids the same however often it is handled.
 */
interface PublicationMessage {
  type: "quando:publish";
  event: number;
  before: PublishedBefore[];
  stamp: number;
  /** Only the events not in `before` (the hourly extension's new occurrences). */
  onlyNew?: boolean;
}

/** What publishing needs of an event as it was before a change. */
interface PublishedBefore {
  id: number;
  parentId: number | null;
  federated: boolean;
}

function isPublicationMessage(message: unknown): message is PublicationMessage {
  return (message as PublicationMessage | null)?.type === "quando:publish";
}

/**
 * How long a publication queued by a write waits before the queue may take
 * it when the writer publishes it itself (embedded databases): only a writer
 * that died leaves it to the queue.
 */
export const PUBLICATION_GRACE_MS = 60_000;

/** Remote events are kept this long after they end, then purged. */
export const REMOTE_EVENT_RETENTION_SECONDS = 7 * 24 * 3600;

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
   * Publications are left to the queue, after the response (remote
   * databases, where each statement is a round trip); otherwise the writer
   * publishes at once and the queue is only the fallback.
   */
  deferPublication?: boolean;
}

/** What the HTTP layer and the event writes use. */
export interface FederationService {
  federation: Federation<void>;
  /**
   * Answers a request on the federation surface, or null when it is not one
   * (or wants HTML: then `notAcceptable` is true).
   */
  handle(
    request: Request,
  ): Promise<{ response: Response } | { notAcceptable: boolean }>;
  /**
   * The statements an event write adds to its batch to queue its
   * publication (Create, Update or Delete of the event and its occurrences),
   * so that the change and its federation commit together; null when
   * federation is off.
   */
  publicationWrite(settings: Settings): PublicationWrite | null;
  /**
   * After a write's batch: publishes what it queued now (embedded database;
   * a failure leaves it to the queue) or wakes the queue for it (deferred
   * publication: the response is not held up).
   */
  publishWritten(
    change: EventChange & { publication: QueuedPublication | null },
  ): Promise<void>;
  /** Wakes the queue for publications a batch queued without publishWritten (the hourly job's). */
  publicationsQueued(): void;
  /** Fetches an actor (URL, @user@host or instance domain), trusts and follows it. */
  addTrust(input: string): Promise<ApUserRow>;
  /** Follows an actor we do not follow, or unfollows one we do. */
  toggleFollow(apId: string): Promise<ApUserRow>;
  /**
   * Withdraws trust from an actor: its events are no longer imported, and a
   * Follow of ours (accepted or pending) is undone.
   */
  removeTrust(apId: string): Promise<ApUserRow>;
  /**
   * Runs the delivery and inbox queue until the signal aborts. With a queue
   * in manual (drain) mode it only registers the handler for drainQueue.
   */
  startQueue(signal: AbortSignal): Promise<void>;
  /**
   * Handles ready deliveries and inbox work within the budget (Workers:
   * after a response, in `waitUntil`, and from the cron trigger); needs a
   * running startQueue. Resolves with the number of messages handled (0
   * when the queue cannot be drained on demand).
   */
  drainQueue(budget: DrainBudget): Promise<number>;
  /** Whether this process enqueued work since the last drain began. */
  hasQueuedWork(): boolean;
  /** Deletes remote events that ended more than the retention ago. */
  purgeEndedRemoteEvents(): Promise<number>;
  /** NodeInfo usage figures and links, for the hand-served NodeInfo documents. */
  nodeInfo(): Promise<NodeInfoData | null>;
  /**
   * The Place object of `/federation/p/{id}` as JSON-LD, written by hand
   * (Fedify's Place has no `address`); null when federation is off or the
   * place is unknown.
   */
  placeObject(id: number): Promise<Record<string, unknown> | null>;
}

export interface NodeInfoData {
  actorUrl: string;
  title: string;
  description: string;
  localPosts: number;
  localComments: number;
  users: number;
}

/** Series templates are never listed nor federated; their occurrences are. */
const NOT_TEMPLATE = () =>
  sql`not (${events.recurrent} is not null and ${events.parentId} is null)`;

/** Whether a local event is on the fediverse: visible, not a series template. */
export function isFederated(e: EventRow | null): e is EventRow {
  return e !== null && e.apUserApId === null && e.is_visible &&
    !(e.recurrent !== null && e.parentId === null);
}

function typeOf(value: unknown): string | null {
  if (!value || typeof value !== "object") return null;
  const t = (value as { type?: unknown }).type;
  return typeof t === "string" ? t : Array.isArray(t) ? String(t[0]) : null;
}

/**
 * Errors of a posted activity's JSON-LD: the jsonld library's (named
 * `jsonld.*`), an unknown context, and a stack overflow in its recursion.
 */
function isUnprocessableActivityError(error: unknown): boolean {
  return error instanceof UnknownContextError || error instanceof RangeError ||
    (error instanceof Error && error.name.startsWith("jsonld."));
}

function decodeURIComponentSafe(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Whether two URLs share scheme, host and port (false if either is not a URL). */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

/** Items per page of the followers collection. */
export const FOLLOWERS_PAGE = 100;
/** Items per page of the outbox. */
export const OUTBOX_PAGE = 20;
/** Items per page of the upcoming events collection. */
export const UPCOMING_PAGE = 50;

/** A numeric page cursor (an offset or an id), or null when it is not one. */
function pageOffset(cursor: string): number | null {
  return /^(0|[1-9]\d{0,15})$/.test(cursor) ? Number(cursor) : null;
}

/** Builds the federation service. Nothing runs until `startQueue` or a request. */
export function createFederationService(
  deps: FederationDeps,
): FederationService {
  const { db, clock, log, baseUrl } = deps;
  // Inbox work runs from the queue; the message holds the activity exactly as
  // received (Fedify's parsed copy drops terms it does not know).
  const currentMessage = new AsyncLocalStorage<unknown>();
  const source = deps.queue;
  // What publishing enqueues is stored as one row per ordering key (a
  // series' activities to one inbox origin: one insert, claim and delete).
  const bundling = createBundlingQueue(source, {
    around: (message, handle) => currentMessage.run(message, handle),
    log,
  });
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
          isPublicationMessage(message)
            ? publishQueued(message)
            : handler(message),
        options,
      ),
  };

  // The signature scheme of each peer, read and written around every
  // delivery, is remembered for a while.
  const kv = rememberSignatureSpecs(deps.kv);
  // Every fetch goes through one loader with Quando's limits (size, time,
  // redirects, private addresses); contexts come from local copies only.
  const fetchLimits: FetchLimits = {
    allowPrivateAddress: deps.allowPrivateAddresses,
    userAgent: quandoUserAgent(baseUrl),
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
  const federation = createFederation<void>({
    kv,
    queue: federationQueue,
    manuallyStartQueue: true,
    origin: baseUrl,
    documentLoaderFactory: () => cachedLoader,
    contextLoaderFactory: () => localContextLoader,
    authenticatedDocumentLoaderFactory: (identity) =>
      createDocumentLoader(fetchLimits, identity),
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
  // Activities delivered as we write them (lib/federation/raw-activities.ts).
  const rawActivities = createRawActivities(localContextLoader);
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

  /** Places and tags of events, in two statements of a batch, for their AP form. */
  function eventObjectsQuery(
    rows: EventRow[],
    settings: Settings,
  ): BatchRead<EventObject[]> {
    if (rows.length === 0) return { statements: [], read: () => [] };
    const placeIds = [
      ...new Set(rows.map((r) => r.placeId).filter((id) => id !== null)),
    ] as number[];
    const ids = rows.map((r) => r.id);
    return {
      statements: [
        db.select().from(places).where(
          inArray(places.id, placeIds.length ? placeIds : [-1]),
        ),
        db.select({ eventId: eventTags.eventId, tag: tags.tag }).from(
          eventTags,
        )
          .innerJoin(tags, eq(tags.id, eventTags.tagId))
          .where(inArray(eventTags.eventId, ids))
          .orderBy(asc(tags.normalizedTag)),
      ],
      read(results) {
        const [placeRows, tagRows] = results as [
          PlaceRow[],
          { eventId: number; tag: string }[],
        ];
        const placeById = new Map<number, PlaceRow>(
          placeRows.map((p) => [p.id, p]),
        );
        return rows.map((event) =>
          buildEventObject({
            event,
            place: event.placeId !== null
              ? placeById.get(event.placeId) ?? null
              : null,
            tags: tagRows.filter((t) => t.eventId === event.id).map((t) =>
              t.tag
            ),
            urls: urlsOf(settings),
            timezone: settings.instance_timezone,
            locale: settings.instance_locale,
          })
        );
      },
    };
  }

  /** Places and tags of events, in one round trip, for their AP form. */
  function eventObjects(
    rows: EventRow[],
    settings: Settings,
  ): Promise<EventObject[]> {
    return runRead(db, eventObjectsQuery(rows, settings));
  }

  const toVocabEvent = (json: EventObject) =>
    Event.fromJsonLd(json, {
      documentLoader: federation.createContext(new URL(baseUrl)).documentLoader,
      contextLoader: federation.createContext(new URL(baseUrl)).contextLoader,
    });

  // ---------------------------------------------------------------- actor

  federation.setActorDispatcher(
    "/federation/u/{identifier}",
    async (ctx, identifier) => {
      const settings = await activeSettings();
      if (!settings || identifier !== settings.instance_actor) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      return new Application({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: settings.instance_title,
        summary: settings.instance_description || null,
        url: new URL(baseUrl),
        inbox: ctx.getInboxUri(identifier),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: keys[0]?.cryptographicKey,
        assertionMethods: keys.map((k) => k.multikey),
        manuallyApprovesFollowers: false,
        discoverable: true,
      });
    },
  )
    .mapHandle(async (_ctx, username) => {
      const settings = await activeSettings();
      return settings && username === settings.instance_actor ? username : null;
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const settings = await getSettings(db);
      if (identifier !== settings.instance_actor) return [];
      const keys = await keyPairs();
      return [keys.rsa, keys.ed25519];
    });

  // Collections are paged (`first`, then `next`): peers such as Gancio read
  // the items of `first`, never a collection's own `orderedItems`.

  federation.setFollowersDispatcher(
    "/federation/u/{identifier}/followers",
    async (_ctx, identifier, cursor) => {
      const settings = await activeSettings();
      if (!settings || identifier !== settings.instance_actor) return null;
      // No cursor: every follower (what Fedify asks when it needs them all).
      const followers = await deliverableFollowers(db);
      const offset = cursor === null ? 0 : pageOffset(cursor);
      if (offset === null) return null;
      const page = cursor === null
        ? followers
        : followers.slice(offset, offset + FOLLOWERS_PAGE);
      const items: Recipient[] = page.map((f) => ({
        id: new URL(f.id),
        inboxId: f.inbox ? new URL(f.inbox) : null,
        endpoints: f.sharedInbox
          ? { sharedInbox: new URL(f.sharedInbox) }
          : null,
      }));
      return {
        items,
        nextCursor:
          cursor !== null && offset + FOLLOWERS_PAGE < followers.length
            ? String(offset + FOLLOWERS_PAGE)
            : null,
      };
    },
  ).setCounter(async () => await countFollowers(db))
    .setFirstCursor(() => "0");

  /** What the outbox and the upcoming collection list: visible local events, not templates. */
  const listedEvents = () =>
    and(isNull(events.apUserApId), eq(events.is_visible, true), NOT_TEMPLATE());

  federation.setOutboxDispatcher(
    "/federation/u/{identifier}/outbox",
    async (ctx, identifier, cursor) => {
      const settings = await activeSettings();
      if (!settings || identifier !== settings.instance_actor) return null;
      // Newest first, by id (the creation order): the page after `cursor`
      // holds the events with a smaller id ("0" is the first page).
      const before = cursor === null ? 0 : pageOffset(cursor);
      if (before === null) return null;
      const rows = await db.select().from(events).where(
        and(
          listedEvents(),
          before > 0 ? lt(events.id, before) : undefined,
        ),
      ).orderBy(desc(events.id)).limit(OUTBOX_PAGE);
      const objects = await eventObjects(rows, settings);
      const me = ctx.getActorUri(identifier).href;
      // Built from the JSON we write, the items are served as written (the
      // whole object, lists as arrays), as the deliveries are.
      const loaders = {
        documentLoader: ctx.documentLoader,
        contextLoader: ctx.contextLoader,
      };
      const items = await Promise.all(
        objects.map(({ "@context": _context, ...object }) =>
          Create.fromJsonLd({
            "@context": RAW_ACTIVITY_CONTEXT,
            id: `${object.id}#create`,
            type: "Create",
            actor: me,
            to: [AS_PUBLIC],
            cc: [ctx.getFollowersUri(identifier).href],
            published: object.published,
            object,
          }, loaders)
        ),
      );
      return {
        items,
        nextCursor: rows.length === OUTBOX_PAGE
          ? String(rows[rows.length - 1].id)
          : null,
      };
    },
  ).setCounter(async () => {
    const [{ n }] = await db.select({ n: count() }).from(events).where(
      listedEvents(),
    );
    return n;
  }).setFirstCursor(() => "0");

  // FEP-8a8e: the instance's upcoming events as a collection, soonest first.
  federation.setCollectionDispatcher(
    "upcomingEvents",
    Event,
    "/federation/u/{identifier}/upcoming",
    async (_ctx, values, cursor) => {
      const settings = await activeSettings();
      if (!settings || values.identifier !== settings.instance_actor) {
        return null;
      }
      // The cursor is the last item's start and id ("-": the first page).
      const after = cursor === null || cursor === "-"
        ? null
        : /^(\d{1,15}):([1-9]\d{0,15})$/.exec(cursor);
      if (cursor !== null && cursor !== "-" && !after) return null;
      const now = Math.floor(clock.now().getTime() / 1000);
      const rows = await db.select().from(events).where(
        and(
          listedEvents(),
          // Upcoming while not over (docs/API.md), ongoing included.
          gte(
            sql`coalesce(${events.end_datetime}, ${events.start_datetime})`,
            now,
          ),
          after
            ? sql`(${events.start_datetime}, ${events.id}) > (${
              Number(after[1])
            }, ${Number(after[2])})`
            : undefined,
        ),
      ).orderBy(asc(events.start_datetime), asc(events.id)).limit(
        UPCOMING_PAGE,
      );
      const objects = await eventObjects(rows, settings);
      const last = rows[rows.length - 1];
      return {
        items: await Promise.all(objects.map(toVocabEvent)),
        nextCursor: rows.length === UPCOMING_PAGE
          ? `${last.start_datetime}:${last.id}`
          : null,
      };
    },
  ).setFirstCursor(() => "-");

  federation.setObjectDispatcher(
    Event,
    "/federation/m/{id}",
    async (_ctx, values) => {
      const settings = await activeSettings();
      if (!settings || !/^[1-9]\d{0,15}$/.test(values.id)) return null;
      const [row] = await db.select().from(events).where(
        eq(events.id, Number(values.id)),
      );
      // Hidden events, templates and remote events are never served.
      if (!isFederated(row ?? null)) return null;
      const [json] = await eventObjects([row], settings);
      // Built from JSON-LD, the object keeps every term when served.
      return await toVocabEvent(json);
    },
  );

  federation.setNodeInfoDispatcher("/nodeinfo/2.1", async () => {
    const info = await nodeInfo();
    return {
      software: {
        name: "quando",
        version: "0.1.0",
        homepage: new URL(baseUrl),
      },
      protocols: ["activitypub"],
      openRegistrations: false,
      usage: {
        users: { total: info?.users ?? 0 },
        localPosts: info?.localPosts ?? 0,
        localComments: info?.localComments ?? 0,
      },
      metadata: {
        nodeName: info?.title ?? "Quando",
        nodeDescription: info?.description ?? "",
      },
    };
  });

  async function nodeInfo(): Promise<NodeInfoData | null> {
    const settings = await activeSettings();
    if (!settings) return null;
    const [[posts], [comments], [people]] = await db.batch([
      db.select({ n: count() }).from(events).where(
        and(
          isNull(events.apUserApId),
          eq(events.is_visible, true),
          NOT_TEMPLATE(),
        ),
      ),
      db.select({ n: count() }).from(resources).where(
        eq(resources.hidden, false),
      ),
      db.select({ n: sql<number>`(select count(*) from users)` }).from(
        sql`(select 1)`,
      ),
    ]);
    return {
      actorUrl: actorUrl(urlsOf(settings)),
      title: settings.instance_title,
      description: settings.instance_description,
      localPosts: posts.n,
      localComments: comments.n,
      users: Number(people.n),
    };
  }

  // ---------------------------------------------------------------- inbox

  /**
   * The activity as received, from the queued inbox message; its LD
   * signature is kept only when Fedify verified it. Falls back to Fedify's
   * own serialisation.
   */
  const rawOf = async (activity: Activity) => {
    const message = asRecord(currentMessage.getStore());
    const original = asRecord(message.activity);
    if (
      message.type === "inbox" && activity.id &&
      idOf(original) === activity.id.href
    ) {
      const raw = { ...original };
      if (message.ldSignatureVerified !== true) delete raw.signature;
      return raw;
    }
    return asRecord(await activity.toJsonLd());
  };

  /** Stores the sender (fetching its actor document) and returns its row. */
  async function rememberSender(
    ctx: { documentLoader: unknown },
    activity: Activity,
    flags: Partial<Pick<ApUserRow, "follower" | "following">> = {},
  ): Promise<ApUserRow | null> {
    const actor = await activity.getActor(ctx as never);
    if (!actor?.id) return null;
    return await upsertActor(
      db,
      clock,
      actor.id.href,
      await actor.toJsonLd(),
      flags,
    );
  }

  async function localEventFor(objectId: string | null) {
    if (!objectId) return null;
    const id = localEventIdFromUrl(baseUrl, objectId);
    if (id === null) return null;
    const [row] = await db.select().from(events).where(eq(events.id, id));
    return isFederated(row ?? null) ? row : null;
  }

  /**
   * The copy of a remote object that counts as `authorId`'s, or null. Its id
   * must be on the author's origin, and a fetched copy must come from there
   * (redirects included). An embedded copy counts only inside an activity the
   * author signed: as is (`embedded: "use"`), or when the fetch fails
   * (`"fallback"`); otherwise (`"never"`, as inside an Announce) only the
   * origin's copy counts.
   */
  async function authoritativeObject(
    object: unknown,
    authorId: string,
    embedded: "use" | "fallback" | "never",
  ): Promise<Record<string, unknown> | null> {
    const id = idOf(object);
    if (!id) return null;
    if (!sameOrigin(id, authorId)) {
      log.debug("ignored an object that is not on its author's origin", {
        id,
        author: authorId,
      });
      return null;
    }
    const copy = typeof object === "object" && embedded !== "never"
      ? asRecord(object)
      : null;
    if (copy && embedded === "use") return copy;
    try {
      const { document, documentUrl } = await freshLoader(id);
      const doc = asRecord(document);
      if (idOf(doc) === id && sameOrigin(documentUrl, authorId)) return doc;
      log.debug("a fetched object is not the one named on its origin", {
        id,
        documentUrl,
      });
    } catch (err) {
      log.debug("could not fetch a remote object", {
        id,
        error: String(err),
      });
    }
    return copy;
  }

  async function handleRemoteEvent(
    actorId: string,
    object: Record<string, unknown>,
    signature: unknown,
  ): Promise<void> {
    const actor = await findActor(db, actorId);
    if (!actor || !actor.trusted || !actor.following || actor.blocked) {
      log.info("ignored an event from an actor not trusted and followed", {
        actor: actorId,
      });
      return;
    }
    const parsed = parseRemoteEvent(object);
    if (!parsed.ok) {
      log.info("ignored an unparseable remote event", {
        actor: actorId,
        reason: parsed.reason,
      });
      return;
    }
    const data = parsed.value;
    if (data.attributedTo && data.attributedTo !== actorId) return;
    const [existing] = await db.select({ apUserApId: events.apUserApId })
      .from(events).where(eq(events.ap_id, data.ap_id));
    // Only the original author may change it (never a local event).
    if (existing && existing.apUserApId !== actorId) return;
    const media: MediaItem[] = data.media.map((m) => ({
      name: m.name,
      url: m.url,
      width: m.width,
      height: m.height,
      size: null,
      focalpoint: m.focalpoint,
    }));
    await upsertRemoteEvent({ db, clock }, {
      ap_id: data.ap_id,
      apUserApId: actorId,
      title: data.title,
      description: data.description,
      start_datetime: data.start_datetime,
      end_datetime: data.end_datetime,
      status: data.status,
      place: data.place,
      online_locations: data.online_locations,
      tags: data.tags,
      media,
      ap_object: object,
      ld_signature: signature ?? null,
    });
  }

  /** What a resource keeps of a Note: parsed, sanitised fields only. */
  function noteData(object: Record<string, unknown>, note: RemoteNote) {
    return {
      id: note.ap_id,
      type: typeOf(object) ?? "Note",
      url: note.url,
      attributedTo: note.attributedTo,
      inReplyTo: note.inReplyTo,
      published: note.published,
      summary: note.summary,
      content: note.content,
      attachment: note.attachment,
    };
  }

  async function handleNote(
    ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
    activity: Activity,
    actorId: string,
    object: Record<string, unknown>,
    isUpdate: boolean,
  ): Promise<void> {
    const parsed = parseRemoteNote(object);
    if (!parsed.ok) return;
    const note = parsed.value;
    if (note.attributedTo && note.attributedTo !== actorId) return;
    const [existing] = await db.select().from(resources).where(
      eq(resources.activitypub_id, note.ap_id),
    );
    if (existing) {
      // Only the author may change a resource.
      if (existing.apUserApId !== actorId) return;
      await db.update(resources).set({
        data: noteData(object, note),
        updatedAt: clock.now(),
      }).where(eq(resources.id, existing.id));
      return;
    }
    if (isUpdate && !existing) return;
    const settings = await getSettings(db);
    if (!settings.enable_resources) return;
    let event: EventRow | null = null;
    for (const target of note.inReplyTo) {
      event = await localEventFor(target);
      if (event) break;
    }
    if (!event) return;
    await rememberSender(ctx, activity);
    await db.insert(resources).values({
      activitypub_id: note.ap_id,
      data: noteData(object, note),
      apUserApId: actorId,
      eventId: event.id,
      hidden: false,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    }).onConflictDoNothing();
  }

  async function addReaction(
    column: "likes" | "boost",
    eventId: number,
    actorId: string,
  ): Promise<void> {
    const col = events[column];
    await db.update(events).set({
      [column]: sql`json_insert(${col}, '$[#]', ${actorId})`,
    }).where(
      and(
        eq(events.id, eventId),
        sql`not exists (select 1 from json_each(${col}) where value = ${actorId})`,
      ),
    );
  }

  async function removeReaction(
    column: "likes" | "boost",
    eventId: number,
    actorId: string,
  ): Promise<void> {
    const col = events[column];
    await db.update(events).set({
      [column]:
        sql`(select json_group_array(value) from json_each(${col}) where value != ${actorId})`,
    }).where(eq(events.id, eventId));
  }

  /** A received Create or Update, unless its sender is blocked. */
  async function receiveCreateOrUpdate(
    ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
    activity: Activity,
    isUpdate: boolean,
  ) {
    if (!activity.actorId) return;
    const actorId = activity.actorId.href;
    if (await isBlockedSender(db, actorId)) return;
    await handleCreateOrUpdate(
      ctx,
      activity,
      actorId,
      await rawOf(activity),
      isUpdate,
    );
  }

  /** Handles Create or Update (possibly unwrapped from an Announce). */
  async function handleCreateOrUpdate(
    ctx: { documentLoader: (url: string) => Promise<{ document: unknown }> },
    activity: Activity,
    actorId: string,
    raw: Record<string, unknown>,
    isUpdate: boolean,
    unwrapped = false,
  ) {
    const embedded = raw.object;
    const kind = typeOf(embedded);
    // Inside an Announce the Create was not signed by its author: only the
    // copy its author's origin serves counts.
    if (kind === "Note" || kind === "Article") {
      const note = await authoritativeObject(
        embedded,
        actorId,
        unwrapped ? "never" : "use",
      );
      if (note) await handleNote(ctx, activity, actorId, note, isUpdate);
      return;
    }
    if (kind !== "Event" && typeof embedded !== "string") return;
    // Events are read as their origin serves them (the full version).
    const object = await authoritativeObject(
      embedded,
      actorId,
      unwrapped ? "never" : "fallback",
    );
    if (!object || typeOf(object) !== "Event") return;
    // An unwrapped Create's signature was not verified: never kept.
    await handleRemoteEvent(actorId, object, unwrapped ? null : raw.signature);
  }

  const me = (settings: Settings) => actorUrl(urlsOf(settings));

  /**
   * Whether an Accept or Reject answers a Follow we sent to its sender: the
   * Follow (embedded, or by the id we gave it) is ours and targets the sender.
   */
  async function answersOurFollow(
    settings: Settings,
    answer: Activity,
  ): Promise<boolean> {
    const sender = answer.actorId?.href;
    if (!sender) return false;
    const raw = await rawOf(answer);
    const follow = raw.object;
    const prefix = `${me(settings)}#follows/`;
    const id = idOf(follow) ?? "";
    if (typeof follow === "object" && follow !== null) {
      const f = asRecord(follow);
      if (idOf(f.actor) === me(settings) && idOf(f.object) === sender) {
        return true;
      }
    }
    if (!id.startsWith(prefix)) return false;
    // `#follows/{target}` (older) or `#follows/{target}/{attempt}`.
    const target = decodeURIComponentSafe(
      id.slice(prefix.length).split("/")[0],
    );
    return target === sender;
  }

  /**
   * The Linked Data signature (RSA) of the activity carrying an event, kept
   * in the event's `ld_signature`; null when it cannot be made.
   */
  async function ldSignature(
    ctx: Context<void>,
    settings: Settings,
    object: EventObject,
    activity: { id: string; type: "Create" | "Update" },
  ): Promise<unknown> {
    try {
      const [rsa] = await ctx.getActorKeyPairs(settings.instance_actor);
      if (!rsa) return null;
      const { "@context": context, ...body } = object;
      const signed = await signJsonLd(
        {
          "@context": [...context, "https://w3id.org/security/v1"],
          id: activity.id,
          type: activity.type,
          actor: me(settings),
          to: [AS_PUBLIC],
          cc: [`${me(settings)}/followers`],
          object: body,
        },
        rsa.privateKey,
        rsa.keyId,
        { contextLoader: ctx.contextLoader },
      );
      return (signed as { signature?: unknown }).signature ?? null;
    } catch (err) {
      log.debug("no LD signature for an event", { error: String(err) });
      return null;
    }
  }

  /**
   * Forgets that an activity id was handled, so that the same id is handled
   * again when it comes back. Fedify remembers a handled id for a day, twice:
   * when the inbox takes it (by default per inbox) and when the queue handles
   * it (per origin).
   */
  async function forgetProcessedActivity(id: string): Promise<void> {
    const origin = new URL(baseUrl).origin;
    const prefix = ["_fedify", "activityIdempotence"] as const;
    const settings = await getSettings(db);
    await Promise.all([
      kv.delete([...prefix, origin, id]),
      kv.delete([...prefix, `${origin}\n${id}\nsharedInbox`]),
      kv.delete([
        ...prefix,
        `${origin}\n${id}\ninbox\n${settings.instance_actor}`,
      ]),
    ]);
  }

  federation.setInboxListeners(
    "/federation/u/{identifier}/inbox",
    "/federation/inbox",
  )
    .on(Follow, async (ctx, follow) => {
      const settings = await activeSettings();
      if (!settings || !follow.actorId || !follow.objectId) return;
      if (follow.objectId.href !== me(settings)) return;
      if (await isBlockedSender(db, follow.actorId.href)) return;
      const actor = await follow.getActor(ctx);
      if (!actor?.id) return;
      await upsertActor(db, clock, actor.id.href, await actor.toJsonLd(), {
        follower: true,
      });
      await ctx.sendActivity(
        { identifier: settings.instance_actor },
        actor,
        new Accept({
          id: new URL(`${me(settings)}#accepts/${crypto.randomUUID()}`),
          actor: new URL(me(settings)),
          object: follow,
        }),
      );
    })
    .on(Undo, async (ctx, undo) => {
      if (!undo.actorId) return;
      const actorId = undo.actorId.href;
      const raw = await rawOf(undo);
      const inner = asRecord(raw.object);
      const innerType = typeOf(inner) ??
        (await undo.getObject(ctx).catch(() => null))?.constructor.name;
      const innerActor = idOf(inner.actor);
      if (innerActor && innerActor !== actorId) return;
      if (innerType === "Follow") {
        await setActorFlags(db, clock, actorId, { follower: false });
        // Peers that reuse one Follow id (Gancio) must be able to follow again.
        const followId = idOf(raw.object);
        if (followId) await forgetProcessedActivity(followId);
      } else if (innerType === "Like" || innerType === "Announce") {
        const event = await localEventFor(idOf(inner.object));
        if (event) {
          await removeReaction(
            innerType === "Like" ? "likes" : "boost",
            event.id,
            actorId,
          );
        }
      }
    })
    .on(Like, async (_ctx, like) => {
      if (!like.actorId) return;
      if (await isBlockedSender(db, like.actorId.href)) return;
      const event = await localEventFor(like.objectId?.href ?? null);
      if (event) await addReaction("likes", event.id, like.actorId.href);
    })
    .on(Announce, async (ctx, announce) => {
      if (!announce.actorId) return;
      const actorId = announce.actorId.href;
      if (await isBlockedSender(db, actorId)) return;
      const raw = await rawOf(announce);
      const inner = raw.object;
      if (typeOf(inner) === "Create" || typeOf(inner) === "Update") {
        const innerRaw = asRecord(inner);
        const author = idOf(innerRaw.actor);
        if (!author || await isBlockedSender(db, author)) return;
        await handleCreateOrUpdate(
          ctx,
          announce,
          author,
          innerRaw,
          typeOf(inner) === "Update",
          true,
        );
        return;
      }
      const event = await localEventFor(idOf(inner));
      if (event) await addReaction("boost", event.id, actorId);
    })
    .on(Create, (ctx, create) => receiveCreateOrUpdate(ctx, create, false))
    .on(Update, (ctx, update) => receiveCreateOrUpdate(ctx, update, true))
    .on(Delete, async (_ctx, del) => {
      if (!del.actorId) return;
      const actorId = del.actorId.href;
      const objectId = del.objectId?.href ?? null;
      if (!objectId) return;
      const [remoteEvents, removed] = await db.batch([
        db.select({ id: events.id }).from(events).where(
          and(eq(events.ap_id, objectId), eq(events.apUserApId, actorId)),
        ),
        // Only the author's own resources go.
        db.delete(resources).where(
          and(
            eq(resources.activitypub_id, objectId),
            eq(resources.apUserApId, actorId),
          ),
        ),
      ]);
      await deleteEventsById(db, remoteEvents.map((e) => e.id));
      if (remoteEvents.length === 0 && removed.rowsAffected === 0) {
        log.debug("a Delete changed nothing", { actor: actorId, objectId });
      }
    })
    .on(Join, async (ctx, join) => {
      const settings = await activeSettings();
      if (!settings || !join.actorId) return;
      if (await isBlockedSender(db, join.actorId.href)) return;
      const actor = await join.getActor(ctx);
      if (!actor) return;
      // Quando events take no registrations.
      await ctx.sendActivity(
        { identifier: settings.instance_actor },
        actor,
        new Ignore({
          id: new URL(`${me(settings)}#ignores/${crypto.randomUUID()}`),
          actor: new URL(me(settings)),
          object: join,
        }),
      );
    })
    .on(Accept, async (_ctx, accept) => {
      const settings = await activeSettings();
      if (!settings || !accept.actorId) return;
      if (await answersOurFollow(settings, accept)) {
        await setActorFlags(db, clock, accept.actorId.href, {
          following: true,
        });
      }
    })
    .on(Reject, async (_ctx, reject) => {
      const settings = await activeSettings();
      if (!settings || !reject.actorId) return;
      if (await answersOurFollow(settings, reject)) {
        await setActorFlags(db, clock, reject.actorId.href, {
          following: false,
        });
      }
    })
    .onError((_ctx, error) => {
      log.warning("inbox activity failed", { error: String(error) });
    });

  // ---------------------------------------------------------------- operations

  /**
   * A fresh id for each Follow we send: peers drop an id they have seen in
   * the last day (Fedify does), so a re-follow with the same id would be
   * lost. The last one sent to each actor is kept for its Undo.
   */
  async function newFollowId(settings: Settings, target: string) {
    const id = new URL(
      `${me(settings)}#follows/${
        encodeURIComponent(target)
      }/${crypto.randomUUID()}`,
    );
    await kv.set(["quando", "followSent", target], id.href);
    return id;
  }

  /** Sends the Undo of `follow` (ours) to `target`. */
  async function sendUndoFollow(
    settings: Settings,
    target: Actor,
    follow: Follow,
  ): Promise<void> {
    const ctx = federation.createContext(new URL(baseUrl));
    await ctx.sendActivity(
      { identifier: settings.instance_actor },
      target,
      new Undo({
        id: new URL(`${follow.id!.href}/undo-${clock.now().getTime()}`),
        actor: new URL(me(settings)),
        object: follow,
      }),
    );
  }

  /** The id of the last Follow sent to `target` (older ones had no attempt part). */
  async function sentFollowId(settings: Settings, target: string) {
    const known = await kv.get<string>(["quando", "followSent", target]);
    return new URL(
      known ?? `${me(settings)}#follows/${encodeURIComponent(target)}`,
    );
  }

  async function requireSettings(): Promise<Settings> {
    const settings = await activeSettings();
    if (!settings) {
      throw invalidRequest(
        "Federation is switched off (setting enable_federation)",
      );
    }
    return settings;
  }

  /** Resolves what an admin typed to an actor URL. */
  async function resolveActorUrl(input: string): Promise<string> {
    const text = input.trim();
    const handle = /^@?([^@\s/]+)@([^@\s/]+)$/.exec(text);
    if (handle) {
      // WebFinger through the one loader (Fedify's lookup would fetch on its own).
      const resource = `acct:${handle[1]}@${handle[2]}`;
      const jrd = await fromHost(
        handle[2],
        `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`,
      );
      const links = asRecord(jrd).links;
      const self = Array.isArray(links)
        ? links.map(asRecord).find((l) =>
          l.rel === "self" && typeof l.href === "string" &&
          /^application\/(activity\+json|ld\+json)/.test(String(l.type))
        )
        : undefined;
      if (typeof self?.href !== "string") {
        throw invalidRequest("That handle names no ActivityPub actor");
      }
      return self.href;
    }
    if (/^https?:\/\//i.test(text)) return new URL(text).href;
    if (/^[a-z0-9.-]+(:\d+)?$/i.test(text)) {
      // An instance domain: its FEP-2677 application actor, from NodeInfo.
      const links = asRecord(await fromHost(text, "/.well-known/nodeinfo"))
        .links;
      const app = Array.isArray(links)
        ? links.map(asRecord).find((l) =>
          l.rel === "https://www.w3.org/ns/activitystreams#Application"
        )
        : undefined;
      if (typeof app?.href !== "string") {
        throw invalidRequest("That instance names no application actor");
      }
      return app.href;
    }
    throw invalidRequest("Give an actor URL, a @user@host handle or a domain", [
      { field: "url", message: "not an actor URL, handle or domain" },
    ]);
  }

  /**
   * A document at `path` on `host`, over https; plain http only when private
   * addresses are allowed (local peers in tests and development).
   */
  async function fromHost(host: string, path: string): Promise<unknown> {
    try {
      return (await freshLoader(`https://${host}${path}`)).document;
    } catch (err) {
      if (!deps.allowPrivateAddresses) throw err;
      return (await freshLoader(`http://${host}${path}`)).document;
    }
  }

  async function fetchActor(input: string) {
    let target: string;
    try {
      target = await resolveActorUrl(input);
    } catch (err) {
      if (err instanceof Error && err.name === "ApiError") throw err;
      throw invalidRequest(`Could not reach ${input}`, [
        { field: "url", message: "could not be fetched" },
      ]);
    }
    const ctx = federation.createContext(new URL(baseUrl));
    let found: APObject | null = null;
    try {
      found = await ctx.lookupObject(target);
    } catch (err) {
      log.info("actor lookup failed", { target, error: String(err) });
    }
    if (!found || !isActor(found) || !found.id) {
      throw invalidRequest(
        "No ActivityPub actor there (private addresses are refused unless ALLOW_PRIVATE_ADDRESSES=true)",
        [{ field: "url", message: "not a reachable actor" }],
      );
    }
    return found;
  }

  /**
   * Refuses an inbox post before any JSON-LD work: too large (413), not a
   * bounded JSON activity or naming an unknown context (400), from a blocked
   * sender (403), or without a valid HTTP signature (401). Null lets it on.
   */
  async function guardInboxPost(request: Request): Promise<Response | null> {
    const read = await readInboxPost(request);
    if ("refusal" in read) {
      return new Response(read.refusal.message, {
        status: read.refusal.status,
      });
    }
    const actor = idOf(read.json.actor);
    if (actor && await isBlockedSender(db, actor)) {
      return new Response("This actor or instance is blocked", {
        status: 403,
      });
    }
    if (!await hasValidHttpSignature(request, cachedLoader)) {
      return new Response(
        "The request needs a valid HTTP signature (draft-cavage with Digest, or RFC 9421)",
        { status: 401 },
      );
    }
    return null;
  }

  /** What publishing keeps of an event as it was before a change. */
  const beforeOf = (e: EventRow): PublishedBefore => ({
    id: e.id,
    parentId: e.parentId,
    federated: isFederated(e),
  });

  /**
   * Sends Create, Update or Delete for local events that changed (an event
   * and its occurrences, say). Round trips, whatever the number of events:
   * one read (places, tags, followers), one write (the objects as federated,
   * kept in ap_object and ld_signature), and one insert per ordering key and
   * delivery origin (the series' activities to one inbox are one queue row).
   * Activity ids come from `stamp`, the write's time: publishing one change
   * twice (a writer died before its queued publication was settled) sends
   * the same activities, which receivers recognise.
   */
  async function publish(
    changes: { before: PublishedBefore | null; after: EventRow | null }[],
    stamp: number,
    settle: BatchItem[] = [],
  ): Promise<void> {
    /** Runs `items` and `settle` in one batch (settle last: it ends the work). */
    const finish = async (items: BatchItem[]) => {
      const all = [...items, ...settle];
      if (all.length > 0) await db.batch(all as [BatchItem, ...BatchItem[]]);
    };
    const settings = await activeSettings();
    if (!settings) return await finish([]);
    const relevant = changes.filter(({ before, after }) =>
      before?.federated || isFederated(after)
    );
    if (relevant.length === 0) return await finish([]);
    const published = relevant.flatMap(({ after }) =>
      isFederated(after) ? [after] : []
    );
    const [objects, followers] = await runRead(
      db,
      allReads(
        eventObjectsQuery(published, settings),
        deliverableFollowersQuery(db),
      ),
    );
    const objectById = new Map(published.map((e, i) => [e.id, objects[i]]));
    const ctx = federation.createContext(new URL(baseUrl));
    const sender = { identifier: settings.instance_actor };
    const actor = new URL(me(settings));
    const updates: BatchItem[] = [];
    const activities: {
      activity: Activity;
      orderingKey: string;
      raw: JsonObject;
    }[] = [];
    for (const { before, after } of relevant) {
      const was = before?.federated ?? false;
      const event = (after ?? before)!;
      // One series' activities (its occurrences', those it detaches
      // included) share an ordering key: delivered in order, as one row.
      const orderingKey = eventObjectUrl(
        baseUrl,
        after?.parentId ?? before?.parentId ?? event.id,
      );
      if (isFederated(after)) {
        const json = objectById.get(after.id)!;
        const kind = was ? "Update" : "Create";
        const activityId = `${json.id}#${kind.toLowerCase()}-${stamp}`;
        updates.push(
          db.update(events).set({
            ap_object: json,
            ld_signature: await ldSignature(ctx, settings, json, {
              id: activityId,
              type: kind,
            }),
          }).where(eq(events.id, after.id)),
        );
        // Building the vocabulary objects, signing and queueing for nobody
        // costs several milliseconds per write.
        if (followers.length === 0) continue;
        const Kind = was ? Update : Create;
        const published = Temporal.Instant.fromEpochMilliseconds(stamp);
        const { "@context": _context, ...object } = json;
        activities.push({
          orderingKey,
          activity: new Kind({
            id: new URL(activityId),
            actor,
            to: new URL(AS_PUBLIC),
            cc: ctx.getFollowersUri(settings.instance_actor),
            published,
            object: await toVocabEvent(json),
          }),
          // Delivered as written (lib/federation/raw-activities.ts): the
          // whole object, its place's address and its lists as arrays.
          raw: {
            "@context": RAW_ACTIVITY_CONTEXT,
            id: activityId,
            type: kind,
            actor: actor.href,
            to: [AS_PUBLIC],
            cc: [ctx.getFollowersUri(settings.instance_actor).href],
            published: published.toString(),
            object,
          },
        });
        continue;
      }
      if (followers.length === 0) continue;
      const id = eventObjectUrl(baseUrl, before!.id);
      const activityId = `${id}#delete-${stamp}`;
      activities.push({
        orderingKey,
        activity: new Delete({
          id: new URL(activityId),
          actor,
          to: new URL(AS_PUBLIC),
          cc: ctx.getFollowersUri(settings.instance_actor),
          object: new Tombstone({ id: new URL(id), formerType: Event }),
        }),
        // Gancio deletes only what it knows was an Event (it answers 500 to
        // a bare Tombstone), and reads `formerType` as the plain "Event",
        // which Fedify's serialisation writes as "as:Event".
        raw: {
          "@context": RAW_ACTIVITY_CONTEXT,
          id: activityId,
          type: "Delete",
          actor: actor.href,
          to: [AS_PUBLIC],
          cc: [ctx.getFollowersUri(settings.instance_actor).href],
          object: { id, type: "Tombstone", formerType: "Event" },
        },
      });
    }
    // Nothing to deliver: the objects and the settling in one commit.
    if (activities.length === 0) return await finish(updates);
    if (updates.length > 0) {
      await db.batch(updates as [BatchItem, ...BatchItem[]]);
    }
    // The followers read above, as the followers collection gives them.
    const recipients: Recipient[] = followers.map((f) => ({
      id: new URL(f.id),
      inboxId: f.inbox ? new URL(f.inbox) : null,
      endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null,
    }));
    for (const { raw } of activities) rawActivities.register(raw);
    try {
      await bundling.collect(async () => {
        for (const { activity, orderingKey } of activities) {
          await ctx.sendActivity(sender, recipients, activity, {
            preferSharedInbox: true,
            // One event's activities are delivered in order (Create before Update).
            orderingKey,
            // One queued message per inbox, here: each is rewritten to the
            // raw activity as it is queued (a fan-out message would be
            // expanded later, from Fedify's serialisation).
            fanout: "skip",
          });
        }
      }, rawActivities.rewriteOutboxMessage);
    } finally {
      rawActivities.forget(activities.map(({ raw }) => String(raw.id)));
    }
    // Settled only once the deliveries are queued.
    await finish([]);
  }

  /** Pairs each event of a change with its row before it (by id). */
  function changePairs(
    before: PublishedBefore[],
    after: EventRow[],
  ): { before: PublishedBefore | null; after: EventRow | null }[] {
    const beforeById = new Map(before.map((e) => [e.id, e]));
    const afterById = new Map(after.map((e) => [e.id, e]));
    return [...new Set([...beforeById.keys(), ...afterById.keys()])].map((
      id,
    ) => ({
      before: beforeById.get(id) ?? null,
      after: afterById.get(id) ?? null,
    }));
  }

  /**
   * Handles a publication from the queue: the event's family as it is now
   * (one read) against the family the write saw before it.
   */
  async function publishQueued(message: PublicationMessage): Promise<void> {
    if (!(await activeSettings())) return;
    const ids = [message.event, ...message.before.map((b) => b.id)];
    const after = await db.select().from(events).where(
      sql`${events.id} in ${ids} or ${events.parentId} = ${message.event}`,
    ) as EventRow[];
    const pairs = changePairs(message.before, after);
    await publish(
      message.onlyNew ? pairs.filter((p) => p.before === null) : pairs,
      message.stamp,
    );
  }

  return {
    federation,

    async handle(request) {
      const url = new URL(request.url);
      const inboxPost = request.method === "POST" &&
        (url.pathname === "/federation/inbox" ||
          /^\/federation\/u\/[^/]+\/inbox$/.test(url.pathname));
      if (inboxPost) {
        const settings = await activeSettings();
        if (!settings) return { notAcceptable: false };
        const personal = /^\/federation\/u\/([^/]+)\/inbox$/.exec(url.pathname);
        // Another actor's inbox: Fedify answers 404 without reading the body.
        if (
          !personal ||
          decodeURIComponentSafe(personal[1]) === settings.instance_actor
        ) {
          const refusal = await guardInboxPost(request);
          if (refusal) return { response: refusal };
        }
      }
      // Fedify sees the request at the public URL (BASE_URL), whatever host
      // and scheme reached this process (a TLS-terminating proxy, a
      // loopback port): the links it writes (a page's `next` and `partOf`)
      // and the URL an RFC 9421 signature covers are the public ones.
      const canonical = new URL(url.pathname + url.search, baseUrl);
      const atPublicUrl = canonical.href === request.url
        ? request
        : new Request(canonical, request);
      let notFound = false;
      let notAcceptable = false;
      let response: Response;
      try {
        response = await federation.fetch(atPublicUrl, {
          contextData: undefined,
          onNotFound: () => {
            notFound = true;
            return new Response(null, { status: 404 });
          },
          onNotAcceptable: () => {
            notAcceptable = true;
            return new Response(null, { status: 406 });
          },
        });
      } catch (error) {
        // Fedify lets JSON-LD failures of a posted activity through (an
        // @context that is unknown, unreachable or not JSON-LD): the sender's
        // fault, so a 400 rather than a 500.
        if (inboxPost && isUnprocessableActivityError(error)) {
          return {
            response: new Response(
              "The activity's JSON-LD could not be processed (an unknown or unreachable @context?)",
              { status: 400 },
            ),
          };
        }
        throw error;
      }
      if (notFound || notAcceptable) return { notAcceptable };
      return { response };
    },

    publicationWrite(settings) {
      if (!settings.enable_federation) return null;
      return (ref, before, options = {}) => {
        const stamp = clock.now().getTime();
        // Publications of one series are handled in order.
        const named = typeof ref === "number"
          ? before.find((e) => e.id === ref)
          : undefined;
        // Bound numbers reach SQLite as reals here: 1 would read "1.0" in
        // the ordering key and the message.
        const int = (value: SQL | number) => sql`cast(${value} as integer)`;
        const rootId = int(named?.parentId ?? ref);
        // Only new events: what was there before does not count.
        const wasFederated = !options.onlyNew && before.some(isFederated);
        const message = sql`json_object('type', 'quando:publish', 'event', ${
          int(ref)
        }, 'before', json(${JSON.stringify(before.map(beforeOf))}), 'stamp', ${
          int(stamp)
        }, 'onlyNew', json(${options.onlyNew ? "true" : "false"}))`;
        // The writer publishes at once itself unless deferred; a publication
        // of new events only (the hourly job) is always the queue's.
        const available = stamp +
          (deps.deferPublication || options.onlyNew ? 0 : PUBLICATION_GRACE_MS);
        // Queued only when something of the change is (or was) on the
        // fediverse: a visible local event that is not a series template.
        return {
          statements: [
            db.all<{ id: number }>(sql`
              INSERT INTO fedify_queue (message, availableAt, orderingKey, createdAt)
              SELECT ${message}, ${available}, 'quando:publish:' || ${rootId}, ${stamp}
              WHERE ${wasFederated ? 1 : 0} OR EXISTS (
                SELECT 1 FROM ${events}
                WHERE (${events.id} = ${ref} OR ${events.parentId} = ${ref})
                  AND ${events.is_visible} AND ${events.apUserApId} IS NULL
                  AND NOT (${events.recurrent} IS NOT NULL AND ${events.parentId} IS NULL))
              RETURNING id`),
          ],
          read(results) {
            const row = (results[0] as { id: number }[])[0];
            return row ? { id: row.id, stamp } : null;
          },
        };
      };
    },

    publicationsQueued() {
      source.noteEnqueued?.();
    },

    async publishWritten({ before, after, publication }) {
      if (!publication) return;
      if (deps.deferPublication) {
        source.noteEnqueued?.();
        return;
      }
      try {
        // The queued row is deleted with the last statements of the
        // publication (one commit fewer), never before its deliveries are queued.
        await publish(
          changePairs(before.map(beforeOf), after),
          publication.stamp,
          [db.delete(fedifyQueue).where(eq(fedifyQueue.id, publication.id))],
        );
      } catch (err) {
        // The queued row stays: the queue publishes it once its grace is over.
        log.error("federating an event change failed; the queue will retry", {
          error: String(err),
        });
      }
    },

    async addTrust(input) {
      const settings = await requireSettings();
      const actor = await fetchActor(input);
      const apId = actor.id!.href;
      if (apId === me(settings)) {
        throw invalidRequest("That is this instance's own actor");
      }
      const isApp = actor instanceof Application;
      const row = await upsertActor(
        db,
        clock,
        apId,
        await actor.toJsonLd(),
        { trusted: true },
        isApp
          ? { name: actor.name?.toString() ?? null, applicationActor: apId }
          : {},
      );
      const ctx = federation.createContext(new URL(baseUrl));
      await ctx.sendActivity(
        { identifier: settings.instance_actor },
        actor,
        new Follow({
          id: await newFollowId(settings, apId),
          actor: new URL(me(settings)),
          object: actor.id,
        }),
      );
      return row;
    },

    async toggleFollow(apId) {
      const settings = await requireSettings();
      const row = await findActor(db, apId);
      if (!row) throw notFound("AP actor");
      const ctx = federation.createContext(new URL(baseUrl));
      const target = await fetchActor(apId);
      const follow = new Follow({
        id: row.following
          ? await sentFollowId(settings, apId)
          : await newFollowId(settings, apId),
        actor: new URL(me(settings)),
        object: new URL(apId),
      });
      if (row.following) {
        await sendUndoFollow(settings, target, follow);
        await setActorFlags(db, clock, apId, { following: false });
      } else {
        await ctx.sendActivity(
          { identifier: settings.instance_actor },
          target,
          follow,
        );
      }
      return (await findActor(db, apId))!;
    },

    async removeTrust(apId) {
      const settings = await requireSettings();
      const row = await findActor(db, apId);
      if (!row) throw notFound("AP actor");
      const sent = await kv.get<string>(["quando", "followSent", apId]);
      if (row.following || sent) {
        // An actor that cannot be reached any more still loses our trust.
        const target = await fetchActor(apId).catch(() => null);
        if (target) {
          await sendUndoFollow(
            settings,
            target,
            new Follow({
              id: await sentFollowId(settings, apId),
              actor: new URL(me(settings)),
              object: new URL(apId),
            }),
          );
        }
        await kv.delete(["quando", "followSent", apId]);
      }
      await setActorFlags(db, clock, apId, {
        trusted: false,
        following: false,
      });
      return (await findActor(db, apId))!;
    },

    startQueue(signal) {
      return federation.startQueue(undefined, { signal });
    },

    drainQueue(budget) {
      return source.drainListening?.(budget) ?? Promise.resolve(0);
    },

    hasQueuedWork() {
      return source.hasLocalWork?.() ?? false;
    },

    async placeObject(id) {
      if (!(await activeSettings())) return null;
      const [place] = await db.select().from(places).where(eq(places.id, id));
      return place ? buildPlaceObject(baseUrl, place) : null;
    },

    async purgeEndedRemoteEvents() {
      const cutoff = Math.floor(clock.now().getTime() / 1000) -
        REMOTE_EVENT_RETENTION_SECONDS;
      const rows = await db.select({ id: events.id }).from(events).where(
        and(
          isNotNull(events.apUserApId),
          lt(
            sql`coalesce(${events.end_datetime}, ${events.start_datetime})`,
            cutoff,
          ),
        ),
      );
      await deleteEventsById(db, rows.map((r) => r.id));
      return rows.length;
    },

    nodeInfo,
  };
}
