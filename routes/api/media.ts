/** POST /api/media: uploading an image (the files are served by routes/site/media.ts). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError, invalidRequest } from "../../lib/errors.ts";
import { imageSaver, parseFocalPoint } from "../../lib/media/upload.ts";
import { bearerSecurity, requireAuth } from "../middleware/auth.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import { uploadMaxBytes } from "../middleware/body-limit.ts";
import type { RouteModule } from "../module.ts";
import { imageUploadDeps } from "./event-writes.ts";
import { EVENT_WRITE_SCOPE, MediaSchema } from "./events/schemas.ts";
import { errorResponses, validationHook } from "../middleware/validation.ts";

const UploadBody = z.object({
  file: z.instanceof(File).openapi({ type: "string", format: "binary" }),
  name: z.string().max(500).optional().openapi({ description: "Alt text" }),
  focalpoint: z.string().regex(/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/, "x,y")
    .optional()
    .openapi({ description: "x,y in [-1, 1]", example: "0,0" }),
});

const uploadRoute = createRoute({
  method: "post",
  path: "/media",
  tags: ["media"],
  summary: "Upload an image (JPEG, PNG, WebP or GIF, recognised by its bytes)",
  security: bearerSecurity,
  request: {
    body: {
      required: true,
      content: { "multipart/form-data": { schema: UploadBody } },
    },
  },
  responses: {
    201: {
      description: "The Media item to put in an event's `media`",
      content: { "application/json": { schema: MediaSchema } },
    },
    ...errorResponses(400, 401, 403, 413, 415),
  },
});

export function mediaRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(
    {
      ...uploadRoute,
      middleware: [
        requireAuth(deps, { scope: EVENT_WRITE_SCOPE }),
        async (c, next) => {
          const type = c.req.header("content-type") ?? "";
          if (!/^multipart\/form-data/i.test(type)) {
            throw new ApiError(
              415,
              "unsupported_media_type",
              "Send the file as multipart/form-data",
            );
          }
          await next();
        },
      ],
    },
    async (c) => {
      const { file, name, focalpoint } = c.req.valid("form");
      const point = focalpoint === undefined
        ? undefined
        : parseFocalPoint(focalpoint);
      if (point === null) {
        throw invalidRequest("The request is not valid", [{
          field: "focalpoint",
          message: "each coordinate must be in [-1, 1]",
        }]);
      }
      const save = await imageSaver(
        imageUploadDeps(deps),
        file,
        {
          name: name ?? "",
          focalpoint: point,
          ownerId: c.get("auth").user.id,
        },
      );
      return c.json(await save!(), 201);
    },
  );

  return app;
}

/** Images: an upload's body may be as large as the upload allowed. */
export const mediaModule: RouteModule = {
  name: "media",
  mount: "/api",
  routes: mediaRoutes,
  bodyLimits: [{
    matches: (path) => path === "/api/media",
    maxBytes: uploadMaxBytes,
    multipartOnly: true,
  }],
};
