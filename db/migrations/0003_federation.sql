CREATE TABLE `fedify_kv` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`expiresAt` integer
);
--> statement-breakpoint
CREATE INDEX `fedify_kv_expires_idx` ON `fedify_kv` (`expiresAt`) WHERE "fedify_kv"."expiresAt" is not null;--> statement-breakpoint
CREATE TABLE `fedify_queue` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message` text NOT NULL,
	`availableAt` integer NOT NULL,
	`orderingKey` text,
	`lockedUntil` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`createdAt` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fedify_queue_available_idx` ON `fedify_queue` (`availableAt`,`id`);--> statement-breakpoint
CREATE INDEX `fedify_queue_ordering_idx` ON `fedify_queue` (`orderingKey`) WHERE "fedify_queue"."orderingKey" is not null;