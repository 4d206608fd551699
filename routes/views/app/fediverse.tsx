/**
 * The administration of the fediverse (admins only): trust and follow an
 * actor, the known actors and instances (`/admin/fediverse`), and one
 * instance with its actors.
 */
import { type PageProps, WebPage } from "./shell.tsx";
import { ButtonForm, Csrf, Notice, Pager, type Paging } from "./components.tsx";

/** A remote actor as the page lists it. */
export interface ActorItem {
  apId: string;
  /** Its name, else its preferredUsername, else its id. */
  name: string;
  /** `@user@host` when it has a preferredUsername. */
  handle: string | null;
  instanceDomain: string | null;
  trusted: boolean;
  following: boolean;
  follower: boolean;
  blocked: boolean;
  /** Remote events it has sent us (still kept). */
  events: number;
  /** Comments and replies it has sent us. */
  resources: number;
}

/** A known instance as the page lists it. */
export interface InstanceItem {
  domain: string;
  name: string | null;
  blocked: boolean;
  actors: number;
}

/** Whether this server federates: on, switched off in the settings, or not built in. */
export type FederationState = "on" | "off" | "absent";

/** What the page says when it cannot trust or follow (null when it can). */
function FederationNote(
  props: PageProps & { federation: FederationState },
) {
  const { t } = props;
  if (props.federation === "on") return null;
  return (
    <p class="note" id="federation-note">
      {props.federation === "off"
        ? (
          <>
            {t("fediverse.off")}{" "}
            <a href="/admin/settings">{t("fediverse.offSettings")}</a>
          </>
        )
        : t("fediverse.absent")}
    </p>
  );
}

/** One actor: who it is, its state, what it has sent us, and what can be done. */
function ActorCard(
  props: PageProps & {
    actor: ActorItem;
    index: number;
    csrfToken: string;
    back: string;
    federation: FederationState;
  },
) {
  const { actor, t } = props;
  const id = `actor-${props.index}`;
  const states = [
    actor.trusted ? t("fediverse.state.trusted") : "",
    actor.following
      ? t("fediverse.state.following")
      : actor.trusted
      ? t("fediverse.state.pending")
      : "",
    actor.follower ? t("fediverse.state.follower") : "",
    actor.blocked ? t("fediverse.state.blocked") : "",
  ].filter(Boolean);
  const fields = { ap_id: actor.apId, back: props.back };
  const federates = props.federation === "on";
  return (
    <li class="card">
      <h3 id={id}>{actor.name}</h3>
      <p class="muted">
        {actor.handle && (
          <>
            {actor.handle}
            <br />
          </>
        )}
        <code>{actor.apId}</code>
      </p>
      <p>
        {states.length ? states.join(" · ") : t("fediverse.state.none")}
      </p>
      <p>
        {t("fediverse.sent", {
          events: actor.events,
          resources: actor.resources,
        })}
      </p>
      <div class="actions">
        {federates && !actor.blocked && !actor.following && (
          <ButtonForm
            action="/admin/fediverse/actors/follow"
            csrfToken={props.csrfToken}
            fields={fields}
            kind="approve"
            label={actor.trusted
              ? t("fediverse.followAgain")
              : t("fediverse.trustFollow")}
            describedBy={id}
          />
        )}
        {federates && (actor.trusted || actor.following) && (
          <ButtonForm
            action="/admin/fediverse/actors/untrust"
            csrfToken={props.csrfToken}
            fields={fields}
            label={t("fediverse.untrust")}
            describedBy={id}
          />
        )}
        <ButtonForm
          action="/admin/fediverse/actors/block"
          csrfToken={props.csrfToken}
          fields={{ ...fields, blocked: actor.blocked ? "false" : "true" }}
          label={actor.blocked ? t("fediverse.unblock") : t("fediverse.block")}
          describedBy={id}
        />
      </div>
    </li>
  );
}

/** A list of actor cards (or a line saying there are none). */
function ActorList(
  props: PageProps & {
    actors: ActorItem[];
    csrfToken: string;
    back: string;
    federation: FederationState;
    empty: string;
  },
) {
  if (props.actors.length === 0) return <p>{props.empty}</p>;
  return (
    <ul class="queue">
      {props.actors.map((actor, index) => (
        <ActorCard {...props} actor={actor} index={index} />
      ))}
    </ul>
  );
}

/** One instance's block button. */
function InstanceBlockForm(
  props: PageProps & {
    instance: InstanceItem;
    csrfToken: string;
    back: string;
    describedBy: string;
  },
) {
  const { instance, t } = props;
  return (
    <ButtonForm
      action="/admin/fediverse/instances/block"
      csrfToken={props.csrfToken}
      fields={{
        domain: instance.domain,
        blocked: instance.blocked ? "false" : "true",
        back: props.back,
      }}
      label={instance.blocked ? t("fediverse.unblock") : t("fediverse.block")}
      describedBy={props.describedBy}
    />
  );
}

