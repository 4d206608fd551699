/** Drizzle relations, for the relational query API. */
import { relations } from "drizzle-orm";
import {
  apUsers,
  collections,
  events,
  eventTags,
  filters,
  instances,
  messages,
  places,
  resources,
  tags,
  users,
} from "./schema.ts";

export const usersRelations = relations(users, ({ many }) => ({
  events: many(events),
}));

export const eventsRelations = relations(events, ({ one, many }) => ({
  user: one(users, { fields: [events.userId], references: [users.id] }),
  place: one(places, { fields: [events.placeId], references: [places.id] }),
  parent: one(events, {
    fields: [events.parentId],
    references: [events.id],
    relationName: "occurrences",
  }),
  children: many(events, { relationName: "occurrences" }),
  apUser: one(apUsers, {
    fields: [events.apUserApId],
    references: [apUsers.ap_id],
  }),
  eventTags: many(eventTags),
  messages: many(messages),
  resources: many(resources),
}));

export const eventTagsRelations = relations(eventTags, ({ one }) => ({
  event: one(events, { fields: [eventTags.eventId], references: [events.id] }),
  tag: one(tags, { fields: [eventTags.tagId], references: [tags.id] }),
}));

export const tagsRelations = relations(tags, ({ many }) => ({
  eventTags: many(eventTags),
}));

export const placesRelations = relations(places, ({ many }) => ({
  events: many(events),
}));

export const messagesRelations = relations(messages, ({ one }) => ({
  event: one(events, { fields: [messages.eventId], references: [events.id] }),
}));

export const instancesRelations = relations(instances, ({ many }) => ({
  APUsers: many(apUsers),
}));

export const apUsersRelations = relations(apUsers, ({ one, many }) => ({
  instance: one(instances, {
    fields: [apUsers.instanceDomain],
    references: [instances.domain],
  }),
  events: many(events),
  resources: many(resources),
}));

export const resourcesRelations = relations(resources, ({ one }) => ({
  APUser: one(apUsers, {
    fields: [resources.apUserApId],
    references: [apUsers.ap_id],
  }),
  event: one(events, { fields: [resources.eventId], references: [events.id] }),
}));

export const collectionsRelations = relations(collections, ({ many }) => ({
  filters: many(filters),
}));

export const filtersRelations = relations(filters, ({ one }) => ({
  collection: one(collections, {
    fields: [filters.collectionId],
    references: [collections.id],
  }),
}));
