-- Up Migration
-- When the raw rows of each stretch of time last changed, so a run's data mark (run_data_marks) is
-- read from a few rows here instead of counting the run's requests: a row per table and hour (a
-- day for writes wider than two days, all time for wider ones and for writes of unknown times)
-- holding the id drawn by the last write into it. The page writer says at the start of a page's
-- transaction that it notes its writes (paasmon_noting_writes) and notes the page's span as the
-- transaction's last statement (paasmon_note_write), so a row's lock is held only while the
-- transaction commits and concurrent writers never wait through each other's COPY. Any other
-- statement on router_requests, loadgen_requests or instance_samples is noted by the triggers
-- below as a write of all time, so nothing escapes the mark (statements on a partition itself, as
-- when rows move out of the default partition, change no run's data and are not noted). A row
-- updated after a mark was taken has a new id whichever transaction drew its id first: marks
-- list the ids, not their maximum.
CREATE SEQUENCE IF NOT EXISTS paasmon_data_writes_id;
CREATE TABLE IF NOT EXISTS paasmon_data_writes (
  table_name text      NOT NULL,
  span       tstzrange NOT NULL,
  id         bigint    NOT NULL,
  PRIMARY KEY (table_name, span)
);
CREATE INDEX IF NOT EXISTS paasmon_data_writes_span ON paasmon_data_writes USING gist (span);

-- The transaction's statements on `tbl` are noted by the writer (paasmon_note_write), not the trigger.
CREATE OR REPLACE FUNCTION paasmon_noting_writes(tbl text) RETURNS void LANGUAGE sql AS $$
  SELECT set_config('paasmon.noted_writes',
                    coalesce(current_setting('paasmon.noted_writes', true), '') || ' ' || tbl || ' ', true)
$$;

-- Notes a write of `tbl` with rows from first_ts to last_ts (a NULL: all time): a new id for each
-- hour it touches (each day when it spans more than two days; all time past 62 days).
CREATE OR REPLACE FUNCTION paasmon_note_write(tbl text, first_ts timestamptz, last_ts timestamptz)
RETURNS void LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  width text := CASE WHEN first_ts IS NULL OR last_ts IS NULL OR NOT isfinite(first_ts) OR NOT isfinite(last_ts)
                       THEN NULL
                     WHEN last_ts - first_ts <= interval '2 days' THEN 'hour'
                     WHEN last_ts - first_ts <= interval '62 days' THEN 'day' END;
BEGIN
  PERFORM paasmon_noting_writes(tbl);
  -- In the order of the rows' keys, so writers of several hours never wait for each other in a circle.
  INSERT INTO paasmon_data_writes (table_name, span, id)
  SELECT tbl, b.span, nextval('paasmon_data_writes_id')
  FROM (SELECT tstzrange(s, s + ('1 ' || width)::interval) AS span
        FROM generate_series(date_trunc(width, first_ts), date_trunc(width, last_ts), ('1 ' || width)::interval) s
        WHERE width IS NOT NULL
        UNION ALL
        SELECT tstzrange(NULL, NULL) WHERE width IS NULL) b
  ORDER BY b.span
  ON CONFLICT (table_name, span) DO UPDATE SET id = excluded.id;
END $$;

-- A statement on the table the transaction did not note: a write of all time.
CREATE OR REPLACE FUNCTION paasmon_data_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF position(' ' || TG_TABLE_NAME || ' ' IN coalesce(current_setting('paasmon.noted_writes', true), '')) = 0 THEN
    PERFORM paasmon_note_write(TG_TABLE_NAME, NULL, NULL);
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
DROP FUNCTION IF EXISTS paasmon_noting_writes(text);
DROP TABLE IF EXISTS paasmon_data_writes;
DROP SEQUENCE IF EXISTS paasmon_data_writes_id;
