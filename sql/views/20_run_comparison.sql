-- One row per run over its steady window. The thesis's tables are columns of it:
--   throughput_rps       successful requests (a response with status 1..499) sent inside the window,
--                        per second of the window; throughput_rpm the same per minute.
--   cpu_percent_avg/peak per poll inside the window, the sum over the app's instances of
--                        cpu_percent (percent of ONE core), then the mean / the maximum over polls.
--   cpu_capacity_percent instances x cores_per_instance x 100.
--   cpu_utilization_percent  100 x cpu_percent_peak / cpu_capacity_percent (table 7.1).
--   rpm_per_cpu_percent  throughput_rpm / cpu_percent_avg: successful requests per minute per
--                        percent of one core (table 7.2's "normalized value").
-- Latency figures are over every request sent inside the window (errors included), in ms;
-- percentiles are percentile_cont (linear interpolation); router_* from the router records joined
-- on the correlation id; the latency breakdown's means: outside_router = e2e - response_time,
-- gorouter_mean = gorouter_time, behind_router = response_time - gorouter_time (percentiles of
-- these in sql/queries/latency_breakdown.sql). errors: no response (status 0) or a 5xx;
-- timeouts: error = 'timeout'.
-- run_comparison's rows and, with breakdowns, what `paasmon report` shows besides, from the same
-- pass over each run's requests (run_request_figures): error_rows and path_rows as
-- sql/queries/errors.sql and paths.sql give them, instance_rows as sql/queries/instance_series.sql
-- (JSON arrays of rows, in those files' column order and row order).
CREATE OR REPLACE FUNCTION run_report_parts(run_ids bigint[], trim_fraction double precision DEFAULT 0.1,
                                            breakdowns boolean DEFAULT true)
RETURNS TABLE (
  run_id bigint, label text, app_name text, implementation text, instances integer, parallel integer, round integer,
  cores_per_instance double precision, meta jsonb, window_start timestamptz, window_end timestamptz,
  window_s double precision,
  requests bigint, successful bigint, errors bigint, timeouts bigint, error_ratio double precision,
  throughput_rps double precision, throughput_rpm double precision,
  e2e_mean_ms double precision, e2e_p50_ms double precision, e2e_p90_ms double precision, e2e_p95_ms double precision,
  e2e_p99_ms double precision, e2e_max_ms double precision, e2e_stddev_ms double precision,
  router_records bigint, matched_ratio double precision, router_mean_ms double precision,
  router_p50_ms double precision,
  router_p95_ms double precision, router_p99_ms double precision, gorouter_mean_ms double precision,
  outside_router_mean_ms double precision, behind_router_mean_ms double precision,
  cpu_polls bigint, cpu_percent_avg double precision, cpu_percent_peak double precision,
  cpu_capacity_percent double precision,
  cpu_utilization_percent double precision, mem_bytes_avg double precision, mem_bytes_peak double precision,
  rpm_per_cpu_percent double precision,
  error_rows json, path_rows json, instance_rows json
)
LANGUAGE sql STABLE AS $$
  SELECT t.id, t.label, t.app_name, t.implementation, t.instances, t.parallel, t.round, t.cores_per_instance, t.meta,
         w.window_start, w.window_end, w.window_s,
         lg.requests, lg.successful, lg.errors, lg.timeouts, lg.errors::double precision / nullif(lg.requests, 0),
         lg.successful / nullif(w.window_s, 0), 60 * lg.successful / nullif(w.window_s, 0),
         lg.e2e_mean_ms, lg.e2e_pct[1], lg.e2e_pct[2], lg.e2e_pct[3], lg.e2e_pct[4], lg.e2e_max_ms, lg.e2e_stddev_ms,
         lg.router_records, lg.router_records::double precision / nullif(lg.requests, 0),
         lg.router_mean_ms, lg.router_pct[1], lg.router_pct[2], lg.router_pct[3], lg.gorouter_mean_ms,
         lg.outside_router_mean_ms, lg.behind_router_mean_ms,
         c.polls, c.cpu_percent_avg, c.cpu_percent_peak,
         t.instances * t.cores_per_instance * 100,
         100 * c.cpu_percent_peak / nullif(t.instances * t.cores_per_instance * 100, 0),
         c.mem_bytes_avg, c.mem_bytes_peak,
         (60 * lg.successful / nullif(w.window_s, 0)) / nullif(c.cpu_percent_avg, 0),
         lg.error_rows, lg.path_rows,
         CASE WHEN breakdowns THEN (
           SELECT coalesce(json_agg(json_build_object('run_id', t.id, 'process_type', s.process_type,
                                                      'instance_index', s.instance_index,
                                                      't_s', extract(epoch FROM s.ts - w.span_start)::double precision,
                                                      'cpu_percent', s.cpu_percent, 'mem_bytes', s.mem_bytes,
                                                      'repeated', s.repeated)
                                    ORDER BY s.process_type, s.instance_index, s.ts), '[]')
           FROM instance_samples s
           WHERE s.app_name = t.app_name AND s.ts BETWEEN w.span_start AND w.span_end AND s.cpu_percent IS NOT NULL)
         END
  FROM test_runs t
  -- The run's span and steady window as steady_windows() gives them, and its count of requests
  -- from the same read (run_request_figures needs it).
  CROSS JOIN LATERAL (
    SELECT coalesce(r.first_sent, t.started_at) AS span_start, coalesce(r.last_done, t.ended_at, now()) AS span_end,
           r.requests AS run_requests
    FROM run_request_span(t.id) r
  ) s
  CROSS JOIN LATERAL (
    SELECT s.span_start, s.span_end, s.span_start + (s.span_end - s.span_start) * trim_fraction AS window_start,
           s.span_end - (s.span_end - s.span_start) * trim_fraction AS window_end
  ) sw
  CROSS JOIN LATERAL (
    SELECT sw.*, extract(epoch FROM sw.window_end - sw.window_start)::double precision AS window_s
  ) w
  -- One pass over the window's requests with their router records (run_request_figures).
  CROSS JOIN LATERAL run_request_figures(t.id, w.window_start, w.window_end, breakdowns, s.run_requests) lg
  CROSS JOIN LATERAL (
    SELECT count(*) AS polls, avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
           avg(u.mem_bytes) AS mem_bytes_avg, max(u.mem_bytes) AS mem_bytes_peak
    FROM app_usage(t.app_name, w.window_start, w.window_end) u
  ) c
  WHERE t.id = ANY (run_ids)
  ORDER BY t.id
$$;

CREATE OR REPLACE FUNCTION run_comparison(run_ids bigint[], trim_fraction double precision DEFAULT 0.1)
RETURNS TABLE (
  run_id bigint, label text, app_name text, implementation text, instances integer, parallel integer, round integer,
  cores_per_instance double precision, meta jsonb, window_start timestamptz, window_end timestamptz,
  window_s double precision,
  requests bigint, successful bigint, errors bigint, timeouts bigint, error_ratio double precision,
  throughput_rps double precision, throughput_rpm double precision,
  e2e_mean_ms double precision, e2e_p50_ms double precision, e2e_p90_ms double precision, e2e_p95_ms double precision,
  e2e_p99_ms double precision, e2e_max_ms double precision, e2e_stddev_ms double precision,
  router_records bigint, matched_ratio double precision, router_mean_ms double precision,
  router_p50_ms double precision,
  router_p95_ms double precision, router_p99_ms double precision, gorouter_mean_ms double precision,
  outside_router_mean_ms double precision, behind_router_mean_ms double precision,
  cpu_polls bigint, cpu_percent_avg double precision, cpu_percent_peak double precision,
  cpu_capacity_percent double precision,
  cpu_utilization_percent double precision, mem_bytes_avg double precision, mem_bytes_peak double precision,
  rpm_per_cpu_percent double precision
)
LANGUAGE sql STABLE AS $$
  SELECT run_id, label, app_name, implementation, instances, parallel, round, cores_per_instance, meta,
         window_start, window_end, window_s, requests, successful, errors, timeouts, error_ratio,
         throughput_rps, throughput_rpm, e2e_mean_ms, e2e_p50_ms, e2e_p90_ms, e2e_p95_ms, e2e_p99_ms,
         e2e_max_ms, e2e_stddev_ms, router_records, matched_ratio, router_mean_ms, router_p50_ms,
         router_p95_ms, router_p99_ms, gorouter_mean_ms, outside_router_mean_ms, behind_router_mean_ms,
         cpu_polls, cpu_percent_avg, cpu_percent_peak, cpu_capacity_percent, cpu_utilization_percent,
         mem_bytes_avg, mem_bytes_peak, rpm_per_cpu_percent
  FROM run_report_parts(run_ids, trim_fraction, false)
$$;
