/** What the moderation pages' tests share: replies from the fediverse. */
import { apUsers, instances, resources } from "../db/schema.ts";
import type { TestContext } from "./helpers.ts";

/** The actor of the replies: Alice on remote.example. */
export const ALICE = "https://remote.example/users/alice";

/**
 * Stores replies to `eventId` from Alice, as the inbox would (her instance,
 * her actor, one resource per content, one minute apart, the last newest).
 */
export async function seedReplies(
  ctx: TestContext,
  eventId: number,
  contents: string[],
): Promise<number[]> {
  const { db } = ctx.database;
  const at = new Date(ctx.clock.now());
  await db.insert(instances).values({
    domain: "remote.example",
    createdAt: at,
    updatedAt: at,
  }).onConflictDoNothing();
  await db.insert(apUsers).values({
    ap_id: ALICE,
    object: {
      id: ALICE,
      type: "Person",
      preferredUsername: "alice",
      name: "Alice Liddell",
      url: "https://remote.example/@alice",
    },
    instanceDomain: "remote.example",
    createdAt: at,
    updatedAt: at,
  }).onConflictDoNothing();
  const rows = await db.insert(resources).values(contents.map((content, i) => {
    const when = new Date(at.getTime() + i * 60_000);
    return {
      activitypub_id:
        `https://remote.example/notes/${eventId}-${i}-${crypto.randomUUID()}`,
      data: { type: "Note", content },
      apUserApId: ALICE,
      eventId,
      hidden: false,
      createdAt: when,
      updatedAt: when,
    };
  })).returning({ id: resources.id });
  return rows.map((r) => r.id);
}
