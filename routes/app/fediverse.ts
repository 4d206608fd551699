/**
 * The fediverse administration (admins): `GET /admin/fediverse` lists the
 * known actors (state, what each sent us) and instances; its forms trust and
 * follow an actor (`POST /admin/fediverse/trust`), follow again, withdraw
 * trust, block or unblock an actor or an instance. `GET
 * /admin/fediverse/instances/{domain}` shows one instance and its actors.
 * The same lib functions as `/api/ap_actors` and `/api/instances` do the work.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ActiveSession } from "../../lib/auth/sessions.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  type ActorActivity,
  findInstance,
  listActorsWithActivity,
  listInstancesWithActors,
  toggleActorBlock,
  toggleInstanceBlock,
} from "../../lib/federation/actors.ts";
import {
  TRUST_PROBLEMS,
  trustInputSchema,
} from "../../lib/federation/trust.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import type { Settings } from "../../lib/settings.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import {
  type ActorItem,
  type FederationState,
  FediverseView,
  instancePath,
  InstanceView,
} from "../views/app/fediverse.tsx";
import { MessageView } from "../views/app/message.tsx";
import { formText, pageOf, type PageStatus, type WebKit } from "./kit.ts";

const PAGE_SIZE = 20;
const HOME = "/admin/fediverse";

/** The link of `path` with `query` set (and empty values dropped). */
function withQuery(path: string, query: Record<string, string | number>) {
  const url = new URL(path, "http://x");
  for (const [k, v] of Object.entries(query)) {
    if (v === "" || v === 1 && k.endsWith("page")) url.searchParams.delete(k);
    else url.searchParams.set(k, String(v));
  }
  return url.pathname + url.search;
}

