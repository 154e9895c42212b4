-- Up Migration
-- When the raw rows of each stretch of time last changed, so a run's data mark (run_data_marks) is
-- read from a few rows here instead of counting the run's requests: a row per write of
-- router_requests, loadgen_requests or instance_samples, with the span of times it wrote. The page
-- writer notes each page's span in the page's transaction before its COPY
-- (exporters/postgres/partitions.js noteWrite); any other statement on these tables is noted by
-- the triggers below as a write of all time, so nothing escapes the mark (statements on a partition
-- itself, as when rows move out of the default partition, change no run's data and are not noted).
-- Rows are only appended:
-- writers never wait for each other; prune removes the rows of the days it dropped.
CREATE TABLE IF NOT EXISTS paasmon_data_writes (
  id         bigint GENERATED ALWAYS AS IDENTITY,
  table_name text      NOT NULL,
  span       tstzrange NOT NULL
);
CREATE INDEX IF NOT EXISTS paasmon_data_writes_span ON paasmon_data_writes USING gist (span);

-- Notes a write of `tbl` with rows from first_ts to last_ts (NULLs: all time) and marks the
-- transaction's statements on `tbl` as noted, so the trigger adds nothing for them.
CREATE OR REPLACE FUNCTION paasmon_note_write(tbl text, first_ts timestamptz, last_ts timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO paasmon_data_writes (table_name, span) VALUES (tbl, tstzrange(first_ts, last_ts, '[]'));
  PERFORM set_config('paasmon.noted_writes',
                     coalesce(current_setting('paasmon.noted_writes', true), '') || ' ' || tbl || ' ', true);
END $$;

-- A statement on the table the transaction did not note: a write of all time.
CREATE OR REPLACE FUNCTION paasmon_data_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF position(' ' || TG_TABLE_NAME || ' ' IN coalesce(current_setting('paasmon.noted_writes', true), '')) = 0 THEN
    INSERT INTO paasmon_data_writes (table_name, span) VALUES (TG_TABLE_NAME, tstzrange(NULL, NULL));
  END IF;
  RETURN NULL;
END $$;

-- Statement triggers without transition tables: COPY keeps its multi-row inserts.
DROP TRIGGER IF EXISTS router_requests_data_written ON router_requests;
CREATE TRIGGER router_requests_data_written AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON router_requests
  FOR EACH STATEMENT EXECUTE FUNCTION paasmon_data_written();
DROP TRIGGER IF EXISTS loadgen_requests_data_written ON loadgen_requests;
CREATE TRIGGER loadgen_requests_data_written AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON loadgen_requests
  FOR EACH STATEMENT EXECUTE FUNCTION paasmon_data_written();
DROP TRIGGER IF EXISTS instance_samples_data_written ON instance_samples;
CREATE TRIGGER instance_samples_data_written AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON instance_samples
  FOR EACH STATEMENT EXECUTE FUNCTION paasmon_data_written();

-- Down Migration
DROP TRIGGER IF EXISTS router_requests_data_written ON router_requests;
DROP TRIGGER IF EXISTS loadgen_requests_data_written ON loadgen_requests;
DROP TRIGGER IF EXISTS instance_samples_data_written ON instance_samples;
DROP FUNCTION IF EXISTS paasmon_data_written();
DROP FUNCTION IF EXISTS paasmon_note_write(text, timestamptz, timestamptz);
DROP TABLE IF EXISTS paasmon_data_writes;
