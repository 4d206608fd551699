/**
 * Shared test helpers, one module per concern under tests/helpers/:
 * app.ts (a test app over a fresh database, in-process calls, statement
 * counts), users.ts (users and login tokens), events.ts (events through the
 * API), oauth.ts (the OAuth flow), server.ts (real `main.ts` processes and
 * calls over the network), pages.ts (public-page fixtures and HTML checks).
 * Tests import them from here.
 */
export * from "./helpers/app.ts";
export * from "./helpers/users.ts";
export * from "./helpers/events.ts";
export * from "./helpers/oauth.ts";
export * from "./helpers/server.ts";
export * from "./helpers/pages.ts";