/** Where an action returns: one of the fediverse pages, never elsewhere. */
function backOf(value: string): string {
  return /^\/admin\/fediverse(\/instances\/[^?#\s/]+)?(\?[^#\s]*)?$/.test(value)
    ? value
    : HOME;
}

/** An actor in the API's shape (what its name and handle are read from). */
type SerializedActor = ActorActivity["actor"];

/** The preferredUsername of an actor's stored object, or null. */
function usernameOf(actor: SerializedActor): string | null {
  const object = (actor.object ?? {}) as Record<string, unknown>;
  return typeof object.preferredUsername === "string"
    ? object.preferredUsername
    : null;
}

/** An actor's name: its `name`, else its preferredUsername, else its id. */
export function actorName(actor: SerializedActor): string {
  const object = (actor.object ?? {}) as Record<string, unknown>;
  return typeof object.name === "string" && object.name.trim()
    ? object.name.trim()
    : usernameOf(actor) ?? actor.ap_id;
}

/** An actor's name, handle and counts as its card shows them. */
function actorItem(a: ActorActivity): ActorItem {
  const username = usernameOf(a.actor);
  return {
    apId: a.actor.ap_id,
    name: actorName(a.actor),
    handle: username && a.actor.instanceDomain
      ? `@${username}@${a.actor.instanceDomain}`
      : null,
    instanceDomain: a.actor.instanceDomain,
    trusted: a.actor.trusted,
    following: a.actor.following,
    follower: a.actor.follower,
    blocked: a.actor.blocked,
    events: a.events,
    resources: a.resources,
  };
}

/** The catalogue key of a refused trust (add_trust's 400s). */
function trustProblemKey(error: ApiError): MessageKey {
  const detail = (error.details?.[0] as { message?: string } | undefined)
    ?.message;
  const keys: Record<string, MessageKey> = {
    [TRUST_PROBLEMS.format]: "fediverse.error.format",
    [TRUST_PROBLEMS.unreachable]: "fediverse.error.unreachable",
    [TRUST_PROBLEMS.notActor]: "fediverse.error.notActor",
    [TRUST_PROBLEMS.handle]: "fediverse.error.handle",
    [TRUST_PROBLEMS.instance]: "fediverse.error.instance",
    [TRUST_PROBLEMS.self]: "fediverse.error.self",
  };
  if (detail && keys[detail]) return keys[detail];
  return /switched off/.test(error.message)
    ? "fediverse.error.off"
    : "fediverse.error.failed";
}

/** The state a block form asks for ("true" or "false"), or null. */
function stateOf(value: unknown): boolean | null {
  return value === "true" ? true : value === "false" ? false : null;
}

/** The notices a redirect after an action asks for. */
const NOTICES: Record<string, MessageKey> = {
  trusted: "fediverse.trusted",
  followed: "fediverse.followSent",
  untrusted: "fediverse.untrusted",
  blocked: "fediverse.blocked",
  unblocked: "fediverse.unblocked",
};

/** The fediverse administration's routes. */
export function fediverseRoutes(deps: RouteDeps, web: WebKit) {
  const app = new Hono<AppEnv>();
  const { db } = deps.database;

  const federationState = (settings: Settings): FederationState =>
    !deps.federation ? "absent" : settings.enable_federation ? "on" : "off";

  const noticeOf = (c: Context<AppEnv>, t: Translate) => {
    const key = NOTICES[c.req.query("done") ?? ""];
    return key ? t(key) : undefined;
  };

  /** The main page, with what the trust form had and any problem. */
  const mainPage = async (
    c: Context<AppEnv>,
    current: ActiveSession,
    settings: Settings,
    extra: {
      status?: PageStatus;
      trust?: { value: string; error?: string };
      error?: string;
    } = {},
  ) => {
    const page = pageOf(c.req.query("page"));
    const ipage = pageOf(c.req.query("ipage"));
    const [actors, instances] = await Promise.all([
      listActorsWithActivity(db, page, PAGE_SIZE),
      listInstancesWithActors(db, ipage, PAGE_SIZE),
    ]);
    const here = withQuery(HOME, { page, ipage });
    return web.render(
      c,
      { current, status: extra.status },
      async (common) =>
        FediverseView({
          ...common,
          csrfToken: await web.csrfToken(current),
          federation: federationState(settings),
          trust: extra.trust ?? { value: "" },
          notice: extra.status ? undefined : noticeOf(c, common.t),
          error: extra.error,
          back: here,
          actors: actors.data.map(actorItem),
          actorCount: actors.count,
          actorPaging: {
            page,
            totalPages: actors.totalPages,
            href: (p) => withQuery(HOME, { page: p, ipage }),
          },
          instances: instances.data.map((r) => ({
            domain: r.instance.domain,
            name: r.instance.name,
            blocked: r.instance.blocked,
            actors: r.actors,
          })),
          instanceCount: instances.count,
          instancePaging: {
            page: ipage,
            totalPages: instances.totalPages,
            href: (p) => withQuery(HOME, { page, ipage: p }),
          },
        }),
    );
  };

  /** The 404 page of an unknown actor or instance. */
  const unknown = (
    c: Context<AppEnv>,
    current: ActiveSession,
    key: MessageKey,
  ) =>
    web.render(
      c,
      { current, status: 404 },
      (common) =>
        MessageView({
          ...common,
          title: common.t("fediverse.notFound"),
          text: common.t(key),
          back: { href: HOME, label: common.t("fediverse.backToAll") },
          path: HOME,
        }),
    );

  /** After an action: back to the page it was posted from, with a notice. */
  const done = (c: Context<AppEnv>, back: string, notice: string) =>
    c.redirect(withQuery(back, { done: notice }), 303);

  app.get(HOME, web.requireSession("admin"), async (c) => {
    return await mainPage(c, c.var.session, await web.settings(c));
  });

  app.get(
    "/admin/fediverse/instances/:domain",
    web.requireSession("admin"),
    async (c) => {
      const domain = c.req.param("domain");
      const settings = await web.settings(c);
      const instance = await findInstance(db, domain);
      if (!instance) {
        return unknown(c, c.var.session, "fediverse.unknownInstance");
      }
      const page = pageOf(c.req.query("page"));
      const actors = await listActorsWithActivity(db, page, PAGE_SIZE, domain);
      const path = instancePath(domain);
      return web.render(
        c,
        { current: c.var.session },
        async (common) =>
          InstanceView({
            ...common,
            csrfToken: await web.csrfToken(c.var.session),
            federation: federationState(settings),
            instance: {
              domain: instance.domain,
              name: instance.name,
              blocked: instance.blocked,
              actors: actors.count,
            },
            notice: noticeOf(c, common.t),
            back: withQuery(path, { page }),
            actors: actors.data.map(actorItem),
            actorPaging: {
              page,
              totalPages: actors.totalPages,
              href: (p) => withQuery(path, { page: p }),
            },
          }),
      );
    },
  );

  app.post(
    "/admin/fediverse/trust",
    web.requirePost("admin", HOME),
    async (c) => {
      const settings = await web.settings(c);
      const { t } = await web.language(c);
      const typed = formText(c.var.form, "url", 4000);
      const again = (error: string) =>
        mainPage(c, c.var.session, settings, {
          status: 400,
          trust: { value: typed.slice(0, 2000), error },
        });
      const parsed = trustInputSchema.safeParse({ url: typed });
      if (!parsed.success) {
        return await again(
          t(typed.trim() ? "fediverse.error.tooLong" : "fediverse.error.empty"),
        );
      }
      if (!deps.federation || federationState(settings) !== "on") {
        return await again(t("fediverse.error.off"));
      }
      try {
        await deps.federation.addTrust(parsed.data.url);
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) {
          return await again(t(trustProblemKey(error)));
        }
        throw error;
      }
      return done(c, HOME, "trusted");
    },
  );

  /**
   * An action on one actor named by the form's `ap_id`: 400 when the form
   * names none, 404 when it is unknown, the page with the problem when the
   * federation refuses (an actor that cannot be reached).
   */
  const onActor = (
    path: string,
    act: (apId: string, blocked: boolean | null) => Promise<string>,
  ) =>
    app.post(path, web.requirePost("admin", HOME), async (c) => {
      const settings = await web.settings(c);
      const { t } = await web.language(c);
      const apId = formText(c.var.form, "ap_id", 2001).trim();
      const blocked = stateOf(c.var.form.blocked);
      if (
        !apId || apId.length > 2000 ||
        (path.endsWith("/block") && blocked === null)
      ) {
        return await mainPage(c, c.var.session, settings, {
          status: 400,
          error: t("fediverse.error.missing"),
        });
      }
      try {
        const notice = await act(apId, blocked);
        return done(c, backOf(formText(c.var.form, "back")), notice);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return unknown(c, c.var.session, "fediverse.unknownActor");
        }
        if (error instanceof ApiError && error.status === 400) {
          return await mainPage(c, c.var.session, settings, {
            status: 400,
            error: t(trustProblemKey(error)),
          });
        }
        throw error;
      }
    });

  /** The federation service, or the 400 of a server that does not federate. */
  const service = () => {
    if (!deps.federation) {
      throw new ApiError(400, "invalid_request", "Federation is switched off");
    }
    return deps.federation;
  };

  onActor("/admin/fediverse/actors/follow", async (apId) => {
    await service().toggleFollow(apId, true);
    return "followed";
  });

  onActor("/admin/fediverse/actors/untrust", async (apId) => {
    await service().removeTrust(apId);
    return "untrusted";
  });

  onActor("/admin/fediverse/actors/block", async (apId, blocked) => {
    // The state the page asked for: a second click never undoes the first.
    await toggleActorBlock(db, deps.clock, apId, blocked!);
    return blocked ? "blocked" : "unblocked";
  });

  app.post(
    "/admin/fediverse/instances/block",
    web.requirePost("admin", HOME),
    async (c) => {
      const settings = await web.settings(c);
      const domain = formText(c.var.form, "domain", 301).trim();
      const blocked = stateOf(c.var.form.blocked);
      if (!domain || domain.length > 300 || blocked === null) {
        return await mainPage(c, c.var.session, settings, {
          status: 400,
          error: (await web.language(c)).t("fediverse.error.missing"),
        });
      }
      try {
        await toggleInstanceBlock(db, deps.clock, domain, blocked);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return unknown(c, c.var.session, "fediverse.unknownInstance");
        }
        throw error;
      }
      return done(
        c,
        backOf(formText(c.var.form, "back")),
        blocked ? "blocked" : "unblocked",
      );
    },
  );

  return app;
}
