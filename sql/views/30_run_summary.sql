-- run_request_figures(run) over the whole of an ended run, kept in run_summary_figures once
-- computed and read back while nothing it was computed from has changed. Its mark: the run's row,
-- the writes of its requests (loadgen_spans) and the ids of the last writes (paasmon_data_writes)
-- of load-generator and router rows within the hour around its requests, where the join looks
-- for their records; and the digest of the view files applied. A live run is computed at each
-- call. SECURITY DEFINER, so that a role that may only read (a Grafana datasource) keeps what it
-- computed too. A call that may not write (a read-only transaction, a standby), or whose run
-- another transaction is storing, returns what it computed unstored: no reader waits for another.
CREATE OR REPLACE FUNCTION run_summary_request_figures(run bigint)
RETURNS SETOF run_summary_figures
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT AS $function$
DECLARE
  mark text;
  digest text := (SELECT v.digest FROM paasmon_view_files v);
  figures run_summary_figures;
BEGIN
  SELECT run_data_mark(t, tstzrange(sp.first_started_at - interval '1 hour', sp.last_started_at + interval '1 hour',
                                    '[]'), ARRAY['loadgen_requests', 'router_requests'])
    INTO mark
  FROM test_runs t CROSS JOIN loadgen_span(t.id) sp
  WHERE t.id = run AND t.ended_at IS NOT NULL;
  SELECT * INTO figures FROM run_summary_figures s
  WHERE s.run_id = run AND s.data_mark = mark AND s.view_digest = digest;
  IF FOUND THEN
    RETURN NEXT figures;
    RETURN;
  END IF;
  SELECT run, coalesce(mark, ''), coalesce(digest, ''), now(), f.requests, f.errors, f.first_sent, f.last_done,
         f.e2e_mean_ms, f.e2e_pct, f.e2e_max_ms, f.e2e_stddev_ms, f.router_records, f.router_mean_ms, f.router_pct
    INTO figures
  FROM run_request_figures(run) f;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF mark IS NOT NULL AND digest IS NOT NULL AND NOT current_setting('transaction_read_only')::boolean
     AND pg_try_advisory_xact_lock(hashtext('paasmon run summary'), hashint8(run)) THEN
    -- The run's lock taken, no other transaction writes its row until this one ends.
    DELETE FROM run_summary_figures s WHERE s.run_id = run;
    INSERT INTO run_summary_figures VALUES (figures.*);
  END IF;
  RETURN NEXT figures;
END
$function$;

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
-- asked for only: `WHERE run_id = 7` filters test_runs before the lateral call; an ended run's
-- figures as stored while its data is unchanged (run_summary_request_figures).
CROSS JOIN LATERAL run_summary_request_figures(t.id) lg
CROSS JOIN LATERAL (
  SELECT avg(u.cpu_percent) AS cpu_percent_avg, max(u.cpu_percent) AS cpu_percent_peak,
         avg(u.mem_bytes)::numeric AS mem_bytes_avg
  FROM app_usage(t.app_name, t.started_at, coalesce(t.ended_at, lg.last_done, now())) u
) c;
