-- A run's mark: md5 of its row, the count of its loadgen_spans rows and md5 of the ids of the
-- paasmon_data_writes rows of `tables` (every table when NULL) whose span meets `near`. The
-- settings pin the text of the run's row (time zone, date and number formats), so every session
-- computes the same mark.
CREATE OR REPLACE FUNCTION run_data_mark(t test_runs, near tstzrange, tables text[] DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE
SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET extra_float_digits = 1
AS $$
  SELECT md5(t::text)
         || ' ' || (SELECT count(*) FROM loadgen_spans s WHERE s.run_id = t.id)
         || ' ' || (SELECT coalesce(md5(string_agg(w.id::text, ',' ORDER BY w.id)), '') FROM paasmon_data_writes w
                    WHERE w.span && near AND (tables IS NULL OR w.table_name = ANY (tables)))
$$;

-- What the figures of each run were computed from, cheap to compute whatever the number of rows:
-- the run's own row (label, meta, instances, ... and its end), the writes of its load-generator
-- requests (a row of loadgen_spans per statement), and the ids of the last writes (migration 015,
-- paasmon_data_writes: a row per table and hour, day or all time, a new id at each write) into
-- any raw rows from 5 minutes before its start to 5 minutes after its end (by time only: a
-- request is matched by its correlation id whatever app name its router record carries). The
-- slack is the one correlate allows for the clocks of load generator and router; router records
-- further off change the figures but not the mark (`report --recompute`).
CREATE OR REPLACE FUNCTION run_data_marks(run_ids bigint[])
RETURNS TABLE (run_id bigint, data_mark text)
LANGUAGE sql STABLE AS $$
  SELECT t.id, run_data_mark(t, tstzrange(t.started_at - interval '5 minutes',
                                          coalesce(t.ended_at, 'infinity') + interval '5 minutes', '[]'))
  FROM test_runs t
  WHERE t.id = ANY (run_ids)
$$;
