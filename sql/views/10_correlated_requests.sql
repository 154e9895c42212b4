-- Every load-generator request the router also logged, with its router record (003's columns).
CREATE OR REPLACE VIEW correlated_requests AS
SELECT l.run_id,
       l.correlation_id,
       l.started_at,
       l.duration_ms                       AS e2e_ms,
       r.response_time_ms                  AS router_ms,
       r.gorouter_time_ms                  AS gorouter_ms,
       l.duration_ms - r.response_time_ms  AS overhead_ms,
       l.status,
       r.app_index
FROM loadgen_requests l
CROSS JOIN LATERAL router_record(l.correlation_id, l.started_at) r;
