/**
 * What Quando serves on the federation surface: the instance actor (its
 * keys and handle), its followers and outbox, the upcoming events
 * collection (FEP-8a8e), event objects, and NodeInfo.
 */
import {
  Application,
  Create,
  Endpoints,
  Event,
  type Recipient,
} from "@fedify/vocab";
import { and, asc, count, desc, eq, gte, isNull, lt, sql } from "drizzle-orm";
import { events, resources } from "../../db/schema.ts";
import { getSettings } from "../settings.ts";
import { countFollowers, deliverableFollowers } from "./actors.ts";
import type { Federation } from "@fedify/fedify";
import {
  type FederationEventForms,
  type FederationIdentity,
  type FederationStorage,
  isFederated,
} from "./core.ts";
import { actorUrl, AS_PUBLIC } from "./object.ts";
import { RAW_ACTIVITY_CONTEXT } from "./raw-activities.ts";

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

/** What the dispatchers use. */
export interface DispatchersContext {
  storage: FederationStorage;
  identity: FederationIdentity;
  forms: FederationEventForms;
  /** Where they are registered. */
  federation: Federation<void>;
}

/** Registers the actor, collection, object and NodeInfo dispatchers on `federation`. */
export function registerDispatchers(
  { storage, identity, forms, federation }: DispatchersContext,
): void {
  const { db, clock } = storage;
  const { baseUrl, keyPairs, activeSettings } = identity;
  const { eventObjects, toVocabEvent } = forms;

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

  /** What the upcoming collection lists: visible local events, not templates. */
  const listedEvents = () =>
    and(isNull(events.apUserApId), eq(events.is_visible, true), NOT_TEMPLATE());
  /**
   * What the outbox lists: the events whose Create was sent (an occurrence
   * beyond its series' federation horizon is not yet).
   */
  const sentEvents = () => and(listedEvents(), eq(events.announced, true));

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
          sentEvents(),
          before > 0 ? lt(events.id, before) : undefined,
        ),
      ).orderBy(desc(events.id)).limit(OUTBOX_PAGE);
      const objects = await eventObjects(rows, settings);
      const me = ctx.getActorUri(identifier).href;
      // Built from the JSON we write, the items are served as written (the
      // whole object, `tag` and `attachment` as arrays), as the deliveries are.
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
      sentEvents(),
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
    const info = await nodeInfo({ storage, identity });
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
}

/** NodeInfo usage figures and links; null when federation is off. */
export async function nodeInfo(
  { storage, identity }: {
    storage: FederationStorage;
    identity: FederationIdentity;
  },
): Promise<NodeInfoData | null> {
  const { db } = storage;
  const { activeSettings, urlsOf } = identity;
  const settings = await activeSettings();
  if (!settings) return null;
  const [[posts], [comments], [people]] = await db.batch([
    db.select({ n: count() }).from(events).where(
      and(
        isNull(events.apUserApId),
        eq(events.is_visible, true),
        eq(events.announced, true),
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
