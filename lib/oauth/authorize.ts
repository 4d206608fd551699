/** The authorization endpoint's rules: checking a request, issuing codes. */
import type { Db } from "../../db/client.ts";
import { oauthCodes } from "../../db/schema.ts";
import { randomToken } from "../auth/tokens.ts";
import type { Clock } from "../clock.ts";
import { findClient, type OAuthClientRow } from "./clients.ts";
import { sha256Hex } from "./crypto.ts";
import { isSubset, parseScopes } from "./scopes.ts";

/** Codes live 10 minutes (RFC 6749 section 4.1.2 recommends at most 10). */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** The parameters of an authorization request, as strings (absent = undefined). */
export interface AuthorizationParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** A request that passed every check. */
export interface AuthorizationRequest {
  client: OAuthClientRow;
  redirectUri: string;
  /** Granted scopes, space-separated. */
  scope: string;
  state: string | null;
  codeChallenge: string | null;
}

export type AuthorizationCheck =
  /** The client or redirect URI cannot be trusted: show an error page, never redirect. */
  | { kind: "fatal"; error: string; description: string }
  /** The client and redirect URI are fine: tell the client through the redirect. */
  | {
    kind: "redirect";
    redirectUri: string;
    error: string;
    description: string;
    state: string | null;
  }
  | { kind: "ok"; request: AuthorizationRequest };

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks an authorization request in the order RFC 6749 section 4.1.2.1 asks:
 * client and redirect URI first (errors shown to the user), then the rest
 * (errors sent back to the client with its `state`).
 */
export async function checkAuthorizationRequest(
  db: Db,
  params: AuthorizationParams,
  repeated: string[] = [],
): Promise<AuthorizationCheck> {
  if (!params.client_id) {
    return {
      kind: "fatal",
      error: "invalid_request",
      description: "The request names no client_id.",
    };
  }
  const client = await findClient(db, params.client_id);
  if (!client) {
    return {
      kind: "fatal",
      error: "invalid_client",
      description: "No application is registered with this client_id.",
    };
  }
  if (!params.redirect_uri) {
    return {
      kind: "fatal",
      error: "invalid_request",
      description: "The request names no redirect_uri.",
    };
  }
  if (!client.redirect_uris.includes(params.redirect_uri)) {
    return {
      kind: "fatal",
      error: "invalid_request",
      description:
        "The redirect_uri is not one the application registered, so you will not be sent there.",
    };
  }
  if (repeated.includes("client_id") || repeated.includes("redirect_uri")) {
    return {
      kind: "fatal",
      error: "invalid_request",
      description: "client_id and redirect_uri may be given only once.",
    };
  }
  const state = params.state ?? null;
  const fail = (error: string, description: string): AuthorizationCheck => ({
    kind: "redirect",
    redirectUri: params.redirect_uri!,
    error,
    description,
    state,
  });
  if (repeated.length > 0) {
    return fail(
      "invalid_request",
      `Parameters given more than once: ${repeated.join(", ")}`,
    );
  }
  if (!params.response_type) {
    return fail("invalid_request", "response_type is required");
  }
  if (params.response_type !== "code") {
    return fail(
      "unsupported_response_type",
      "Only response_type=code is supported",
    );
  }
  const allowed = client.scopes.split(" ");
  const requested = parseScopes(params.scope);
  if (requested === null || !isSubset(requested, allowed)) {
    return fail(
      "invalid_scope",
      `The scope may only name: ${allowed.join(" ")}`,
    );
  }
  const scope = (requested.length > 0 ? requested : allowed).join(" ");
  const challenge = params.code_challenge;
  const method = params.code_challenge_method;
  if (method !== undefined && method !== "S256") {
    return fail(
      "invalid_request",
      "code_challenge_method must be S256 (plain is refused)",
    );
  }
  if (challenge === undefined) {
    if (method !== undefined) {
      return fail("invalid_request", "code_challenge is missing");
    }
    if (client.secretHash === null) {
      return fail(
        "invalid_request",
        "PKCE is required for public clients: send code_challenge with code_challenge_method=S256",
      );
    }
  } else {
    if (method === undefined) {
      return fail(
        "invalid_request",
        "code_challenge_method=S256 is required (plain is refused)",
      );
    }
    if (!S256_CHALLENGE.test(challenge)) {
      return fail(
        "invalid_request",
        "code_challenge must be the base64url SHA-256 of the verifier (43 characters)",
      );
    }
  }
  if (state !== null && state.length > 2000) {
    return fail("invalid_request", "state is longer than 2000 characters");
  }
  return {
    kind: "ok",
    request: {
      client,
      redirectUri: params.redirect_uri,
      scope,
      state,
      codeChallenge: challenge ?? null,
    },
  };
}

/** Issues a single-use code for an approved request; only its hash is stored. */
export async function issueAuthorizationCode(
  db: Db,
  clock: Clock,
  request: AuthorizationRequest,
  userId: number,
): Promise<string> {
  const code = randomToken(32);
  await db.insert(oauthCodes).values({
    codeHash: await sha256Hex(code),
    clientId: request.client.id,
    userId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    codeChallenge: request.codeChallenge,
    expiresAt: new Date(clock.now().getTime() + CODE_TTL_MS),
  });
  return code;
}

/** The redirect URI with response parameters added to its query. */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | null | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) url.searchParams.set(key, value);
  }
  return url.href;
}
