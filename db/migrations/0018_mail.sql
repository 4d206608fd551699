-- E-mail (issue 31). `mail_messages`: every message the instance sends, as
-- queued (the queue row, in `fedify_queue`, names it by id), with its
-- attempts and last error, so failures are visible to admins; the body is
-- cleared once sent or given up on. `account_links`: one-time links sent by
-- mail or shown to an admin (password setting, registration and e-mail
-- confirmation); `id` is the SHA-256 of the link's token. Users get the
-- language their mail is written in, the moderators' opt-out of submission
-- notices and when they were last sent one (at most one per 15 minutes).
CREATE TABLE `mail_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`text` text,
	`html` text,
	`headers` text DEFAULT '{}' NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lastError` text,
	`createdAt` integer NOT NULL,
	`updatedAt` integer NOT NULL,
	`sentAt` integer
);
--> statement-breakpoint
CREATE INDEX `mail_messages_status_idx` ON `mail_messages` (`status`,`updatedAt`);
--> statement-breakpoint
CREATE TABLE `account_links` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`userId` integer,
	`email` text NOT NULL,
	`secret` text,
	`createdAt` integer NOT NULL,
	`expiresAt` integer NOT NULL,
	`usedAt` integer,
	FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_links_user_idx` ON `account_links` (`userId`);
--> statement-breakpoint
ALTER TABLE `users` ADD `language` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `notify_submissions` integer DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE `users` ADD `submissions_notified_at` integer;
