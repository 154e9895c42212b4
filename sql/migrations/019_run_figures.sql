-- Up Migration
-- A run's figures in one table, written when its data changes and only read by reports and
-- run_summary (docs/architecture.md, "A run's figures"; the functions are sql/views/25_run_figures.sql).
-- It replaces the figures of 006 (run_report_figures) and 018 (run_summary_figures) and the marks
-- of 015 (paasmon_data_writes): a write into a run's window now marks its row stale instead.

-- figures: a JSON array of {"trim": t, "data": the report's data of the run over the steady window
-- of trim t}; trim 0 (the whole run) is run_summary's. stale: something the figures were computed
-- from changed since. written_at: the last write noted, so upkeep waits until a run is quiet.
CREATE TABLE IF NOT EXISTS run_figures (
  run_id      bigint PRIMARY KEY REFERENCES test_runs (id) ON DELETE CASCADE,
  figures     json NOT NULL DEFAULT '[]',
  computed_at timestamptz,
  stale       boolean NOT NULL DEFAULT true,
  written_at  timestamptz NOT NULL DEFAULT now()
);

-- The figures kept so far, as they were: whether current is unknown (their marks go), so stale,
-- except a pruned run's, which are all it has. Every run has its row.
DO $$
BEGIN
  IF to_regclass('run_report_figures') IS NOT NULL THEN
    INSERT INTO run_figures (run_id, figures, computed_at, stale)
    SELECT f.run_id, json_agg(json_build_object('trim', f.trim_fraction, 'data', f.figures) ORDER BY f.trim_fraction),
           max(f.computed_at), NOT EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = f.run_id)
    FROM run_report_figures f GROUP BY f.run_id
    ON CONFLICT (run_id) DO NOTHING;
  END IF;
END $$;
INSERT INTO run_figures (run_id) SELECT t.id FROM test_runs t ON CONFLICT (run_id) DO NOTHING;

-- Every run has its row from the start, so a writer always finds (and locks) the row it marks.
CREATE OR REPLACE FUNCTION run_figures_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_figures (run_id) VALUES (NEW.id);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS test_runs_figures_created ON test_runs;
CREATE TRIGGER test_runs_figures_created AFTER INSERT ON test_runs
  FOR EACH ROW EXECUTE FUNCTION run_figures_created();

-- The run's own row is part of its figures (label, meta, instances, its start and end).
CREATE OR REPLACE FUNCTION run_figures_run_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE run_figures SET stale = true, written_at = now() WHERE run_id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS test_runs_figures_changed ON test_runs;
CREATE TRIGGER test_runs_figures_changed AFTER UPDATE ON test_runs
  FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW) EXECUTE FUNCTION run_figures_run_changed();

