/**
 * The admin operations on remote actors: trusting one (resolving what was
 * typed, fetching the actor, following it), toggling our Follow, and
 * withdrawing trust (undoing our Follow). Also forgets Fedify's record of a
 * handled activity, so that a peer's reused Follow id is handled again.
 */
import {
  type Actor,
  Application,
  Follow,
  isActor,
  Object as APObject,
  Undo,
} from "@fedify/vocab";
import type { Federation } from "@fedify/fedify";
import { z } from "zod";
import { invalidRequest, notFound } from "../errors.ts";
import type { ApUserRow } from "../events/serialize.ts";
import { getSettings, type Settings } from "../settings.ts";
import { findActor, setActorFlags, upsertActor } from "./actors.ts";
import {
  asRecord,
  type FederationFetching,
  type FederationIdentity,
  type FederationStorage,
} from "./core.ts";

/** What an admin gives to trust: an actor URL, a handle or a domain (API and web). */
export const trustInputSchema = z.object({
  url: z.string().trim().min(1).max(2000),
});

/**
 * Why an actor could not be trusted: the `message` of the 400's `details`
 * entry for the field `url` (the web interface says each in its language).
 */
export const TRUST_PROBLEMS = {
  format: "not an actor URL, handle or domain",
  unreachable: "could not be fetched",
  notActor: "not a reachable actor",
  handle: "the handle names no ActivityPub actor",
  instance: "the instance names no application actor",
  self: "this instance's own actor",
} as const;

/** A 400 about the field `url` for one of TRUST_PROBLEMS. */
function trustProblem(
  message: string,
  problem: keyof typeof TRUST_PROBLEMS,
) {
  return invalidRequest(message, [
    { field: "url", message: TRUST_PROBLEMS[problem] },
  ]);
}

/** The operations on remote actors (FederationService's). */
export interface Trust {
  /** Fetches an actor (URL, @user@host or instance domain), trusts and follows it. */
  addTrust(input: string): Promise<ApUserRow>;
  /**
   * Follows an actor we do not follow, or unfollows one we do; with `to`,
   * only towards that state (true: send a Follow unless we follow it).
   */
  toggleFollow(apId: string, to?: boolean): Promise<ApUserRow>;
  /**
   * Withdraws trust from an actor: its events are no longer imported, and a
   * Follow of ours (accepted or pending) is undone.
   */
  removeTrust(apId: string): Promise<ApUserRow>;
}

/**
 * Forgets that an activity id was handled, so that the same id is handled
 * again when it comes back. Fedify remembers a handled id for a day, twice:
 * when the inbox takes it (by default per inbox) and when the queue handles
 * it (per origin).
 */
export async function forgetProcessedActivity(
  { storage, identity }: {
    storage: FederationStorage;
    identity: FederationIdentity;
  },
  id: string,
): Promise<void> {
  const { db, kv } = storage;
  const { baseUrl } = identity;
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

/** What the trust and follow operations use. */
export interface TrustContext {
  storage: FederationStorage;
  fetching: FederationFetching;
  identity: FederationIdentity;
  /** Whose contexts send the Follows and their Undos. */
  federation: Federation<void>;
}

/** Builds the trust and follow operations over their contexts. */
export function createTrust(
  { storage, fetching, identity, federation }: TrustContext,
): Trust {
  const { db, clock, log, kv } = storage;
  const { freshLoader, allowPrivateAddresses } = fetching;
  const { baseUrl, activeSettings, me } = identity;

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
        throw trustProblem("That handle names no ActivityPub actor", "handle");
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
        throw trustProblem(
          "That instance names no application actor",
          "instance",
        );
      }
      return app.href;
    }
    throw trustProblem(
      "Give an actor URL, a @user@host handle or a domain",
      "format",
    );
  }

  /**
   * A document at `path` on `host`, over https; plain http only when private
   * addresses are allowed (local peers in tests and development).
   */
  async function fromHost(host: string, path: string): Promise<unknown> {
    try {
      return (await freshLoader(`https://${host}${path}`)).document;
    } catch (err) {
      if (!allowPrivateAddresses) throw err;
      return (await freshLoader(`http://${host}${path}`)).document;
    }
  }

  async function fetchActor(input: string) {
    let target: string;
    try {
      target = await resolveActorUrl(input);
    } catch (err) {
      if (err instanceof Error && err.name === "ApiError") throw err;
      throw trustProblem(`Could not reach ${input}`, "unreachable");
    }
    const ctx = federation.createContext(new URL(baseUrl));
    let found: APObject | null = null;
    try {
      // Through the one loader only: Fedify's lookupObject falls back to a
      // WebFinger fetch of its own, outside the egress guard.
      const fetched = await freshLoader(target);
      found = await APObject.fromJsonLd(fetched.document, {
        documentLoader: ctx.documentLoader,
        contextLoader: ctx.contextLoader,
      });
      // An actor counts only when served from its own origin.
      if (found.id?.origin !== new URL(fetched.documentUrl).origin) {
        found = null;
      }
    } catch (err) {
      log.info("actor lookup failed", { target, error: String(err) });
    }
    if (!found || !isActor(found) || !found.id) {
      throw trustProblem(
        "No ActivityPub actor there (private addresses are refused unless ALLOW_PRIVATE_ADDRESSES=true)",
        "notActor",
      );
    }
    return found;
  }

  return {
    async addTrust(input) {
      const settings = await requireSettings();
      const actor = await fetchActor(input);
      const apId = actor.id!.href;
      if (apId === me(settings)) {
        throw trustProblem("That is this instance's own actor", "self");
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

    async toggleFollow(apId, to) {
      const settings = await requireSettings();
      const row = await findActor(db, apId);
      if (!row) throw notFound("AP actor");
      if (to !== undefined && row.following === to) return row;
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
  };
}
