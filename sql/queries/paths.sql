-- Latency by request path per run, from the router records of the requests sent inside the steady
-- window (each request's own record: router_record, the first of its correlation id): the 20
-- busiest paths of each run, with gorouter's response_time (ms, percentile_cont). A run without
-- router records has no row here.
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT run_id, path, requests, response_time_mean_ms, response_time_p95_ms
FROM (
  SELECT w.run_id, x.path,
         count(*)                                                                 AS requests,
         avg(x.response_time_ms)                                                  AS response_time_mean_ms,
         percentile_cont(0.95) WITHIN GROUP (ORDER BY x.response_time_ms)         AS response_time_p95_ms,
         row_number() OVER (PARTITION BY w.run_id ORDER BY count(*) DESC, x.path) AS busiest
  FROM steady_windows(:'runs'::bigint[], :'trim'::double precision) w
  JOIN loadgen_requests l ON l.run_id = w.run_id AND l.started_at BETWEEN w.window_start AND w.window_end
  JOIN LATERAL router_record(l.correlation_id, l.started_at) x ON true
  GROUP BY w.run_id, x.path
) p
WHERE busiest <= 20
ORDER BY run_id, requests DESC, path;
