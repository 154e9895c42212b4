-- Up Migration
-- Requests imported from other load tools' results (paasmon import): the tool that sent each one,
-- and what the tool recorded of it. NULL in the rows of paasmon's own load generator (its method
-- and URL are the run's). A row whose tool recorded no id carries a key derived from the file
-- (`row-<n>-<digest>`, collector/sources/load-results/records.js), never a router record's id.
ALTER TABLE loadgen_requests
  ADD COLUMN IF NOT EXISTS tool text,
  ADD COLUMN IF NOT EXISTS method text,
  ADD COLUMN IF NOT EXISTS url text,
  ADD COLUMN IF NOT EXISTS bytes bigint;

-- Down Migration
ALTER TABLE loadgen_requests
  DROP COLUMN IF EXISTS bytes,
  DROP COLUMN IF EXISTS url,
  DROP COLUMN IF EXISTS method,
  DROP COLUMN IF EXISTS tool;
