-- Up Migration
-- A request's router record is the router's FIRST record of its correlation id. An app that
-- forwards the header on a call of its own through the router (to another app, or to itself) gives
-- the id a second record, received after the first and usually shorter. Until now the lookups took
-- whichever record the index or the table gave first (LIMIT 1 without ORDER BY), and
-- correlated_requests joined both (the request counted twice). Every lookup goes through
-- router_record now; the columns of the two views and the function are unchanged.

-- The router record of a load-generator request: the earliest received with its correlation id;
-- ties (the same received_at) go by the rest of the unique key, so the pick is always the same.
-- received_at is the clock of the gorouter that logged the record: a nested call through another
-- gorouter whose clock is behind by more than the time the app took before making it would be
-- picked instead (NTP keeps the routers' clocks within a few ms).
-- A plain SQL function, so PostgreSQL inlines it where it is used: a lookup through the
-- correlation id index, and a sort of the few records found; it costs run_summary and the
-- report's first computation of a run a little time (bench/report.bench.js, before and after).
CREATE OR REPLACE FUNCTION router_record(correlation text)
RETURNS SETOF router_requests
LANGUAGE sql STABLE AS $$
  SELECT * FROM router_requests r
  WHERE r.correlation_id = correlation
  ORDER BY r.received_at, r.vcap_request_id, r.app_guid
  LIMIT 1
$$;

-- Every load-generator request the router also logged, with its router record (003's columns).
CREATE OR REPLACE VIEW correlated_requests AS
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
CROSS JOIN LATERAL router_record(l.correlation_id) r;

-- 007's definitions, with their lookups through router_record.
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
  -- its record up through the correlation id index (router_record: one record per request, and a
  -- cost in proportion to the run, never a scan of every run's router records).
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
    LEFT JOIN LATERAL router_record(l.correlation_id) x ON true
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
  LEFT JOIN LATERAL router_record(l.correlation_id) x ON true
  WHERE l.run_id = t.id
) lg
CROSS JOIN LATERAL (
  SELECT avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
         avg(u.mem_bytes)::numeric AS mem_bytes_avg
  FROM app_usage(t.app_name, t.started_at, coalesce(t.ended_at, lg.last_done, now())) u
) c;

-- Figures stored by earlier reports may hold the other record's times: they go now instead of at
-- their run's next report (their mark names an earlier migration, so they would not be read again).
DELETE FROM run_report_figures;

-- Down Migration
-- Nothing: the views and the function above use router_record, and a pick of any record is not
-- wanted back.
