-- Errors per run by kind and status over the steady window: one row per (run, outcome).
-- outcome: 'error:<kind>' for no response (status 0; kind timeout, refused, reset, ...),
-- 'status:<code>' for a 5xx; requests: how many; ratio: of all requests sent inside the window.
-- A run without errors has no row here. Parameters (psql :'name' style): runs = '{1,2,3}',
-- trim = fraction dropped at each end (0.1).
\if :{?trim}
\else
  \set trim 0.1
\endif
SELECT w.run_id,
       CASE WHEN l.status = 0 THEN 'error:' || coalesce(l.error, 'unknown') ELSE 'status:' || l.status END AS outcome,
       l.status, l.error,
       count(*)                                     AS requests,
       count(*)::double precision / max(n.requests) AS ratio
FROM steady_windows(:'runs'::bigint[], :'trim'::double precision) w
CROSS JOIN LATERAL (SELECT count(*) AS requests FROM loadgen_requests a
                    WHERE a.run_id = w.run_id AND a.started_at BETWEEN w.window_start AND w.window_end) n
JOIN loadgen_requests l ON l.run_id = w.run_id AND l.started_at BETWEEN w.window_start AND w.window_end
WHERE l.status = 0 OR l.status >= 500
GROUP BY w.run_id, l.status, l.error
ORDER BY w.run_id, requests DESC, outcome;
