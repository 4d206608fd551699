CREATE TABLE `imported_events` (
	`origin` text NOT NULL,
	`uid` text NOT NULL,
	`recurrence_id` integer DEFAULT 0 NOT NULL,
	`eventId` integer NOT NULL,
	`digest` text NOT NULL,
	`updatedAt` integer NOT NULL,
	PRIMARY KEY(`origin`, `uid`, `recurrence_id`),
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `imported_events_event_idx` ON `imported_events` (`eventId`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`url` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`userId` integer NOT NULL,
	`default_tags` text DEFAULT '[]' NOT NULL,
	`default_place_id` integer,
	`needs_confirmation` integer DEFAULT false NOT NULL,
	`etag` text,
	`last_modified` text,
	`last_sync_at` integer,
	`last_success_at` integer,
	`last_error` text,
	`last_counts` text,
	`lockedUntil` integer,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`default_place_id`) REFERENCES `places`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `sources_user_idx` ON `sources` (`userId`);