/**
 * The administration of the fediverse (actors and instances), of
 * collections and their filters, and of OAuth clients (admins only).
 */
import type { Child } from "hono/jsx";
import type { PageProps, Paging } from "./shell.tsx";
import { Csrf, Pager, WebPage } from "./shell.tsx";

/** A form of one button that posts `fields` with the page's CSRF token. */
function ButtonForm(
  props: {
    action: string;
    csrfToken: string;
    fields: Record<string, string>;
    label: string;
    /** The id of what the button acts on (its accessible description). */
    describedBy?: string;
    kind?: "approve" | "deny";
  },
) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrfToken} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        class={props.kind ?? "deny"}
        aria-describedby={props.describedBy}
      >
        {props.label}
      </button>
    </form>
  );
}

/** A notice after an action (announced to screen readers). */
function Notice(props: { text?: string }) {
  return props.text ? <p role="status" class="notice">{props.text}</p> : null;
}

// ---------------------------------------------------------------- fediverse

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

// -------------------------------------------------------------- collections

/** A collection as the list shows it. */
export interface CollectionItem {
  id: number;
  name: string;
  filters: number;
}

/** The public page of a collection (routes/pages.ts). */
export function collectionPublicPath(name: string): string {
  return `/collection/${encodeURIComponent(name)}`;
}

/** The name field of the create and rename forms. */
function NameField(
  props: PageProps & { id: string; value: string; error?: string },
) {
  const errorId = `${props.id}-error`;
  return (
    <>
      <label for={props.id}>{props.t("collections.name")}</label>
      <input
        id={props.id}
        name="name"
        type="text"
        required
        maxlength={100}
        value={props.value}
        aria-describedby={props.error ? errorId : undefined}
        aria-invalid={props.error ? "true" : undefined}
      />
      {props.error && <p class="field-error" id={errorId}>{props.error}</p>}
    </>
  );
}

/** `/admin/collections`: every collection, and a form to create one. */
export function CollectionsView(
  props: PageProps & {
    csrfToken: string;
    collections: CollectionItem[];
    notice?: string;
    create: { value: string; error?: string };
  },
) {
  const { t } = props;
  return (
    <WebPage
      {...props}
      title={t("collections.title")}
      path="/admin/collections"
    >
      <h1>{t("collections.title")}</h1>
      <Notice text={props.notice} />
      <p class="hint">{t("collections.intro")}</p>
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">{t("collections.create")}</h2>
        <form method="post" action="/admin/collections">
          <Csrf token={props.csrfToken} />
          <NameField
            {...props}
            id="name"
            value={props.create.value}
            error={props.create.error}
          />
          <div class="actions">
            <button type="submit" class="approve">
              {t("collections.createButton")}
            </button>
          </div>
        </form>
      </section>
      {props.collections.length === 0
        ? <p>{t("collections.none")}</p>
        : (
          <ul class="queue">
            {props.collections.map((c) => (
              <li class="card">
                <h2>
                  <a href={`/admin/collections/${c.id}`}>{c.name}</a>
                </h2>
                <p>{t("collections.filterCount", { count: c.filters })}</p>
                <p>
                  <a href={collectionPublicPath(c.name)}>
                    {t("collections.publicPage", { name: c.name })}
                  </a>
                </p>
              </li>
            ))}
          </ul>
        )}
    </WebPage>
  );
}

/** A place or actor a filter may name. */
export interface Choice {
  value: string;
  label: string;
}

/** A filter's fields as the form shows them. */
export interface FilterValues {
  tags: string;
  places: string[];
  /** Actor ids, and "local" for this instance's events. */
  actors: string[];
  negate: boolean;
}

/** Problems of a filter form, by field. */
export type FilterErrors = Partial<
  Record<"tags" | "places" | "actors" | "form", string>
>;

