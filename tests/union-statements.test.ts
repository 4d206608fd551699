/**
 * Selects merged into one statement (db/prebuilt.ts unionOf) give what each
 * would have given on its own: same rows, same order, same mapping, whatever
 * their widths, nested or not.
 */
import assert from "node:assert/strict";
import { asc, desc, eq, max } from "drizzle-orm";
import { events, places, settings, tags } from "../db/schema.ts";
import type { BatchItem } from "../db/batch.ts";
import { selectAsOne, unionOf } from "../db/prebuilt.ts";
import { call, createTestApp, userWithToken } from "./helpers.ts";

Deno.test("unionOf: several selects of different widths in one statement answer as each would alone", async () => {
  const ctx = await createTestApp();
  try {
    const { token } = await userWithToken(ctx, "admin");
    for (let i = 0; i < 7; i++) {
      const res = await call(ctx, "POST", "/api/events", {
        token,
        json: {
          title: `Union ${i}`,
          start_datetime: 1_800_000_000 + (i % 3) * 3600 - i,
          place_name: `Hall ${i % 2}`,
          place_address: "Via Roma 1",
          tags: [`t${i % 2}`],
        },
      });
      assert.equal(res.status, 201, await res.text());
    }
    const db = ctx.database.db;
    const parts = () =>
      [
        db.select().from(events).orderBy(desc(events.start_datetime)).limit(5),
        db.select({ id: places.id, name: places.name }).from(places)
          .orderBy(asc(places.name)),
        db.select({ at: max(settings.updatedAt) }).from(settings),
        db.select().from(tags).where(eq(tags.tag, "nothing")),
        db.select({ title: events.title }).from(events)
          .orderBy(asc(events.title)),
      ] as unknown as BatchItem[];
    const alone = await db.batch(
      parts() as unknown as Parameters<typeof db.batch>[0],
    );
    const merged = await selectAsOne<unknown[][]>(db, parts());
    assert.deepEqual(merged, alone);
    assert.equal(
      (merged[0] as { createdAt: Date }[])[0].createdAt instanceof Date,
      true,
    );

    // Nested: a merged statement merged again with others.
    const [inner, titles] = await selectAsOne<[unknown[][], unknown[]]>(db, [
      unionOf(parts().slice(0, 2)),
      parts()[4],
    ]);
    assert.deepEqual(inner, alone.slice(0, 2));
    assert.deepEqual(titles, alone[4]);
  } finally {
    ctx.close();
  }
});
