-- A series federates only the occurrences inside a horizon (the setting
-- federation_series_horizon_days) and always its next one; the hourly job
-- announces the others as they come into range (lib/federation/publishing.ts).
-- `announced`: the event is Created to followers (while it is visible).
-- Every event until now was (each occurrence federated when laid out): 1.
-- The index holds the occurrences still to announce, for the hourly job.
ALTER TABLE `events` ADD `announced` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX `events_unannounced_idx` ON `events` (`start_datetime`) WHERE "events"."announced" = 0;
