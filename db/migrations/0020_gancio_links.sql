-- Where each Gancio event went (lib/imports/gancio/links.ts): by the Gancio
-- instance's origin and the event's Gancio id, with its Gancio slug, so that
-- Gancio's event URLs (`/event/<slug>`, `/event/<id>`) answer with a redirect
-- to the imported event after the move. Filled by `deno task import:gancio`;
-- events imported by an earlier version are entered here from
-- imported_events (the slug comes with the next import).
CREATE TABLE `gancio_links` (
	`origin` text NOT NULL,
	`gancio_id` integer NOT NULL,
	`slug` text,
	`eventId` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	PRIMARY KEY(`origin`, `gancio_id`),
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE INDEX `gancio_links_slug_idx` ON `gancio_links` (`slug`);--> statement-breakpoint
CREATE INDEX `gancio_links_gancio_id_idx` ON `gancio_links` (`gancio_id`);--> statement-breakpoint
CREATE INDEX `gancio_links_event_idx` ON `gancio_links` (`eventId`);--> statement-breakpoint
INSERT OR IGNORE INTO `gancio_links` (`origin`, `gancio_id`, `slug`, `eventId`, `updatedAt`)
SELECT substr(`origin`, 8), CAST(`uid` AS integer), NULL, `eventId`, `updatedAt`
FROM `imported_events`
WHERE `origin` LIKE 'gancio:%' AND `recurrence_id` = 0 AND `uid` GLOB '[0-9]*';
