-- run_request_figures(run) over the whole of a run, from its stored figures (run_figures, trim 0:
-- the same requests) while they are current or the run was pruned, else computed now. Reads only,
-- so a read-only role (a Grafana datasource) gets the same answer.
CREATE OR REPLACE FUNCTION run_summary_request_figures(run bigint)
RETURNS TABLE (
  requests bigint, errors bigint, first_sent timestamptz, last_done timestamptz, e2e_mean_ms double precision,
  e2e_pct double precision[], e2e_max_ms double precision, e2e_stddev_ms double precision, router_records bigint,
  router_mean_ms double precision, router_pct double precision[], gorouter_mean_ms double precision
)
LANGUAGE plpgsql STABLE AS $function$
DECLARE
  r json;
BEGIN
  r := run_figures_stored(run, 0) -> 'runs' -> 0;
  IF r IS NULL THEN
    RETURN QUERY SELECT f.requests, f.errors, f.first_sent, f.last_done, f.e2e_mean_ms, f.e2e_pct, f.e2e_max_ms,
                        f.e2e_stddev_ms, f.router_records, f.router_mean_ms, f.router_pct, f.gorouter_mean_ms
                 FROM run_request_figures(run) f;
    RETURN;
  END IF;
  -- Over the whole run the steady window is the span of its requests: first send to last response.
  RETURN QUERY SELECT (r ->> 'requests')::bigint, (r ->> 'errors')::bigint,
    CASE WHEN (r ->> 'requests')::bigint > 0 THEN (r ->> 'window_start')::timestamptz END,
    CASE WHEN (r ->> 'requests')::bigint > 0 THEN (r ->> 'window_end')::timestamptz END,
    (r ->> 'e2e_mean_ms')::double precision,
    ARRAY[(r ->> 'e2e_p50_ms')::double precision, (r ->> 'e2e_p90_ms')::double precision,
          (r ->> 'e2e_p95_ms')::double precision, (r ->> 'e2e_p99_ms')::double precision],
    (r ->> 'e2e_max_ms')::double precision, (r ->> 'e2e_stddev_ms')::double precision,
    (r ->> 'router_records')::bigint, (r ->> 'router_mean_ms')::double precision,
    ARRAY[(r ->> 'router_p50_ms')::double precision, (r ->> 'router_p95_ms')::double precision,
          (r ->> 'router_p99_ms')::double precision],
    (r ->> 'gorouter_mean_ms')::double precision;
END
$function$;

-- One row per test run: the thesis's tables 7.1 and 7.2 are rows of this view.
-- errors: no response (status 0) or a 5xx. throughput_rps: requests without error per second of
-- the run (first send to last response). Percentiles use percentile_cont (linear interpolation).
-- CPU: per poll, the sum over the app's instances (percent of one core), then averaged / maxed
-- over the polls inside the run. cpu_capacity_percent = instances x cores_per_instance x 100;
-- cpu_utilization = cpu_percent_peak / cpu_capacity_percent (table 7.1);
-- throughput_per_cpu_percent = throughput_rps / cpu_percent_avg (table 7.2).
-- gorouter_mean_ms: the mean gorouter_time of the requests with a router record, the router's own
-- part of router_mean_ms (response_time); last, as a view gains columns only at its end.
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
         / nullif(c.cpu_percent_avg, 0)                                   AS throughput_per_cpu_percent,
       lg.gorouter_mean_ms
FROM test_runs t
-- One pass over the run's requests with their router records (run_request_figures), for the run
-- asked for only: `WHERE run_id = 7` filters test_runs before the lateral call; a run's figures
-- as stored while current (run_summary_request_figures).
CROSS JOIN LATERAL run_summary_request_figures(t.id) lg
CROSS JOIN LATERAL (
  SELECT avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
         avg(u.mem_bytes)::numeric AS mem_bytes_avg
  FROM app_usage(t.app_name, t.started_at, coalesce(t.ended_at, lg.last_done, now())) u
) c;
