-- Up Migration
-- Comparing runs after the fact (sql/queries/, `paasmon report`), at a cost in proportion to the
-- runs asked for: every function here starts from the given run ids and reaches the request
-- tables through indexes that lead with the run (loadgen_requests' primary key) or the app and time
-- (instance_samples, router_requests), never through an aggregate over all runs.
-- CREATE OR REPLACE: a database whose tables were dropped and migrated again (functions are not
-- dropped with the tables they read) takes this migration again.

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
    SELECT coalesce(min(l.started_at), t.started_at) AS span_start,
           coalesce(max(l.started_at + l.duration_ms * interval '1 millisecond'), t.ended_at, now()) AS span_end
    FROM loadgen_requests l WHERE l.run_id = t.id
  ) s
  WHERE t.id = ANY (run_ids)
$$;

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
  cores_per_instance double precision, meta jsonb, window_start timestamptz, window_end timestamptz, window_s double precision,
  requests bigint, successful bigint, errors bigint, timeouts bigint, error_ratio double precision,
  throughput_rps double precision, throughput_rpm double precision,
  e2e_mean_ms double precision, e2e_p50_ms double precision, e2e_p90_ms double precision, e2e_p95_ms double precision,
  e2e_p99_ms double precision, e2e_max_ms double precision, e2e_stddev_ms double precision,
  router_records bigint, matched_ratio double precision, router_mean_ms double precision, router_p50_ms double precision,
  router_p95_ms double precision, router_p99_ms double precision, gorouter_mean_ms double precision,
  outside_router_mean_ms double precision, behind_router_mean_ms double precision,
  cpu_polls bigint, cpu_percent_avg double precision, cpu_percent_peak double precision, cpu_capacity_percent double precision,
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
  -- One pass over the window's requests with their router records (NULL when the router did not
  -- log them; ordered-set aggregates skip NULLs); one sort per latency column. Each request looks
  -- its record up through the correlation id index (LATERAL ... LIMIT 1: one record per request,
  -- and a cost in proportion to the run, never a scan of every run's router records).
  CROSS JOIN LATERAL (
    SELECT count(*)                                                       AS requests,
           count(*) FILTER (WHERE l.status BETWEEN 1 AND 499)             AS successful,
           count(*) FILTER (WHERE l.status = 0 OR l.status >= 500)        AS errors,
           count(*) FILTER (WHERE l.error = 'timeout')                    AS timeouts,
           avg(l.duration_ms)                                             AS e2e_mean_ms,
           percentile_cont(ARRAY[0.50, 0.90, 0.95, 0.99]) WITHIN GROUP (ORDER BY l.duration_ms) AS e2e_pct,
           max(l.duration_ms)                                             AS e2e_max_ms,
           stddev_samp(l.duration_ms)                                     AS e2e_stddev_ms,
           count(x.response_time_ms)                                      AS router_records,
           avg(x.response_time_ms)                                        AS router_mean_ms,
           percentile_cont(ARRAY[0.50, 0.95, 0.99]) WITHIN GROUP (ORDER BY x.response_time_ms) AS router_pct,
           avg(x.gorouter_time_ms)                                        AS gorouter_mean_ms,
           avg(l.duration_ms - x.response_time_ms)                        AS outside_router_mean_ms,
           avg(x.response_time_ms - x.gorouter_time_ms)                   AS behind_router_mean_ms
    FROM loadgen_requests l
    LEFT JOIN LATERAL (
      SELECT r.response_time_ms, r.gorouter_time_ms FROM router_requests r
      WHERE r.correlation_id = l.correlation_id LIMIT 1
    ) x ON true
    WHERE l.run_id = t.id AND l.started_at BETWEEN w.window_start AND w.window_end
  ) lg
  CROSS JOIN LATERAL (
    SELECT count(*) AS polls, avg(p.cpu) AS cpu_percent_avg, max(p.cpu) AS cpu_percent_peak,
           avg(p.mem) AS mem_bytes_avg, max(p.mem) AS mem_bytes_peak
    FROM (SELECT s.ts, sum(s.cpu_percent) AS cpu, sum(s.mem_bytes)::double precision AS mem
          FROM instance_samples s
          WHERE s.app_name = t.app_name AND s.ts BETWEEN w.window_start AND w.window_end AND s.cpu_percent IS NOT NULL
          GROUP BY s.ts) p
  ) c
  ORDER BY t.id
$$;

-- Two-sided 95 % quantile of Student's t with `df` degrees of freedom (t such that P(|T| <= t) =
-- 0.95), for confidence intervals of a mean over repeated runs: exact to 6 decimals up to 30
-- degrees of freedom, above that the Cornish-Fisher expansion (relative error below 1e-7).
CREATE OR REPLACE FUNCTION student_t_975(df integer)
RETURNS double precision
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN df IS NULL OR df < 1 THEN NULL
    WHEN df <= 30 THEN (ARRAY[12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
      2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024,
      2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230,
      2.042272]::double precision[])[df]
    ELSE z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2)
      + (3 * z ^ 7 + 19 * z ^ 5 + 17 * z ^ 3 - 15 * z) / (384 * df ^ 3)
      + (79 * z ^ 9 + 776 * z ^ 7 + 1482 * z ^ 5 - 1920 * z ^ 3 - 945 * z) / (92160 * df ^ 4)
  END
  FROM (SELECT 1.959963984540054::double precision AS z) normal
