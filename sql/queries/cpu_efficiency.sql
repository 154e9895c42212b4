-- CPU efficiency (the thesis's table 7.2): throughput normalised on the CPU it cost.
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
-- throughput_rpm: successful requests (status 1..499) sent inside the steady window per minute of
-- it (a one-minute run with 260701 successful requests: 260701). cpu_percent_avg: the mean over the
-- window's sampling moments of the CPU summed over the app's instances (app_usage()), in percent of
-- ONE core.
-- rpm_per_cpu_percent = throughput_rpm / cpu_percent_avg (260701 / 196 = 1330.1; the thesis
-- truncates to 1330). rps_per_cpu_percent is the same per second.
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT run_id, label, implementation, instances, cpu_percent_avg, successful, window_s,
       throughput_rpm, rpm_per_cpu_percent, throughput_rps / nullif(cpu_percent_avg, 0) AS rps_per_cpu_percent
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
ORDER BY implementation, instances, run_id;
