/**
 * Who mail goes to, in what language: users' remembered language, and the
 * moderators who get the notice of submissions waiting.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import type { UserRow } from "../users.ts";

/** Remembers the language `user` uses the interface in (written only when it changed). */
export async function rememberLanguage(
  db: Db,
  user: Pick<UserRow, "id" | "language">,
  language: string,
): Promise<void> {
  if (user.language === language) return;
  await db.update(users).set({ language }).where(eq(users.id, user.id));
}

/** A moderator's choice to get (or not) the mail of submissions waiting. */
export async function setSubmissionNotices(
  db: Db,
  userId: number,
  on: boolean,
): Promise<void> {
  await db.update(users).set({ notify_submissions: on }).where(
    eq(users.id, userId),
  );
}
