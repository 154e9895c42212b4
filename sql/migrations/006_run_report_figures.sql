-- Up Migration
-- The report's figures of an ended run, kept once computed: a later `paasmon report` of the same
-- data reads them instead of aggregating every request again (seconds for a million-request run).
-- A stored row counts only while run_data_marks() gives the mark it was stored with; the tables it
-- counts are only ever added to, so any new row of the run changes its mark.

-- What the figures of each run were computed from, cheap to compute (index-only counts):
-- the run's own row (label, meta, instances, ... and its end), its load-generator requests, and
-- the router records and instance samples of its app from 5 minutes before its start to 5 minutes
-- after its end (the slack correlate allows for the clocks of load generator and router).
CREATE OR REPLACE FUNCTION run_data_marks(run_ids bigint[])
RETURNS TABLE (run_id bigint, data_mark text)
LANGUAGE sql STABLE AS $$
  SELECT t.id,
         md5(t::text)
         || ' ' || (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = t.id)
         || ' ' || (SELECT count(*) FROM router_requests r
                    WHERE r.app_name = t.app_name
                      AND r.received_at BETWEEN t.started_at - interval '5 minutes'
                                            AND coalesce(t.ended_at, 'infinity') + interval '5 minutes')
         || ' ' || (SELECT count(*) FROM instance_samples s
                    WHERE s.app_name = t.app_name
                      AND s.ts BETWEEN t.started_at - interval '5 minutes'
                                   AND coalesce(t.ended_at, 'infinity') + interval '5 minutes')
  FROM test_runs t
  WHERE t.id = ANY (run_ids)
$$;

-- figures: the run's rows of the sql/queries files the report reads, as JSON text (json, not
-- jsonb: the columns keep their order). trim_fraction: the steady window they were computed for.
CREATE TABLE IF NOT EXISTS run_report_figures (
  run_id        bigint NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
  trim_fraction double precision NOT NULL,
  data_mark     text NOT NULL,
  computed_at   timestamptz NOT NULL DEFAULT now(),
  figures       json NOT NULL,
  PRIMARY KEY (run_id, trim_fraction)
);

-- Down Migration
DROP TABLE IF EXISTS run_report_figures;
DROP FUNCTION IF EXISTS run_data_marks(bigint[]);
