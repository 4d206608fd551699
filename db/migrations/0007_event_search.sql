-- Full-text search over events (lib/search.ts): an FTS5 index of the title,
-- the description as text (tags dropped, common entities decoded), the place's
-- name and address and the tag names; rowid = event id. Contentless (the text
-- stays in events only) with deletes by rowid; which column a word is in but
-- not where (searches are words, never phrases); prefix indexes for 1 and 2
-- characters. event_search_source computes the columns; triggers keep the
-- index in step within the writing statement. Tag changes only mark the event
-- in event_search_stale: a write's batch ends by emptying it, which refreshes
-- each marked event once.
CREATE VIEW `event_search_source` AS SELECT
  `e`.`id` AS `id`,
  `e`.`title` AS `title`,
  (SELECT trim(replace(replace(replace(replace(replace(replace(group_concat(CASE WHEN `h`.`key` = 0 THEN `h`.`value` ELSE substr(`h`.`value`, instr(`h`.`value`, '>') + 1) END, ' '), '&nbsp;', ' '), '&#39;', ''''), '&quot;', '"'), '&gt;', '>'), '&lt;', '<'), '&amp;', '&'))
    FROM json_each('[' || replace(json_quote(`e`.`description`), '<', '","') || ']') `h`) AS `description`,
  (SELECT `p`.`name` || ' ' || `p`.`address` FROM `places` `p` WHERE `p`.`id` = `e`.`placeId`) AS `place`,
  (SELECT group_concat(`t`.`tag`, ' ') FROM `event_tags` `et` JOIN `tags` `t` ON `t`.`id` = `et`.`tagId` WHERE `et`.`eventId` = `e`.`id`) AS `tags`
FROM `events` `e`;--> statement-breakpoint
CREATE VIRTUAL TABLE `event_search` USING fts5(`title`, `description`, `place`, `tags`, tokenize = 'unicode61 remove_diacritics 2 categories ''L* N* Co M*''', prefix = '1 2', content = '', contentless_delete = 1, detail = column);--> statement-breakpoint
INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source`;--> statement-breakpoint
INSERT INTO `event_search` (`event_search`) VALUES ('optimize');--> statement-breakpoint
CREATE TRIGGER `events_search_insert` AFTER INSERT ON `events` BEGIN
  INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source` WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `events_search_update` AFTER UPDATE OF `title`, `description`, `placeId` ON `events`
WHEN OLD.`title` IS NOT NEW.`title` OR OLD.`description` IS NOT NEW.`description` OR OLD.`placeId` IS NOT NEW.`placeId` BEGIN
  DELETE FROM `event_search` WHERE `rowid` = NEW.`id`;
  INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source` WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TABLE `event_search_stale` (
	`eventId` integer PRIMARY KEY NOT NULL
);--> statement-breakpoint
CREATE TRIGGER `events_search_delete` AFTER DELETE ON `events` BEGIN
  DELETE FROM `event_search` WHERE `rowid` = OLD.`id`;
  DELETE FROM `event_search_stale` WHERE `eventId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `event_tags_search_insert` AFTER INSERT ON `event_tags` BEGIN
  INSERT OR IGNORE INTO `event_search_stale` (`eventId`) VALUES (NEW.`eventId`);
END;--> statement-breakpoint
CREATE TRIGGER `event_tags_search_delete` AFTER DELETE ON `event_tags`
WHEN EXISTS (SELECT 1 FROM `events` WHERE `id` = OLD.`eventId`) BEGIN
  INSERT OR IGNORE INTO `event_search_stale` (`eventId`) VALUES (OLD.`eventId`);
END;--> statement-breakpoint
CREATE TRIGGER `event_search_stale_refresh` AFTER DELETE ON `event_search_stale` BEGIN
  DELETE FROM `event_search` WHERE `rowid` = OLD.`eventId`;
  INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source` WHERE `id` = OLD.`eventId`;
END;--> statement-breakpoint
CREATE TRIGGER `places_search_update` AFTER UPDATE OF `name`, `address` ON `places`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`address` IS NOT NEW.`address` BEGIN
  DELETE FROM `event_search` WHERE `rowid` IN (SELECT `id` FROM `events` WHERE `placeId` = NEW.`id`);
  INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source` WHERE `id` IN (SELECT `id` FROM `events` WHERE `placeId` = NEW.`id`);
END;--> statement-breakpoint
CREATE TRIGGER `tags_search_update` AFTER UPDATE OF `tag` ON `tags`
WHEN OLD.`tag` IS NOT NEW.`tag` BEGIN
  DELETE FROM `event_search` WHERE `rowid` IN (SELECT `eventId` FROM `event_tags` WHERE `tagId` = NEW.`id`);
  INSERT INTO `event_search` (`rowid`, `title`, `description`, `place`, `tags`) SELECT `id`, `title`, `description`, `place`, `tags` FROM `event_search_source` WHERE `id` IN (SELECT `eventId` FROM `event_tags` WHERE `tagId` = NEW.`id`);
END;
