/**
 * An event's input, checked: what a client sends, what checking it needs to
 * read (the place and the media files it names), and the checked state of
 * the event about to be written, merged with its current one.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { BatchItem, BatchRead } from "../../db/batch.ts";
import type { Db } from "../../db/client.ts";
import { prebuiltStatements } from "../../db/prebuilt.ts";
import {
  events,
  type EventStatus,
  mediaFiles,
  type MediaItem,
  places,
  type Recurrence,
} from "../../db/schema.ts";
import { invalidRequest } from "../errors.ts";
import type { Settings } from "../settings.ts";
import type { UserRow } from "../users.ts";
import { isModerator, publicPlace } from "./access.ts";
import { parseRecurrence } from "./recurrence.ts";
import { sanitizeDescription } from "./sanitize.ts";
import type { EventRow } from "./serialize.ts";
import type { PlaceRef } from "./statements.ts";
import { uniqueTags } from "./tags.ts";

export interface MediaInput {
  url: string;
  name?: string;
  focalpoint?: [number, number];
}

/** Event fields as a client sends them (already type-checked by the route schema). */
export interface EventInput {
  title?: string;
  description?: string;
  start_datetime?: number;
  end_datetime?: number | null;
  /** A place by id; null takes the event's place away (it then needs an online location). */
  place_id?: number | null;
  place_name?: string;
  place_address?: string;
  place_latitude?: number | null;
  place_longitude?: number | null;
  online_locations?: string[];
  tags?: string[];
  recurrent?: unknown;
  media?: MediaInput[];
  status?: EventStatus;
  is_visible?: boolean;
}

/**
 * What validating an input needs to read: the place it names (by id, or by
 * name and address) and the media files it references. Statements for the
 * batch that reads everything a write checks. A place named by id must be
 * public (publicPlace), the event's own (`eventId`'s) or named by a
 * moderator: any other id is unknown, so that an event cannot show a place
 * nobody may see.
 */
export function lookupQuery(
  db: Db,
  input: EventInput,
  user: UserRow | null,
  eventId?: number,
): BatchRead<Lookups> {
  const statements: BatchItem[] = [];
  const placeAt = statements.length;
  if (input.place_id != null) {
    statements.push(
      db.select({ id: places.id }).from(places).where(
        and(
          eq(places.id, input.place_id),
          isModerator(user) ? undefined : or(
            publicPlace(places.id),
            eventId === undefined
              ? undefined
              : sql`${places.id} = (select ${events.placeId} from ${events} where ${events.id} = ${eventId})`,
          ),
        ),
      ),
    );
  } else if (input.place_name !== undefined) {
    // Built once (db/prebuilt.ts).
    statements.push(
      ...prebuiltStatements(db, "placeByName", () => [
        db.select({ id: places.id }).from(places).where(
          and(
            eq(places.name, sql.placeholder("name")),
            eq(places.address, sql.placeholder("address")),
          ),
        ),
      ], {
        name: input.place_name.trim(),
        address: (input.place_address ?? "").trim(),
      }),
    );
  }
  const withPlace = statements.length > placeAt;
  const mediaAt = statements.length;
  const names = (input.media ?? []).map((m) => m.url);
  if (names.length > 0) {
    statements.push(
      db.select({
        name: mediaFiles.name,
        width: mediaFiles.width,
        height: mediaFiles.height,
        size: mediaFiles.size,
      }).from(mediaFiles).where(inArray(mediaFiles.name, names)),
    );
  }
  return {
    statements,
    read(results) {
      return {
        placeId: withPlace
          ? (results[placeAt] as { id: number }[])[0]?.id
          : undefined,
        media: names.length > 0 ? results[mediaAt] as MediaFileRow[] : [],
      };
    },
  };
}

type MediaFileRow = Pick<
  typeof mediaFiles.$inferSelect,
  "name" | "width" | "height" | "size"
>;

/** What lookupQuery read. */
export interface Lookups {
  /** The id of the place the input names, when it exists. */
  placeId: number | undefined;
  media: MediaFileRow[];
}

