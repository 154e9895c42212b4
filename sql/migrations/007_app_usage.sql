-- Up Migration
-- CPU and memory of an app summed over its instances at each moment a sample was taken, where
-- 005 summed the rows that share a timestamp. The Cloud Controller's poll gives every instance
-- the poll's time, so that was right for it; Log Cache gives each instance its own times, so a
-- "poll" held one instance and the app's CPU came out divided by its instance count (and CPU
-- efficiency multiplied by it). run_comparison and run_summary now read app_usage(); their
-- columns are unchanged.

-- One row per sampling moment of the app in [from_ts, to_ts] (a time any of its instances
-- reported CPU): the sum over its instances of each one's latest report at or before that moment.
-- - A report is a sample with CPU, or one of an instance not running (its CPU counts as nothing
--   from then on); a sample without CPU of a running instance (Log Cache sends cpu_entitlement
--   apart from cpu) is not a report and hides nothing.
-- - An instance's latest report counts while it is at most twice that instance's usual interval
--   old (the median gap between its reports, from 5 minutes before the range; 5 minutes when it
--   has reported only once), so an instance that stopped reporting (crashed, scaled down) drops
--   out instead of being carried forward.
-- - A moment where two or more instances reported at once is a poll (the Cloud Controller gives every
--   instance the poll's time): only the reports of that poll count, as in 005, so an instance gone
--   from the poll is gone at once. Log Cache reports of two instances in the same millisecond are
--   taken for such a poll too (rare: a moment's sum is then short of the others).
-- cpu_percent: percent of ONE core; mem_bytes: bytes, of the instances whose CPU counted;
-- instances: how many were summed.
CREATE OR REPLACE FUNCTION app_usage(app text, from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (ts timestamptz, instances bigint, cpu_percent double precision, mem_bytes double precision)
LANGUAGE sql STABLE AS $$
  WITH reported AS (
    SELECT s.app_guid, s.process_type, s.instance_index, s.ts
    FROM instance_samples s
    WHERE s.app_name = app AND s.ts BETWEEN from_ts - interval '5 minutes' AND to_ts AND s.cpu_percent IS NOT NULL
  ), members AS (
    SELECT r.app_guid, r.process_type, r.instance_index,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.gap) AS usual_gap
    FROM (SELECT reported.*,
                 ts - lag(ts) OVER (PARTITION BY app_guid, process_type, instance_index ORDER BY ts) AS gap
          FROM reported) r
    GROUP BY r.app_guid, r.process_type, r.instance_index
  ), moments AS (
    SELECT r.ts, count(*) AS reports FROM reported r WHERE r.ts >= from_ts GROUP BY r.ts
  )
  SELECT m.ts, count(latest.cpu_percent), sum(latest.cpu_percent),
         (sum(latest.mem_bytes) FILTER (WHERE latest.cpu_percent IS NOT NULL))::double precision
  FROM moments m
  CROSS JOIN members i
  CROSS JOIN LATERAL (
    SELECT x.cpu_percent, x.mem_bytes FROM instance_samples x
    WHERE x.app_guid = i.app_guid AND x.process_type = i.process_type AND x.instance_index = i.instance_index
      AND (x.cpu_percent IS NOT NULL OR x.state <> 'RUNNING')
      AND x.ts <= m.ts
      AND x.ts >= CASE WHEN m.reports > 1 THEN m.ts
                       ELSE m.ts - coalesce(2 * i.usual_gap, interval '5 minutes') END
    ORDER BY x.ts DESC LIMIT 1
  ) latest
  GROUP BY m.ts
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
    SELECT count(*) AS polls, avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
           avg(u.mem_bytes) AS mem_bytes_avg, max(u.mem_bytes) AS mem_bytes_peak
    FROM app_usage(t.app_name, w.window_start, w.window_end) u
  ) c
  ORDER BY t.id
$$;

CREATE OR REPLACE VIEW run_summary AS
SELECT t.id                                                              AS run_id,
       t.label,
       lg.requests,
       lg.errors,
       lg.errors::double precision / nullif(lg.requests, 0)              AS error_ratio,
       extract(epoch FROM lg.last_done - lg.first_sent)::double precision AS duration_s,
       (lg.requests - lg.errors)
         / nullif(extract(epoch FROM lg.last_done - lg.first_sent)::double precision, 0)   AS throughput_rps,
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
  SELECT avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
         avg(u.mem_bytes)::numeric AS mem_bytes_avg
  FROM app_usage(t.app_name, t.started_at, coalesce(t.ended_at, lg.last_done, now())) u
) c;


-- Figures stored by earlier reports were computed the old way; the reports' mark names the latest
-- migration, so they would not be read again: they go now instead of at their run's next report.
DELETE FROM run_report_figures;

-- Down Migration
-- Nothing: run_summary depends on app_usage, and 005's definitions come back by migrating 005
-- down and up again.