/** The link of an instance's page. */
export function instancePath(domain: string): string {
  return `/admin/fediverse/instances/${encodeURIComponent(domain)}`;
}

/**
 * `/admin/fediverse`: trust and follow an actor, the known actors (state,
 * what each sent us, actions) and the known instances (block, their actors).
 */
export function FediverseView(
  props: PageProps & {
    csrfToken: string;
    federation: FederationState;
    /** What was typed into the trust form, and its problem. */
    trust: { value: string; error?: string };
    notice?: string;
    /** Why an action on an actor or instance failed. */
    error?: string;
    /** This page's own address, to come back to after an action. */
    back: string;
    actors: ActorItem[];
    actorCount: number;
    actorPaging: Paging;
    instances: InstanceItem[];
    instanceCount: number;
    instancePaging: Paging;
  },
) {
  const { t, trust } = props;
  const described = [
    "url-hint",
    trust.error ? "url-error" : "",
  ].filter(Boolean).join(" ");
  return (
    <WebPage {...props} title={t("fediverse.title")} path="/admin/fediverse">
      <h1>{t("fediverse.title")}</h1>
      <Notice text={props.notice} />
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <section class="card" aria-labelledby="trust-title">
        <h2 id="trust-title">{t("fediverse.trustTitle")}</h2>
        <FederationNote {...props} />
        {props.federation === "on" && (
          <form method="post" action="/admin/fediverse/trust">
            <Csrf token={props.csrfToken} />
            <label for="url">{t("fediverse.url")}</label>
            <p class="hint" id="url-hint">{t("fediverse.urlHint")}</p>
            <input
              id="url"
              name="url"
              type="text"
              inputmode="url"
              autocapitalize="none"
              autocomplete="off"
              spellcheck={false}
              required
              maxlength={2000}
              value={trust.value}
              aria-describedby={described}
              aria-invalid={trust.error ? "true" : undefined}
            />
            {trust.error && (
              <p class="field-error" id="url-error">{trust.error}</p>
            )}
            <div class="actions">
              <button type="submit" class="approve">
                {t("fediverse.trustFollow")}
              </button>
            </div>
          </form>
        )}
      </section>
      <section aria-labelledby="actors-title">
        <h2 id="actors-title">
          {t("fediverse.actors", { count: props.actorCount })}
        </h2>
        <p class="hint">{t("fediverse.actorsHint")}</p>
        <ActorList {...props} empty={t("fediverse.noActors")} />
        <Pager
          {...props}
          paging={props.actorPaging}
          label={t("fediverse.actorPages")}
        />
      </section>
      <section aria-labelledby="instances-title">
        <h2 id="instances-title">
          {t("fediverse.instances", { count: props.instanceCount })}
        </h2>
        {props.instances.length === 0
          ? <p>{t("fediverse.noInstances")}</p>
          : (
            <ul class="queue">
              {props.instances.map((instance, index) => (
                <li class="card">
                  <h3 id={`instance-${index}`}>{instance.domain}</h3>
                  {instance.name && <p class="muted">{instance.name}</p>}
                  <p>
                    {instance.blocked
                      ? t("fediverse.state.blocked")
                      : t("fediverse.state.open")}
                  </p>
                  <p>
                    <a href={instancePath(instance.domain)}>
                      {t("fediverse.instanceActors", {
                        count: instance.actors,
                        domain: instance.domain,
                      })}
                    </a>
                  </p>
                  <div class="actions">
                    <InstanceBlockForm
                      {...props}
                      instance={instance}
                      describedBy={`instance-${index}`}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )}
        <Pager
          {...props}
          paging={props.instancePaging}
          label={t("fediverse.instancePages")}
        />
      </section>
    </WebPage>
  );
}

/** `/admin/fediverse/instances/{domain}`: one instance, its block, its actors. */
export function InstanceView(
  props: PageProps & {
    csrfToken: string;
    federation: FederationState;
    instance: InstanceItem;
    notice?: string;
    error?: string;
    back: string;
    actors: ActorItem[];
    actorPaging: Paging;
  },
) {
  const { t, instance } = props;
  return (
    <WebPage {...props} title={instance.domain} path="/admin/fediverse">
      <p>
        <a href="/admin/fediverse">{t("fediverse.backToAll")}</a>
      </p>
      <h1 id="instance-title">{instance.domain}</h1>
      <Notice text={props.notice} />
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {instance.name && <p class="muted">{instance.name}</p>}
      <p>
        {instance.blocked
          ? t("fediverse.state.blocked")
          : t("fediverse.state.open")}
      </p>
      <p class="hint">{t("fediverse.instanceBlockHint")}</p>
      <div class="actions">
        <InstanceBlockForm {...props} describedBy="instance-title" />
      </div>
      <FederationNote {...props} />
      <h2>{t("fediverse.actors", { count: instance.actors })}</h2>
      <ActorList {...props} empty={t("fediverse.noActors")} />
      <Pager
        {...props}
        paging={props.actorPaging}
        label={t("fediverse.actorPages")}
      />
    </WebPage>
  );
}
