-- Scaling series: runs ordered by load, to see where throughput stops growing while latency
-- climbs (`paasmon report` fits the Universal Scalability Law to the same points).
-- Load: test_runs.parallel (requests in flight; with several load-generator workers, start the run
-- with their total) and instances (of the app). Per implementation, ordered by parallel, then
-- instances. Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT implementation, parallel, instances, run_id, label,
       throughput_rps, e2e_mean_ms, e2e_p95_ms, cpu_percent_avg, mem_bytes_avg
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
ORDER BY implementation, parallel, instances, run_id;
