-- Calendar subscriptions that keep failing back off and are then paused
-- (lib/imports/sources.ts): the failures in a row (counted when a sync
-- starts, so that one which never finishes counts), when the hourly job may
-- try again, and whether it is paused until an editor resumes it.
ALTER TABLE `sources` ADD `failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `next_sync_at` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `paused` integer DEFAULT false NOT NULL;