/** The fields of a filter (add and edit forms share them; `prefix` keeps ids unique). */
function FilterFields(
  props: PageProps & {
    prefix: string;
    values: FilterValues;
    errors: FilterErrors;
    places: Choice[];
    actors: Choice[];
  },
) {
  const { t, prefix, values, errors } = props;
  const field = (
    name: "tags" | "places" | "actors",
    label: string,
    hint: string,
    input: (describedBy: string) => Child,
  ) => {
    const id = `${prefix}-${name}`;
    const describedBy = [`${id}-hint`, errors[name] ? `${id}-error` : ""]
      .filter(Boolean).join(" ");
    return (
      <>
        <label for={id}>{label}</label>
        <p class="hint" id={`${id}-hint`}>{hint}</p>
        {input(describedBy)}
        {errors[name] && (
          <p class="field-error" id={`${id}-error`}>{errors[name]}</p>
        )}
      </>
    );
  };
  // Choices named by the filter but no longer offered stay selectable.
  const withSelected = (choices: Choice[], selected: string[]) => [
    ...choices,
    ...selected.filter((v) => !choices.some((c) => c.value === v)).map((
      v,
    ) => ({ value: v, label: v })),
  ];
  return (
    <>
      {errors.form && <p class="error" role="alert">{errors.form}</p>}
      {field(
        "tags",
        t("collections.tags"),
        t("collections.tagsHint"),
        (d) => (
          <input
            id={`${prefix}-tags`}
            name="tags"
            type="text"
            value={values.tags}
            aria-describedby={d}
            aria-invalid={errors.tags ? "true" : undefined}
          />
        ),
      )}
      {field(
        "places",
        t("collections.places"),
        t("collections.choiceHint"),
        (d) => (
          <select
            id={`${prefix}-places`}
            name="places"
            multiple
            size={4}
            aria-describedby={d}
            aria-invalid={errors.places ? "true" : undefined}
          >
            {withSelected(props.places, values.places).map((p) => (
              <option
                value={p.value}
                selected={values.places.includes(p.value)}
              >
                {p.label}
              </option>
            ))}
          </select>
        ),
      )}
      {field(
        "actors",
        t("collections.actors"),
        t("collections.actorsHint"),
        (d) => (
          <select
            id={`${prefix}-actors`}
            name="actors"
            multiple
            size={4}
            aria-describedby={d}
            aria-invalid={errors.actors ? "true" : undefined}
          >
            {withSelected(
              [
                { value: "local", label: t("collections.local") },
                ...props
                  .actors,
              ],
              values.actors,
            ).map((a) => (
              <option
                value={a.value}
                selected={values.actors.includes(a.value)}
              >
                {a.label}
              </option>
            ))}
          </select>
        ),
      )}
      <div class="check">
        <input
          type="checkbox"
          id={`${prefix}-negate`}
          name="negate"
          value="true"
          checked={values.negate}
        />
        <label for={`${prefix}-negate`}>{t("collections.negate")}</label>
      </div>
    </>
  );
}

/** A filter as the collection's page shows it. */
export interface FilterItem {
  id: number;
  /** What it selects, in words. */
  summary: string;
  values: FilterValues;
  errors: FilterErrors;
}

