/**
 * What the submit and edit pages share: reading the event form's post, the
 * suggestions it offers, turning it into an event write (with its image),
 * telling the fediverse, and showing the write's problems by their field.
 */
import type { Db } from "../../db/client.ts";
import type { MediaItem, Recurrence } from "../../db/schema.ts";
import { ApiError } from "../../lib/errors.ts";
import {
  placeIdByName,
  searchPlaces,
  searchTags,
} from "../../lib/events/catalog.ts";
import {
  EVENT_FORM_FIELDS,
  type EventFormField,
  type EventFormFields,
  type EventFormMode,
  eventInputFromForm,
  htmlToPlainText,
} from "../../lib/events/form.ts";
import type { WriteDeps, WriteResult } from "../../lib/events/commit.ts";
import type { EventInput, MediaInput } from "../../lib/events/input.ts";
import type { MessageKey, Translate } from "../../lib/i18n.ts";
import { imageSaver } from "../../lib/media/upload.ts";
import type { Settings } from "../../lib/settings.ts";
import type { RouteDeps } from "../env.ts";
import {
  eventWriteDeps,
  federateChange,
  imageUploadDeps,
} from "../api/event-writes.ts";
import type { KnownPlace } from "../views/app/event-form.tsx";
import { formText, type PostedForm } from "./kit.ts";

/** How many known places and tags the form suggests without script. */
const SUGGESTED_PLACES = 200;
const SUGGESTED_TAGS = 50;

/** Longest value read of each field (the form's own limits; the rest 500). */
const LONGEST: Partial<Record<keyof EventFormFields, number>> = {
  title: 200,
  place_name: 200,
  place_address: 300,
  online_link: 2048,
  tags: 2000,
  description: 20_000,
};

/** Problems shown next to the form's fields. */
export type FormErrors = Partial<Record<EventFormField, string>>;

/** The form's fields and its file, as posted. */
export function readEventForm(
  form: PostedForm,
): { values: EventFormFields; file: File | undefined } {
  const values = Object.fromEntries(
    EVENT_FORM_FIELDS.map((name) => [
      name,
      formText(form, name, LONGEST[name] ?? 500),
    ]),
  ) as unknown as EventFormFields;
  const image = form.image;
  // A form sent without a chosen file carries an empty, nameless part.
  const file = image instanceof File && image.size > 0 ? image : undefined;
  return { values, file };
}

/** The places and tags the form suggests (bounded). */
export async function suggestions(
  db: Db,
): Promise<{ places: KnownPlace[]; tags: string[] }> {
  const [places, tags] = await Promise.all([
    searchPlaces(db, "", SUGGESTED_PLACES),
    searchTags(db, "", SUGGESTED_TAGS),
  ]);
  return {
    places: places.map((p) => ({ name: p.name, address: p.address })),
    tags: tags.map((t) => t.tag),
  };
}

/** What the form changes, when it changes an event. */
export interface EditedEvent {
  description: string;
  online_locations: string[];
  media: MediaItem[];
  recurrent: Recurrence | null;
}

/** An event write's checked input and the image it stores, or the form's problems. */
export type PreparedWrite =
  | {
    ok: true;
    input: EventInput;
    saveImage: (() => Promise<MediaItem>) | undefined;
  }
  | { ok: false; errors: FormErrors };

