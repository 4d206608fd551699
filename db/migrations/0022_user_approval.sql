-- Registrations that wait for an admin's approval (the setting
-- registration_approval): `pending` accounts are also inactive until an admin
-- approves them (or refuses: the account is deleted).
ALTER TABLE `users` ADD `pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `users_pending_idx` ON `users` (`id`) WHERE "users"."pending" = 1;
