/** Reading events: search, one event, a tag's events, the caller's own, the moderation queue. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { unixNow } from "../../../lib/clock.ts";
import { listByTag } from "../../../lib/events/list.ts";
import { listOwnEvents } from "../../../lib/events/own.ts";
import {
  SEARCH_DEPTH_LIMIT,
  searchEvents,
} from "../../../lib/events/search.ts";
import { listUnconfirmedEvents } from "../../../lib/events/unconfirmed.ts";
import {
  loadEventFull,
  publicEventQuery,
  publicEventSql,
} from "../../../lib/events/load.ts";
import {
  bodyVariant,
  keptEventBodyQuery,
  validUntilOf,
} from "../../../lib/events/bodies.ts";
import { runRead } from "../../../db/batch.ts";
import { type Settings, settingsReadOf } from "../../../lib/settings.ts";
import type { EventRow, PlaceRow } from "../../../lib/events/serialize.ts";
import { invalidRequest, notFound } from "../../../lib/errors.ts";
import {
  SEARCH_MAX_TERMS,
  SEARCH_QUERY_MAX_LENGTH,
} from "../../../lib/search.ts";
import {
  bearerSecurity,
  optionalAuth,
  requireAuth,
  requireRole,
} from "../../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../../env.ts";
import { settingsOf } from "../../middleware/request-settings.ts";
import { errorResponses, IdParam } from "../../middleware/validation.ts";
import {
  booleanQuery,
  EVENT_WRITE_SCOPE,
  EventSummarySchema,
  fullEventContent,
  intQuery,
  SplitListSchema,
  timestamp,
} from "./schemas.ts";

const getRoute = createRoute({
  method: "get",
  path: "/events/{id}",
  tags: ["events"],
  summary: "An event, full form",
  description:
    "Hidden events answer 404 except to their owner, editors and admins.",
  request: { params: IdParam },
  responses: {
    200: { description: "The event", ...fullEventContent },
    ...errorResponses(400, 401, 404),
  },
});

const tagRoute = createRoute({
  method: "get",
  path: "/events/tag/{tag}",
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
  path: "/events",
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
  path: "/events/mine",
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
  path: "/events/unconfirmed",
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

function listParam(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(","))
    .map((v) => v.trim()).filter(Boolean);
}

/** Registers the read routes on `app`, in the order the OpenAPI document lists them. */
export function eventReadRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { db } = deps.database;
  const scoped = { scope: EVENT_WRITE_SCOPE };
  const writer = [requireAuth(deps, scoped)];
  // Moderation is done with login tokens: OAuth tokens act as ordinary users.
  const moderator = [requireAuth(deps), requireRole("admin", "editor")];

  const full = async (c: Context<AppEnv>, id: number) => {
    const settings = deps.federation ? await settingsOf(c, db) : null;
    const event = await loadEventFull(
      db,
      id,
      c.get("auth")?.user ?? null,
      unixNow(deps.clock),
      {
        objectOf: settings && deps.federation
          ? (row, place, tags) =>
            deps.federation!.eventObjectOf(row, place, tags, settings)
          : undefined,
      },
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

  // The anonymous answer is kept as its JSON text (lib/events/bodies.ts)
  // when the app keeps bodies (main.ts; tests/helpers.ts).
  const bodies = deps.eventBodies;
  const federation = deps.federation;
  const statement = bodies ? publicEventSql(db) : "";
  const objectOf = (settings: Settings) =>
  (
    row: EventRow,
    place: PlaceRow | null,
    tags: string[],
  ) => federation!.eventObjectOf(row, place, tags, settings);
  /**
   * The variant of kept answers under `settings` (null: not federating),
   * worked out once per read of the settings: a body made under settings
   * this process has not seen yet (another process changed them) is then
   * never served once it sees them.
   */
  let variantOfRead: { read: number | undefined; variant: string } | null =
    null;
  const variantOf = (settings: Settings | null): string => {
    const read = settings ? settingsReadOf(settings) : -1;
    if (variantOfRead && read !== undefined && variantOfRead.read === read) {
      return variantOfRead.variant;
    }
    const variant = bodyVariant(
      deps.config.baseUrl,
      statement,
      settings ? objectOf(settings) : null,
    );
    variantOfRead = { read, variant };
    return variant;
  };
  const json = { "Content-Type": "application/json" };
  const embedded = deps.database.embedded;

  app.openapi(
    { ...getRoute, middleware: [optionalAuth(deps, scoped)] },
    async (c) => {
      const id = c.req.valid("param").id;
      if (!bodies || c.get("auth")) return c.json(await full(c, id), 200);
      const settings = federation ? await settingsOf(c, db) : null;
      const variant = variantOf(settings);
      const now = unixNow(deps.clock);
      // Embedded: the kept body's own lookup first (keptEventBodyQuery);
      // remote: one round trip either way.
      if (embedded) {
        const kept = await runRead(
          db,
          keptEventBodyQuery(db, id, now, variant),
        );
        if (kept !== null) return c.body(kept, 200, json) as never;
      }
      const read = await runRead(db, publicEventQuery(db, id, now, variant));
      if (!read) throw notFound("Event");
      // The same bytes and headers as c.json's, kept or made now.
      if (read.body !== null) return c.body(read.body, 200, json) as never;
      const event = read.fullForm({
        objectOf: settings ? objectOf(settings) : undefined,
      });
      if (!event) throw notFound("Event");
      const body = JSON.stringify(event);
      bodies.offer({
        id,
        variant,
        until: validUntilOf(event),
        body,
        generation: read.generation,
      });
      return c.body(body, 200, json) as never;
    },
  );
}
