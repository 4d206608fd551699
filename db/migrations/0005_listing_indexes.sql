ALTER TABLE `event_tags` ADD `start_datetime` integer;--> statement-breakpoint
ALTER TABLE `event_tags` ADD `last_moment` integer;--> statement-breakpoint
UPDATE `event_tags` SET (`start_datetime`, `last_moment`) = (SELECT `e`.`start_datetime`, coalesce(`e`.`end_datetime`, `e`.`start_datetime`) FROM `events` `e` WHERE `e`.`id` = `event_tags`.`eventId`);--> statement-breakpoint
CREATE INDEX `event_tags_tag_start_idx` ON `event_tags` (`tagId`,`start_datetime`,`eventId`);--> statement-breakpoint
CREATE INDEX `event_tags_tag_last_idx` ON `event_tags` (`tagId`,`last_moment`);--> statement-breakpoint
CREATE INDEX `events_series_idx` ON `events` (`parentId`,`id`) WHERE "events"."recurrent" is not null and "events"."parentId" is null;--> statement-breakpoint
CREATE INDEX `events_long_last_idx` ON `events` (coalesce(`end_datetime`, `start_datetime`)) WHERE `end_datetime` - `start_datetime` > 86400;--> statement-breakpoint
CREATE TRIGGER `event_tags_times_insert` AFTER INSERT ON `event_tags` BEGIN
  UPDATE `event_tags` SET (`start_datetime`, `last_moment`) = (SELECT `e`.`start_datetime`, coalesce(`e`.`end_datetime`, `e`.`start_datetime`) FROM `events` `e` WHERE `e`.`id` = NEW.`eventId`)
  WHERE `eventId` = NEW.`eventId` AND `tagId` = NEW.`tagId`;
END;--> statement-breakpoint
CREATE TRIGGER `events_times_update` AFTER UPDATE OF `start_datetime`, `end_datetime` ON `events`
WHEN OLD.`start_datetime` IS NOT NEW.`start_datetime` OR OLD.`end_datetime` IS NOT NEW.`end_datetime` BEGIN
  UPDATE `event_tags` SET `start_datetime` = NEW.`start_datetime`, `last_moment` = coalesce(NEW.`end_datetime`, NEW.`start_datetime`)
  WHERE `eventId` = NEW.`id`;
END;
