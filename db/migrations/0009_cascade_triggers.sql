-- What the foreign keys' ON DELETE CASCADE and SET NULL do, done by triggers
-- as well, so that a deletion leaves the same rows whether or not the
-- connection enforces foreign keys (SQLite's default is off; a remote server
-- may not turn it on). Where foreign keys are enforced, both run: the second
-- finds nothing left to do. event_media and media_chunks have theirs (0008).
--
-- A trigger does not fire itself again (recursive_triggers is off), so the
-- deletion of a series' occurrences here clears their rows in the same step
-- (occurrences have no occurrences of their own).
CREATE TRIGGER `events_cascade_delete` AFTER DELETE ON `events` BEGIN
  DELETE FROM `event_tags` WHERE `eventId` = OLD.`id`
    OR `eventId` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`id`);
  DELETE FROM `messages` WHERE `eventId` = OLD.`id`
    OR `eventId` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`id`);
  DELETE FROM `resources` WHERE `eventId` = OLD.`id`
    OR `eventId` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`id`);
  DELETE FROM `event_media`
    WHERE `eventId` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`id`);
  DELETE FROM `events` WHERE `parentId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `users_cascade_delete` AFTER DELETE ON `users` BEGIN
  UPDATE `events` SET `userId` = NULL WHERE `userId` = OLD.`id`;
  DELETE FROM `oauth_codes` WHERE `userId` = OLD.`id`;
  DELETE FROM `oauth_tokens`
    WHERE `grantId` IN (SELECT `id` FROM `oauth_grants` WHERE `userId` = OLD.`id`);
  DELETE FROM `oauth_grants` WHERE `userId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `oauth_clients_cascade_delete` AFTER DELETE ON `oauth_clients` BEGIN
  DELETE FROM `oauth_codes` WHERE `clientId` = OLD.`id`;
  DELETE FROM `oauth_tokens`
    WHERE `grantId` IN (SELECT `id` FROM `oauth_grants` WHERE `clientId` = OLD.`id`);
  DELETE FROM `oauth_grants` WHERE `clientId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `oauth_grants_cascade_delete` AFTER DELETE ON `oauth_grants` BEGIN
  DELETE FROM `oauth_tokens` WHERE `grantId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `ap_users_cascade_delete` AFTER DELETE ON `ap_users` BEGIN
  DELETE FROM `resources` WHERE `apUserApId` = OLD.`ap_id`;
  DELETE FROM `events` WHERE `apUserApId` = OLD.`ap_id`;
END;--> statement-breakpoint
CREATE TRIGGER `instances_cascade_delete` AFTER DELETE ON `instances` BEGIN
  UPDATE `ap_users` SET `instanceDomain` = NULL WHERE `instanceDomain` = OLD.`domain`;
END;--> statement-breakpoint
CREATE TRIGGER `tags_cascade_delete` AFTER DELETE ON `tags` BEGIN
  DELETE FROM `event_tags` WHERE `tagId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `collections_cascade_delete` AFTER DELETE ON `collections` BEGIN
  DELETE FROM `filters` WHERE `collectionId` = OLD.`id`;
END;
