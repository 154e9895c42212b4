-- What the figures of each run were computed from, cheap to compute (index-only counts): the
-- run's own row (label, meta, instances, ... and its end), its load-generator requests, the router
-- records of every app from 5 minutes before its start to 5 minutes after its end (by time only:
-- a request is matched by its correlation id whatever app name its router record carries), and the
-- instance samples of its app in that time. The slack is the one correlate allows for the clocks
-- of load generator and router; router records further off change the figures but not the mark
-- (`report --recompute`). The settings pin the text of the run's row (time zone, date and number
-- formats), so every client computes the same mark.
CREATE OR REPLACE FUNCTION run_data_marks(run_ids bigint[])
RETURNS TABLE (run_id bigint, data_mark text)
LANGUAGE sql STABLE
SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET extra_float_digits = 1
AS $$
  SELECT t.id,
         md5(t::text)
         || ' ' || (SELECT count(*) FROM loadgen_requests l, loadgen_span(t.id) sp
                    WHERE l.run_id = t.id AND l.started_at BETWEEN sp.first_started_at AND sp.last_started_at)
         || ' ' || (SELECT count(*) FROM router_requests r
                    WHERE r.received_at BETWEEN t.started_at - interval '5 minutes'
                                            AND coalesce(t.ended_at, 'infinity') + interval '5 minutes')
         || ' ' || (SELECT count(*) FROM instance_samples s
                    WHERE s.app_name = t.app_name
                      AND s.ts BETWEEN t.started_at - interval '5 minutes'
                                   AND coalesce(t.ended_at, 'infinity') + interval '5 minutes')
  FROM test_runs t
  WHERE t.id = ANY (run_ids)
$$;
