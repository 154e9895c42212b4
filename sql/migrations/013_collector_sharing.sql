-- Up Migration
-- Collectors side by side (collector/pipeline/claims.js). One row per watched app and scheduled
-- poll (the cron slot): the collector that inserts it polls that app for that slot, any other
-- finds it taken (INSERT .. ON CONFLICT DO NOTHING). Rows older than a day are removed as polls go.
CREATE TABLE IF NOT EXISTS poll_claims (
  app_guid   text        NOT NULL,
  slot       timestamptz NOT NULL,
  holder     text        NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_guid, slot)
);
CREATE INDEX IF NOT EXISTS poll_claims_slot ON poll_claims (slot);

-- Who reads and moves an incremental reader's checkpoint (router-log ingest, the followed file,
-- Log Cache) now: a lease renewed while the reader works and taken over once it expired. A page
-- moves its checkpoint only while its collector still holds the lease (exporters/postgres/claims.js).
CREATE TABLE IF NOT EXISTS checkpoint_holders (
  reader     text        PRIMARY KEY,
  holder     text        NOT NULL,
  held_until timestamptz NOT NULL
);

-- Down Migration
DROP TABLE IF EXISTS checkpoint_holders;
DROP TABLE IF EXISTS poll_claims;
