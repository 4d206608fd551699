/** The OAuth scopes Quando grants, and what each means in words. */

/** Scope -> the sentence shown on the consent page. */
export const OAUTH_SCOPES: Record<string, string> = {
  "event:write":
    "Publish events in your name: create, edit, cancel and delete your events and upload their images. " +
    "It cannot read your private data, change your account, or act as an administrator.",
};

/** The scope given when a client or a request names none. */
export const DEFAULT_SCOPE = "event:write";

/**
 * Splits a space-separated scope string into a sorted, de-duplicated list.
 * Returns null when a scope is unknown; an empty or absent value is [].
 */
export function parseScopes(value: string | undefined | null): string[] | null {
  const scopes = [...new Set((value ?? "").split(/\s+/).filter(Boolean))];
  if (scopes.some((s) => !Object.hasOwn(OAUTH_SCOPES, s))) return null;
  return scopes.sort();
}

/** True when every scope of `requested` is in `allowed`. */
export function isSubset(requested: string[], allowed: string[]): boolean {
  return requested.every((s) => allowed.includes(s));
}
