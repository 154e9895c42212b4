-- Stability per run over the steady window: how much the end-to-end time spreads.
-- e2e_stddev_ms (sample standard deviation), e2e_cv = stddev / mean (coefficient of variation),
-- p99_over_p50 = e2e_p99_ms / e2e_p50_ms (1 = flat; large = a long tail), timeouts, error_ratio.
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT run_id, label, requests, e2e_mean_ms, e2e_stddev_ms,
       e2e_stddev_ms / nullif(e2e_mean_ms, 0) AS e2e_cv,
       e2e_p50_ms, e2e_p99_ms,
       e2e_p99_ms / nullif(e2e_p50_ms, 0)     AS p99_over_p50,
       timeouts, errors, error_ratio
FROM run_comparison(:'runs'::bigint[], :'trim'::double precision)
ORDER BY run_id;
