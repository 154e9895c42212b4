-- A run's requests: first send, last response (started_at + duration_ms) and count (NULLs and 0
-- when it has none), read within its span (loadgen_span: only the partitions of its days). The
-- read is the function's RETURN QUERY, so a big run's is a parallel scan and aggregate even inside
-- a query that cannot run in parallel (run_report_parts, with the plpgsql run_request_figures).
CREATE OR REPLACE FUNCTION run_request_span(run bigint)
RETURNS TABLE (first_sent timestamptz, last_done timestamptz, requests bigint)
LANGUAGE plpgsql STABLE AS $function$
DECLARE
  span_first timestamptz;
  span_last timestamptz;
BEGIN
  SELECT sp.first_started_at, sp.last_started_at INTO span_first, span_last FROM loadgen_span(run) sp;
  -- EXECUTE: planned for this run's size each time, never a generic plan made for another run's.
  RETURN QUERY EXECUTE
    'SELECT min(l.started_at), max(l.started_at + l.duration_ms * interval ''1 millisecond''), count(*)
     FROM loadgen_requests l WHERE l.run_id = $1 AND l.started_at BETWEEN $2 AND $3'
    USING run, span_first, span_last;
END
$function$;

-- The steady window of each run: its span (first load-generator send to last response; without
-- load-generator records, the run's own start and end) less `trim_fraction` of it at each end, so
-- ramp-up and ramp-down do not count. trim_fraction 0 keeps the whole span; 0.1 drops the first
-- and last 10 %.
CREATE OR REPLACE FUNCTION steady_windows(run_ids bigint[], trim_fraction double precision DEFAULT 0.1)
RETURNS TABLE (run_id bigint, span_start timestamptz, span_end timestamptz, window_start timestamptz, window_end timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT t.id, s.span_start, s.span_end,
         s.span_start + (s.span_end - s.span_start) * trim_fraction,
         s.span_end - (s.span_end - s.span_start) * trim_fraction
  FROM test_runs t
  CROSS JOIN LATERAL (
    SELECT coalesce(r.first_sent, t.started_at) AS span_start, coalesce(r.last_done, t.ended_at, now()) AS span_end
    FROM run_request_span(t.id) r
  ) s
  WHERE t.id = ANY (run_ids)
$$;
