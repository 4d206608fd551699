/** Writing events: create, update (PUT and PATCH), delete, toggle. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { unixNow } from "../../../lib/clock.ts";
import {
  eventFullQuery,
  type EventRef,
  summaryQuery,
} from "../../../lib/events/load.ts";
import type { BatchRead } from "../../../db/batch.ts";
import type { WriteDeps } from "../../../lib/events/commit.ts";
import type { EventInput } from "../../../lib/events/input.ts";
import {
  createEvent,
  deleteEvent,
  toggleEvent,
  updateEvent,
} from "../../../lib/events/write.ts";
import { invalidRequest, notFound } from "../../../lib/errors.ts";
import { emptyMediaTrashNow } from "../../../lib/media/cleanup.ts";
import {
  afterEventCreated,
  afterEventToggled,
  rejectionNoticeIfWaiting,
} from "../../../lib/mail/notices.ts";
import { imageSaver, parseFocalPoint } from "../../../lib/media/upload.ts";
import {
  bearerSecurity,
  optionalAuth,
  requireAuth,
} from "../../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../../env.ts";
import { settingsOf } from "../../middleware/request-settings.ts";
import {
  eventWriteDeps,
  federateChange,
  imageUploadDeps,
} from "../event-writes.ts";
import {
  bodyOf,
  errorResponses,
  IdParam,
  jsonOrFormOrMultipart,
  requireBody,
} from "../../middleware/validation.ts";
import {
  EVENT_WRITE_SCOPE,
  EventBody,
  EventPatchBody,
  EventSummarySchema,
  fullEventContent,
} from "./schemas.ts";

const createEventRoute = createRoute({
  method: "post",
  path: "/events",
  tags: ["events"],
  summary: "Create an event",
  description:
    "Needs a login token or an OAuth token with scope event:write; anonymous submissions only when " +
    "the setting allow_anon_event is on (they start hidden). A `recurrent` event is a series: it is " +
    "never listed itself; its occurrences are.",
  security: bearerSecurity,
  request: { body: jsonOrFormOrMultipart(EventBody) },
  responses: {
    201: { description: "The new event", ...fullEventContent },
    ...errorResponses(400, 401, 403, 413, 415),
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/events/{id}",
  tags: ["events"],
  summary: "Update an event (omitted optional fields keep their value)",
  security: bearerSecurity,
  request: { params: IdParam, body: jsonOrFormOrMultipart(EventBody) },
  responses: {
    200: { description: "The updated event", ...fullEventContent },
    ...errorResponses(400, 401, 403, 404, 413, 415),
  },
});

const patchRoute = createRoute({
  method: "patch",
  path: "/events/{id}",
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
  path: "/events/{id}",
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
  path: "/events/{id}/toggle",
  tags: ["events"],
  summary: "Flip the confirmation state (is_visible)",
  security: bearerSecurity,
  request: { params: IdParam },
  responses: {
    200: { description: "The updated event", ...fullEventContent },
    ...errorResponses(400, 401, 403, 404),
  },
});

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

/** Registers the write routes on `app`, in the order the OpenAPI document lists them. */
export function eventWriteRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { db } = deps.database;
  const scoped = { scope: EVENT_WRITE_SCOPE };
  const writer = [requireAuth(deps, scoped)];

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
      await afterEventCreated(deps, result);
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
    const user = c.get("auth").user;
    // A moderator deleting a submission that waits rejects it.
    const notice = await rejectionNoticeIfWaiting(deps, id, user.id);
    await federateChange(
      deps,
      await deleteEvent(await writeDeps(c), user, id),
    );
    await notice();
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
    await afterEventToggled(deps, result, c.get("auth").user.id);
    if (!result.answer) throw notFound("Event");
    return c.json(result.answer, 200);
  });
}