function resolvePlace(
  input: EventInput,
  current: EventRow | null,
  lookups: Lookups,
): PlaceRef {
  if (input.place_id === null) return { kind: "none" };
  if (input.place_id !== undefined) {
    if (lookups.placeId === undefined) {
      throw invalidRequest("Unknown place", [{
        field: "place_id",
        message: "no place with this id",
      }]);
    }
    return { kind: "id", id: lookups.placeId };
  }
  if (input.place_name !== undefined) {
    return {
      kind: "named",
      name: input.place_name.trim(),
      address: (input.place_address ?? "").trim(),
      latitude: input.place_latitude ?? null,
      longitude: input.place_longitude ?? null,
      existingId: lookups.placeId,
    };
  }
  if (current?.placeId != null) return { kind: "id", id: current.placeId };
  return { kind: "none" };
}

function resolveMedia(items: MediaInput[], lookups: Lookups): MediaItem[] {
  const byName = new Map(lookups.media.map((r) => [r.name, r]));
  return items.map((m, i) => {
    const file = byName.get(m.url);
    if (!file) {
      throw invalidRequest("Unknown media file", [{
        field: `media.${i}.url`,
        message: "upload the file with POST /api/media first",
      }]);
    }
    return {
      name: m.name ?? "",
      url: file.name,
      width: file.width,
      height: file.height,
      size: file.size,
      focalpoint: m.focalpoint ?? [0, 0],
    };
  });
}

/** The checked, merged state of an event about to be written. */
export interface Prepared {
  title: string;
  description: string;
  start: number;
  end: number | null;
  place: PlaceRef;
  online_locations: string[];
  tags: { tag: string; normalizedTag: string }[] | undefined;
  recurrent: Recurrence | null;
  media: MediaItem[];
  status: EventStatus;
  is_visible: boolean;
}

/** Checks an input against the current event (null: a creation) and what was looked up. */
export function prepare(
  settings: Settings,
  input: EventInput,
  current: EventRow | null,
  defaultVisible: boolean,
  lookups: Lookups,
): Prepared {
  const title = (input.title ?? current?.title ?? "").trim();
  if (!title) {
    throw invalidRequest("A title is required", [{
      field: "title",
      message: "required",
    }]);
  }
  const start = input.start_datetime ?? current?.start_datetime;
  if (start === undefined) {
    throw invalidRequest("A start is required", [{
      field: "start_datetime",
      message: "required",
    }]);
  }
  const end = input.end_datetime !== undefined
    ? input.end_datetime
    : (current?.end_datetime ?? null);
  if (end !== null && end <= start) {
    throw invalidRequest("The end must be after the start", [{
      field: "end_datetime",
      message: "must be greater than start_datetime",
    }]);
  }
  let recurrent: Recurrence | null = current?.recurrent ?? null;
  if (input.recurrent !== undefined) {
    if (current?.parentId != null && input.recurrent !== null) {
      throw invalidRequest("An occurrence cannot itself recur", [{
        field: "recurrent",
        message: "edit the series (the parent event) instead",
      }]);
    }
    if (input.recurrent === null) {
      if (current?.recurrent) {
        throw invalidRequest("A series cannot be turned into a single event", [{
          field: "recurrent",
          message: "delete the series, or hide its occurrences",
        }]);
      }
      recurrent = null;
    } else {
      if (!settings.allow_recurrent_event) {
        throw invalidRequest("Recurrent events are disabled on this instance", [
          {
            field: "recurrent",
            message: "not allowed",
          },
        ]);
      }
      const rule = parseRecurrence(input.recurrent);
      if (rule.until !== undefined && rule.until < start) {
        throw invalidRequest("The series ends before it starts", [{
          field: "recurrent.until",
          message: "must not be before start_datetime",
        }]);
      }
      recurrent = {
        ...rule,
        exclude: (current?.recurrent?.exclude as number[]) ?? [],
      };
    }
  }
  const place = resolvePlace(input, current, lookups);
  const online_locations = input.online_locations ??
    current?.online_locations ??
    [];
  if (place.kind === "none" && online_locations.length === 0) {
    throw invalidRequest("An event needs a place or an online location", [{
      field: "place_name",
      message: "give place_id, place_name or online_locations",
    }]);
  }
  const media = input.media !== undefined
    ? resolveMedia(input.media, lookups)
    : (current?.media ?? []);
  return {
    title,
    description: input.description !== undefined
      ? sanitizeDescription(input.description)
      : (current?.description ?? ""),
    start,
    end,
    place,
    online_locations,
    tags: input.tags !== undefined ? uniqueTags(input.tags) : undefined,
    recurrent,
    media,
    status: input.status ?? current?.status ?? "EventScheduled",
    is_visible: input.is_visible ?? current?.is_visible ?? defaultVisible,
  };
}
