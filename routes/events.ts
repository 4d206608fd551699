/** Events: the documented endpoints, the write API, messages. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EVENT_STATUSES, USER_ROLES } from "../db/schema.ts";
import { unixNow } from "../lib/clock.ts";
import { listByTag } from "../lib/events/list.ts";
import { listOwnEvents } from "../lib/events/own.ts";
import { SEARCH_DEPTH_LIMIT, searchEvents } from "../lib/events/search.ts";
import { listUnconfirmedEvents } from "../lib/events/unconfirmed.ts";
import {
  eventFullQuery,
  type EventRef,
  loadEventFull,
  summaryQuery,
} from "../lib/events/load.ts";
import type { BatchRead } from "../db/batch.ts";
import { addMessage, listMessages } from "../lib/events/messages.ts";
import type { WriteDeps } from "../lib/events/commit.ts";
import type { EventInput } from "../lib/events/input.ts";
import {
  createEvent,
  deleteEvent,
  toggleEvent,
  updateEvent,
} from "../lib/events/write.ts";
import { invalidRequest, notFound } from "../lib/errors.ts";
import { SEARCH_MAX_TERMS, SEARCH_QUERY_MAX_LENGTH } from "../lib/search.ts";
import { emptyMediaTrashNow } from "../lib/media/cleanup.ts";
import { imageSaver, parseFocalPoint } from "../lib/media/upload.ts";
import {
  bearerSecurity,
  optionalAuth,
  requireAuth,
  requireRole,
} from "./auth.ts";
import type { AppEnv, RouteDeps } from "./env.ts";
import { settingsOf } from "./request-settings.ts";
import {
  eventWriteDeps,
  federateChange,
  imageUploadDeps,
} from "./event-writes.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrFormOrMultipart,
  requireBody,
  validationHook,
} from "./validation.ts";

/** The OAuth scope that covers the event write API. */
export const EVENT_WRITE_SCOPE = "event:write";

/** Unix seconds from 1970 up to (not including) 2200-01-01. */
const MAX_TIMESTAMP = 7_258_118_400;
const timestamp = z.number().int().min(0).max(MAX_TIMESTAMP - 1)
  .openapi({ description: "Unix seconds", example: 1_900_000_000 });

const booleanQuery = z.enum(["true", "false", "1", "0"]).transform((v) =>
  v === "true" || v === "1"
).openapi({ type: "boolean" });

