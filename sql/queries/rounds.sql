-- Rounds: runs of one setting (same label, app, implementation, instances, parallel, cores per
-- instance) repeated, with the mean and the 95 % confidence interval of the mean, Student t with
-- n - 1 degrees of freedom: mean +- student_t_975(n - 1) x stddev_samp / sqrt(n). *_ci95 is that
-- half-width (NULL for a single round).
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT label, app_name, implementation, instances, parallel, cores_per_instance,
       count(*)                                                             AS rounds,
       array_agg(run_id ORDER BY run_id)                                    AS run_ids,
       avg(throughput_rps)                                                  AS throughput_rps_mean,
       student_t_975(count(throughput_rps)::int - 1) * stddev_samp(throughput_rps) / sqrt(count(throughput_rps))
                                                                            AS throughput_rps_ci95,
       avg(e2e_mean_ms)                                                     AS e2e_mean_ms_mean,
       student_t_975(count(e2e_mean_ms)::int - 1) * stddev_samp(e2e_mean_ms) / sqrt(count(e2e_mean_ms))
                                                                            AS e2e_mean_ms_ci95,
       avg(e2e_p95_ms)                                                      AS e2e_p95_ms_mean,
       student_t_975(count(e2e_p95_ms)::int - 1) * stddev_samp(e2e_p95_ms) / sqrt(count(e2e_p95_ms))
                                                                            AS e2e_p95_ms_ci95,
       avg(cpu_percent_avg)                                                 AS cpu_percent_avg_mean,
       student_t_975(count(cpu_percent_avg)::int - 1) * stddev_samp(cpu_percent_avg) / sqrt(count(cpu_percent_avg))
                                                                            AS cpu_percent_avg_ci95,
       avg(rpm_per_cpu_percent)                                             AS rpm_per_cpu_percent_mean,
       student_t_975(count(rpm_per_cpu_percent)::int - 1) * stddev_samp(rpm_per_cpu_percent) / sqrt(count(rpm_per_cpu_percent))
                                                                            AS rpm_per_cpu_percent_ci95
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
GROUP BY label, app_name, implementation, instances, parallel, cores_per_instance
ORDER BY label, implementation, instances, parallel;
