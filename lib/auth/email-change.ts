/** A signed-in user changing their own e-mail address. */
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { requireEmailAddress, updateUser, type UserRow } from "../users.ts";
import { confirmOwnPassword } from "./login.ts";
import type { PasswordHasher } from "./password.ts";

/**
 * Sets a new e-mail once the current password is confirmed. 400 (field
 * `email`) for a bad address; a wrong password is a 403 `invalid_credentials`
 * counted toward the login failure limit (429 past it); 409 when another
 * account has the e-mail. Sessions and tokens stay: the account is the same.
 */
export async function changeOwnEmail(
  deps: { db: Db; clock: Clock; hasher: PasswordHasher },
  user: UserRow,
  input: { email: string; password: string },
  clientAddress: string,
): Promise<UserRow> {
  const email = input.email.trim();
  requireEmailAddress(email);
  await confirmOwnPassword(deps, user, input.password, clientAddress);
  return await updateUser(deps.db, deps.hasher, deps.clock, user.id, {
    email,
  });
}
