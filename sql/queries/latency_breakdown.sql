-- Latency breakdown per run: where the time of a request goes, over the requests sent inside the
-- steady window that the router also logged (each request's own record: router_record, the first
-- of its correlation id), in ms:
--   outside_router = e2e - response_time   (client and network, outside gorouter)
--   in_gorouter    = gorouter_time         (gorouter's own work)
--   behind_router  = response_time - gorouter_time (the app and the hop to it)
-- Mean, p50 and p95 of each (percentile_cont). Requests without a router record are left out
-- (a run without router records gives one row of NULLs: run `paasmon ingest`, then correlate).
-- Parameters (psql :'name' style): runs = '{1,2,3}', trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT w.run_id,
       count(x.response_time_ms)                                                           AS matched,
       avg(l.duration_ms - x.response_time_ms)                                             AS outside_router_mean_ms,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY l.duration_ms - x.response_time_ms)    AS outside_router_p50_ms,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY l.duration_ms - x.response_time_ms)    AS outside_router_p95_ms,
       avg(x.gorouter_time_ms)                                                             AS in_gorouter_mean_ms,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY x.gorouter_time_ms)                    AS in_gorouter_p50_ms,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY x.gorouter_time_ms)                    AS in_gorouter_p95_ms,
       avg(x.response_time_ms - x.gorouter_time_ms)                                        AS behind_router_mean_ms,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY x.response_time_ms - x.gorouter_time_ms) AS behind_router_p50_ms,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY x.response_time_ms - x.gorouter_time_ms) AS behind_router_p95_ms
FROM steady_windows(:'runs'::bigint[], :'trim'::double precision) w
JOIN loadgen_requests l ON l.run_id = w.run_id AND l.started_at BETWEEN w.window_start AND w.window_end
LEFT JOIN LATERAL router_record(l.correlation_id, l.started_at) x ON true
GROUP BY w.run_id
ORDER BY w.run_id;
