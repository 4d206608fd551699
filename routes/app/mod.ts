/**
 * The web interface for members, editors and admins (docs/WEB.md): one
 * module per area, all sharing the session kit (routes/app/kit.ts).
 */
import { Hono } from "hono";
import type { AppEnv, RouteDeps } from "../env.ts";
import { uploadMaxBytes } from "../middleware/body-limit.ts";
import type { RouteModule } from "../module.ts";
import { accountRoutes } from "./account.ts";
import { eventPageRoutes } from "./events.ts";
import { clientRoutes } from "./clients.ts";
import { collectionRoutes } from "./collections.ts";
import { fediverseRoutes } from "./fediverse.ts";
import { createWebKit } from "./kit.ts";
import { mailRoutes } from "./mail.ts";
import { moderationRoutes } from "./moderation.ts";
import { resourceRoutes } from "./resources.ts";
import { previewRoutes } from "./preview.ts";
import { publishedRoutes } from "./published.ts";
import { placeRoutes } from "./places.ts";
import { reportPageRoutes } from "./reports.ts";
import { passwordRoutes } from "./password.ts";
import { settingsRoutes } from "./settings.ts";
import { sourcePageRoutes } from "./sources.ts";
import { submitRoutes } from "./submit.ts";
import { userApprovalRoutes } from "./user-approval.ts";
import { userDeleteRoutes } from "./user-delete.ts";
import { usersRoutes } from "./users.ts";

/** Every page of the signed-in interface. */
export function webRoutes(deps: RouteDeps) {
  const app = new Hono<AppEnv>();
  const web = createWebKit(deps);
  app.route("/", accountRoutes(deps, web));
  app.route("/", passwordRoutes(deps, web));
  app.route("/", mailRoutes(deps, web));
  app.route("/", submitRoutes(deps, web));
  app.route("/", moderationRoutes(deps, web));
  app.route("/", resourceRoutes(deps, web));
  app.route("/", eventPageRoutes(deps, web));
  app.route("/", publishedRoutes(deps, web));
  app.route("/", previewRoutes(deps, web));
  app.route("/", usersRoutes(deps, web));
  app.route("/", userDeleteRoutes(deps, web));
  app.route("/", userApprovalRoutes(deps, web));
  app.route("/", settingsRoutes(deps, web));
  app.route("/", fediverseRoutes(deps, web));
  app.route("/", collectionRoutes(deps, web));
  app.route("/", clientRoutes(deps, web));
  app.route("/", sourcePageRoutes(deps, web));
  app.route("/", placeRoutes(deps, web));
  app.route("/", reportPageRoutes(deps, web));
  return app;
}

/** The pages whose forms may carry an image (the upload's body limit applies). */
export function isWebUploadPath(path: string): boolean {
  return path === "/submit" || /^\/events\/[1-9][0-9]*\/edit$/.test(path);
}

/** The signed-in interface; its forms that carry an image take the upload's limit. */
export const appModule: RouteModule = {
  name: "app",
  routes: webRoutes,
  bodyLimits: [{
    matches: isWebUploadPath,
    maxBytes: uploadMaxBytes,
    multipartOnly: true,
  }],
};
