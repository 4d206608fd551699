ALTER TABLE `users` ADD `token_generation` integer DEFAULT 0 NOT NULL;
