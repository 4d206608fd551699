/** The events API's wire shapes and request bodies (for validation and the OpenAPI document). */
import { z } from "@hono/zod-openapi";
import { EVENT_STATUSES, USER_ROLES } from "../../../db/schema.ts";

/** The OAuth scope that covers the event write API. */
export const EVENT_WRITE_SCOPE = "event:write";

/** Unix seconds from 1970 up to (not including) 2200-01-01. */
const MAX_TIMESTAMP = 7_258_118_400;
/** A time in Unix seconds, before 2200. */
export const timestamp = z.number().int().min(0).max(MAX_TIMESTAMP - 1)
  .openapi({ description: "Unix seconds", example: 1_900_000_000 });

/** A query flag: true, false, 1 or 0. */
export const booleanQuery = z.enum(["true", "false", "1", "0"]).transform((v) =>
  v === "true" || v === "1"
).openapi({ type: "boolean" });

/** A query integer in [min, max]. */
export function intQuery(min: number, max: number) {
  return z.string().regex(/^\d+$/, "must be an integer").transform(Number)
    .pipe(z.number().int().min(min).max(max)).openapi({ type: "integer" });
}

// --- wire shapes (for the OpenAPI document; serializers build them) ---

export const MediaSchema = z.object({
  name: z.string(),
  url: z.string().openapi({ description: "File name, served at /media/{url}" }),
  height: z.number().int().nullable(),
  width: z.number().int().nullable(),
  size: z.number().int().nullable(),
  focalpoint: z.tuple([z.number(), z.number()]).openapi({
    description: "One [x, y] pair in [-1, 1] (Mastodon's convention)",
  }),
}).openapi("Media");

const PlaceSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
}).openapi("PlaceSummary");

export const PlaceSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  ap_id: z.string().nullable(),
  postal_address: z.record(z.string(), z.unknown()).nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Place");

export const EventSummarySchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  status: z.enum(EVENT_STATUSES),
  title: z.string(),
  media: z.array(MediaSchema),
  start_datetime: z.number().int(),
  end_datetime: z.number().int().nullable(),
  place: PlaceSummarySchema.nullable(),
  tags: z.array(z.string()),
}).openapi("EventSummary");

/** A moderation note, as answered. */
export const MessageSchema = z.object({
  id: z.number().int(),
  message: z.string(),
  author: z.string(),
  is_author_visible: z.boolean(),
  eventId: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Message");

const EventFullSchema = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  title: z.string(),
  slug: z.string(),
  status: z.enum(EVENT_STATUSES),
  start_datetime: z.number().int(),
  end_datetime: z.number().int().nullable(),
  media: z.array(MediaSchema),
  description: z.string(),
  is_visible: z.boolean(),
  online_locations: z.array(z.string()),
  recurrent: z.object({ frequency: z.string(), type: z.string() }).passthrough()
    .nullable(),
  ld_signature: z.record(z.string(), z.unknown()).nullable(),
  ap_object: z.record(z.string(), z.unknown()).nullable(),
  likes: z.array(z.unknown()),
  boost: z.array(z.unknown()),
  ap_id: z.string().nullable(),
  userId: z.number().int().nullable(),
  user: z.object({
    id: z.number().int(),
    description: z.string(),
    role: z.enum(USER_ROLES),
  }).passthrough().nullable().openapi({
    description:
      "{id, description, role} publicly; the full User for the owner and admins",
  }),
  parentId: z.number().int().nullable(),
  parent: EventSummarySchema.nullable(),
  children: z.array(EventSummarySchema),
  placeId: z.number().int().nullable(),
  place: PlaceSchema.nullable(),
  tags: z.array(z.object({ tag: z.string(), normalizedTag: z.string() })),
  apUserApId: z.string().nullable(),
  apUser: z.record(z.string(), z.unknown()).nullable(),
  messages: z.array(MessageSchema),
  resources: z.array(z.record(z.string(), z.unknown())),
}).openapi("Event");

/** Upcoming and past events (a tag's). */
export const SplitListSchema = z.object({
  events: z.array(EventSummarySchema),
  pastEvents: z.array(EventSummarySchema),
}).openapi("EventLists");

// --- request bodies ---

const MediaInputSchema = z.object({
  url: z.string().regex(
    /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/,
    "a file name from POST /api/media",
  ),
  name: z.string().max(500).optional(),
  focalpoint: z.tuple([z.number().min(-1).max(1), z.number().min(-1).max(1)])
    .optional(),
});

const eventFields = {
  title: z.string().trim().min(1).max(200),
  description: z.string().max(50_000).optional().openapi({
    description: "HTML; sanitised by an allow-list",
  }),
  start_datetime: timestamp,
  end_datetime: timestamp.nullable().optional(),
  place_id: z.number().int().positive().optional(),
  place_name: z.string().trim().min(1).max(200).optional(),
  place_address: z.string().trim().max(300).optional(),
  place_latitude: z.number().min(-90).max(90).nullable().optional(),
  place_longitude: z.number().min(-180).max(180).nullable().optional(),
  online_locations: z.array(z.url({ protocol: /^https?$/ }).max(2048)).max(10)
    .optional(),
  tags: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
  recurrent: z.object({
    frequency: z.string(),
    type: z.union([z.string(), z.number()]).optional(),
  }).passthrough().nullable().optional().openapi({
    description:
      "frequency: 1d..99y (1w, 2w, 1m, ...); type for monthly rules: ordinal, 1..4 or -1; " +
      "until (optional): Unix seconds, no occurrence starts after it",
  }),
  media: z.array(MediaInputSchema).max(10).optional(),
  status: z.enum(EVENT_STATUSES).optional(),
  is_visible: z.boolean().optional(),
  image: z.instanceof(File).optional().openapi({
    type: "string",
    format: "binary",
    description: "multipart only: an image to attach",
  }),
  image_name: z.string().max(500).optional(),
  image_focalpoint: z.string().regex(/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/)
    .optional(),
};

/** A new event, or a whole replacement (PUT). */
export const EventBody = z.object(eventFields).openapi("EventInput");
/** Any subset of an event's fields (PATCH). */
export const EventPatchBody = z.object(eventFields).partial().openapi(
  "EventPatch",
);

/** A moderation note's fields (the web's moderation page validates with it too). */
export const MessageBody = z.object({
  message: z.string().trim().min(1).max(5000),
  is_author_visible: z.boolean().optional(),
}).openapi("MessageInput");

/** The full form of an event, as a JSON response. */
export const fullEventContent = {
  content: { "application/json": { schema: EventFullSchema } },
};
