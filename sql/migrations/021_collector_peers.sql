-- Up Migration
-- The collectors polling into this database now (collector/pipeline/claims.js): each renews its row
-- at every scheduled poll and deletes it when it stops; a row past expires_at is a collector that
-- crashed. Collectors of one watch (the same Cloud Controller, apps and schedule) divide the apps
-- among the rows of that watch not expired, so `cf scale` alone shares them.
CREATE TABLE IF NOT EXISTS collector_peers (
  peer       text        PRIMARY KEY,
  watch      text        NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE IF EXISTS collector_peers;
