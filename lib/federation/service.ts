/**
 * The ActivityPub side of Quando, built on Fedify: the instance actor and its
 * collections, WebFinger and NodeInfo, event objects, the inbox, publishing
 * through the persistent queue, and the admin operations on remote actors.
 *
 * This is where the parts are put together: the contexts
 * (lib/federation/core.ts), the dispatchers (dispatchers.ts), the inbox
 * listeners (inbox/), publishing (publishing.ts) and the operations on remote
 * actors (trust.ts).
 */
import type { Federation } from "@fedify/fedify";
import { and, eq, isNotNull, lt, sql } from "drizzle-orm";
import { apUsers, events, places } from "../../db/schema.ts";
import { publicPlace } from "../events/access.ts";
import type { ApUserRow, EventRow, PlaceRow } from "../events/serialize.ts";
import type {
  EventChange,
  PublicationWrite,
  QueuedPublication,
} from "../events/commit.ts";
import { deleteEventsById } from "../events/remote.ts";
import type { Settings } from "../settings.ts";
import {
  createFederationContexts,
  decodeURIComponentSafe,
  type FederationDeps,
  isFederated,
} from "./core.ts";
import {
  nodeInfo,
  type NodeInfoData,
  registerDispatchers,
} from "./dispatchers.ts";
import { guardInboxPost, registerInboxListeners } from "./inbox/index.ts";
import { UnknownContextError } from "./loader.ts";
import { buildEventObject, buildPlaceObject } from "./object.ts";
import { createPublishing } from "./publishing.ts";
import type { DrainBudget } from "./store/queue.ts";
import { createTrust } from "./trust.ts";

export {
  type DrainableQueue,
  type FederationDeps,
  isFederated,
} from "./core.ts";
export {
  FOLLOWERS_PAGE,
  type NodeInfoData,
  OUTBOX_PAGE,
  UPCOMING_PAGE,
} from "./dispatchers.ts";
export { PUBLICATION_GRACE_MS } from "./publishing.ts";

/** Remote events are kept this long after they end, then purged. */
export const REMOTE_EVENT_RETENTION_SECONDS = 7 * 24 * 3600;

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
  /**
   * The hourly job's part: announces (a Create each, through the queue) the
   * occurrences of series that came into their federation horizon, and
   * each series' next occurrence, once each. Returns how many.
   */
  announceDueOccurrences(): Promise<number>;
  /** Fetches an actor (URL, @user@host or instance domain), trusts and follows it. */
  addTrust(input: string): Promise<ApUserRow>;
  /**
   * Follows an actor we do not follow, or unfollows one we do; with `to`,
   * only towards that state.
   */
  toggleFollow(apId: string, to?: boolean): Promise<ApUserRow>;
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
   * place is unknown or not public (publicPlace).
   */
  placeObject(id: number): Promise<Record<string, unknown> | null>;
  /**
   * The slug of the event served at `/federation/m/{id}`, for a browser sent
   * to its page; null when no object is served there (unknown, hidden,
   * deleted, a series' template, a remote event, federation off), so that
   * such an id answers as one that never existed.
   */
  servedEventSlug(id: number): Promise<string | null>;
  /**
   * Where the ActivityPub object of the event page `/event/{slug}` lives: a
   * served local object, or a remote event's own (unless its actor is
   * blocked, when its page is not shown either); null for any other slug.
   */
  eventObjectUrl(slug: string): Promise<string | null>;
  /**
   * A local event's object as it is served at `/federation/m/{id}` (the
   * API's `ap_object` of an event no follower was sent yet); null when
   * federation is off or the event is not served (hidden, a series'
   * template, remote).
   */
  eventObjectOf(
    event: EventRow,
    place: PlaceRow | null,
    tags: string[],
    settings: Settings,
  ): Record<string, unknown> | null;
}

/**
 * Errors of a posted activity's JSON-LD: the jsonld library's (named
 * `jsonld.*`), an unknown context, and a stack overflow in its recursion.
 */
function isUnprocessableActivityError(error: unknown): boolean {
  return error instanceof UnknownContextError || error instanceof RangeError ||
    (error instanceof Error && error.name.startsWith("jsonld."));
}

/** Builds the federation service. Nothing runs until `startQueue` or a request. */
export function createFederationService(
  deps: FederationDeps,
): FederationService {
  // The queue hands queued publications to publishing, built over the contexts.
  const {
    storage,
    fetching,
    identity,
    forms,
    outbox,
    inboxWork,
    federation,
  } = createFederationContexts(
    deps,
    (message) => publishing.publishQueued(message),
  );
  const { db, clock, queue } = storage;
  const { baseUrl, activeSettings } = identity;
  registerDispatchers({ storage, identity, forms, federation });
  registerInboxListeners(federation, {
    storage,
    fetching,
    identity,
    inboxWork,
  });
  const publishing = createPublishing({
    storage,
    identity,
    forms,
    outbox,
    federation,
  });
  const trust = createTrust({ storage, fetching, identity, federation });

  return {
    federation,

    async handle(request) {
      const url = new URL(request.url);
      // Fedify, and the inbox's signature check, see the request at the
      // public URL (BASE_URL), whatever host and scheme reached this process
      // (a TLS-terminating proxy, a loopback port): the links Fedify writes
      // (a page's `next` and `partOf`) and the URL an RFC 9421 signature
      // covers are the public ones.
      const canonical = new URL(url.pathname + url.search, baseUrl);
      const atPublicUrl = canonical.href === request.url
        ? request
        : new Request(canonical, request);
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
          const refusal = await guardInboxPost(
            { storage, fetching },
            atPublicUrl,
          );
          if (refusal) return { response: refusal };
        }
      }
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

    publicationWrite: publishing.publicationWrite,
    publishWritten: publishing.publishWritten,
    announceDueOccurrences: publishing.announceDueOccurrences,

    addTrust: trust.addTrust,
    toggleFollow: trust.toggleFollow,
    removeTrust: trust.removeTrust,

    startQueue(signal) {
      return federation.startQueue(undefined, { signal });
    },

    drainQueue(budget) {
      return queue.drainListening?.(budget) ?? Promise.resolve(0);
    },

    hasQueuedWork() {
      return queue.hasLocalWork?.() ?? false;
    },

    async servedEventSlug(id) {
      if (!(await activeSettings())) return null;
      const [row] = await db.select().from(events).where(eq(events.id, id));
      return isFederated(row ?? null) ? row.slug : null;
    },

    async eventObjectUrl(slug) {
      const [row] = await db.select({
        event: events,
        blocked: apUsers.blocked,
      }).from(events).leftJoin(apUsers, eq(apUsers.ap_id, events.apUserApId))
        .where(eq(events.slug, slug));
      if (!row || !row.event.is_visible) return null;
      const { event } = row;
      if (event.apUserApId !== null) {
        return event.ap_id && !row.blocked ? event.ap_id : null;
      }
      return isFederated(event) ? `${baseUrl}/federation/m/${event.id}` : null;
    },

    async placeObject(id) {
      if (!(await activeSettings())) return null;
      const [place] = await db.select().from(places).where(
        and(eq(places.id, id), publicPlace(places.id)),
      );
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

    nodeInfo: () => nodeInfo({ storage, identity }),

    eventObjectOf(event, place, tags, settings) {
      if (!settings.enable_federation || !isFederated(event)) return null;
      return buildEventObject({
        event,
        place,
        tags,
        urls: identity.urlsOf(settings),
        timezone: settings.instance_timezone,
        locale: settings.instance_locale,
      });
    },
  };
}