$$;

-- run_summary (whole run, migration 003) per run through lateral subqueries: `WHERE run_id = 7`
-- now reads run 7's rows only. Before, its loadgen CTE, referenced twice, was materialised for
-- every run in the database, a cost that grew with the database instead of with the run.
CREATE OR REPLACE VIEW run_summary AS
SELECT t.id                                                              AS run_id,
       t.label,
       lg.requests,
       lg.errors,
       lg.errors::double precision / nullif(lg.requests, 0)              AS error_ratio,
       extract(epoch FROM lg.last_done - lg.first_sent)::double precision AS duration_s,
       (lg.requests - lg.errors) / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0) AS throughput_rps,
       lg.e2e_mean_ms, lg.e2e_p50_ms, lg.e2e_p95_ms, lg.e2e_p99_ms, lg.e2e_max_ms, lg.e2e_stddev_ms,
       lg.router_mean_ms, lg.router_p50_ms, lg.router_p95_ms, lg.router_p99_ms,
       lg.matched::double precision / nullif(lg.requests, 0)             AS matched_ratio,
       c.cpu_percent_avg,
       c.cpu_percent_peak,
       t.instances * t.cores_per_instance * 100                          AS cpu_capacity_percent,
       c.cpu_percent_peak / nullif(t.instances * t.cores_per_instance * 100, 0) AS cpu_utilization,
       c.mem_bytes_avg,
       ((lg.requests - lg.errors) / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0))
         / nullif(c.cpu_percent_avg, 0)                                   AS throughput_per_cpu_percent
FROM test_runs t
-- One pass over the run's requests with their router records (NULL when not logged).
CROSS JOIN LATERAL (
  SELECT count(*)                                                        AS requests,
         count(*) FILTER (WHERE l.status = 0 OR l.status >= 500)         AS errors,
         min(l.started_at)                                               AS first_sent,
         max(l.started_at + l.duration_ms * interval '1 millisecond')    AS last_done,
         avg(l.duration_ms)                                              AS e2e_mean_ms,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY l.duration_ms)     AS e2e_p50_ms,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY l.duration_ms)     AS e2e_p95_ms,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY l.duration_ms)     AS e2e_p99_ms,
         max(l.duration_ms)                                              AS e2e_max_ms,
         stddev_samp(l.duration_ms)                                      AS e2e_stddev_ms,
         count(x.response_time_ms)                                       AS matched,
         avg(x.response_time_ms)                                         AS router_mean_ms,
         percentile_cont(0.50) WITHIN GROUP (ORDER BY x.response_time_ms) AS router_p50_ms,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY x.response_time_ms) AS router_p95_ms,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY x.response_time_ms) AS router_p99_ms
  FROM loadgen_requests l
  LEFT JOIN LATERAL (
    SELECT r.response_time_ms FROM router_requests r
    WHERE r.correlation_id = l.correlation_id LIMIT 1
  ) x ON true
  WHERE l.run_id = t.id
) lg
CROSS JOIN LATERAL (
  SELECT avg(p.cpu) AS cpu_percent_avg, max(p.cpu) AS cpu_percent_peak, avg(p.mem) AS mem_bytes_avg
  FROM (SELECT s.ts, sum(s.cpu_percent) AS cpu, sum(s.mem_bytes) AS mem
        FROM instance_samples s
        WHERE s.app_name = t.app_name AND s.cpu_percent IS NOT NULL
          AND s.ts >= t.started_at AND s.ts <= coalesce(t.ended_at, lg.last_done, now())
        GROUP BY s.ts) p
) c;

-- Down Migration
DROP FUNCTION IF EXISTS student_t_975(integer);
DROP FUNCTION IF EXISTS run_comparison(bigint[], double precision);
DROP FUNCTION IF EXISTS steady_windows(bigint[], double precision);
