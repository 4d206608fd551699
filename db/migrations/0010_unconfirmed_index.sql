-- The moderation queue (GET /api/events/unconfirmed): hidden events, oldest
-- submission first. Partial: hidden events are few, and a full index on the
-- flag would tempt the planner for the visible ones.
CREATE INDEX `events_unconfirmed_idx` ON `events` (`createdAt`, `id`) WHERE `is_visible` = 0;
