/** Types shared by the HTTP layer: the app's dependencies and Hono environment. */
import type { Database } from "../db/client.ts";
import type { PasswordHasher } from "../lib/auth/password.ts";
import type { ActiveSession } from "../lib/auth/sessions.ts";
import type { AccessClaims, TokenCodec } from "../lib/auth/tokens.ts";
import type { Clock } from "../lib/clock.ts";
import type { Config } from "../lib/config.ts";
import type { Logger } from "../lib/log.ts";
import type { FederationService } from "../lib/federation/service.ts";
import type { MediaStore } from "../lib/media/store.ts";
import type { Mailer } from "../lib/mail/outbox.ts";
import type { EventBodyFiller } from "../lib/events/bodies.ts";
import type { EgressFetch } from "../lib/net/egress.ts";
import type { Settings } from "../lib/settings.ts";
import type { UserRow } from "../lib/users.ts";

/** What `createApp` is built from. */
export interface AppDeps {
  database: Database;
  config: Config & { jwtSecret: string };
  clock: Clock;
  hasher: PasswordHasher;
  log: Logger;
  media: MediaStore;
  /** ActivityPub; absent in tests that do not need it (then nothing federates). */
  federation?: FederationService;
  /**
   * The egress guard of the fetches routes start (feeds, images); the
   * portable one when absent (lib/net/egress.ts). main.ts gives Deno's
   * pinned one (deno/egress.ts).
   */
  egress?: EgressFetch;
  /** Outgoing e-mail; absent or not `enabled`: e-mail is off (links are shown instead). */
  mailer?: Mailer;
  /**
   * Keeps the anonymous answer of each event read (lib/events/bodies.ts);
   * absent: every read assembles it.
   */
  eventBodies?: EventBodyFiller;
  /**
   * Whether a Response kept by this process may be cloned to answer later
   * requests (the public-read cache's hits): main.ts says so for Deno, where
   * a clone costs much less than a new Response with its headers. Absent on
   * Workers, where a Response made during one request may not serve another.
   */
  reusableResponses?: boolean;
}

/** Dependencies plus what createApp derives from them, handed to every route module. */
export interface RouteDeps extends AppDeps {
  tokens: TokenCodec;
}

/** The signed-in caller. */
export interface AuthInfo {
  /**
   * The caller as the token lets them act. Through an OAuth token `role` is
   * "user" whatever the account's role (delegatedUser), so every role check
   * downstream treats the application as an ordinary user.
   */
  user: UserRow;
  claims: AccessClaims;
  /** OAuth scopes of the token; null for a login token, which carries the user's full power. */
  scopes: string[] | null;
}

/** A form post's fields, as parsed by Hono (strings and files). */
export type PostedForm = Record<string, string | File | (string | File)[]>;

export type AppEnv = {
  Bindings: {
    /** Set by the server entry (Deno.serve's remote address). */
    remoteAddr?: { hostname: string };
  };
  Variables: {
    /** The API's caller (routes/middleware/auth.ts: requireAuth, optionalAuth). */
    auth: AuthInfo;
    /**
     * The session of a signed-in page (routes/app/kit.ts: requireSession,
     * requirePost).
     */
    session: ActiveSession;
    /** The fields of a signed-in form post, its CSRF token checked (requirePost). */
    form: PostedForm;
    /** The signed-in reader of a public page (routes/middleware/viewer.ts). */
    viewer?: UserRow;
    /** The request's settings, once read (routes/middleware/request-settings.ts: settingsOf). */
    settings?: Promise<Settings>;
  };
};
