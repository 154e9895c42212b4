-- Up Migration
-- A Cloud Controller poll between two of Diego's measurements of an instance answers its previous
-- reading again: such a row says the instance was there at that poll, but it is no new measurement
-- (app_usage counts each reading once, at the first poll that saw it).
-- true for such a row, NULL for a reading (every row stored before this migration).
ALTER TABLE instance_samples ADD COLUMN IF NOT EXISTS repeated boolean;

-- Down Migration
ALTER TABLE instance_samples DROP COLUMN IF EXISTS repeated;
