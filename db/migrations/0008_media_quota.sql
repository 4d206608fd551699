CREATE TABLE `media_chunks` (
	`name` text NOT NULL,
	`seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`name`, `seq`),
	FOREIGN KEY (`name`) REFERENCES `media_files`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `media_chunks` (`name`, `seq`, `data`)
  WITH RECURSIVE `parts` (`name`, `seq`) AS (
    SELECT `name`, 0 FROM `media_files` WHERE length(`data`) > 0
    UNION ALL
    SELECT `p`.`name`, `p`.`seq` + 1 FROM `parts` `p` JOIN `media_files` `f` ON `f`.`name` = `p`.`name`
    WHERE (`p`.`seq` + 1) * 262144 < length(`f`.`data`)
  )
  SELECT `p`.`name`, `p`.`seq`, substr(`f`.`data`, `p`.`seq` * 262144 + 1, 262144)
  FROM `parts` `p` JOIN `media_files` `f` ON `f`.`name` = `p`.`name`;--> statement-breakpoint
ALTER TABLE `media_files` DROP COLUMN `data`;--> statement-breakpoint
ALTER TABLE `media_files` ADD `ownerId` integer;--> statement-breakpoint
CREATE INDEX `media_files_owner_idx` ON `media_files` (`ownerId`,`size`);--> statement-breakpoint
CREATE INDEX `media_files_created_idx` ON `media_files` (`createdAt`);--> statement-breakpoint
CREATE TABLE `event_media` (
	`eventId` integer NOT NULL,
	`name` text NOT NULL,
	PRIMARY KEY(`eventId`, `name`),
	FOREIGN KEY (`eventId`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`name`) REFERENCES `media_files`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `event_media_name_idx` ON `event_media` (`name`);--> statement-breakpoint
CREATE TABLE `media_trash` (
	`name` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
INSERT INTO `event_media` (`eventId`, `name`)
  SELECT DISTINCT `e`.`id`, json_extract(`j`.`value`, '$.url') FROM `events` `e`, json_each(`e`.`media`) `j`
  WHERE `e`.`media` <> '[]' AND json_extract(`j`.`value`, '$.url') IN (SELECT `name` FROM `media_files`);--> statement-breakpoint
UPDATE `media_files` SET `ownerId` = (
  SELECT `e`.`userId` FROM `event_media` `r` JOIN `events` `e` ON `e`.`id` = `r`.`eventId`
  WHERE `r`.`name` = `media_files`.`name` AND `e`.`userId` IS NOT NULL ORDER BY `e`.`id` LIMIT 1
);--> statement-breakpoint
CREATE TRIGGER `events_media_insert` AFTER INSERT ON `events` WHEN NEW.`media` <> '[]' BEGIN
  INSERT INTO `event_media` (`eventId`, `name`)
    SELECT DISTINCT NEW.`id`, json_extract(`j`.`value`, '$.url') FROM json_each(NEW.`media`) `j`
    WHERE json_extract(`j`.`value`, '$.url') NOT LIKE '%:%';
END;--> statement-breakpoint
CREATE TRIGGER `events_media_update` AFTER UPDATE OF `media` ON `events`
WHEN OLD.`media` IS NOT NEW.`media` BEGIN
  DELETE FROM `event_media` WHERE `eventId` = NEW.`id`;
  INSERT INTO `event_media` (`eventId`, `name`)
    SELECT DISTINCT NEW.`id`, json_extract(`j`.`value`, '$.url') FROM json_each(NEW.`media`) `j`
    WHERE json_extract(`j`.`value`, '$.url') NOT LIKE '%:%';
END;--> statement-breakpoint
CREATE TRIGGER `events_media_delete` AFTER DELETE ON `events` BEGIN
  DELETE FROM `event_media` WHERE `eventId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `media_files_removed` AFTER DELETE ON `media_files` BEGIN
  DELETE FROM `media_chunks` WHERE `name` = OLD.`name`;
  INSERT OR IGNORE INTO `media_trash` (`name`) VALUES (OLD.`name`);
END;
