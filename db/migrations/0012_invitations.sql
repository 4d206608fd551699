-- Invitations to an account (the web interface's /admin/users): the admin
-- copies a one-time link; the table keeps only the SHA-256 of its token.
-- The account is created with `email` and `role` when the invitee sets a
-- password, and `usedAt` marks the link spent. One invitation per e-mail.
-- (The drizzle snapshot 0012 also covers the hand-written 0009-0011.)
CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`role` text DEFAULT 'user' NOT NULL,
	`createdAt` integer NOT NULL,
	`expiresAt` integer NOT NULL,
	`usedAt` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_email_unique` ON `invitations` (`email`);
