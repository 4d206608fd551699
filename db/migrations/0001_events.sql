CREATE TABLE `media_files` (
	`name` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`width` integer,
	`height` integer,
	`data` blob,
	`createdAt` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `events_parent_idx`;--> statement-breakpoint
DROP INDEX `events_ap_user_idx`;--> statement-breakpoint
ALTER TABLE `events` ADD `recurrence_slot` integer;--> statement-breakpoint
ALTER TABLE `events` ADD `occurrence_edited` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `events_parent_slot_idx` ON `events` (`parentId`,`recurrence_slot`);--> statement-breakpoint
CREATE INDEX `events_parent_idx` ON `events` (`parentId`) WHERE "events"."parentId" is not null;--> statement-breakpoint
CREATE INDEX `events_ap_user_idx` ON `events` (`apUserApId`) WHERE "events"."apUserApId" is not null;--> statement-breakpoint
CREATE INDEX `events_last_idx` ON `events` (coalesce(`end_datetime`, `start_datetime`));