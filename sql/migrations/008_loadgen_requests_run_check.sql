-- Up Migration
-- The foreign key to test_runs checked every row on its own (a query per row), a large part of
-- PostgreSQL's CPU per load-generator row (bench/loadgen.bench.js). The same rules, per statement:
-- one check per COPY page that each of its runs exists (and a lock on it, as the key took), and a
-- deleted run takes its rows along.
-- (Functions replaced and triggers dropped first: the schema may be made again after its tables
-- were dropped, which leaves functions behind.)
ALTER TABLE loadgen_requests DROP CONSTRAINT IF EXISTS loadgen_requests_run_id_fkey;

CREATE OR REPLACE FUNCTION loadgen_requests_check_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
BEGIN
  -- As a foreign key does: the runs stay until this transaction ends, so a run deleted meanwhile
  -- waits, and then takes these rows along instead of leaving them behind.
  PERFORM 1 FROM test_runs r WHERE r.id IN (SELECT DISTINCT run_id FROM new_rows) FOR KEY SHARE;
  SELECT n.run_id INTO missing
  FROM (SELECT DISTINCT run_id FROM new_rows) n
  WHERE NOT EXISTS (SELECT 1 FROM test_runs r WHERE r.id = n.run_id)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert into loadgen_requests: run % does not exist in test_runs', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS loadgen_requests_check_runs ON loadgen_requests;
CREATE TRIGGER loadgen_requests_check_runs AFTER INSERT ON loadgen_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loadgen_requests_check_runs();
-- Rows moved to another run are checked the same way (paasmon never does it; a user might).
DROP TRIGGER IF EXISTS loadgen_requests_check_moved_runs ON loadgen_requests;
CREATE TRIGGER loadgen_requests_check_moved_runs AFTER UPDATE ON loadgen_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loadgen_requests_check_runs();

CREATE OR REPLACE FUNCTION test_runs_delete_loadgen_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM loadgen_requests l USING old_runs o WHERE l.run_id = o.id;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS test_runs_delete_loadgen_requests ON test_runs;
CREATE TRIGGER test_runs_delete_loadgen_requests AFTER DELETE ON test_runs
  REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION test_runs_delete_loadgen_requests();

-- TRUNCATE test_runs (with CASCADE it emptied loadgen_requests through the key; without, it
-- failed): empties loadgen_requests, so a run numbered again never inherits old rows.
CREATE OR REPLACE FUNCTION test_runs_truncate_loadgen_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE loadgen_requests;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS test_runs_truncate_loadgen_requests ON test_runs;
CREATE TRIGGER test_runs_truncate_loadgen_requests AFTER TRUNCATE ON test_runs
  FOR EACH STATEMENT EXECUTE FUNCTION test_runs_truncate_loadgen_requests();

-- Down Migration
DROP TRIGGER IF EXISTS test_runs_truncate_loadgen_requests ON test_runs;
DROP FUNCTION IF EXISTS test_runs_truncate_loadgen_requests();
DROP TRIGGER IF EXISTS loadgen_requests_check_moved_runs ON loadgen_requests;
DROP TRIGGER IF EXISTS test_runs_delete_loadgen_requests ON test_runs;
DROP FUNCTION IF EXISTS test_runs_delete_loadgen_requests();
DROP TRIGGER IF EXISTS loadgen_requests_check_runs ON loadgen_requests;
DROP FUNCTION IF EXISTS loadgen_requests_check_runs();
ALTER TABLE loadgen_requests
  ADD CONSTRAINT loadgen_requests_run_id_fkey FOREIGN KEY (run_id) REFERENCES test_runs (id) ON DELETE CASCADE;
