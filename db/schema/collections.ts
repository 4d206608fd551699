/** Collections: named sets of filters over tags, places and actors. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns.ts";

export const collections = sqliteTable("collections", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  isActive: integer("isActive", { mode: "boolean" }).notNull().default(true),
  /** Pinned collections are shown first. */
  isTop: integer("isTop", { mode: "boolean" }).notNull().default(false),
  sortIndex: integer("sortIndex").notNull().default(0),
  ...timestamps,
}, (t) => [index("collections_sort_idx").on(t.sortIndex)]);

export interface FilterPlace {
  id: number;
  name: string;
}
export interface FilterActor {
  ap_id: string | null;
}

export const filters = sqliteTable("filters", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  negate: integer("negate", { mode: "boolean" }).notNull().default(false),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(
    sql`'[]'`,
  ),
  places: text("places", { mode: "json" }).$type<FilterPlace[]>().notNull()
    .default(sql`'[]'`),
  actors: text("actors", { mode: "json" }).$type<FilterActor[]>().notNull()
    .default(sql`'[]'`),
  collectionId: integer("collectionId").notNull().references(
    () => collections.id,
    { onDelete: "cascade" },
  ),
  ...timestamps,
}, (t) => [index("filters_collection_idx").on(t.collectionId)]);
