-- The public browse pages (lib/pages/browse.ts). A series' next dates:
-- its occurrences by start. Partial: single events have no parent.
CREATE INDEX `events_parent_start_idx` ON `events` (`parentId`, `start_datetime`) WHERE `parentId` IS NOT NULL;--> statement-breakpoint
-- Listed events (visible, local, never a series template) that have not
-- ended, with their place: the places index counts them from the index alone,
-- and the tags index walks them to their tags.
CREATE INDEX `events_listed_last_place_idx` ON `events` (coalesce(`end_datetime`, `start_datetime`), `placeId`, `parentId`) WHERE `is_visible` = 1 AND `recurrent` IS NULL AND `apUserApId` IS NULL;