/** Event writes from the web pages: their dependencies and their federation. */
export function eventWrites(deps: RouteDeps) {
  const { db } = deps.database;

  /** What an event write needs, with this instance's settings. */
  const writeDeps = (settings: Settings): WriteDeps =>
    eventWriteDeps(deps, settings);

  /**
   * Tells the fediverse what a write did (queued in its own batch); a
   * failure is logged, the queue retries.
   */
  const publish = (result: WriteResult<unknown>) =>
    federateChange(deps, result);

  /**
   * The write input of a posted form, its image checked (not yet stored),
   * or what is wrong. `current`: the event an edit changes.
   */
  const prepare = async (
    t: Translate,
    settings: Settings,
    post: { values: EventFormFields; file: File | undefined },
    mode: EventFormMode,
    ownerId: number | null,
    current?: EditedEvent,
  ): Promise<PreparedWrite> => {
    const { values, file } = post;
    const { input, errors, image } = eventInputFromForm(
      values,
      settings.instance_timezone,
      mode,
      current?.recurrent,
    );
    const shown: FormErrors = {};
    for (const e of errors) {
      shown[e.field] ??= t(`events.problem.${e.problem}` as MessageKey);
    }
    if (
      input.recurrent && !settings.allow_recurrent_event && mode !== "series"
    ) {
      shown.recurrence ??= t("events.problem.noRecurrence");
    }
    let saveImage: (() => Promise<MediaItem>) | undefined;
    try {
      saveImage = await imageSaver(
        imageUploadDeps(deps),
        file,
        { name: image.alt, focalpoint: image.focalpoint, ownerId },
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      shown.image = imageProblem(t, error, deps.config.mediaMaxBytes);
    }
    if (Object.keys(shown).length > 0) return { ok: false, errors: shown };

    if (current) {
      // The form shows one image: a new file or a removal replaces the
      // first; its description and focal point change in place.
      const kept: MediaInput[] = current.media.map((m) => ({
        url: m.url,
        name: m.name,
        focalpoint: m.focalpoint,
      }));
      const first = kept[0];
      if (file || image.remove) input.media = kept.slice(1);
      else if (
        first &&
        (first.name !== image.alt ||
          first.focalpoint![0] !== image.focalpoint[0] ||
          first.focalpoint![1] !== image.focalpoint[1])
      ) {
        input.media = [
          { ...first, name: image.alt, focalpoint: image.focalpoint },
          ...kept.slice(1),
        ];
      }
      // One link on the form: the event's others stay.
      input.online_locations = [
        ...(input.online_locations ?? []),
        ...current.online_locations.slice(1),
      ];
      // An untouched description keeps its HTML (the form shows plain text).
      if (
        values.description.replace(/\r\n?/g, "\n").trim() ===
          htmlToPlainText(current.description)
      ) {
        delete input.description;
      }
    }
    // A known place picked by its name alone.
    if (input.place_name !== undefined && !input.place_address) {
      const id = await placeIdByName(db, input.place_name);
      if (id !== undefined) {
        delete input.place_name;
        delete input.place_address;
        input.place_id = id;
      }
    }
    return { ok: true, input, saveImage };
  };

  return { writeDeps, publish, prepare };
}

/** The form's field of an API field, and what to say there. */
const API_FIELDS: [RegExp, EventFormField, MessageKey][] = [
  [/^title$/, "title", "events.problem.title"],
  [/^start_datetime$/, "start", "events.problem.start"],
  [/^end_datetime$/, "end", "events.problem.endBeforeStart"],
  [/^place_id$/, "place_name", "events.problem.place"],
  [/^place_name$/, "place_name", "events.problem.where"],
  [/^online_locations/, "online_link", "events.problem.online"],
  [/^recurrent\.until$/, "until", "events.problem.untilBeforeStart"],
  [/^recurrent/, "recurrence", "events.problem.recurrence"],
  [/^media/, "image", "events.problem.image"],
  [/^tags/, "tags", "events.problem.tags"],
];

/** What to say of an image the upload refused. */
function imageProblem(t: Translate, error: ApiError, maxBytes: number) {
  if (error.status === 415) return t("events.problem.imageType");
  if (error.status === 413) {
    return error.message.includes("quota")
      ? t("events.problem.quota")
      : t("events.problem.imageSize", {
        size: Math.floor(maxBytes / 1_048_576 * 10) / 10,
      });
  }
  return t("events.problem.image");
}

/**
 * The problems of a write the domain refused (400, or 413 for the upload
 * quota) by their field, plus what belongs to no field; null for any other
 * error (rethrown by the caller).
 */
export function writeProblems(
  t: Translate,
  error: unknown,
  maxBytes: number,
): { errors: FormErrors; general?: string } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 413 || error.status === 415) {
    return { errors: { image: imageProblem(t, error, maxBytes) } };
  }
  if (error.status !== 400) return null;
  const errors: FormErrors = {};
  let general: string | undefined;
  for (
    const detail of (error.details ?? []) as {
      field?: string;
      message?: string;
    }[]
  ) {
    const match = API_FIELDS.find(([re]) => re.test(detail.field ?? ""));
    if (!match) {
      general ??= detail.message ?? error.message;
      continue;
    }
    const [, field, key] = match;
    errors[field] ??= detail.message === "not allowed"
      ? t("events.problem.noRecurrence")
      : t(key);
  }
  if (Object.keys(errors).length === 0) general ??= error.message;
  return { errors, general };
}
