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
  -- The run's span bounds the read to the partitions of its days (partition pruning).
  CROSS JOIN LATERAL loadgen_span(t.id) sp
  CROSS JOIN LATERAL (
    SELECT coalesce(min(l.started_at), t.started_at) AS span_start,
           coalesce(max(l.started_at + l.duration_ms * interval '1 millisecond'), t.ended_at, now()) AS span_end
    FROM loadgen_requests l
    WHERE l.run_id = t.id AND l.started_at BETWEEN sp.first_started_at AND sp.last_started_at
  ) s
  WHERE t.id = ANY (run_ids)
$$;
