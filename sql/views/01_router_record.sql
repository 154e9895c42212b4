-- The router record of a load-generator request: the earliest received with its correlation id;
-- ties (the same received_at) go by the rest of the unique key, so the pick is always the same.
-- received_at is the clock of the gorouter that logged the record: a nested call through another
-- gorouter whose clock is behind by more than the time the app took before making it would be
-- picked instead (NTP keeps the routers' clocks within a few ms).
-- A plain SQL function, so PostgreSQL inlines it where it is used: a lookup through the
-- correlation id index, and a sort of the few records found. For a run of 1,000,000 requests
-- among 500,000 others (bench/report.bench.js, before and after): run_summary 3.5 s instead of
-- 3.2 s, the report's first computation of the run 7.0 s instead of 6.3 s.
CREATE OR REPLACE FUNCTION router_record(correlation text)
RETURNS SETOF router_requests
LANGUAGE sql STABLE AS $$
  SELECT * FROM router_requests r
  WHERE r.correlation_id = correlation
  ORDER BY r.received_at, r.vcap_request_id, r.app_guid
  LIMIT 1
$$;
