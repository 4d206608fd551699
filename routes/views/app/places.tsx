/** The places of the instance (editors and admins): `/admin/places`, a place's edit form and its merge page. */
import { type PageProps, WebPage } from "./shell.tsx";
import { Csrf, Notice, Pager, type Paging } from "./components.tsx";

const HOME = "/admin/places";

/** A place as the pages list it. */
export interface PlaceItem {
  id: number;
  name: string;
  address: string;
  events: number;
}

/** `/admin/places`: a search, then every place with its events' count and an Edit link. */
export function PlacesView(
  props: PageProps & {
    places: PlaceItem[];
    count: number;
    query: string;
    paging: Paging;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("places.title")} path={HOME}>
      <h1>{t("places.title")}</h1>
      <p class="hint">{t("places.intro")}</p>
      <form method="get" action={HOME} class="search" role="search">
        <label for="q">{t("places.search")}</label>
        <div class="row">
          <input id="q" name="q" type="search" value={props.query} />
          <button type="submit" class="deny">{t("places.searchButton")}</button>
        </div>
      </form>
      <h2 class="count">{t("places.count", { count: props.count })}</h2>
      {props.places.length === 0
        ? <p>{t("places.none")}</p>
        : (
          <ul class="queue">
            {props.places.map((place) => (
              <li class="card">
                <h3 id={`place-${place.id}`}>{place.name}</h3>
                {place.address && <p class="muted">{place.address}</p>}
                <p>{t("places.events", { count: place.events })}</p>
                <p>
                  <a href={`${HOME}/${place.id}`}>
                    {t("places.edit", { name: place.name })}
                  </a>
                </p>
              </li>
            ))}
          </ul>
        )}
      <Pager {...props} paging={props.paging} label={t("places.pages")} />
    </WebPage>
  );
}

/** The fields of a place's form, as typed. */
export interface PlaceFields {
  name: string;
  address: string;
  latitude: string;
  longitude: string;
}

/** What is wrong with a place's form, by field. */
export type PlaceErrors = Partial<Record<keyof PlaceFields, string>>;

function Field(
  props: {
    name: keyof PlaceFields;
    label: string;
    value: string;
    error?: string;
    hint?: string;
    required?: boolean;
    inputmode?: "decimal";
  },
) {
  const described = [
    props.hint ? `${props.name}-hint` : "",
    props.error ? `${props.name}-error` : "",
  ].filter(Boolean).join(" ");
  return (
    <>
      <label for={props.name}>{props.label}</label>
      {props.hint && <p class="hint" id={`${props.name}-hint`}>{props.hint}</p>}
      <input
        id={props.name}
        name={props.name}
        type="text"
        value={props.value}
        required={props.required}
        inputmode={props.inputmode}
        aria-describedby={described || undefined}
        aria-invalid={props.error ? "true" : undefined}
      />
      {props.error && (
        <p class="field-error" id={`${props.name}-error`}>{props.error}</p>
      )}
    </>
  );
}

/** `/admin/places/{id}`: the place's form, and the way to merge duplicates into it. */
export function PlaceEditView(
  props: PageProps & {
    id: number;
    events: number;
    values: PlaceFields;
    errors: PlaceErrors;
    csrfToken: string;
    notice?: string;
  },
) {
  const { t, values, errors } = props;
  return (
    <WebPage {...props} title={t("places.editTitle")} path={HOME}>
      <h1>{t("places.editTitle")}</h1>
      <Notice text={props.notice} />
      <p>{t("places.events", { count: props.events })}</p>
      <form method="post" action={`${HOME}/${props.id}`}>
        <Csrf token={props.csrfToken} />
        <Field
          name="name"
          label={t("places.field.name")}
          value={values.name}
          error={errors.name}
          required
        />
        <Field
          name="address"
          label={t("places.field.address")}
          value={values.address}
          error={errors.address}
        />
        <div class="pair">
          <div>
            <Field
              name="latitude"
              label={t("places.field.latitude")}
              value={values.latitude}
              error={errors.latitude}
              inputmode="decimal"
            />
          </div>
          <div>
            <Field
              name="longitude"
              label={t("places.field.longitude")}
              value={values.longitude}
              error={errors.longitude}
              inputmode="decimal"
            />
          </div>
        </div>
        <p class="hint">{t("places.hint.coordinates")}</p>
        <div class="actions">
          <button type="submit" class="approve">{t("places.save")}</button>
        </div>
      </form>
      <p>
        <a href={`${HOME}/${props.id}/merge`}>{t("places.mergeLink")}</a>
      </p>
      <p>
        <a href={HOME}>{t("places.back")}</a>
      </p>
    </WebPage>
  );
}

/** `/admin/places/{id}/merge`: a search for duplicates, checked ones merged on confirmation. */
export function PlaceMergeView(
  props: PageProps & {
    id: number;
    name: string;
    query: string;
    candidates: PlaceItem[];
    csrfToken: string;
    error?: string;
  },
) {
  const { t } = props;
  const action = `${HOME}/${props.id}/merge`;
  return (
    <WebPage
      {...props}
      title={t("places.mergeTitle", { name: props.name })}
      path={HOME}
    >
      <h1>{t("places.mergeTitle", { name: props.name })}</h1>
      <p>{t("places.mergeIntro", { name: props.name })}</p>
      <form method="get" action={action} class="search" role="search">
        <label for="q">{t("places.mergeSearch")}</label>
        <div class="row">
          <input id="q" name="q" type="search" value={props.query} />
          <button type="submit" class="deny">{t("places.searchButton")}</button>
        </div>
      </form>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {props.candidates.length === 0
        ? <p>{t("places.mergeNone")}</p>
        : (
          <form method="post" action={action}>
            <Csrf token={props.csrfToken} />
            <fieldset>
              <legend>{t("places.mergeCandidates")}</legend>
              {props.candidates.map((place) => (
                <label class="check">
                  <input
                    type="checkbox"
                    name="place"
                    value={String(place.id)}
                  />
                  <span>
                    {place.name}
                    {place.address ? ` — ${place.address}` : ""}{" "}
                    <span class="muted">
                      ({t("places.events", { count: place.events })})
                    </span>
                  </span>
                </label>
              ))}
            </fieldset>
            <div class="actions">
              <button type="submit" class="danger">
                {t("places.mergeButton")}
              </button>
            </div>
          </form>
        )}
      <p>
        <a href={`${HOME}/${props.id}`}>{t("places.cancel")}</a>
      </p>
    </WebPage>
  );
}
