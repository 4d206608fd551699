-- Reports of events by visitors, for the moderators' queue (db/schema/reports.ts).
CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`eventId` integer NOT NULL,
	`reason` text NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`createdAt` integer NOT NULL,
	`closedAt` integer,
	`closedBy` integer,
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`closedBy`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `reports_status_created_idx` ON `reports` (`status`,`createdAt`,`id`);--> statement-breakpoint
CREATE INDEX `reports_event_idx` ON `reports` (`eventId`);
