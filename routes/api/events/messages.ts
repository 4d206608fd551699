/** An event's moderation notes: adding one, listing them. */
import { afterEventMessaged } from "../../../lib/mail/notices.ts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { addMessage, listMessages } from "../../../lib/events/messages.ts";
import { bearerSecurity, requireAuth } from "../../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../../env.ts";
import {
  errorResponses,
  IdParam,
  requireBody,
} from "../../middleware/validation.ts";
import { MessageBody, MessageSchema } from "./schemas.ts";

const postMessageRoute = createRoute({
  method: "post",
  path: "/events/{id}/messages",
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
  path: "/events/{id}/messages",
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

/** Registers the message routes on `app`, in the order the OpenAPI document lists them. */
export function eventMessageRoutes(app: OpenAPIHono<AppEnv>, deps: RouteDeps) {
  const { db } = deps.database;

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
      await afterEventMessaged(
        deps,
        c.req.valid("param").id,
        message,
        c.get("auth").user.id,
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
}
