/** A signed-in user changing their own password. */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { updateUser, type UserRow } from "../users.ts";
import { confirmOwnPassword } from "./login.ts";
import type { PasswordHasher } from "./password.ts";

/**
 * Sets a new password once the current one is confirmed. A wrong current
 * password is a 403 `invalid_credentials` and counts toward the login failure
 * limit (429 past it). Returns the updated user: its token generation has
 * moved on, so every earlier login token is void and its grants are revoked.
 */
export async function changeOwnPassword(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  user: UserRow,
  passwords: { current: string; next: string },
  clientAddress: string,
): Promise<UserRow> {
  await confirmOwnPassword(deps, user, passwords.current, clientAddress);
  return await updateUser(deps.db, deps.hasher, deps.clock, user.id, {
    password: passwords.next,
  });
}
