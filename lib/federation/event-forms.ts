/**
 * Local events in their ActivityPub form: their places and tags read (in
 * one round trip, or as statements of a caller's batch) and each built by
 * buildEventObject; and an event's JSON-LD as Fedify's Event.
 */
import type { Federation } from "@fedify/fedify";
import { Event } from "@fedify/vocab";
import { asc, eq, inArray } from "drizzle-orm";
import { eventTags, places, tags } from "../../db/schema.ts";
import { type BatchRead, runRead } from "../../db/batch.ts";
import type { EventRow, PlaceRow } from "../events/serialize.ts";
import type { Settings } from "../settings.ts";
import type {
  FederationEventForms,
  FederationIdentity,
  FederationStorage,
} from "./context-types.ts";
import { buildEventObject, type EventObject } from "./object.ts";

/** Builds events' ActivityPub forms over the database and the instance's identity. */
export function createEventForms(
  { storage, identity, federation }: {
    storage: Pick<FederationStorage, "db">;
    identity: FederationIdentity;
    /** Whose loaders read an event's JSON-LD. */
    federation: Federation<void>;
  },
): FederationEventForms {
  const { db } = storage;
  const { baseUrl, urlsOf } = identity;

  /** Places and tags of events, in two statements of a batch, for their AP form. */
  function eventObjectsQuery(
    rows: EventRow[],
    settings: Settings,
  ): BatchRead<EventObject[]> {
    if (rows.length === 0) return { statements: [], read: () => [] };
    const placeIds = [
      ...new Set(rows.map((r) => r.placeId).filter((id) => id !== null)),
    ] as number[];
    const ids = rows.map((r) => r.id);
    return {
      statements: [
        db.select().from(places).where(
          inArray(places.id, placeIds.length ? placeIds : [-1]),
        ),
        db.select({ eventId: eventTags.eventId, tag: tags.tag }).from(
          eventTags,
        )
          .innerJoin(tags, eq(tags.id, eventTags.tagId))
          .where(inArray(eventTags.eventId, ids))
          .orderBy(asc(tags.normalizedTag)),
      ],
      read(results) {
        const [placeRows, tagRows] = results as [
          PlaceRow[],
          { eventId: number; tag: string }[],
        ];
        const placeById = new Map<number, PlaceRow>(
          placeRows.map((p) => [p.id, p]),
        );
        return rows.map((event) =>
          buildEventObject({
            event,
            place: event.placeId !== null
              ? placeById.get(event.placeId) ?? null
              : null,
            tags: tagRows.filter((t) => t.eventId === event.id).map((t) =>
              t.tag
            ),
            urls: urlsOf(settings),
            timezone: settings.instance_timezone,
            locale: settings.instance_locale,
          })
        );
      },
    };
  }

  /** Places and tags of events, in one round trip, for their AP form. */
  function eventObjects(
    rows: EventRow[],
    settings: Settings,
  ): Promise<EventObject[]> {
    return runRead(db, eventObjectsQuery(rows, settings));
  }

  const toVocabEvent = (json: EventObject) =>
    Event.fromJsonLd(json, {
      documentLoader: federation.createContext(new URL(baseUrl)).documentLoader,
      contextLoader: federation.createContext(new URL(baseUrl)).contextLoader,
    });

  return { eventObjectsQuery, eventObjects, toVocabEvent };
}
