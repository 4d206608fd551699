CREATE TABLE `ap_users` (
	`ap_id` text PRIMARY KEY NOT NULL,
	`follower` integer DEFAULT false NOT NULL,
	`following` integer DEFAULT false NOT NULL,
	`trusted` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`object` text,
	`instanceDomain` text,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`instanceDomain`) REFERENCES `instances`(`domain`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ap_users_instance_idx` ON `ap_users` (`instanceDomain`);--> statement-breakpoint
CREATE INDEX `ap_users_follower_idx` ON `ap_users` (`follower`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`isActive` integer DEFAULT true NOT NULL,
	`isTop` integer DEFAULT false NOT NULL,
	`sortIndex` integer DEFAULT 0 NOT NULL,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_name_unique` ON `collections` (`name`);--> statement-breakpoint
CREATE INDEX `collections_sort_idx` ON `collections` (`sortIndex`);--> statement-breakpoint
CREATE TABLE `event_tags` (
	`eventId` integer NOT NULL,
	`tagId` integer NOT NULL,
	PRIMARY KEY(`eventId`, `tagId`),
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tagId`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_tags_tag_idx` ON `event_tags` (`tagId`,`eventId`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`status` text DEFAULT 'EventScheduled' NOT NULL,
	`start_datetime` integer NOT NULL,
	`end_datetime` integer,
	`description` text DEFAULT '' NOT NULL,
	`is_visible` integer DEFAULT true NOT NULL,
	`online_locations` text DEFAULT '[]' NOT NULL,
	`recurrent` text,
	`media` text DEFAULT '[]' NOT NULL,
	`ld_signature` text,
	`ap_object` text,
	`likes` text DEFAULT '[]' NOT NULL,
	`boost` text DEFAULT '[]' NOT NULL,
	`ap_id` text,
	`userId` integer,
	`parentId` integer,
	`placeId` integer,
	`apUserApId` text,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`parentId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`placeId`) REFERENCES `places`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`apUserApId`) REFERENCES `ap_users`(`ap_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_slug_unique` ON `events` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `events_ap_id_unique` ON `events` (`ap_id`);--> statement-breakpoint
CREATE INDEX `events_start_idx` ON `events` (`start_datetime`);--> statement-breakpoint
CREATE INDEX `events_end_idx` ON `events` (`end_datetime`);--> statement-breakpoint
CREATE INDEX `events_parent_idx` ON `events` (`parentId`);--> statement-breakpoint
CREATE INDEX `events_user_idx` ON `events` (`userId`);--> statement-breakpoint
CREATE INDEX `events_place_idx` ON `events` (`placeId`);--> statement-breakpoint
CREATE INDEX `events_ap_user_idx` ON `events` (`apUserApId`);--> statement-breakpoint
CREATE TABLE `filters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`negate` integer DEFAULT false NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`places` text DEFAULT '[]' NOT NULL,
	`actors` text DEFAULT '[]' NOT NULL,
	`collectionId` integer NOT NULL,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`collectionId`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `filters_collection_idx` ON `filters` (`collectionId`);--> statement-breakpoint
CREATE TABLE `instances` (
	`domain` text PRIMARY KEY NOT NULL,
	`name` text,
	`blocked` integer DEFAULT false NOT NULL,
	`data` text,
	`applicationActor` text,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message` text NOT NULL,
	`author` text NOT NULL,
	`is_author_visible` integer DEFAULT false NOT NULL,
	`eventId` integer NOT NULL,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_event_idx` ON `messages` (`eventId`);--> statement-breakpoint
CREATE TABLE `places` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`address` text DEFAULT '' NOT NULL,
	`ap_id` text,
	`postal_address` text,
	`latitude` real,
	`longitude` real,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `places_ap_id_unique` ON `places` (`ap_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `places_name_address_idx` ON `places` (`name`,`address`);--> statement-breakpoint
CREATE TABLE `rate_limit_hits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_limit_hits_key_at_idx` ON `rate_limit_hits` (`key`,`at`);--> statement-breakpoint
CREATE TABLE `resources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`activitypub_id` text NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`data` text,
	`apUserApId` text,
	`eventId` integer,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	FOREIGN KEY (`apUserApId`) REFERENCES `ap_users`(`ap_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_activitypub_id_unique` ON `resources` (`activitypub_id`);--> statement-breakpoint
CREATE INDEX `resources_event_idx` ON `resources` (`eventId`);--> statement-breakpoint
CREATE INDEX `resources_created_idx` ON `resources` (`createdAt`);--> statement-breakpoint
CREATE INDEX `resources_ap_user_idx` ON `resources` (`apUserApId`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updatedAt` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tag` text NOT NULL,
	`normalizedTag` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_normalizedTag_unique` ON `tags` (`normalizedTag`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`password` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`to_notify` integer DEFAULT false NOT NULL,
	`role` text DEFAULT 'user' NOT NULL,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_role_idx` ON `users` (`role`);