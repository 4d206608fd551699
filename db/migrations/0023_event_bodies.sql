-- The anonymous answer of GET /api/events/{id}, kept as its JSON text
-- (db/schema/events.ts, lib/events/bodies.ts). A body is derived data: these
-- triggers delete, in the writing transaction, every body a change can alter,
-- and raise event_body_state.generation, which a fill must still see (a body
-- computed before a change is never stored after it). What an event's body
-- shows of other rows: its place, tags, owner's public fields, remote actor
-- and visible resources; its series' summary (a date of a series); the
-- summaries of its next dates (a series). So a change to an event also ends
-- the bodies of its series and of its dates.
CREATE TABLE `event_bodies` (
	`event_id` integer PRIMARY KEY NOT NULL,
	`variant` text NOT NULL,
	`valid_until` integer,
	`body` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `event_body_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `event_body_state` (`id`, `generation`) VALUES (1, 0);--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_insert` AFTER INSERT ON `events` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (NEW.`id`, NEW.`parentId`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_update` AFTER UPDATE ON `events` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (NEW.`id`, OLD.`parentId`, NEW.`parentId`)
    OR `event_id` IN (SELECT `id` FROM `events` WHERE `parentId` = NEW.`id`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_delete` AFTER DELETE ON `events` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (OLD.`id`, OLD.`parentId`)
    OR `event_id` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`id`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_place_update` AFTER UPDATE ON `places` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (
    SELECT `id` FROM `events` WHERE `placeId` = NEW.`id`
    UNION SELECT `parentId` FROM `events` WHERE `placeId` = NEW.`id` AND `parentId` IS NOT NULL
    UNION SELECT `c`.`id` FROM `events` `p` JOIN `events` `c` ON `c`.`parentId` = `p`.`id` WHERE `p`.`placeId` = NEW.`id`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_place_delete` AFTER DELETE ON `places` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (
    SELECT `id` FROM `events` WHERE `placeId` = OLD.`id`
    UNION SELECT `parentId` FROM `events` WHERE `placeId` = OLD.`id` AND `parentId` IS NOT NULL
    UNION SELECT `c`.`id` FROM `events` `p` JOIN `events` `c` ON `c`.`parentId` = `p`.`id` WHERE `p`.`placeId` = OLD.`id`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_tag_insert` AFTER INSERT ON `event_tags` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` = NEW.`eventId`
    OR `event_id` IN (SELECT `parentId` FROM `events` WHERE `id` = NEW.`eventId`)
    OR `event_id` IN (SELECT `id` FROM `events` WHERE `parentId` = NEW.`eventId`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_tag_update` AFTER UPDATE OF `eventId`, `tagId` ON `event_tags` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (OLD.`eventId`, NEW.`eventId`)
    OR `event_id` IN (SELECT `parentId` FROM `events` WHERE `id` IN (OLD.`eventId`, NEW.`eventId`))
    OR `event_id` IN (SELECT `id` FROM `events` WHERE `parentId` IN (OLD.`eventId`, NEW.`eventId`));
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_event_tag_delete` AFTER DELETE ON `event_tags` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` = OLD.`eventId`
    OR `event_id` IN (SELECT `parentId` FROM `events` WHERE `id` = OLD.`eventId`)
    OR `event_id` IN (SELECT `id` FROM `events` WHERE `parentId` = OLD.`eventId`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_tag_update` AFTER UPDATE ON `tags` BEGIN
  DELETE FROM `event_bodies`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_user_update` AFTER UPDATE OF `description`, `role` ON `users`
WHEN OLD.`description` IS NOT NEW.`description` OR OLD.`role` IS NOT NEW.`role` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (SELECT `id` FROM `events` WHERE `userId` = NEW.`id`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_ap_user_update` AFTER UPDATE ON `ap_users` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (SELECT `id` FROM `events` WHERE `apUserApId` IN (OLD.`ap_id`, NEW.`ap_id`));
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_resource_insert` AFTER INSERT ON `resources` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` = NEW.`eventId`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_resource_update` AFTER UPDATE ON `resources` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` IN (OLD.`eventId`, NEW.`eventId`);
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_resource_delete` AFTER DELETE ON `resources` BEGIN
  DELETE FROM `event_bodies` WHERE `event_id` = OLD.`eventId`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_settings_insert` AFTER INSERT ON `settings` BEGIN
  DELETE FROM `event_bodies`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_settings_update` AFTER UPDATE ON `settings`
WHEN OLD.`value` IS NOT NEW.`value` BEGIN
  DELETE FROM `event_bodies`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `event_bodies_settings_delete` AFTER DELETE ON `settings` BEGIN
  DELETE FROM `event_bodies`;
  UPDATE `event_body_state` SET `generation` = `generation` + 1;
END;
