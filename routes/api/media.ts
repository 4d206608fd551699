/** Uploading and serving media files. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError, invalidRequest, notFound } from "../../lib/errors.ts";
import { httpDate, notModified } from "../../lib/feeds/conditional.ts";
import { parseRange } from "../../lib/media/range.ts";
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
  path: "/api/media",
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

const fileRoute = createRoute({
  method: "get",
  path: "/media/{file}",
  tags: ["media"],
  summary: "An uploaded file",
  request: {
    params: z.object({
      file: z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/),
    }),
  },
  responses: {
    200: { description: "The file, cacheable for a year" },
    206: { description: "The byte range asked for with `Range`" },
    304: { description: "The client's copy (`If-None-Match`) is current" },
    ...errorResponses(400, 404, 416),
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

  app.openapi(fileRoute, async (c) => {
    const stored = await deps.media.get(c.req.valid("param").file, {
      range: parseRange(c.req.header("range")),
      ifRange: c.req.header("if-range"),
    });
    if (!stored) throw notFound("File");
    if (stored.kind === "unsatisfiable") {
      throw new ApiError(
        416,
        "range_not_satisfiable",
        `The range starts beyond the end of the file (${stored.size} bytes)`,
        undefined,
        { "Content-Range": `bytes */${stored.size}` },
      );
    }
    const headers: Record<string, string> = {
      "Content-Type": stored.contentType,
      "Accept-Ranges": "bytes",
      // Names are random and never reused: the bytes behind one never change.
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Access-Control-Allow-Origin": "*",
    };
    if (stored.etag) headers["ETag"] = stored.etag;
    if (stored.lastModified) {
      headers["Last-Modified"] = httpDate(stored.lastModified);
    }
    const conditional = {
      ifNoneMatch: c.req.header("if-none-match"),
      ifModifiedSince: c.req.header("if-modified-since"),
    };
    // Without a Last-Modified, an invalid date: If-Modified-Since never matches.
    if (
      notModified(
        conditional,
        stored.etag ?? "",
        stored.lastModified ?? new Date(NaN),
      )
    ) {
      await stored.body.cancel();
      return c.body(null, 304, headers) as never;
    }
    const { range, size } = stored;
    if (range) {
      headers["Content-Range"] = `bytes ${range.start}-${range.end}/${size}`;
    }
    headers["Content-Length"] = String(
      range ? range.end - range.start + 1 : size,
    );
    // A stream: the store reads the file as the client takes it.
    return c.body(stored.body, range ? 206 : 200, headers) as never;
  });
  return app;
}

/** Images: an upload's body may be as large as the upload allowed. */
export const mediaModule: RouteModule = {
  name: "media",
  routes: mediaRoutes,
  bodyLimits: [{
    matches: (path) => path === "/api/media",
    maxBytes: uploadMaxBytes,
    multipartOnly: true,
  }],
};
