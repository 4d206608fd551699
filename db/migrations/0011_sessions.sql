-- Browser sessions (the web interface): the cookie holds a random token, the
-- table only its SHA-256. `generation` is the user's token_generation when
-- the session began: a password change or deactivation (which raise it)
-- ends every session. The trigger does what ON DELETE CASCADE does where a
-- connection does not enforce foreign keys (as in 0009).
CREATE TABLE `sessions` (
  `id` text PRIMARY KEY NOT NULL,
  `userId` integer NOT NULL,
  `generation` integer NOT NULL,
  `createdAt` integer NOT NULL,
  `expiresAt` integer NOT NULL,
  FOREIGN KEY (`userId`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`userId`);
--> statement-breakpoint
CREATE TRIGGER `users_sessions_delete` AFTER DELETE ON `users` BEGIN
  DELETE FROM `sessions` WHERE `userId` = OLD.`id`;
END;
