-- One row per ended run, one column per figure: the history `paasmon changes` finds change points
-- in, and that Apache Otava's PostgreSQL importer reads as it is (time_column started_at; a
-- query `SELECT * FROM run_history WHERE label = '...' ORDER BY started_at, run_id`). Figures
-- are run_summary's (whole run, no trim):
--   throughput_rps          successful requests per second of the run
--   e2e_mean/p50/p95/p99_ms the load generator's times of every request
--   outside_router_mean_ms  e2e mean minus the router's mean response_time (client and network; the
--                           requests without a router record count in the e2e mean only)
--   router_mean_ms          gorouter's mean response_time: the router and the app behind it
--   gorouter_mean_ms        gorouter's mean gorouter_time: the router's own part of it
--   behind_router_mean_ms   router_mean_ms minus gorouter_mean_ms: the app behind the router
--   error_ratio             errors (no response or a 5xx) / requests
--   cpu_ms_per_request      CPU time (ms of one core) per successful request: 10 x cpu_percent_avg / throughput_rps
--   mem_bytes_avg           memory summed over the app's instances, mean over the run's polls
-- outside_router_mean_ms + gorouter_mean_ms + behind_router_mean_ms = e2e_mean_ms: the three
-- layers of `paasmon compare`. The last two are last, as a view gains columns only at its end.
-- A figure without data (no router records, no instance samples) is NULL.
CREATE OR REPLACE VIEW run_history AS
SELECT t.id                                                     AS run_id,
       t.label,
       t.app_name,
       t.implementation,
       t.instances,
       t.parallel,
       t.cores_per_instance,
       t.round,
       t.started_at,
       t.ended_at,
       s.requests,
       s.matched_ratio,
       s.throughput_rps,
       s.e2e_mean_ms,
       s.e2e_p50_ms,
       s.e2e_p95_ms,
       s.e2e_p99_ms,
       s.e2e_mean_ms - s.router_mean_ms                         AS outside_router_mean_ms,
       s.router_mean_ms,
       s.error_ratio,
       10 * s.cpu_percent_avg / nullif(s.throughput_rps, 0)     AS cpu_ms_per_request,
       s.mem_bytes_avg::double precision                        AS mem_bytes_avg,
       s.gorouter_mean_ms,
       s.router_mean_ms - s.gorouter_mean_ms                    AS behind_router_mean_ms
FROM test_runs t
-- run_summary of this run only (its figures stored once the run ended), so that a filter on the
-- run's columns (label, app_name) chooses the runs before their figures are read.
CROSS JOIN LATERAL (SELECT * FROM run_summary rs WHERE rs.run_id = t.id) s
WHERE t.ended_at IS NOT NULL;