function intQuery(min: number, max: number) {
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

const MessageSchema = z.object({
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

const SplitListSchema = z.object({
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

const EventBody = z.object(eventFields).openapi("EventInput");
const EventPatchBody = z.object(eventFields).partial().openapi("EventPatch");

/** A moderation note's fields (the web's moderation page validates with it too). */
export const MessageBody = z.object({
  message: z.string().trim().min(1).max(5000),
  is_author_visible: z.boolean().optional(),
}).openapi("MessageInput");

// --- routes ---

const full = { content: { "application/json": { schema: EventFullSchema } } };

const getRoute = createRoute({
  method: "get",
  path: "/api/events/{id}",
  tags: ["events"],
  summary: "An event, full form",
  description:
    "Hidden events answer 404 except to their owner, editors and admins.",
  request: { params: IdParam },
  responses: {
    200: { description: "The event", ...full },
    ...errorResponses(400, 401, 404),
  },
});

const tagRoute = createRoute({
  method: "get",
  path: "/api/events/tag/{tag}",
  tags: ["events"],
  summary: "Events with a tag: upcoming and past",
  description:
    "Visible local events, never recurrence parents. Upcoming while (end ?? start) >= now, " +
    "ascending by start; past descending. Tags match case-insensitively.",
  request: {
    params: z.object({ tag: z.string().min(1).max(100) }),
    query: z.object({
      show_recurrent: booleanQuery.optional(),
      limit: intQuery(1, 500).optional().default(100),
      past_limit: intQuery(0, 500).optional().default(50),
    }),
  },
  responses: {
    200: {
      description: "The two lists",
      content: { "application/json": { schema: SplitListSchema } },
    },
    ...errorResponses(400),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/api/events",
  tags: ["events"],
  summary: "Search events",
  description:
    "Visible local events still running at or after `start` (default now) and starting by `end`, " +
    "ascending by start. `tags` (any of, comma-separated or repeated), `places` (ids, any of), " +
    "`query` (every word starts a word of the title, description, place name or address, or tags; " +
    `any case and accents; at most ${SEARCH_QUERY_MAX_LENGTH} characters and ${SEARCH_MAX_TERMS} words). ` +
    "Pages of `max` (default 50, at most 500).",
  request: {
    query: z.object({
      start: z.string().regex(/^\d+$/).transform(Number).pipe(timestamp)
        .optional(),
      end: z.string().regex(/^\d+$/).transform(Number).pipe(timestamp)
        .optional(),
      tags: z.union([z.string(), z.array(z.string())]).optional(),
      places: z.union([z.string(), z.array(z.string())]).optional(),
      query: z.string().trim().max(SEARCH_QUERY_MAX_LENGTH).optional(),
      show_recurrent: booleanQuery.optional(),
      page: intQuery(1, 100_000).optional().default(1),
      max: intQuery(1, 500).optional().default(50),
    }),
  },
  responses: {
    200: {
      description: "A page of events",
      content: { "application/json": { schema: z.array(EventSummarySchema) } },
    },
    ...errorResponses(400),
  },
});

/** `page` and `max` of the caller's lists (own events, moderation queue). */
const PageQuery = z.object({
  page: intQuery(1, 100_000).optional().default(1),
  max: intQuery(1, 500).optional().default(50),
});

const mineRoute = createRoute({
  method: "get",
  path: "/api/events/mine",
  tags: ["events"],
  summary: "The caller's own events, hidden ones and series included",
  security: bearerSecurity,
  request: {
    query: PageQuery,
  },
  responses: {
    200: {
      description: "Newest start first",
      content: { "application/json": { schema: z.array(EventSummarySchema) } },
    },
    ...errorResponses(400, 401, 403),
  },
});

const UnconfirmedEventSchema = EventSummarySchema.extend({
  createdAt: z.string(),
  userId: z.number().int().nullable().openapi({
    description: "The submitter; null for an anonymous submission",
  }),
}).openapi("UnconfirmedEvent");

const unconfirmedRoute = createRoute({
  method: "get",
  path: "/api/events/unconfirmed",
  tags: ["events"],
  summary: "The moderation queue: events waiting for confirmation",
  description:
    "Editors and admins (login tokens only). Hidden local events — anonymous " +
    "submissions, and events their owner or a moderator hid — oldest " +
    "submission first. A hidden series is listed once (its template); an " +
    "occurrence only when hidden on its own. Confirm with " +
    "PUT /api/events/{id}/toggle.",
  security: bearerSecurity,
  request: {
    query: PageQuery,
  },
  responses: {
    200: {
      description: "Oldest submission first",
      content: {
        "application/json": { schema: z.array(UnconfirmedEventSchema) },
      },
    },
    ...errorResponses(400, 401, 403),
  },
});

const createEventRoute = createRoute({
  method: "post",
  path: "/api/events",
  tags: ["events"],
  summary: "Create an event",
  description:
    "Needs a login token or an OAuth token with scope event:write; anonymous submissions only when " +
    "the setting allow_anon_event is on (they start hidden). A `recurrent` event is a series: it is " +
    "never listed itself; its occurrences are.",
  security: bearerSecurity,
  request: { body: jsonOrFormOrMultipart(EventBody) },
  responses: {
    201: { description: "The new event", ...full },
    ...errorResponses(400, 401, 403, 413, 415),
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/api/events/{id}",
  tags: ["events"],
  summary: "Update an event (omitted optional fields keep their value)",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrFormOrMultipart(EventBody) },
  responses: {
    200: { description: "The updated event", ...full },
    ...errorResponses(400, 401, 403, 404, 413, 415),
  },
});

const patchRoute = createRoute({
  method: "patch",
  path: "/api/events/{id}",
  tags: ["events"],
  summary: "Change the status or any subset of fields",
  description:
    "status is a schema.org EventStatusType. Owner, editor or admin.",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrFormOrMultipart(EventPatchBody) },
  responses: {
    200: {
      description: "The event, summary form",
      content: { "application/json": { schema: EventSummarySchema } },
    },
    ...errorResponses(400, 401, 403, 404, 413, 415),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/events/{id}",
  tags: ["events"],
  summary: "Delete an event",
  description:
    "Deleting a series deletes its future occurrences; past ones stay as single events. " +
    "Deleting an occurrence removes that date from its series.",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(400, 401, 403, 404),
  },
});

const toggleRoute = createRoute({
  method: "put",
  path: "/api/events/{id}/toggle",
  tags: ["events"],
  summary: "Flip the confirmation state (is_visible)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: { description: "The updated event", ...full },
    ...errorResponses(400, 401, 403, 404),
  },
});

const postMessageRoute = createRoute({
  method: "post",
  path: "/api/events/{id}/messages",
  tags: ["events"],
  summary: "Add a moderation note (owner, editor or admin)",
  security: bearerSecurity,
  request: {
    params: IdParam,
    body: {
      content: {
        "application/json": { schema: MessageBody },
      },
    },
  },
  responses: {
    201: {
      description: "The message",
      content: { "application/json": { schema: MessageSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

const listMessagesRoute = createRoute({
  method: "get",
  path: "/api/events/{id}/messages",
  tags: ["events"],
  summary:
    "Moderation notes: all for editors and admins, those marked visible for the owner",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: {
      description: "Oldest first",
      content: { "application/json": { schema: z.array(MessageSchema) } },
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

function listParam(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(","))
    .map((v) => v.trim()).filter(Boolean);
}

/** Splits the image fields off an event body; the rest is the domain input. */
function splitBody(body: z.infer<typeof EventPatchBody>) {
  const { image, image_name, image_focalpoint, ...input } = body;
  const focalpoint = image_focalpoint
    ? parseFocalPoint(image_focalpoint)
    : undefined;
  if (focalpoint === null) {
    throw invalidRequest("The request is not valid", [{
      field: "image_focalpoint",
      message: "each coordinate must be in [-1, 1]",
    }]);
  }
  return { input: input as EventInput, image, image_name, focalpoint };
}

export function eventRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { db } = deps.database;
  const scoped = { scope: EVENT_WRITE_SCOPE };
  const writer = [requireAuth(deps, scoped)];
  // Moderation is done with login tokens: OAuth tokens act as ordinary users.
  const moderator = [requireAuth(deps), requireRole("admin", "editor")];

  const writeDeps = async (c: Context<AppEnv>): Promise<WriteDeps> =>
    eventWriteDeps(deps, await settingsOf(c, db));

  /**
   * Checks an attached image, then returns what stores it (counted against
   * the uploader's quota; null: an anonymous submission) and gives its Media item.
   */
  const saverOf = (
    image: File | undefined,
    name: string | undefined,
    focalpoint: [number, number] | undefined,
    ownerId: number | null,
  ) =>
    imageSaver(
      imageUploadDeps(deps),
      image,
      { name: name ?? image?.name, focalpoint, ownerId },
    );

  /** The full form of the event a write names, read in the write's batch. */
  const fullAnswer =
    (c: Context<AppEnv>, justCreated = false) => (ref: EventRef) =>
      eventFullQuery(
        db,
        ref,
        c.get("auth")?.user ?? null,
        unixNow(deps.clock),
        { justCreated },
      );

  /** PUT and PATCH: the same change, answered in different forms. */
  const applyUpdate = async <T>(
    c: Context<AppEnv>,
    id: number,
    body: z.infer<typeof EventPatchBody>,
    respond: (ref: EventRef) => BatchRead<T>,
  ): Promise<T> => {
    const { input, image, image_name, focalpoint } = splitBody(body);
    const saveImage = await saverOf(
      image,
      image_name,
      focalpoint,
      c.get("auth").user.id,
    );
    const result = await updateEvent(
      await writeDeps(c),
      c.get("auth").user,
      id,
      input,
      { saveImage, respond },
    );
    await federateChange(deps, result);
    return result.answer;
  };

  const full = async (c: Context<AppEnv>, id: number) => {
    const event = await loadEventFull(
      db,
      id,
      c.get("auth")?.user ?? null,
      unixNow(deps.clock),
    );
    if (!event) throw notFound("Event");
    return event;
  };

  app.openapi(
    { ...listRoute, middleware: [optionalAuth(deps, scoped)] },
    async (c) => {
      const q = c.req.valid("query");
      const settings = await settingsOf(c, db);
      if (q.page * q.max > SEARCH_DEPTH_LIMIT) {
        throw invalidRequest("The request is not valid", [{
          field: "page",
          message:
            `page * max may not exceed ${SEARCH_DEPTH_LIMIT}; narrow the range with start and end`,
        }]);
      }
      const placeIds = listParam(q.places).map(Number);
      if (placeIds.some((p) => !Number.isInteger(p) || p <= 0)) {
        throw invalidRequest("The request is not valid", [{
          field: "places",
          message: "must be comma-separated place ids",
        }]);
      }
      const list = await searchEvents(db, {
        start: q.start ?? unixNow(deps.clock),
        end: q.end,
        tags: listParam(q.tags),
        places: placeIds,
        query: q.query || undefined,
        showRecurrent: q.show_recurrent ?? settings.recurrent_event_visible,
        page: q.page,
        max: q.max,
      });
      return c.json(list, 200);
    },
  );

  app.openapi({ ...unconfirmedRoute, middleware: moderator }, async (c) => {
    const { page, max } = c.req.valid("query");
    return c.json(await listUnconfirmedEvents(db, page, max), 200);
  });

  app.openapi({ ...mineRoute, middleware: writer }, async (c) => {
    const { page, max } = c.req.valid("query");
    return c.json(
      await listOwnEvents(db, c.get("auth").user.id, page, max),
      200,
    );
  });

  app.openapi(tagRoute, async (c) => {
    const { tag } = c.req.valid("param");
    const q = c.req.valid("query");
    const settings = await settingsOf(c, db);
    const lists = await listByTag(
      db,
      unixNow(deps.clock),
      tag,
      q.show_recurrent ?? settings.recurrent_event_visible,
      { limit: q.limit, pastLimit: q.past_limit },
    );
    return c.json(lists, 200);
  });

  app.openapi(
    { ...getRoute, middleware: [optionalAuth(deps, scoped)] },
    async (c) => c.json(await full(c, c.req.valid("param").id), 200),
  );

  app.openapi(
    {
      ...createEventRoute,
      middleware: [optionalAuth(deps, scoped), requireBody],
    },
    async (c) => {
      const body = bodyOf(c, c.req.valid("json"), c.req.valid("form"));
      const { input, image, image_name, focalpoint } = splitBody(body);
      const saver = await saverOf(
        image,
        image_name,
        focalpoint,
        c.get("auth")?.user.id ?? null,
      );
      const result = await createEvent(
        await writeDeps(c),
        c.get("auth")?.user ?? null,
        input,
        { saveImage: saver, respond: fullAnswer(c, true) },
      );
      await federateChange(deps, result);
      if (!result.answer) throw notFound("Event");
      return c.json(result.answer, 201);
    },
  );

  app.openapi(
    { ...putRoute, middleware: [...writer, requireBody] },
    async (c) => {
      const event = await applyUpdate(
        c,
        c.req.valid("param").id,
        bodyOf(c, c.req.valid("json"), c.req.valid("form")),
        fullAnswer(c),
      );
      if (!event) throw notFound("Event");
      return c.json(event, 200);
    },
  );

  app.openapi(
    { ...patchRoute, middleware: [...writer, requireBody] },
    async (c) => {
      const summary = await applyUpdate(
        c,
        c.req.valid("param").id,
        bodyOf(c, c.req.valid("json"), c.req.valid("form")),
        (ref) => summaryQuery(db, ref),
      );
      if (!summary) throw notFound("Event");
      return c.json(summary, 200);
    },
  );

  app.openapi({ ...deleteRoute, middleware: writer }, async (c) => {
    const id = c.req.valid("param").id;
    await federateChange(
      deps,
      await deleteEvent(await writeDeps(c), c.get("auth").user, id),
    );
    await emptyMediaTrashNow({ db, media: deps.media, log: deps.log });
    return c.body(null, 204);
  });

  app.openapi({ ...toggleRoute, middleware: writer }, async (c) => {
    const id = c.req.valid("param").id;
    const result = await toggleEvent(
      await writeDeps(c),
      c.get("auth").user,
      id,
      { respond: fullAnswer(c) },
    );
    await federateChange(deps, result);
    if (!result.answer) throw notFound("Event");
    return c.json(result.answer, 200);
  });

  app.openapi(
    { ...postMessageRoute, middleware: [requireAuth(deps), requireBody] },
    async (c) => {
      const message = await addMessage(
        db,
        deps.clock,
        c.get("auth").user,
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      return c.json(message, 201);
    },
  );

  app.openapi(
    { ...listMessagesRoute, middleware: [requireAuth(deps)] },
    async (c) => {
      const list = await listMessages(
        db,
        c.get("auth").user,
        c.req.valid("param").id,
      );
      return c.json(list, 200);
    },
  );

  return app;
}