/** `/admin/collections/{id}`: rename, the filters (edit, delete), add a filter. */
export function CollectionView(
  props: PageProps & {
    csrfToken: string;
    id: number;
    name: string;
    notice?: string;
    rename: { value: string; error?: string };
    filters: FilterItem[];
    add: { values: FilterValues; errors: FilterErrors };
    places: Choice[];
    actors: Choice[];
  },
) {
  const { t } = props;
  const base = `/admin/collections/${props.id}`;
  return (
    <WebPage {...props} title={props.name} path="/admin/collections">
      <p>
        <a href="/admin/collections">{t("collections.backToAll")}</a>
      </p>
      <h1>{props.name}</h1>
      <Notice text={props.notice} />
      <p>
        {t("collections.publicAt")}{" "}
        <a href={collectionPublicPath(props.name)}>
          /collection/{props.name}
        </a>
      </p>
      <section class="card" aria-labelledby="rename-title">
        <h2 id="rename-title">{t("collections.rename")}</h2>
        <form method="post" action={base}>
          <Csrf token={props.csrfToken} />
          <NameField
            {...props}
            id="name"
            value={props.rename.value}
            error={props.rename.error}
          />
          <div class="actions">
            <button type="submit" class="approve">
              {t("collections.renameButton")}
            </button>
          </div>
        </form>
      </section>
      <section aria-labelledby="filters-title">
        <h2 id="filters-title">{t("collections.filters")}</h2>
        <p class="hint">{t("collections.filtersHint")}</p>
        {props.filters.length === 0
          ? <p>{t("collections.noFilters")}</p>
          : (
            <ul class="queue">
              {props.filters.map((f, index) => (
                <li class="card">
                  <h3 id={`filter-${f.id}`}>
                    {t("collections.filterTitle", { n: index + 1 })}
                  </h3>
                  <p>{f.summary}</p>
                  <details open={Object.keys(f.errors).length > 0}>
                    <summary>{t("collections.edit")}</summary>
                    <form method="post" action={`${base}/filters/${f.id}`}>
                      <Csrf token={props.csrfToken} />
                      <FilterFields
                        {...props}
                        prefix={`f${f.id}`}
                        values={f.values}
                        errors={f.errors}
                      />
                      <div class="actions">
                        <button
                          type="submit"
                          class="approve"
                          aria-describedby={`filter-${f.id}`}
                        >
                          {t("collections.save")}
                        </button>
                      </div>
                    </form>
                  </details>
                  <div class="actions">
                    <ButtonForm
                      action={`${base}/filters/${f.id}/delete`}
                      csrfToken={props.csrfToken}
                      fields={{}}
                      label={t("collections.deleteFilter")}
                      describedBy={`filter-${f.id}`}
                    />
                  </div>
                </li>
              ))}
            </ul>
          )}
      </section>
      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">{t("collections.addFilter")}</h2>
        <form method="post" action={`${base}/filters`}>
          <Csrf token={props.csrfToken} />
          <FilterFields
            {...props}
            prefix="new"
            values={props.add.values}
            errors={props.add.errors}
          />
          <div class="actions">
            <button type="submit" class="approve">
              {t("collections.addButton")}
            </button>
          </div>
        </form>
      </section>
      <p>
        <a href={`${base}/delete`}>
          {t("collections.delete", { name: props.name })}
        </a>
      </p>
    </WebPage>
  );
}

/** The page of a confirmation: what will happen, then Delete or Cancel. */
export function ConfirmView(
  props: PageProps & {
    title: string;
    text: string;
    action: string;
    csrfToken: string;
    confirm: string;
    cancel: { href: string; label: string };
    path: string;
  },
) {
  return (
    <WebPage {...props} title={props.title} path={props.path}>
      <h1 id="confirm-title">{props.title}</h1>
      <p>{props.text}</p>
      <form method="post" action={props.action}>
        <Csrf token={props.csrfToken} />
        <div class="actions">
          <button type="submit" class="danger">{props.confirm}</button>
        </div>
      </form>
      <p>
        <a href={props.cancel.href}>{props.cancel.label}</a>
      </p>
    </WebPage>
  );
}

// ------------------------------------------------------------------ clients

/** A registered OAuth client as the page lists it. */
export interface ClientItem {
  clientId: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string;
  /** When it was registered, in words. */
  created: string;
  users: number;
}

/** `/admin/clients`: the registered applications, each with a Delete button. */
export function ClientsView(
  props: PageProps & {
    clients: ClientItem[];
    count: number;
    paging: Paging;
    notice?: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("clients.title")} path="/admin/clients">
      <h1>{t("clients.title")}</h1>
      <Notice text={props.notice} />
      <p class="hint">{t("clients.intro", { count: props.count })}</p>
      {props.clients.length === 0
        ? <p>{t("clients.none")}</p>
        : (
          <ul class="queue">
            {props.clients.map((client, index) => (
              <li class="card">
                <h2 id={`client-${index}`}>{client.name}</h2>
                {client.website && (
                  <p>
                    <a href={client.website} rel="noopener noreferrer">
                      {client.website}
                    </a>
                  </p>
                )}
                <p class="muted">{t("clients.redirects")}</p>
                <ul class="plain">
                  {client.redirectUris.map((uri) => (
                    <li>
                      <code>{uri}</code>
                    </li>
                  ))}
                </ul>
                <p>
                  {t("clients.scopes", { scopes: client.scopes })}
                  <br />
                  {t("clients.created", { date: client.created })}
                  <br />
                  {t("clients.users", { count: client.users })}
                </p>
                <p>
                  <a
                    href={`/admin/clients/${
                      encodeURIComponent(client.clientId)
                    }/delete`}
                  >
                    {t("clients.delete", { name: client.name })}
                  </a>
                </p>
              </li>
            ))}
          </ul>
        )}
      <Pager {...props} paging={props.paging} label={t("clients.pages")} />
    </WebPage>
  );
}
