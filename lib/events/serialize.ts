/** The wire shapes of events, places, tags and messages: one serializer per shape. */
import type {
  apUsers,
  events,
  MediaItem,
  messages,
  places,
  resources,
  tags,
} from "../../db/schema.ts";
import { serializeUser, serializeUserPublic, type UserRow } from "../users.ts";

export type EventRow = typeof events.$inferSelect;
export type PlaceRow = typeof places.$inferSelect;
export type TagRow = typeof tags.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type ApUserRow = typeof apUsers.$inferSelect;
export type ResourceRow = typeof resources.$inferSelect;

/** The place inside an event summary. */
export function serializePlaceSummary(
  place:
    | Pick<PlaceRow, "id" | "name" | "address" | "latitude" | "longitude">
    | null
    | undefined,
) {
  if (!place) return null;
  return {
    id: place.id,
    name: place.name,
    address: place.address,
    latitude: place.latitude,
    longitude: place.longitude,
  };
}

/** The full Place resource. */
export function serializePlace(place: PlaceRow) {
  return {
    id: place.id,
    name: place.name,
    address: place.address,
    ap_id: place.ap_id,
    postal_address: place.postal_address ?? null,
    latitude: place.latitude,
    longitude: place.longitude,
    createdAt: place.createdAt.toISOString(),
    updatedAt: place.updatedAt.toISOString(),
  };
}

/** A media item as stored, with every documented field present. */
export function serializeMedia(item: MediaItem): MediaItem {
  return {
    name: item.name ?? "",
    url: item.url,
    height: item.height ?? null,
    width: item.width ?? null,
    size: item.size ?? null,
    focalpoint: item.focalpoint ?? [0, 0],
  };
}

/** The summary form (tag listing, PATCH, lists). */
export function serializeEventSummary(
  event: Pick<
    EventRow,
    | "id"
    | "slug"
    | "status"
    | "title"
    | "media"
    | "start_datetime"
    | "end_datetime"
  >,
  place: Parameters<typeof serializePlaceSummary>[0],
  tagNames: string[],
) {
  return {
    id: event.id,
    slug: event.slug,
    status: event.status,
    title: event.title,
    media: event.media.map(serializeMedia),
    start_datetime: event.start_datetime,
    end_datetime: event.end_datetime,
    place: serializePlaceSummary(place),
    tags: tagNames,
  };
}

export type EventSummary = ReturnType<typeof serializeEventSummary>;

/** A Message resource. */
export function serializeMessage(m: MessageRow) {
  return {
    id: m.id,
    message: m.message,
    author: m.author,
    is_author_visible: m.is_author_visible,
    eventId: m.eventId,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** An AP actor without its events and resources (as nested in an event). */
export function serializeApUserShallow(a: ApUserRow) {
  return {
    ap_id: a.ap_id,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    follower: a.follower,
    following: a.following,
    trusted: a.trusted,
    blocked: a.blocked,
    object: a.object ?? null,
    instanceDomain: a.instanceDomain,
  };
}

/** A Resource as nested in an event (no deeper nesting). */
export function serializeResourceShallow(r: ResourceRow) {
  return {
    id: r.id,
    activitypub_id: r.activitypub_id,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    hidden: r.hidden,
    data: r.data ?? null,
    apUserApId: r.apUserApId,
    eventId: r.eventId,
  };
}

/** Everything the full form is built from. */
export interface EventBundle {
  event: EventRow;
  user: UserRow | null;
  place: PlaceRow | null;
  tags: Pick<TagRow, "tag" | "normalizedTag">[];
  parent: EventSummary | null;
  children: EventSummary[];
  apUser: ApUserRow | null;
  messages: MessageRow[];
  resources: ResourceRow[];
  /** Whether the viewer sees the owner's full user record (owner or admin). */
  fullUser: boolean;
}

/** The full form (get, toggle, create, update). */
export function serializeEventFull(b: EventBundle) {
  const e = b.event;
  return {
    id: e.id,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    title: e.title,
    slug: e.slug,
    status: e.status,
    start_datetime: e.start_datetime,
    end_datetime: e.end_datetime,
    media: e.media.map(serializeMedia),
    description: e.description,
    is_visible: e.is_visible,
    online_locations: e.online_locations,
    recurrent: e.recurrent ?? null,
    ld_signature: e.ld_signature ?? null,
    ap_object: e.ap_object ?? null,
    likes: e.likes,
    boost: e.boost,
    ap_id: e.ap_id,
    userId: e.userId,
    user: b.user
      ? (b.fullUser ? serializeUser(b.user) : serializeUserPublic(b.user))
      : null,
    parentId: e.parentId,
    parent: b.parent,
    children: b.children,
    placeId: e.placeId,
    place: b.place ? serializePlace(b.place) : null,
    tags: b.tags.map((t) => ({ tag: t.tag, normalizedTag: t.normalizedTag })),
    apUserApId: e.apUserApId,
    apUser: b.apUser ? serializeApUserShallow(b.apUser) : null,
    messages: b.messages.map(serializeMessage),
    resources: b.resources.map(serializeResourceShallow),
  };
}

export type EventFull = ReturnType<typeof serializeEventFull>;
