-- CPU and memory per instance over each whole run (not trimmed), seconds since the run's start
-- (its first load-generator send), so runs overlay on one time axis. cpu_percent: percent of ONE
-- core; mem_bytes: bytes; repeated: true for a poll that answered the instance's previous reading
-- again (no new measurement). Polls where an instance had no numbers (not running) are left out.
-- Parameters (psql :'name' style): runs = '{1,2,3}'.
SELECT w.run_id, s.process_type, s.instance_index,
       extract(epoch FROM s.ts - w.span_start)::double precision AS t_s,
       s.cpu_percent, s.mem_bytes,
       -- read through jsonb, so the query also runs on a database from before migration 020
       (to_jsonb(s) ->> 'repeated')::boolean AS repeated
FROM steady_windows(:'runs'::bigint[], 0) w
JOIN test_runs t ON t.id = w.run_id
JOIN instance_samples s ON s.app_name = t.app_name AND s.ts BETWEEN w.span_start AND w.span_end
WHERE s.cpu_percent IS NOT NULL
ORDER BY w.run_id, s.process_type, s.instance_index, s.ts;
