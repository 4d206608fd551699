/** Who may see and change an event. */
import type { UserRow } from "../users.ts";
import type { EventRow } from "./serialize.ts";

/** Editors and admins moderate every event. */
export function isModerator(user: UserRow | null | undefined): boolean {
  return user?.role === "admin" || user?.role === "editor";
}

/** The owner, an editor or an admin. */
export function canEditEvent(
  user: UserRow | null | undefined,
  event: Pick<EventRow, "userId">,
): boolean {
  if (!user) return false;
  return isModerator(user) ||
    (event.userId !== null && event.userId === user.id);
}

/** Visible events are public; hidden ones only to those who may edit them. */
export function canSeeEvent(
  user: UserRow | null | undefined,
  event: Pick<EventRow, "userId" | "is_visible">,
): boolean {
  return event.is_visible || canEditEvent(user, event);
}
