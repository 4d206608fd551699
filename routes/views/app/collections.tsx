/**
 * The administration of collections (admins only): the list with a form to
 * create one (`/admin/collections`), and one collection with its filters.
 */
import type { Child } from "hono/jsx";
import { type PageProps, WebPage } from "./shell.tsx";
import { ButtonForm, Csrf, Notice } from "./components.tsx";

/** A collection as the list shows it. */
export interface CollectionItem {
  id: number;
  name: string;
  filters: number;
}

/** The public page of a collection (routes/site/pages.ts). */
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
