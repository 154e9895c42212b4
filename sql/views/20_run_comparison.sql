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
         (60 * lg.successful / nullif(w.window_s, 0)) / nullif(c.cpu_percent_avg, 0)
  FROM test_runs t
  JOIN (SELECT sw.*, extract(epoch FROM sw.window_end - sw.window_start)::double precision AS window_s
        FROM steady_windows(run_ids, trim_fraction) sw) w ON w.run_id = t.id
  -- One pass over the window's requests with their router records (run_request_figures).
  CROSS JOIN LATERAL run_request_figures(t.id, w.window_start, w.window_end) lg
  CROSS JOIN LATERAL (
    SELECT count(*) AS polls, avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
           avg(u.mem_bytes) AS mem_bytes_avg, max(u.mem_bytes) AS mem_bytes_peak
    FROM app_usage(t.app_name, w.window_start, w.window_end) u
  ) c
  ORDER BY t.id
$$;
