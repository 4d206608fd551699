-- Events with an online location that have not ended, by when they end: the
-- search's "online" filter (lib/events/list.ts) reads them as a set of ids
-- from this index alone, where a test on each row walked would read every
-- row. Partial: most events are held only in person.
CREATE INDEX `events_online_last_idx` ON `events` (coalesce(`end_datetime`, `start_datetime`)) WHERE json_array_length(`online_locations`) > 0;
