/** Who may see and change an event, and which places are public. */
import { type SQL, sql, type SQLWrapper } from "drizzle-orm";
import { events } from "../../db/schema.ts";
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

/**
 * Whether the place `placeId` is public: a visible event (local or remote,
 * past or upcoming, a series' template too) names it, so its page shows the
 * place anyway. Places only hidden, unconfirmed or deleted events name answer
 * as unknown ones. One EXISTS through events_place_idx.
 */
export function publicPlace(placeId: SQLWrapper | number): SQL {
  return sql`exists (select 1 from ${events} where ${events.placeId} = ${placeId} and ${events.is_visible} = 1)`;
}