-- 015's note of a write (the page writer's, with the page's span; the triggers', of all time)
-- now marks the figures of the runs whose window it meets (run_figures_written).
CREATE OR REPLACE FUNCTION paasmon_note_write(tbl text, first_ts timestamptz, last_ts timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM paasmon_noting_writes(tbl);
  PERFORM run_figures_written(first_ts, last_ts);
END $$;

-- run_summary stands on a placeholder of the same columns (NULLs) while what it reads is replaced;
-- the view file puts its definition back in the same transaction, and its grants stay.
CREATE OR REPLACE FUNCTION paasmon_hold_run_summary() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('run_summary') IS NOT NULL THEN
    EXECUTE (SELECT 'CREATE OR REPLACE VIEW run_summary AS SELECT '
                    || string_agg(format('NULL::%s AS %I', format_type(a.atttypid, a.atttypmod), a.attname), ', '
                                  ORDER BY a.attnum)
             FROM pg_attribute a WHERE a.attrelid = 'run_summary'::regclass AND a.attnum > 0 AND NOT a.attisdropped);
  END IF;
END $$;
SELECT paasmon_hold_run_summary();
DROP FUNCTION IF EXISTS run_summary_request_figures(bigint);
DROP FUNCTION IF EXISTS run_data_marks(bigint[]);
DROP FUNCTION IF EXISTS run_data_mark(test_runs, tstzrange, text[]);
DROP TABLE IF EXISTS run_summary_figures;
DROP TABLE IF EXISTS run_report_figures;
DROP TABLE IF EXISTS paasmon_data_writes;
DROP SEQUENCE IF EXISTS paasmon_data_writes_id;

-- Down Migration
-- The tables of 006, 015 and 018 again, the stored figures back in run_report_figures (current
-- or not: the marks they had are gone, so only a pruned run's are read back), and 015's note.
SELECT paasmon_hold_run_summary();
DROP FUNCTION IF EXISTS run_summary_request_figures(bigint);
DROP FUNCTION IF EXISTS run_figures_read(bigint, double precision, boolean);
DROP FUNCTION IF EXISTS refresh_run_figures(bigint, double precision[]);
DROP FUNCTION IF EXISTS run_figures_current(bigint, double precision[]);
DROP FUNCTION IF EXISTS run_figures_stored(bigint, double precision);
DROP FUNCTION IF EXISTS run_figures_analyze(bigint);
DROP FUNCTION IF EXISTS run_report_data(bigint, double precision);
DROP FUNCTION IF EXISTS run_figures_written(timestamptz, timestamptz);
DROP FUNCTION IF EXISTS run_figures_window(test_runs);
CREATE TABLE run_report_figures (
  run_id        bigint NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
  trim_fraction double precision NOT NULL,
  data_mark     text NOT NULL,
  computed_at   timestamptz NOT NULL DEFAULT now(),
  figures       json NOT NULL,
  PRIMARY KEY (run_id, trim_fraction)
);
INSERT INTO run_report_figures (run_id, trim_fraction, data_mark, computed_at, figures)
SELECT f.run_id, (e ->> 'trim')::double precision, 'kept by migration 019', coalesce(f.computed_at, now()), e -> 'data'
FROM run_figures f CROSS JOIN LATERAL json_array_elements(f.figures) e;
CREATE TABLE run_summary_figures (
  run_id         bigint PRIMARY KEY REFERENCES test_runs (id) ON DELETE CASCADE,
  data_mark      text NOT NULL,
  view_digest    text NOT NULL,
  computed_at    timestamptz NOT NULL DEFAULT now(),
  requests       bigint,
  errors         bigint,
  first_sent     timestamptz,
  last_done      timestamptz,
  e2e_mean_ms    double precision,
  e2e_pct        double precision[],
  e2e_max_ms     double precision,
  e2e_stddev_ms  double precision,
  router_records bigint,
  router_mean_ms double precision,
  router_pct     double precision[]
);
CREATE SEQUENCE paasmon_data_writes_id;
CREATE TABLE paasmon_data_writes (
  table_name text      NOT NULL,
  span       tstzrange NOT NULL,
  id         bigint    NOT NULL,
  PRIMARY KEY (table_name, span)
);
CREATE INDEX paasmon_data_writes_span ON paasmon_data_writes USING gist (span);
CREATE OR REPLACE FUNCTION paasmon_note_write(tbl text, first_ts timestamptz, last_ts timestamptz)
RETURNS void LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  width text := CASE WHEN first_ts IS NULL OR last_ts IS NULL OR NOT isfinite(first_ts) OR NOT isfinite(last_ts)
                       THEN NULL
                     WHEN last_ts - first_ts <= interval '2 days' THEN 'hour'
                     WHEN last_ts - first_ts <= interval '62 days' THEN 'day' END;
BEGIN
  PERFORM paasmon_noting_writes(tbl);
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
DROP TRIGGER IF EXISTS test_runs_figures_changed ON test_runs;
DROP TRIGGER IF EXISTS test_runs_figures_created ON test_runs;
DROP FUNCTION IF EXISTS run_figures_run_changed();
DROP FUNCTION IF EXISTS run_figures_created();
DROP TABLE run_figures;
DROP FUNCTION paasmon_hold_run_summary();
