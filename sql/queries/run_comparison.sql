-- Run comparison: every figure of each run over its steady window, one row per run.
-- Parameters (psql :'name' style): runs = '{1,2,3}' (run ids), trim = fraction dropped at each
-- end of a run (default 0.1).
-- Columns (units in the names): requests, successful (status 1..499), errors (no response or 5xx),
-- timeouts, error_ratio; throughput_rps / throughput_rpm = successful requests sent inside the
-- window per second / minute of it; e2e_* = the load generator's end-to-end time of every request
-- sent inside the window (percentile_cont: linear interpolation); router_* = gorouter's
-- response_time of the same requests joined on the correlation id, matched_ratio = the share
-- found; cpu_percent_avg / cpu_percent_peak = per sampling moment the sum over the app's instances
-- of the CPU in percent of ONE core (app_usage()), then mean / maximum over the window's moments;
-- cpu_capacity_percent =
-- instances x cores_per_instance x 100; cpu_utilization_percent = 100 x peak / capacity (table 7.1);
-- rpm_per_cpu_percent = throughput_rpm / cpu_percent_avg (table 7.2). Empty (NULL) where the data is
-- missing: no router records (run `paasmon ingest` and `paasmon correlate`) or no instance samples
-- (run `paasmon collect` during the run).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT *
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
ORDER BY run_id;
