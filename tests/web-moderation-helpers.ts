/** What the moderation pages' tests share: forms posted as a browser would, replies from the fediverse. */
import assert from "node:assert/strict";
import { apUsers, instances, resources } from "../db/schema.ts";
import type { TestContext } from "./helpers.ts";

/** Posts a form as a browser of this site would (Origin: the instance). */
export function postForm(
  ctx: TestContext,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return ctx.app.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(ctx.config.baseUrl).origin,
      ...headers,
    },
    body: new URLSearchParams(fields),
  });
}

/** Signs in through the form; returns the Cookie header value. */
export async function signIn(
  ctx: TestContext,
  user: { email: string; password: string },
): Promise<string> {
  const res = await postForm(ctx, "/login", {
    email: user.email,
    password: user.password,
  });
  assert.equal(res.status, 303, await res.text());
  return (res.headers.get("set-cookie") ?? "").split(";")[0];
}

/** A page as a browser with this cookie gets it. */
export function get(ctx: TestContext, path: string, cookie?: string) {
  return ctx.app.request(path, { headers: cookie ? { cookie } : {} });
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  assert.ok(match, "no csrf_token in the page");
  return match[1];
}

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
