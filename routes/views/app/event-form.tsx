/**
 * The event form of the web interface (submit and edit), and what follows
 * an anonymous submission (the signed-in user's events are in
 * my-events.tsx). The form works without JavaScript; the optional script
 * (nonce'd) only helps: all-day dates, place and tag suggestions, an image
 * preview whose click sets the focal point.
 */
import { raw } from "hono/html";
import type {
  EventFormField,
  EventFormFields,
  EventFormMode,
} from "../../../lib/events/form.ts";
import type { MessageKey } from "../../../lib/i18n.ts";
import { Csrf } from "./components.tsx";
import { type PageProps, WebPage } from "./shell.tsx";

/** A place the form suggests. */
export interface KnownPlace {
  name: string;
  address: string;
}

/** The event's current image, on the edit form. */
export interface CurrentImage {
  url: string;
  alt: string;
}

/** The event form: what was typed is kept, problems shown next to their field. */
export function EventFormView(
  props: PageProps & {
    mode: EventFormMode;
    /** Where the form posts. */
    action: string;
    heading: string;
    timeZone: string;
    /** A visitor's submission (then waiting for confirmation). */
    anonymous: boolean;
    csrfToken: string | null;
    values: EventFormFields;
    errors: Partial<Record<EventFormField, string>>;
    error?: string;
    places: KnownPlace[];
    tags: string[];
    /** Whether the instance allows series (a series' own form always shows its rule). */
    recurrenceAllowed: boolean;
    image: CurrentImage | null;
    /** For one date of a series: the series, to edit it whole instead. */
    series?: { id: number; title: string };
    /** A local path to go back to after saving. */
    next?: string;
  },
) {
  const { values, errors, t, mode } = props;
  /** The ids that describe a field: its hint and its problem. */
  const described = (name: EventFormField, hint: boolean) =>
    [hint ? `${name}-hint` : "", errors[name] ? `${name}-error` : ""]
      .filter(Boolean).join(" ") || undefined;
  const problem = (name: EventFormField) =>
    errors[name] && (
      <p class="field-error" id={`${name}-error`}>{errors[name]}</p>
    );
  const invalid = (name: EventFormField) => errors[name] ? "true" : undefined;
  /** A labelled one-line field with its hint and its problem. */
  const field = (
    name: keyof EventFormFields,
    label: string,
    attrs: Record<string, unknown>,
    hint?: string,
  ) => (
    <div>
      <label for={name}>{label}</label>
      {hint && <p class="hint" id={`${name}-hint`}>{hint}</p>}
      <input
        id={name}
        name={name}
        type="text"
        value={values[name]}
        aria-describedby={described(name, Boolean(hint))}
        aria-invalid={invalid(name)}
        {...attrs}
      />
      {problem(name)}
    </div>
  );
  const allDay = values.all_day !== "";
  const showRule = mode !== "occurrence" &&
    (props.recurrenceAllowed || mode === "series");
  const choices: [string, MessageKey][] = [
    ...(mode === "series"
      ? []
      : [["", "events.recurrence.none"] as [string, MessageKey]]),
    ["1w", "events.recurrence.weekly"],
    ["2w", "events.recurrence.biweekly"],
    ["1m", "events.recurrence.monthlyDate"],
    ["1m-nth", "events.recurrence.monthlyNth"],
    ["1m-last", "events.recurrence.monthlyLast"],
    ...(values.recurrence === "keep"
      ? [["keep", "events.recurrence.keep"] as [string, MessageKey]]
      : []),
  ];
  return (
    <WebPage {...props} title={props.heading}>
      <h1>{props.heading}</h1>
      {props.anonymous && <p>{t("submit.waits")}</p>}
      {props.series && (
        <p class="card" id="occurrence-note">
          {t("events.occurrenceNote", { title: props.series.title })}{" "}
          <a href={`/events/${props.series.id}/edit`}>
            {t("events.editSeriesInstead")}
          </a>
        </p>
      )}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form
        method="post"
        action={props.action}
        enctype="multipart/form-data"
        class="event-form"
      >
        {props.csrfToken && <Csrf token={props.csrfToken} />}
        {props.next && <input type="hidden" name="next" value={props.next} />}
        {field("title", t("submit.field.title"), {
          required: true,
          maxlength: 200,
        })}
        <fieldset>
          <legend>{t("events.when")}</legend>
          <p class="hint" id="start-hint">
            {t("submit.hint.start", { zone: props.timeZone })}
          </p>
          <div>
            <label for="start">{t("submit.field.start")}</label>
            <input
              id="start"
              name="start"
              type={allDay ? "date" : "datetime-local"}
              required
              value={values.start}
              aria-describedby={described("start", true)}
              aria-invalid={invalid("start")}
            />
            {problem("start")}
          </div>
          <div>
            <label for="end">{t("submit.field.end")}</label>
            <p class="hint" id="end-hint">{t("submit.hint.end")}</p>
            <input
              id="end"
              name="end"
              type={allDay ? "date" : "datetime-local"}
              value={values.end}
              aria-describedby={described("end", true)}
              aria-invalid={invalid("end")}
            />
            {problem("end")}
          </div>
          <div class="check">
            <input
              id="all_day"
              name="all_day"
              type="checkbox"
              value="on"
              checked={allDay}
              aria-describedby="all_day-hint"
            />
            <label for="all_day">{t("events.field.allDay")}</label>
          </div>
          <p class="hint" id="all_day-hint">{t("events.hint.allDay")}</p>
        </fieldset>
        {showRule && (
          <fieldset>
            <legend>{t("events.repeats")}</legend>
            <div>
              <label for="recurrence">{t("events.field.recurrence")}</label>
              <select
                id="recurrence"
                name="recurrence"
                aria-describedby={described("recurrence", false)}
                aria-invalid={invalid("recurrence")}
              >
                {choices.map(([value, key]) => (
                  <option value={value} selected={values.recurrence === value}>
                    {t(key)}
                  </option>
                ))}
              </select>
              {problem("recurrence")}
            </div>
            {field(
              "until",
              t("events.field.until"),
              { type: "date" },
              t("events.hint.until"),
            )}
          </fieldset>
        )}
        <fieldset>
          <legend>{t("events.where")}</legend>
          {field(
            "place_name",
            t("submit.field.place_name"),
            { maxlength: 200, list: "known-places", autocomplete: "off" },
            t("events.hint.place"),
          )}
          {field("place_address", t("submit.field.place_address"), {
            maxlength: 300,
          })}
          {field(
            "online_link",
            t("submit.field.online_link"),
            { type: "url", maxlength: 2048 },
            t("submit.hint.online_link"),
          )}
          <datalist id="known-places">
            {props.places.map((p) => (
              <option value={p.name} data-address={p.address}>
                {p.address}
              </option>
            ))}
          </datalist>
        </fieldset>
        {field(
          "tags",
          t("submit.field.tags"),
          { list: "known-tags", autocomplete: "off", maxlength: 2000 },
          t("submit.hint.tags"),
        )}
        <datalist id="known-tags">
          {props.tags.map((tag) => <option value={tag} />)}
        </datalist>
        <div>
          <label for="description">{t("submit.field.description")}</label>
          <p class="hint" id="description-hint">
            {t("submit.hint.description")}
          </p>
          <textarea
            id="description"
            name="description"
            maxlength={20000}
            aria-describedby={described("description", true)}
            aria-invalid={invalid("description")}
          >
            {values.description}
          </textarea>
          {problem("description")}
        </div>
        <fieldset>
          <legend>{t("events.image")}</legend>
          {props.image && (
            <div>
              <div class="focal-frame" data-focal-frame="current">
                <img
                  src={`/media/${encodeURIComponent(props.image.url)}`}
                  alt={props.image.alt}
                />
              </div>
              <div class="check">
                <input
                  id="image_remove"
                  name="image_remove"
                  type="checkbox"
                  value="on"
                  checked={values.image_remove !== ""}
                />
                <label for="image_remove">
                  {t("events.field.removeImage")}
                </label>
              </div>
            </div>
          )}
          <div>
            <label for="image">
              {t(
                props.image
                  ? "events.field.replaceImage"
                  : "events.field.image",
              )}
            </label>
            <p class="hint" id="image-hint">{t("events.hint.image")}</p>
            <input
              id="image"
              name="image"
              type="file"
              accept="image/jpeg,image/png,image/webp,image/gif"
              aria-describedby={described("image", true)}
              aria-invalid={invalid("image")}
            />
            {problem("image")}
            <div class="focal-frame" data-focal-frame="new" hidden>
              <img alt="" />
            </div>
          </div>
          {field(
            "image_alt",
            t("events.field.alt"),
            { maxlength: 500 },
            t("events.hint.alt"),
          )}
          <p class="hint" id="focal-hint">{t("events.hint.focal")}</p>
          <div class="pair">
            {(["focal_x", "focal_y"] as const).map((name) => (
              <div>
                <label for={name}>
                  {t(
                    name === "focal_x"
                      ? "events.field.focalX"
                      : "events.field.focalY",
                  )}
                </label>
                <input
                  id={name}
                  name={name}
                  type="number"
                  min="-1"
                  max="1"
                  step="0.01"
                  value={values[name] || "0"}
                  aria-describedby={described("focal", true)}
                  aria-invalid={invalid("focal")}
                />
              </div>
            ))}
          </div>
          {problem("focal")}
        </fieldset>
        <div class="actions">
          <button type="submit" class="approve">
            {t(mode === "create" ? "submit.send" : "events.save")}
          </button>
        </div>
      </form>
      <script nonce={props.nonce}>{raw(FORM_SCRIPT)}</script>
    </WebPage>
  );
}

