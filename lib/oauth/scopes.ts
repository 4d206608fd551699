/** The OAuth scopes Quando grants, and what each means in words. */
import type { UserRole } from "../../db/schema.ts";

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

/**
 * The user as an OAuth token may act for them: with an ordinary user's powers
 * whatever their role. No scope grants moderation, so an application writes
 * only the user's own events and sees others' as the public does (the consent
 * page promises that it cannot act as an administrator).
 */
export function delegatedUser<U extends { role: UserRole }>(user: U): U {
  return user.role === "user" ? user : { ...user, role: "user" };
}
