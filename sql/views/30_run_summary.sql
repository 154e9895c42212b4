-- One row per test run: the thesis's tables 7.1 and 7.2 are rows of this view.
-- errors: no response (status 0) or a 5xx. throughput_rps: requests without error per second of
-- the run (first send to last response). Percentiles use percentile_cont (linear interpolation).
-- CPU: per poll, the sum over the app's instances (percent of one core), then averaged / maxed
-- over the polls inside the run. cpu_capacity_percent = instances x cores_per_instance x 100;
-- cpu_utilization = cpu_percent_peak / cpu_capacity_percent (table 7.1);
-- throughput_per_cpu_percent = throughput_rps / cpu_percent_avg (table 7.2).
CREATE OR REPLACE VIEW run_summary AS
SELECT t.id                                                              AS run_id,
       t.label,
       lg.requests,
       lg.errors,
       lg.errors::double precision / nullif(lg.requests, 0)              AS error_ratio,
       extract(epoch FROM lg.last_done - lg.first_sent)::double precision AS duration_s,
       (lg.requests - lg.errors)
         / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0)   AS throughput_rps,
       lg.e2e_mean_ms, lg.e2e_pct[1] AS e2e_p50_ms, lg.e2e_pct[3] AS e2e_p95_ms, lg.e2e_pct[4] AS e2e_p99_ms,
       lg.e2e_max_ms, lg.e2e_stddev_ms,
       lg.router_mean_ms, lg.router_pct[1] AS router_p50_ms, lg.router_pct[2] AS router_p95_ms,
       lg.router_pct[3] AS router_p99_ms,
       lg.router_records::double precision / nullif(lg.requests, 0)             AS matched_ratio,
       c.cpu_percent_avg,
       c.cpu_percent_peak,
       t.instances * t.cores_per_instance * 100                          AS cpu_capacity_percent,
       c.cpu_percent_peak / nullif(t.instances * t.cores_per_instance * 100, 0) AS cpu_utilization,
       c.mem_bytes_avg,
       ((lg.requests - lg.errors) / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0))
         / nullif(c.cpu_percent_avg, 0)                                   AS throughput_per_cpu_percent
FROM test_runs t
-- One pass over the run's requests with their router records (run_request_figures), for the run
-- asked for only: `WHERE run_id = 7` filters test_runs before the lateral call.
CROSS JOIN LATERAL run_request_figures(t.id) lg
CROSS JOIN LATERAL (
  SELECT avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
         avg(u.mem_bytes)::numeric AS mem_bytes_avg
  FROM app_usage(t.app_name, t.started_at, coalesce(t.ended_at, lg.last_done, now())) u
) c;
