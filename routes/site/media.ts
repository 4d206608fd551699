/** GET /media/{file}: the uploaded files, as the media store keeps them. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError, notFound } from "../../lib/errors.ts";
import { httpDate, notModified } from "../../lib/feeds/conditional.ts";
import { parseRange } from "../../lib/media/range.ts";
import type { AppEnv, RouteDeps } from "../env.ts";
import type { RouteModule } from "../module.ts";
import { errorResponses, validationHook } from "../middleware/validation.ts";

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

/** The uploaded files' routes. */
export function mediaFileRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
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

/** The media files module, as routes/mod.ts mounts it. */
export const mediaFilesModule: RouteModule = {
  name: "media-files",
  routes: mediaFileRoutes,
};
