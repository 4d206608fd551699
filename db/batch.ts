/**
 * Batches: the statements a `db.batch` runs in one round trip, and reads made
 * of them (statements, and what makes the answer of their results), which
 * combine so that several reads, or a write and the reads after it, share
 * one batch.
 */
import type { Db } from "./client.ts";

/** A statement of a batch. */
export type BatchItem = Parameters<Db["batch"]>[0][number];

/**
 * Statements that read something in a batch, and what makes the answer of
 * their results (in the same order).
 */
export interface BatchRead<T> {
  statements: BatchItem[];
  read(results: readonly unknown[]): T;
}

/** Runs a BatchRead as one batch: one round trip (none without statements). */
export async function runRead<T>(db: Db, query: BatchRead<T>): Promise<T> {
  if (query.statements.length === 0) return query.read([]);
  return query.read(
    await db.batch(query.statements as [BatchItem, ...BatchItem[]]),
  );
}

type ReadResults<T extends readonly BatchRead<unknown>[]> = {
  [K in keyof T]: T[K] extends BatchRead<infer R> ? R : never;
};

/** Several reads as one: their statements in one batch, their answers in order. */
export function allReads<T extends readonly BatchRead<unknown>[]>(
  ...reads: T
): BatchRead<ReadResults<T>> {
  return {
    statements: reads.flatMap((r) => r.statements),
    read(results) {
      let at = 0;
      return reads.map((r) => {
        const mine = results.slice(at, at + r.statements.length);
        at += r.statements.length;
        return r.read(mine);
      }) as ReadResults<T>;
    },
  };
}