/**
 * The form's enhancements. All optional: without them every field still
 * posts what the server reads.
 */
const FORM_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  // All-day: dates only (the server reads the day of either kind of value).
  const allDay = $("all_day");
  const times = [$("start"), $("end")];
  allDay.addEventListener("change", () => {
    for (const input of times) {
      const value = input.value;
      input.type = allDay.checked ? "date" : "datetime-local";
      input.value = allDay.checked ? value.slice(0, 10)
        : value ? value.slice(0, 10) + "T" + (input.dataset.time || "00:00") : "";
    }
  });
  for (const input of times) {
    input.addEventListener("change", () => {
      if (input.value.length > 10) input.dataset.time = input.value.slice(11, 16);
    });
  }
  // Places: the known ones matching what is typed (GET /api/places); a
  // known name fills in its address.
  const place = $("place_name"), address = $("place_address");
  const known = $("known-places");
  let asked = 0;
  place.addEventListener("input", () => {
    const match = [...known.options].find((o) => o.value === place.value);
    if (match && !address.value) address.value = match.dataset.address || "";
    const search = place.value.trim();
    if (search.length < 2) return;
    const mine = ++asked;
    setTimeout(async () => {
      if (mine !== asked) return;
      try {
        const res = await fetch("/api/places?limit=10&search=" + encodeURIComponent(search));
        if (!res.ok || mine !== asked) return;
        const found = await res.json();
        const seen = new Set([...known.options].map((o) => o.value + "\\n" + o.dataset.address));
        for (const p of found) {
          if (seen.has(p.name + "\\n" + p.address)) continue;
          const option = document.createElement("option");
          option.value = p.name;
          option.dataset.address = p.address;
          option.textContent = p.address;
          known.append(option);
        }
      } catch { /* suggestions only */ }
    }, 250);
  });
  // Tags: suggestions complete the last tag of the list.
  const tags = $("tags"), tagList = $("known-tags");
  const names = [...tagList.options].map((o) => o.value);
  tags.addEventListener("input", () => {
    const cut = tags.value.lastIndexOf(",");
    const before = cut < 0 ? "" : tags.value.slice(0, cut + 1) + " ";
    tagList.replaceChildren(...names.map((name) => {
      const option = document.createElement("option");
      option.value = before + name;
      return option;
    }));
  });
  // The image: a preview of the chosen file; a click on it sets the focal
  // point (x from -1 left to 1 right, y from 1 top to -1 bottom).
  const fx = $("focal_x"), fy = $("focal_y");
  const frames = [...document.querySelectorAll("[data-focal-frame]")];
  const dot = document.createElement("span");
  dot.className = "focal-dot";
  const place_dot = (frame) => {
    frame.append(dot);
    dot.style.left = ((Number(fx.value) + 1) / 2 * 100) + "%";
    dot.style.top = ((1 - Number(fy.value)) / 2 * 100) + "%";
  };
  for (const frame of frames) {
    const img = frame.querySelector("img");
    img.addEventListener("click", (e) => {
      const box = img.getBoundingClientRect();
      const x = (e.clientX - box.left) / box.width * 2 - 1;
      const y = 1 - (e.clientY - box.top) / box.height * 2;
      fx.value = Math.max(-1, Math.min(1, x)).toFixed(2);
      fy.value = Math.max(-1, Math.min(1, y)).toFixed(2);
      place_dot(frame);
    });
  }
  const current = frames.find((f) => f.dataset.focalFrame === "current");
  const fresh = frames.find((f) => f.dataset.focalFrame === "new");
  if (current) place_dot(current);
  for (const input of [fx, fy]) {
    input.addEventListener("input", () => {
      const shown = frames.find((f) => !f.hidden && f.contains(dot));
      if (shown) place_dot(shown);
    });
  }
  $("image").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (!file || !file.type.startsWith("image/")) { fresh.hidden = true; return; }
    const reader = new FileReader();
    reader.onload = () => {
      const img = fresh.querySelector("img");
      img.src = reader.result;
      img.alt = $("image_alt").value;
      fresh.hidden = false;
      fx.value = "0"; fy.value = "0";
      place_dot(fresh);
    };
    reader.readAsDataURL(file);
  });
})();
`;

/** What follows a submission that waits for confirmation. */
export function SubmittedView(
  props: PageProps & {
    title: string;
  },
) {
  return (
    <WebPage
      {...props}
      title={props.t("submitted.title")}
    >
      <h1>{props.t("submitted.title")}</h1>
      <p role="status">{props.t("submitted.text", { title: props.title })}</p>
      <p>
        <a href="/submit">{props.t("submitted.another")}</a> ·{" "}
        <a href="/">{props.t("home")}</a>
      </p>
    </WebPage>
  );
}
