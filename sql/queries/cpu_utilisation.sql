-- CPU utilisation (the thesis's table 7.1): how much of the CPU the instances may use they did use.
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
-- cpu_percent_peak: the highest sampling moment of the steady window, summed over the app's instances, in
-- percent of ONE core (229 = 2.29 cores). cpu_capacity_percent: instances x cores_per_instance x
-- 100 (a 4-core instance: 400). cpu_utilization_percent = 100 x peak / capacity; the thesis prints
-- it truncated (229 of 400 -> 57 %).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT run_id, label, implementation, instances, cores_per_instance,
       cpu_percent_peak, cpu_capacity_percent, cpu_utilization_percent, cpu_polls
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
ORDER BY implementation, instances, run_id;
