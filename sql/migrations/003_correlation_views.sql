-- Up Migration
-- Correlation and run comparison, computed where the data is.

-- Every load-generator request the router also logged, joined on the correlation id.
-- e2e_ms: the load generator's end-to-end time; router_ms: gorouter's response_time (includes the
-- app); overhead_ms = e2e_ms - router_ms: network and client time outside the router.
CREATE VIEW correlated_requests AS
SELECT l.run_id,
       l.correlation_id,
       l.started_at,
       l.duration_ms                       AS e2e_ms,
       r.response_time_ms                  AS router_ms,
       r.gorouter_time_ms                  AS gorouter_ms,
       l.duration_ms - r.response_time_ms  AS overhead_ms,
       l.status,
       r.app_index
FROM loadgen_requests l
JOIN router_requests r ON r.correlation_id = l.correlation_id;

-- One row per test run: the thesis's tables 7.1 and 7.2 are rows of this view.
-- errors: no response (status 0) or a 5xx. throughput_rps: requests without error per second of
-- the run (first send to last response). Percentiles use percentile_cont (linear interpolation).
-- CPU: per poll, the sum over the app's instances (percent of one core), then averaged / maxed
-- over the polls inside the run. cpu_capacity_percent = instances x cores_per_instance x 100;
-- cpu_utilization = cpu_percent_peak / cpu_capacity_percent (table 7.1);
-- throughput_per_cpu_percent = throughput_rps / cpu_percent_avg (table 7.2).
CREATE VIEW run_summary AS
WITH loadgen AS (
  SELECT run_id,
         count(*)                                                        AS requests,
         count(*) FILTER (WHERE status = 0 OR status >= 500)             AS errors,
         min(started_at)                                                 AS first_sent,
         max(started_at + duration_ms * interval '1 millisecond')        AS last_done,
         avg(duration_ms)                                                AS e2e_mean_ms,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY duration_ms)       AS e2e_p50_ms,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms)       AS e2e_p95_ms,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms)       AS e2e_p99_ms,
         max(duration_ms)                                                AS e2e_max_ms,
         stddev_samp(duration_ms)                                        AS e2e_stddev_ms
  FROM loadgen_requests GROUP BY run_id
), router AS (
  SELECT run_id,
         count(*)                                                        AS matched,
         avg(router_ms)                                                  AS router_mean_ms,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY router_ms)         AS router_p50_ms,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY router_ms)         AS router_p95_ms,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY router_ms)         AS router_p99_ms
  FROM correlated_requests GROUP BY run_id
), per_poll AS (
  SELECT t.id AS run_id, s.ts, sum(s.cpu_percent) AS cpu_percent, sum(s.mem_bytes) AS mem_bytes
  FROM test_runs t
  LEFT JOIN loadgen lg ON lg.run_id = t.id
  JOIN instance_samples s ON s.app_name = t.app_name
   AND s.ts >= t.started_at AND s.ts <= coalesce(t.ended_at, lg.last_done, now())
   AND s.cpu_percent IS NOT NULL
  GROUP BY t.id, s.ts
), cpu AS (
  SELECT run_id, avg(cpu_percent) AS cpu_percent_avg, max(cpu_percent) AS cpu_percent_peak, avg(mem_bytes) AS mem_bytes_avg
  FROM per_poll GROUP BY run_id
)
SELECT t.id                                                              AS run_id,
       t.label,
       coalesce(lg.requests, 0)                                          AS requests,
       coalesce(lg.errors, 0)                                            AS errors,
       lg.errors::double precision / nullif(lg.requests, 0)              AS error_ratio,
       extract(epoch FROM lg.last_done - lg.first_sent)::double precision AS duration_s,
       (lg.requests - lg.errors) / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0) AS throughput_rps,
       lg.e2e_mean_ms, lg.e2e_p50_ms, lg.e2e_p95_ms, lg.e2e_p99_ms, lg.e2e_max_ms, lg.e2e_stddev_ms,
       r.router_mean_ms, r.router_p50_ms, r.router_p95_ms, r.router_p99_ms,
       coalesce(r.matched, 0)::double precision / nullif(lg.requests, 0) AS matched_ratio,
       c.cpu_percent_avg,
       c.cpu_percent_peak,
       t.instances * t.cores_per_instance * 100                          AS cpu_capacity_percent,
       c.cpu_percent_peak / nullif(t.instances * t.cores_per_instance * 100, 0) AS cpu_utilization,
       c.mem_bytes_avg,
       ((lg.requests - lg.errors) / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0))
         / nullif(c.cpu_percent_avg, 0)                                   AS throughput_per_cpu_percent
FROM test_runs t
LEFT JOIN loadgen lg ON lg.run_id = t.id
LEFT JOIN router r ON r.run_id = t.id
LEFT JOIN cpu c ON c.run_id = t.id;

-- Down Migration
DROP VIEW IF EXISTS run_summary;
DROP VIEW IF EXISTS correlated_requests;
