/** Column groups shared by the tables of db/schema/. */
import { integer } from "drizzle-orm/sqlite-core";

/** Millisecond timestamps, exposed to the API as ISO 8601 strings. */
export const timestamps = {
  createdAt: integer("createdAt", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updatedAt", { mode: "timestamp_ms" }).notNull(),
};
