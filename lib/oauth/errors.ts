/**
 * Errors of the OAuth endpoints, rendered as RFC 6749 bodies
 * (`{error, error_description}`) rather than the API's error shape.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers?: Record<string, string>,
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

/** 400 `invalid_request`. */
export function invalidOAuthRequest(description: string): OAuthError {
  return new OAuthError(400, "invalid_request", description);
}

/** 400 `invalid_grant`: the code or refresh token is unknown, used, expired or not bound to this request. */
export function invalidGrant(description: string): OAuthError {
  return new OAuthError(400, "invalid_grant", description);
}

/** 401 `invalid_client`, with the Basic challenge RFC 6749 section 5.2 asks for. */
export function invalidClient(description: string): OAuthError {
  return new OAuthError(401, "invalid_client", description, {
    "WWW-Authenticate": 'Basic realm="quando"',
  });
}

/** 400 `invalid_scope`. */
export function invalidScope(description: string): OAuthError {
  return new OAuthError(400, "invalid_scope", description);
}
